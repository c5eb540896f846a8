package plots_test

import (
	"log"

	"github.com/warplab/warplab/lessons/cg"
	"github.com/warplab/warplab/plots"
)

// recordedCG is the CG lesson's recorded H200 run of stages 0–8 at 100³:
// measured numbers that never change, so the figures drawn from it change
// only when the figure code does.
func recordedCG() []*cg.StageResult {
	rs, err := cg.Recorded()
	if err != nil {
		log.Panic(err)
	}
	return rs
}

// CGTime stacks each stage's kernels, copies and the rest; here the
// recorded H200 run, in which stage 0 is the CPU and stage 2 copies
// everything every iteration.
func ExampleCGTime() {
	p, err := plots.CGTime(recordedCG())
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/cg_time.png", p, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// CGConvergence draws each stage's residual history; the recorded stages
// converge alike, so their lines lie on each other and only the dashes tell
// them apart.
func ExampleCGConvergence() {
	p, err := plots.CGConvergence(recordedCG())
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/cg_convergence.png", p, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

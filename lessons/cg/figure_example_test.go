package cg_test

import (
	"log"

	"testing"

	"github.com/warplab/warplab/lessons/cg"
	"github.com/warplab/warplab/plots/chart"
	"gonum.org/v1/plot/cmpimg"
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

// TimePlot stacks each stage's kernels, copies and the rest; here the
// recorded H200 run, in which stage 0 is the CPU and stage 2 copies
// everything every iteration.
func ExampleTimePlot() {
	p, err := cg.TimePlot(recordedCG())
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/time.png", p, chart.DefaultWidth, chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// ConvergencePlot draws each stage's residual history; the recorded stages
// converge alike, so their lines lie on each other and only the dashes tell
// them apart.
func ExampleConvergencePlot() {
	p, err := cg.ConvergencePlot(recordedCG())
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/convergence.png", p, chart.DefaultWidth, chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// The figures are compared, as pictures, with testdata/NAME_golden.png at
// cmpimg's default tolerance (every decoded pixel equal), as plots' are. A
// figure that changes on purpose gets new goldens from
//
//	go test ./lessons/cg -run Golden -regen
//
// and a person looks at them before they are committed.

func TestGoldenTimePlot(t *testing.T) { cmpimg.CheckPlot(ExampleTimePlot, t, "time.png") }

func TestGoldenConvergencePlot(t *testing.T) {
	cmpimg.CheckPlot(ExampleConvergencePlot, t, "convergence.png")
}

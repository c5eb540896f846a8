package timecheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/cg"
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/lessons/tiling"
	"github.com/warplab/warplab/sim"
)

// SimOptions say where the simulator finds what the recorded runs used.
type SimOptions struct {
	// Model is the simulated device ("h200", the GPU the runs were
	// recorded on, when empty).
	Model string
	// Matrices is the folder of the SuiteSparse .mtx files the spmv runs
	// named (a run whose file is missing is skipped, and says so).
	Matrices string
	// Only, when set, limits the simulation to runs it accepts; the others
	// are left without a modeled time (Skipped says why).
	Only func(Run) bool
	// Progress, when set, is told each group of runs as it starts.
	Progress func(what string)
}

// Simulate runs the simulator on the input of every run, from the lessons'
// PTX, one lesson call per group of runs (the spmv lesson on one matrix
// pair and configuration gives all its kernels), and fills in Modeled,
// ModeledKernel and Bound. CG runs one iteration of each stage (HPCCG's
// max_iter 2): every call of a kernel in the loop reads and writes the same
// sizes, so one iteration gives the per-call time of all. Where the number
// of launches a call makes varies (stage 6's ddot skips its partial kernel
// when updateXRDot left the partials), the modeled time per launch is
// taken at the recorded solve's launches per call (Run.LaunchesPerCall):
// the two simulated iterations are not the recorded 150's mix.
func Simulate(ctx context.Context, runs []Run, o SimOptions) error {
	if o.Model == "" {
		o.Model = "h200"
	}
	if _, err := sim.ModelByKey(o.Model); err != nil {
		return err
	}
	dev, err := gpuext.OpenWith("sim:"+o.Model, gpuext.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	groups := map[string][]int{}
	var order []string
	for i, r := range runs {
		if r.Lesson == "launch" {
			continue
		}
		if o.Only != nil && !o.Only(r) {
			runs[i].Skipped = "not selected"
			continue
		}
		k := r.Lesson + "|" + r.Input + "|" + r.Config
		if r.Lesson == "cg" {
			k = "cg|" + r.Input
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		idx := groups[k]
		first := runs[idx[0]]
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("%s %s (%s)", first.Lesson, first.Input, first.Config))
		}
		var err error
		switch first.Lesson {
		case "spmv":
			err = simSpMV(ctx, dev, runs, idx, o)
		case "tiling":
			err = simTiling(ctx, dev, runs, idx)
		case "cg":
			err = simCG(dev, runs, idx)
		default:
			err = fmt.Errorf("no simulation for lesson %q", first.Lesson)
		}
		if err != nil {
			for _, i := range idx {
				if runs[i].Modeled == 0 && runs[i].Skipped == "" {
					runs[i].Skipped = err.Error()
				}
			}
		}
	}
	return nil
}

func parseConfig(cfg string) map[string]int {
	out := map[string]int{}
	for _, part := range strings.Split(cfg, ",") {
		f := strings.Fields(part)
		if len(f) >= 2 {
			if v, err := strconv.Atoi(f[len(f)-1]); err == nil {
				out[strings.Join(f[:len(f)-1], " ")] = v
			} else if v, err := strconv.Atoi(f[1]); err == nil {
				out[f[0]] = v
			}
		}
	}
	return out
}

func simSpMV(ctx context.Context, dev *gpuext.Device, runs []Run, idx []int, o SimOptions) error {
	first := runs[idx[0]]
	c := parseConfig(first.Config)
	opts := spmv.Options{Unroll: c["unroll"], ProbeBlocks: c["probe"]}
	name, size, pair := strings.Cut(first.Input, " ")
	if pair && (name == "even" || name == "skewed") {
		rows, err := parseRows(size)
		if err != nil {
			return err
		}
		opts.Rows = rows
	} else {
		p := filepath.Join(o.Matrices, first.Input+".mtx")
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("matrix %s.mtx not found in %q", first.Input, o.Matrices)
		}
		opts.Matrix = p
	}
	res, err := spmv.Run(ctx, dev, opts)
	if err != nil {
		return err
	}
	for _, i := range idx {
		r := &runs[i]
		matrix := strings.Fields(r.Input)[0]
		for _, k := range res.Runs {
			if k.Matrix == matrix && k.Kernel == r.Kernel && k.Stats != nil {
				r.Modeled, r.ModeledKernel, r.ModeledGPU, r.Bound = k.Stats.Time.Seconds, k.Stats.Time.KernelSeconds, k.Stats.Time.GPUSeconds, k.Stats.Time.Bound
			}
		}
		if r.Modeled == 0 {
			r.Skipped = "the simulated lesson had no such run"
		}
	}
	return nil
}

func parseRows(s string) (int, error) {
	if e, ok := strings.CutPrefix(s, "2^"); ok {
		n, err := strconv.Atoi(e)
		if err != nil || n < 0 || n > 40 {
			return 0, fmt.Errorf("rows %q: want 2^k or a number", s)
		}
		return 1 << n, nil
	}
	return strconv.Atoi(s)
}

func simTiling(ctx context.Context, dev *gpuext.Device, runs []Run, idx []int) error {
	first := runs[idx[0]]
	c := parseConfig(first.Config)
	n, err := strconv.Atoi(strings.TrimPrefix(first.Input, "N="))
	if err != nil {
		return fmt.Errorf("tiling input %q: want N=<size>", first.Input)
	}
	res, err := tiling.Run(ctx, dev, tiling.Options{N: n, Tile: c["tile"], Coarse: c["coarse"], TransposeTile: c["transpose tile"],
		NoSweep: true, NoDemos: true})
	if err != nil {
		return err
	}
	for _, i := range idx {
		r := &runs[i]
		for _, k := range res.Runs {
			if k.Kernel == r.Kernel && k.Stats != nil {
				r.Modeled, r.ModeledKernel, r.ModeledGPU, r.Bound = k.Stats.Time.Seconds, k.Stats.Time.KernelSeconds, k.Stats.Time.GPUSeconds, k.Stats.Time.Bound
			}
		}
		if r.Modeled == 0 {
			r.Skipped = "the simulated lesson had no such run"
		}
	}
	return nil
}

func simCG(dev *gpuext.Device, runs []Run, idx []int) error {
	first := runs[idx[0]]
	n, err := strconv.Atoi(strings.TrimSuffix(first.Input, "³"))
	if err != nil {
		return fmt.Errorf("cg input %q: want <n>³", first.Input)
	}
	p, err := cg.Generate(cg.Cube(n), cg.GenOptions{})
	if err != nil {
		return err
	}
	stages := map[int]bool{}
	for _, i := range idx {
		stages[parseConfig(runs[i].Config)["stage"]] = true
	}
	for s := 1; s < cg.Stages; s++ {
		if !stages[s] {
			continue
		}
		res, err := cg.RunStage(dev, p, s, cg.RunOptions{MaxIter: 2})
		if err != nil {
			return err
		}
		for _, i := range idx {
			r := &runs[i]
			if parseConfig(r.Config)["stage"] != s {
				continue
			}
			name := strings.TrimPrefix(r.Kernel, fmt.Sprintf("stage %d ", s))
			if k, ok := res.Kernel(name); ok && k.Calls > 0 && k.Where == cg.WhereSim {
				// The simulated iterations are few: where a call's launches
				// vary (stage 6's ddot skips its partial after updateXRDot
				// left one), the recorded solve's launches per call apply.
				perCall := func(total float64) float64 {
					if r.LaunchesPerCall > 0 && k.Launches > 0 {
						return total / float64(k.Launches) * r.LaunchesPerCall
					}
					return total / float64(k.Calls)
				}
				r.Modeled, r.ModeledGPU, r.Bound = perCall(k.Seconds), perCall(k.GPUSeconds), BoundPerCall
			} else {
				r.Skipped = "the simulated stage ran no such kernel on the device"
			}
		}
	}
	return nil
}

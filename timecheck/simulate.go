package timecheck

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/all"
	"github.com/warplab/warplab/lessons/lesson"
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
// PTX, through each lesson's time-check cases (lesson.Lesson.TimeCheck, of
// the lessons in lessons/all): the runs of one lesson are grouped by its
// TimeCheck.Group (by default input and configuration: the spmv lesson on
// one matrix pair and configuration gives all its kernels; CG groups by
// grid) and each group is one TimeCheck.Model call, which fills in
// Modeled, ModeledKernel, ModeledGPU and Bound. A group whose lesson has no
// time check, or whose Model fails, is left unmodeled with the reason in
// Skipped.
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
	checks := map[string]*lesson.TimeCheck{}
	for _, l := range all.Lessons() {
		if l.TimeCheck != nil {
			checks[l.Name] = l.TimeCheck
		}
	}
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
		if tc := checks[r.Lesson]; tc != nil {
			k = r.Lesson + "|" + tc.GroupOf(timeCase(r))
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	env := lesson.TimeEnv{Matrices: o.Matrices}
	for _, k := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		idx := groups[k]
		first := runs[idx[0]]
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("%s %s (%s)", first.Lesson, first.Input, first.Config))
		}
		tc := checks[first.Lesson]
		if tc == nil {
			skip(runs, idx, fmt.Errorf("no simulation for lesson %q", first.Lesson))
			continue
		}
		cases := make([]lesson.TimeCase, len(idx))
		for j, i := range idx {
			cases[j] = timeCase(runs[i])
		}
		modeled, err := tc.Model(ctx, dev, cases, env)
		for j, i := range idx {
			if j >= len(modeled) {
				break
			}
			m, r := modeled[j], &runs[i]
			if m.Seconds > 0 {
				r.Modeled, r.ModeledKernel, r.ModeledGPU, r.Bound = m.Seconds, m.KernelSeconds, m.GPUSeconds, m.Bound
			}
			if m.Skipped != "" {
				r.Skipped = m.Skipped
			}
		}
		if err != nil {
			skip(runs, idx, err)
		}
	}
	return nil
}

// timeCase is what a lesson's time check is told of a recorded run.
func timeCase(r Run) lesson.TimeCase {
	return lesson.TimeCase{Input: r.Input, Config: r.Config, Kernel: r.Kernel, LaunchesPerCall: r.LaunchesPerCall}
}

// skip gives err as the reason to every run of idx left unmodeled.
func skip(runs []Run, idx []int, err error) {
	for _, i := range idx {
		if runs[i].Modeled == 0 && runs[i].Skipped == "" {
			runs[i].Skipped = err.Error()
		}
	}
}

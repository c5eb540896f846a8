package cg

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
)

// timeCheck models the lesson's recorded GPU runs for the time model's
// check: every stage recorded on one grid is one group, as one problem
// serves them all.
func timeCheck() *lesson.TimeCheck {
	return &lesson.TimeCheck{Group: func(c lesson.TimeCase) string { return c.Input }, Model: timeModel,
		Examples: []lesson.TimeCase{
			{Input: "8³", Config: "stage 1", Kernel: "stage 1 spmv", LaunchesPerCall: 1},
			{Input: "8³", Config: "stage 5", Kernel: "stage 5 ddot", LaunchesPerCall: 2},
		}}
}

// timeModel runs one iteration of each recorded stage (HPCCG's max_iter
// 2) on the cases' grid ("50³"): every call of a kernel in the loop reads
// and writes the same sizes, so one iteration gives the per-call time of
// all. Where the number of launches a call makes varies (stage 6's ddot
// skips its partial kernel when updateXRDot left the partials), the
// modeled time per launch is taken at the recorded solve's launches per
// call (TimeCase.LaunchesPerCall): the two simulated iterations are not
// the recorded 150's mix.
func timeModel(_ context.Context, dev *gpuext.Device, cases []lesson.TimeCase, _ lesson.TimeEnv) ([]lesson.Modeled, error) {
	first := cases[0]
	n, err := strconv.Atoi(strings.TrimSuffix(first.Input, "³"))
	if err != nil {
		return nil, fmt.Errorf("cg input %q: want <n>³", first.Input)
	}
	p, err := Generate(Cube(n), GenOptions{})
	if err != nil {
		return nil, err
	}
	stages := map[int]bool{}
	for _, tc := range cases {
		stages[lesson.ParseConfig(tc.Config)["stage"]] = true
	}
	out := make([]lesson.Modeled, len(cases))
	for s := 1; s < Stages; s++ {
		if !stages[s] {
			continue
		}
		res, err := RunStage(dev, p, s, RunOptions{MaxIter: 2})
		if err != nil {
			return out, err // the stages before keep their times
		}
		for i, tc := range cases {
			if lesson.ParseConfig(tc.Config)["stage"] != s {
				continue
			}
			name := strings.TrimPrefix(tc.Kernel, fmt.Sprintf("stage %d ", s))
			k, ok := res.Kernel(name)
			if !ok || k.Calls == 0 || k.Where != WhereSim {
				out[i].Skipped = "the simulated stage ran no such kernel on the device"
				continue
			}
			perCall := func(total float64) float64 {
				if tc.LaunchesPerCall > 0 && k.Launches > 0 {
					return total / float64(k.Launches) * tc.LaunchesPerCall
				}
				return total / float64(k.Calls)
			}
			out[i] = lesson.Modeled{Seconds: perCall(k.Seconds), GPUSeconds: perCall(k.GPUSeconds), Bound: lesson.BoundPerCall}
		}
	}
	return out, nil
}

package lesson

import (
	"context"
	"strconv"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// TimeCheck is how the time model's check (package timecheck) models a
// lesson's recorded GPU runs: the check reads the runs from evidence/,
// groups them with Group, and hands each group to Model, which runs the
// lesson on the simulator on the group's input and returns each run's
// modeled time. The check is generic over the lesson list; what a run's
// input and configuration mean, and which of the lesson's functions models
// them, is the lesson's.
type TimeCheck struct {
	// Group names the runs that one Model call models together (nil: one
	// input and configuration, which one lesson run gives all the kernels
	// of; see GroupOf).
	Group func(TimeCase) string
	// Model runs the lesson on dev (a simulator) for cases, one group,
	// and returns one Modeled per case, in order. With an error it may
	// return the cases it modeled before it (the others take the error as
	// the reason they have no time).
	Model func(ctx context.Context, dev *gpuext.Device, cases []TimeCase, env TimeEnv) ([]Modeled, error)
	// Examples are small cases in the recorded runs' words, quick on the
	// simulator, that lessontest.TimeCheck runs through Model: the
	// lesson's parsing of its inputs and configurations, tested without
	// the recorded runs' sizes.
	Examples []TimeCase
}

// GroupOf is the group of c: Group's, or by default its input and
// configuration.
func (tc *TimeCheck) GroupOf(c TimeCase) string {
	if tc.Group != nil {
		return tc.Group(c)
	}
	return c.Input + "|" + c.Config
}

// TimeCase is one kernel run a lesson timed on a GPU, as the time check
// recorded it: the lesson's own words for its input ("even 2^19",
// "rajat01", "N=512", "50³"), configuration ("unroll 4, probe 1056
// blocks") and kernel.
type TimeCase struct {
	Input, Config, Kernel string
	// LaunchesPerCall is the recorded run's kernel launches per call of
	// the operation (CG; 0 elsewhere).
	LaunchesPerCall float64
}

// TimeEnv is what the check's environment gives a lesson's Model.
type TimeEnv struct {
	// Matrices is the folder of the SuiteSparse .mtx files that recorded
	// runs name.
	Matrices string
}

// Modeled is the simulator's time for one TimeCase, or why there is none.
type Modeled struct {
	Seconds       float64 // per call, what the lesson prints
	KernelSeconds float64 // the kernel alone, cold caches (to compare with ncu)
	GPUSeconds    float64 // the GPU's time per launch before the host's launch interval
	Bound         string  // the model's bound
	Skipped       string  // why no modeled time (Seconds 0)
}

// BoundPerCall is the Bound of a run whose modeled time is a call's (CG's
// operations: one to three launches), not one launch's.
const BoundPerCall = "per call"

// ParseConfig reads a time case's configuration, "name value" pairs
// separated by commas ("unroll 4, probe 1056 blocks": unroll 4, probe
// 1056; "transpose tile 32": "transpose tile" 32), into a map; a part
// without a number is left out.
func ParseConfig(cfg string) map[string]int {
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

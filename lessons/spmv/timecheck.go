package spmv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
)

// timeCheck models the lesson's recorded GPU runs for the time model's
// check: one lesson run per matrix pair (or SuiteSparse matrix) and
// configuration gives all its kernels.
func timeCheck() *lesson.TimeCheck {
	const cfg = "unroll 1, probe 64 blocks"
	return &lesson.TimeCheck{Model: timeModel, Examples: []lesson.TimeCase{
		{Input: "even 2^10", Config: cfg, Kernel: "thread_per_row"},
		{Input: "skewed 2^10", Config: cfg, Kernel: "warp_per_row"},
		{Input: "even 2^10", Config: cfg, Kernel: "probe"},
	}}
}

// timeModel runs the lesson on dev on the cases' input ("even 2^19": the
// seed pair at that size; otherwise a SuiteSparse matrix found in
// env.Matrices) with their unroll and probe configuration.
func timeModel(ctx context.Context, dev *gpuext.Device, cases []lesson.TimeCase, env lesson.TimeEnv) ([]lesson.Modeled, error) {
	first := cases[0]
	c := lesson.ParseConfig(first.Config)
	opts := Options{Unroll: c["unroll"], ProbeBlocks: c["probe"]}
	name, size, pair := strings.Cut(first.Input, " ")
	if pair && (name == "even" || name == "skewed") {
		rows, err := parseRows(size)
		if err != nil {
			return nil, err
		}
		opts.Rows = rows
	} else {
		p := filepath.Join(env.Matrices, first.Input+".mtx")
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("matrix %s.mtx not found in %q", first.Input, env.Matrices)
		}
		opts.Matrix = p
	}
	res, err := Run(ctx, dev, opts)
	if err != nil {
		return nil, err
	}
	out := make([]lesson.Modeled, len(cases))
	for i, tc := range cases {
		matrix := strings.Fields(tc.Input)[0]
		for _, k := range res.Runs {
			if k.Matrix == matrix && k.Kernel == tc.Kernel && k.Stats != nil {
				t := k.Stats.Time
				out[i] = lesson.Modeled{Seconds: t.Seconds, KernelSeconds: t.KernelSeconds, GPUSeconds: t.GPUSeconds, Bound: t.Bound}
			}
		}
		if out[i].Seconds == 0 {
			out[i].Skipped = "the simulated lesson had no such run"
		}
	}
	return out, nil
}

// parseRows reads a recorded size, "2^19" or a number.
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

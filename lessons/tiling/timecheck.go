package tiling

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
)

// timeCheck models the lesson's recorded GPU runs for the time model's
// check: one lesson run (no sweep, no demos) per N and configuration gives
// all its kernels.
func timeCheck() *lesson.TimeCheck {
	const cfg = "tile 16, coarse 4, transpose tile 32"
	return &lesson.TimeCheck{Model: timeModel, Examples: []lesson.TimeCase{
		{Input: "N=64", Config: cfg, Kernel: "matmulTiled"},
		{Input: "N=64", Config: cfg, Kernel: "spmvCsrThread"},
	}}
}

// timeModel runs the lesson on dev at the cases' N ("N=512") with their
// tile, coarsening and transpose tile.
func timeModel(ctx context.Context, dev *gpuext.Device, cases []lesson.TimeCase, _ lesson.TimeEnv) ([]lesson.Modeled, error) {
	first := cases[0]
	c := lesson.ParseConfig(first.Config)
	n, err := strconv.Atoi(strings.TrimPrefix(first.Input, "N="))
	if err != nil {
		return nil, fmt.Errorf("tiling input %q: want N=<size>", first.Input)
	}
	res, err := Run(ctx, dev, Options{N: n, Tile: c["tile"], Coarse: c["coarse"], TransposeTile: c["transpose tile"],
		NoSweep: true, NoDemos: true})
	if err != nil {
		return nil, err
	}
	out := make([]lesson.Modeled, len(cases))
	for i, tc := range cases {
		for _, k := range res.Runs {
			if k.Kernel == tc.Kernel && k.Stats != nil {
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

package sim

import (
	"fmt"
	"regexp"
)

// The block-dispatch constants (issue 27, milestone 3), from the dispatch
// microbenchmark (scripts/evidence/timemodel/dispatch.cu, recorded on the
// H200 as evidence/timemodel-dispatch-h200-2026-12-04, whose dispatch.csv
// is embedded as sim/calibration/<key>-dispatch.csv, a byte-for-byte copy
// TestDispatchCalibrationCopy holds to the recorded file). None is set
// from a sweep or lesson run.

// dispatchFile is the embedded copy of model key's dispatch run.
func dispatchFile(key string) string { return key + "-dispatch" }

// dispatchThreadsPerSM is what dispatch.cu fills an SM with: a wave of T
// threads a block is 2048/T blocks an SM.
const dispatchThreadsPerSM = 2048

var dispatchParam = regexp.MustCompile(`^(\d+)t x (\d+) waves$`)

// applyDispatch sets BlockDispatch and LaunchOverhead from the
// dispatch_empty rows: grids of empty blocks, 64 to 1,024 threads, one to
// 64 waves, each row the GPU's own time per launch. The least-squares line
// through (blocks, time) has the blocks' cost as its slope (BlockDispatch:
// the GPU hands out one block per slope, whatever the block's size) and
// a launch's fixed cost as its intercept (LaunchOverhead, which until
// this run was microbench.cu's launch_gpu_grid: a launch of one wave,
// which holds that wave's blocks' dispatch too). Fewer than three rows, or
// a slope or intercept out of range, leave both as they were.
func applyDispatch(m Model, rows []MicrobenchRow) Model {
	var xs, ys []float64
	for _, r := range rows {
		if r.Name != "dispatch_empty" || r.Unit != "us" {
			continue
		}
		p, ok := paramInts(dispatchParam, r.Param)
		if !ok {
			continue
		}
		threads, waves := p[0], p[1]
		if threads <= 0 || threads > dispatchThreadsPerSM {
			continue
		}
		xs = append(xs, float64(waves*(dispatchThreadsPerSM/threads)*m.SMs))
		ys = append(ys, r.Value*1e-6)
	}
	slope, icept, ok := leastSquares(xs, ys)
	if !ok || len(xs) < 3 || slope <= 0 || slope > 1e-7 || icept <= 0 || icept > 1e-4 {
		return m
	}
	m.BlockDispatch, m.LaunchOverhead = slope, icept
	return m
}

// leastSquares fits y = slope·x + icept; ok is false without two distinct
// x. It is fitLine's (timemodel_mech.go) line by the centred sums: the
// recorded reports were modeled with this arithmetic, and fitLine's
// rounding moves a launch's tie-breaks in the schedule.
func leastSquares(xs, ys []float64) (slope, icept float64, ok bool) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return 0, 0, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0, 0, false
	}
	slope = sxy / sxx
	return slope, my - slope*mx, true
}

// dispatchSource names a dispatch constant's rows and the embedded file
// they come from, or says the model has none; base is the constant's
// source without the dispatch run.
func dispatchSource(m Model, constant, base string) string {
	none := base
	if constant == "BlockDispatch" {
		none = "none: no dispatch microbenchmark for this model (blocks reach the SMs as slots free)"
	}
	return microbenchSource(dispatchFile(m.Key), m.BlockDispatch > 0, none, func(file, device string) string {
		at := fmt.Sprintf("%s; %s", file, device)
		if constant == "BlockDispatch" {
			return fmt.Sprintf("measured: the slope of the least-squares line through dispatch_empty's rows (grids of empty blocks of 64, 256 and 1,024 threads, 1 to 64 waves, the GPU's own time per launch, 50 launches queued behind a spin): %.3f ns a block; the schedule starts no block sooner than that after the one before it (%s)", m.BlockDispatch*1e9, at)
		}
		return fmt.Sprintf("measured: the intercept of the same line (BlockDispatch), %.2f µs: a launch's own cost before its blocks' (%s)", m.LaunchOverhead*1e6, at)
	})
}

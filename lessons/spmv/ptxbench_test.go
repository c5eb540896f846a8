package spmv

import (
	"context"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// plainRate measures plain-Go SpMV on the same arrays, in nnz/s, so the
// simulator's rates can be reported as ratios from one run (absolute rates
// vary by machine; the ratios are the targets: 0.047 thread per
// row, 0.0076 × 5 warp per row).
//
// On a shared machine other work inflates some runs; each figure is the best
// (fastest) run, which is the one least disturbed.
func plainRate(rp, ci []int32, v, xs []float32) float64 {
	y := make([]float32, len(rp)-1)
	plainSpMV(rp, ci, v, xs, y) // warm
	best := time.Duration(1 << 62)
	for start := time.Now(); time.Since(start) < 500*time.Millisecond; {
		t0 := time.Now()
		plainSpMV(rp, ci, v, xs, y)
		best = min(best, time.Since(t0))
	}
	return float64(len(v)) / best.Seconds()
}

// report gives the best run's rate and its ratio to plain Go.
func report(b *testing.B, nnz int, best time.Duration, plain float64) {
	rate := float64(nnz) / best.Seconds()
	b.ReportMetric(rate, "nnz/s")
	b.ReportMetric(rate/plain, "ratio-to-plain-Go")
}

// benchPTX runs an spmv.ptx kernel on the even seed matrix (2^19 rows) and
// reports nnz/s and the ratio to plain Go measured in the same run.
func benchPTX(b *testing.B, kernel string) {
	const rows = 1 << 19
	rp, ci, v := seedCSR(rows, false)
	xs := make([]float32, rows)
	for i := range xs {
		xs[i] = float32(i%13 + 1)
	}
	mod, err := ptx.Parse("spmv.ptx", ptxSource)
	if err != nil {
		b.Fatal(err)
	}
	k, err := sim.NewPTXKernel(mod, kernel)
	if err != nil {
		b.Fatal(err)
	}
	m := testenv.Must(sim.ModelByKey("h200"))(b)
	d := sim.NewDevice(m)
	rowPtr := testenv.Must(sim.Upload(d, "rowPtr", rp))(b)
	colIdx := testenv.Must(sim.Upload(d, "colIdx", ci))(b)
	val := testenv.Must(sim.Upload(d, "val", v))(b)
	x := testenv.Must(sim.Upload(d, "x", xs))(b)
	y := testenv.Must(sim.Alloc[float32](d, "y", rows))(b)
	grid := sim.Dim1(rows / 256)
	if kernel == KernelWarpPerRow || kernel == KernelWarpPerRowUnroll1 {
		grid = sim.Dim1(rows * 32 / 256)
	}
	plain := plainRate(rp, ci, v, xs)
	best := time.Duration(1 << 62)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := d.LaunchPTX(context.Background(), k, grid, sim.Dim1(256), 0, rowPtr, colIdx, val, x, y, uint64(rows)); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(t0))
	}
	report(b, len(v), best, plain)
}

func BenchmarkPTXThreadPerRowEven(b *testing.B)        { benchPTX(b, KernelThreadPerRow) }
func BenchmarkPTXWarpPerRowEven(b *testing.B)          { benchPTX(b, KernelWarpPerRow) }
func BenchmarkPTXThreadPerRowUnroll1Even(b *testing.B) { benchPTX(b, KernelThreadPerRowUnroll1) }
func BenchmarkPTXWarpPerRowUnroll1Even(b *testing.B)   { benchPTX(b, KernelWarpPerRowUnroll1) }

// benchMirrorRatio is benchKernel with the same ratio metric, for comparison in
// one run.
func benchMirrorRatio(b *testing.B, kernel string) {
	const rows = 1 << 19
	rp, ci, v := seedCSR(rows, false)
	xs := make([]float32, rows)
	for i := range xs {
		xs[i] = float32(i%13 + 1)
	}
	m := testenv.Must(sim.ModelByKey("h200"))(b)
	d := sim.NewDevice(m)
	rowPtr := testenv.Must(sim.Upload(d, "rowPtr", rp))(b)
	colIdx := testenv.Must(sim.Upload(d, "colIdx", ci))(b)
	val := testenv.Must(sim.Upload(d, "val", v))(b)
	x := testenv.Must(sim.Upload(d, "x", xs))(b)
	y := testenv.Must(sim.Alloc[float32](d, "y", rows))(b)
	k := ThreadPerRow(rowPtr, colIdx, val, x, y, rows, 1)
	grid := sim.Dim1(rows / 256)
	if kernel == "warp" {
		k = WarpPerRow(rowPtr, colIdx, val, x, y, rows, 1)
		grid = sim.Dim1(rows * 32 / 256)
	}
	plain := plainRate(rp, ci, v, xs)
	best := time.Duration(1 << 62)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := d.Launch(k, grid, sim.Dim1(256), 0); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(t0))
	}
	report(b, len(v), best, plain)
}

func BenchmarkMirrorThreadPerRowEvenRatio(b *testing.B) { benchMirrorRatio(b, "thread") }
func BenchmarkMirrorWarpPerRowEvenRatio(b *testing.B)   { benchMirrorRatio(b, "warp") }

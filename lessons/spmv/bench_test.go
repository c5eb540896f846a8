package spmv

import (
	"context"
	"testing"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// The simulator's speed on the lesson's kernels, as ratios to a plain-Go
// SpMV measured in the same benchmark (absolute rates vary by machine; the
// ratios are issue 11's targets). Every kernel runs from spmv.ptx through
// gpuext, the path the lesson takes.
//
//	go test -run '^$' -bench . -benchtime 3x ./lessons/spmv/

// plainSpMV is the baseline the simulator's slowdown is reported against:
// the same CSR product in ordinary Go, over the same arrays.
func plainSpMV(rowPtr, col []int32, val, x, y []float32) {
	for r := 0; r+1 < len(rowPtr); r++ {
		var sum float32
		for j := rowPtr[r]; j < rowPtr[r+1]; j++ {
			sum += val[j] * x[col[j]]
		}
		y[r] = sum
	}
}

// rates are one code's best (fastest) run over the same nonzeros: by the
// wall clock, and by the CPU time the process spent (every thread, so a
// launch on two cores counts both; zero where cpuTime is unknown).
type rates struct{ wall, cpu time.Duration }

// timed runs f once and keeps the best wall and CPU times in r.
func (r *rates) timed(f func()) {
	c0, okc := testenv.CPUTime()
	t0 := time.Now()
	f()
	wall := time.Since(t0)
	c1, _ := testenv.CPUTime()
	if r.wall == 0 || wall < r.wall {
		r.wall = wall
	}
	if cpu := c1 - c0; okc && cpu > 0 && (r.cpu == 0 || cpu < r.cpu) {
		r.cpu = cpu
	}
}

// plainRates measures plain-Go SpMV on the same arrays. On a shared machine
// other work inflates some runs; each figure is the best run, the one least
// disturbed.
func plainRates(rp, ci []int32, v, xs []float32) rates {
	y := make([]float32, len(rp)-1)
	plainSpMV(rp, ci, v, xs, y) // warm
	var r rates
	for start := time.Now(); time.Since(start) < 500*time.Millisecond; {
		r.timed(func() { plainSpMV(rp, ci, v, xs, y) })
	}
	return r
}

// report gives the simulator's best rate and its ratios to plain Go: by the
// clock (the simulator on every core, plain Go on one), and by CPU time
// (core for core).
func report(b *testing.B, nnz int, sim, plain rates) {
	rate := float64(nnz) / sim.wall.Seconds()
	b.ReportMetric(rate, "nnz/s")
	b.ReportMetric(plain.wall.Seconds()/sim.wall.Seconds(), "ratio-to-plain-Go")
	if sim.cpu > 0 && plain.cpu > 0 {
		b.ReportMetric(plain.cpu.Seconds()/sim.cpu.Seconds(), "cpu-ratio-to-plain-Go")
		// The two CPU times themselves: on a loaded machine a change to
		// the simulator shows in sim-cpu-s while plain-cpu-ms says how
		// much the load slowed everything.
		b.ReportMetric(sim.cpu.Seconds(), "sim-cpu-s")
		b.ReportMetric(plain.cpu.Seconds()*1e3, "plain-cpu-ms")
	}
}

// benchPTX runs one kernel of the module on the simulator over a seed
// matrix at 2^19 rows and reports the best launch's nnz/s and its ratio to
// plain Go on the same arrays, measured in the same run.
func benchPTX(b *testing.B, kernel string, skewed bool) {
	const rows = 1 << 19
	rp, ci, v := seedCSR(rows, skewed)
	xs := make([]float32, rows)
	for i := range xs {
		xs[i] = float32(i%13 + 1)
	}
	dev := openSim(b)
	rowPtr := testenv.Must(gpuext.Upload(dev, "rowPtr", rp))(b)
	colIdx := testenv.Must(gpuext.Upload(dev, "colIdx", ci))(b)
	val := testenv.Must(gpuext.Upload(dev, "val", v))(b)
	x := testenv.Must(gpuext.Upload(dev, "x", xs))(b)
	y := testenv.Must(gpuext.Alloc[float32](dev, "y", rows))(b)
	grid := sim.Dim1(rows / ThreadsPerBlock)
	if kernel == KernelWarpPerRow || kernel == KernelWarpPerRowUnroll1 {
		grid = sim.Dim1(rows * WarpSize / ThreadsPerBlock)
	}
	mod := Module()
	if _, err := dev.Load(mod); err != nil { // parse the PTX outside the timed launches
		b.Fatal(err)
	}
	plain := plainRates(rp, ci, v, xs)
	var best rates
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		best.timed(func() {
			_, err = dev.Launch(context.Background(), mod.MustKernel(kernel), gpuext.Config{Grid: grid, Block: ThreadsPerBlock}, rowPtr, colIdx, val, x, y, uint64(rows))
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	report(b, len(v), best, plain)
}

func BenchmarkPTXThreadPerRowEven(b *testing.B)        { benchPTX(b, KernelThreadPerRow, false) }
func BenchmarkPTXWarpPerRowEven(b *testing.B)          { benchPTX(b, KernelWarpPerRow, false) }
func BenchmarkPTXThreadPerRowUnroll1Even(b *testing.B) { benchPTX(b, KernelThreadPerRowUnroll1, false) }
func BenchmarkPTXWarpPerRowUnroll1Even(b *testing.B)   { benchPTX(b, KernelWarpPerRowUnroll1, false) }
func BenchmarkPTXThreadPerRowSkewed(b *testing.B)      { benchPTX(b, KernelThreadPerRow, true) }
func BenchmarkPTXWarpPerRowSkewed(b *testing.B)        { benchPTX(b, KernelWarpPerRow, true) }

func BenchmarkPlainGoSpMVEven(b *testing.B) {
	const rows = 1 << 19
	rp, ci, v := seedCSR(rows, false)
	xs := make([]float32, rows)
	y := make([]float32, rows)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plainSpMV(rp, ci, v, xs, y)
	}
	b.ReportMetric(float64(len(v))*float64(b.N)/b.Elapsed().Seconds(), "nnz/s")
}

// BenchmarkLessonSeed is the whole Day-37 lesson at the seed's size on the
// simulator (`warplab run spmv --backend sim`): building the matrices, six
// checked launches, the tables' data. Its ratio is plain Go's time for the
// lesson's six products over the lesson's time.
func BenchmarkLessonSeed(b *testing.B) {
	rp, ci, v := seedCSR(1<<19, false)
	xs := make([]float32, 1<<19)
	plain := plainRates(rp, ci, v, xs)
	plain.wall, plain.cpu = 6*plain.wall, 6*plain.cpu
	dev := openSim(b)
	var best rates
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var r *Result
		var err error
		best.timed(func() { r, err = Run(context.Background(), dev, Options{}) })
		if err != nil {
			b.Fatal(err)
		}
		if !r.OK() {
			b.Fatalf("checks failed: %q", r.Failures)
		}
	}
	b.ReportMetric(best.wall.Seconds(), "best-s")
	report(b, 6*len(v), best, plain)
}

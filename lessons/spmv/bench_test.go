package spmv

import (
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

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

func benchKernel(b *testing.B, skewed bool, kernel string) {
	const rows = 1 << 19
	rp, ci, v := seedCSR(rows, skewed)
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
	var k *sim.Kernel
	grid := sim.Dim1(rows / 256)
	switch kernel {
	case "thread":
		k = ThreadPerRow(rowPtr, colIdx, val, x, y, rows, 1)
	case "warp":
		k = WarpPerRow(rowPtr, colIdx, val, x, y, rows, 1)
		grid = sim.Dim1(rows * 32 / 256)
	}
	b.SetBytes(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Launch(k, grid, sim.Dim1(256), 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(v))*float64(b.N)/b.Elapsed().Seconds(), "nnz/s")
}

func BenchmarkSimThreadPerRowEven(b *testing.B) { benchKernel(b, false, "thread") }
func BenchmarkSimWarpPerRowEven(b *testing.B)   { benchKernel(b, false, "warp") }

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

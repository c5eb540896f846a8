package spmv

import (
	"context"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
)

// seedCSR builds the Day-37 matrices directly in CSR (the lesson builds them
// through COO; this keeps the fidelity test independent of that code).
func seedCSR(rows int, skewed bool) (rowPtr, col []int32, val []float32) {
	rowPtr = make([]int32, rows+1)
	for r := 0; r < rows; r++ {
		n := 16
		if skewed {
			n = 3
			if r%32 == 31 {
				n = 32*16 - 31*3
			}
		}
		start := r
		if start+n > rows {
			start = rows - n
		}
		for j := 0; j < n; j++ {
			col = append(col, int32(start+j))
			val = append(val, float32(j%7+1))
		}
		rowPtr[r+1] = int32(len(col))
	}
	return
}

// TestFidelityDesignTable: DESIGN.md's table, Nsight Compute's global-load
// requests and sectors on the H200 for the seed's matrices at 2^19 rows,
// against the simulator running each kernel from spmv.ptx.
func TestFidelityDesignTable(t *testing.T) {
	if testing.Short() {
		t.Skip("seed-size fidelity check skipped in -short mode")
	}
	const rows = 1 << 19
	type want struct{ req, sec int64 }
	cases := []struct {
		skewed bool
		kernel string
		want   want
	}{
		{false, KernelThreadPerRowUnroll1, want{819200, 18202594}},
		{false, KernelWarpPerRowUnroll1, want{2621440, 4653042}},
		{true, KernelThreadPerRowUnroll1, want{20627456, 22003736}},
		{true, KernelWarpPerRowUnroll1, want{3260416, 6209521}}, // the rules (#pragma unroll 1)
		// As nvcc compiles by default: remainder-first unrolling by 4. ncu's
		// skewed warp-per-row row, which the plain rules miss, comes out exact.
		{true, KernelWarpPerRow, want{3260416, 5816137}},
		{false, KernelWarpPerRow, want{2621440, 4653042}},
		{false, KernelThreadPerRow, want{819200, 18202594}},
		{true, KernelThreadPerRow, want{20627456, 22003736}},
		{false, KernelProbe, want{786432, 2883576}},
		{true, KernelProbe, want{786432, 3276630}},
	}
	dev := openSim(t)
	mod := Module()
	for _, c := range cases {
		rp, ci, v := seedCSR(rows, c.skewed)
		xs := make([]float32, rows)
		for i := range xs {
			xs[i] = float32(i%13 + 1)
		}
		rowPtr := testenv.Must(gpuext.Upload(dev, "rowPtr", rp))(t)
		colIdx := testenv.Must(gpuext.Upload(dev, "colIdx", ci))(t)
		val := testenv.Must(gpuext.Upload(dev, "val", v))(t)
		x := testenv.Must(gpuext.Upload(dev, "x", xs))(t)
		y := testenv.Must(gpuext.Alloc[float32](dev, "y", rows))(t)
		part := testenv.Must(gpuext.Alloc[float32](dev, "partials", SeedProbeBlocks*ThreadsPerBlock))(t)
		var l *gpuext.Launch
		var err error
		switch c.kernel {
		case KernelProbe:
			l, err = dev.Launch(context.Background(), mod.MustKernel(c.kernel), gpuext.Config{Grid: SeedProbeBlocks, Block: 256}, colIdx, val, x, part, uint64(len(v)))
		case KernelWarpPerRow, KernelWarpPerRowUnroll1:
			l, err = dev.Launch(context.Background(), mod.MustKernel(c.kernel), gpuext.Config{Grid: rows * 32 / 256, Block: 256}, rowPtr, colIdx, val, x, y, uint64(rows))
		default:
			l, err = dev.Launch(context.Background(), mod.MustKernel(c.kernel), gpuext.Config{Grid: rows / 256, Block: 256}, rowPtr, colIdx, val, x, y, uint64(rows))
		}
		if err != nil {
			t.Fatal(err)
		}
		st := l.Stats
		t.Logf("skewed=%v %s: requests %d sectors %d l2 %d dram %d instr %d time %.1fus (%s, modeled)", c.skewed, c.kernel,
			st.GlobalLoad.Requests, st.GlobalLoad.Sectors, st.L2Sectors, st.DRAMReadBytes, st.WarpInstructions, st.Time.Seconds*1e6, st.Time.Bound)
		if st.GlobalLoad.Requests != c.want.req || st.GlobalLoad.Sectors != c.want.sec {
			t.Errorf("skewed=%v %s: got %d requests / %d sectors, want %d / %d (ncu, H200)", c.skewed, c.kernel,
				st.GlobalLoad.Requests, st.GlobalLoad.Sectors, c.want.req, c.want.sec)
		}
		for _, b := range []interface{ Free() error }{rowPtr, colIdx, val, x, y, part} {
			if err := b.Free(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

package spmv

import (
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
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

func TestFidelityDesignTable(t *testing.T) {
	if testing.Short() {
		t.Skip("seed-size fidelity check skipped in -short mode")
	}
	const rows = 1 << 19
	type want struct{ req, sec int64 }
	cases := []struct {
		skewed bool
		kernel string
		unroll int
		want   want
	}{
		{false, "thread", 1, want{819200, 18202594}},
		{false, "warp", 1, want{2621440, 4653042}},
		{true, "thread", 1, want{20627456, 22003736}},
		{true, "warp", 1, want{3260416, 6209521}}, // the rules (#pragma unroll 1)
		// As nvcc compiles by default: remainder-first unrolling by 4. ncu's
		// skewed warp-per-row row, which the plain rules miss, comes out exact.
		{true, "warp", 4, want{3260416, 5816137}},
		{false, "warp", 4, want{2621440, 4653042}},
		{false, "thread", 4, want{819200, 18202594}},
		{true, "thread", 4, want{20627456, 22003736}},
		{false, "probe", 1, want{786432, 2883576}},
		{true, "probe", 1, want{786432, 3276630}},
	}
	for _, c := range cases {
		m := testenv.Must(sim.ModelByKey("h200"))(t)
		d := sim.NewDevice(m)
		rp, ci, v := seedCSR(rows, c.skewed)
		xs := make([]float32, rows)
		for i := range xs {
			xs[i] = float32(i%13 + 1)
		}
		rowPtr := testenv.Must(sim.Upload(d, "rowPtr", rp))(t)
		colIdx := testenv.Must(sim.Upload(d, "colIdx", ci))(t)
		val := testenv.Must(sim.Upload(d, "val", v))(t)
		x := testenv.Must(sim.Upload(d, "x", xs))(t)
		y := testenv.Must(sim.Alloc[float32](d, "y", rows))(t)
		part := testenv.Must(sim.Alloc[float32](d, "partials", 320*256))(t)
		var k *sim.Kernel
		grid := sim.Dim1((rows + 255) / 256)
		switch c.kernel {
		case "thread":
			k = ThreadPerRow(rowPtr, colIdx, val, x, y, rows, c.unroll)
		case "warp":
			k = WarpPerRow(rowPtr, colIdx, val, x, y, rows, c.unroll)
			grid = sim.Dim1(rows * 32 / 256)
		case "probe":
			k = Probe(colIdx, val, x, part, len(v))
			grid = sim.Dim1(320)
		}
		st, err := d.Launch(k, grid, sim.Dim1(256), 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("skewed=%v %s unroll %d: requests %d sectors %d l2 %d dram %d instr %d time %.1fus (%s)", c.skewed, c.kernel, c.unroll,
			st.GlobalLoad.Requests, st.GlobalLoad.Sectors, st.L2Sectors, st.DRAMReadBytes, st.WarpInstructions, st.Time.Seconds*1e6, st.Time.Bound)
		if st.GlobalLoad.Requests != c.want.req || st.GlobalLoad.Sectors != c.want.sec {
			t.Errorf("skewed=%v %s: got %d requests / %d sectors, want %d / %d", c.skewed, c.kernel,
				st.GlobalLoad.Requests, st.GlobalLoad.Sectors, c.want.req, c.want.sec)
		}
	}
}

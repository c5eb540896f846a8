package sim

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestTimeModelPinned holds the modeled times of a handful of launches to
// the digits recorded in testdata/timemodel_pin.txt: Day 37's four SpMV
// kernels on even and skewed matrices at two sizes, one after another on
// one device (so the L2 history between launches counts), on the H200 and
// the T4, a Go kernel, and the tiling lesson's two shared-memory
// transposes. A change meant to leave the model alone (issue
// 27's split into sim/timing) must leave every digit; a change to the
// model rewrites the file with WARPLAB_UPDATE_PIN=1 and says why.
func TestTimeModelPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 38 launches")
	}
	var got strings.Builder
	line := func(what string, st *Stats) {
		tm := st.Time
		fmt.Fprintf(&got, "%s: seconds %.17g gpu %.17g kernel %.17g bound %s terms %.17g %.17g %.17g %.17g %.17g dram %d/%d rounds %d",
			what, tm.Seconds, tm.GPUSeconds, tm.KernelSeconds, tm.Bound,
			tm.Terms.DRAM, tm.Terms.L2, tm.Terms.L1, tm.Terms.Issue, tm.Terms.Latency,
			st.DRAMReadBytes, st.DRAMWriteBytes, st.LoadRounds())
		if tm.Terms.Shared != 0 {
			// The shared term (issue 27, milestone 3), only where a kernel
			// uses shared memory, so the lines before it keep their form.
			fmt.Fprintf(&got, " shared %.17g", tm.Terms.Shared)
		}
		got.WriteString("\n")
	}
	mod := parsePTXFile(t, "../lessons/spmv/spmv.ptx")
	for _, key := range []string{"h200", "t4"} {
		d := NewDevice(testModel(t, key))
		for _, rows := range []int{1 << 10, 1 << 15} {
			for _, skewed := range []bool{false, true} {
				rp, ci, v := seedCSR(rows, skewed)
				bufs := []any{mustUpload(t, d, "rowPtr", rp), mustUpload(t, d, "colIdx", ci), mustUpload(t, d, "val", v),
					mustUpload(t, d, "x", seedX(rows)), mustUpload(t, d, "y", make([]float32, rows)), uint64(rows)}
				for _, name := range []string{"spmvCsrThreadPerRow", "spmvCsrThreadPerRow_unroll1", "spmvCsrWarpPerRow", "spmvCsrWarpPerRow_unroll1"} {
					k, err := NewPTXKernel(mod, name)
					if err != nil {
						t.Fatal(err)
					}
					grid := Dim1(max(1, rows/256))
					if strings.Contains(name, "Warp") {
						grid = Dim1(rows * 32 / 256)
					}
					st, err := d.LaunchPTX(context.Background(), k, grid, Dim1(256), 0, bufs...)
					if err != nil {
						t.Fatal(err)
					}
					line(fmt.Sprintf("%s %s rows=%d skewed=%v", key, name, rows, skewed), st)
				}
			}
		}
		x, err := Alloc[float32](d, "gx", 1<<16)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Alloc[float32](d, "gy", 1<<16)
		if err != nil {
			t.Fatal(err)
		}
		k := NewKernel("scale", false)
		k.Body = func(th *Thread) {
			i := th.BlockIdx.X*th.BlockDim.X + th.ThreadIdx.X
			y.St(th, i, 2*x.Ld(th, i))
			th.Ops(2)
		}
		st, err := d.Launch(k, Dim1(256), Dim1(256), 0)
		if err != nil {
			t.Fatal(err)
		}
		line(key+" go scale", st)
		// The tiling lesson's shared-memory transposes, 32-way conflicted
		// and padded (issue 27, milestone 3: the shared term, a barrier
		// waiting for the block's wavefronts).
		tmod := parsePTXFile(t, "../lessons/tiling/tiling.ptx")
		const n = 256
		a, c := mustUpload(t, d, "ta", make([]float32, n*n)), mustUpload(t, d, "tc", make([]float32, n*n))
		for pad, name := range []string{"transposeShared", "transposeSharedPadded"} {
			k, err := NewPTXKernel(tmod, name)
			if err != nil {
				t.Fatal(err)
			}
			st, err := d.LaunchPTX(context.Background(), k, Dim2(n/32, n/32), Dim2(32, 32), 32*(32+pad)*4, a, c, int32(n))
			if err != nil {
				t.Fatal(err)
			}
			line(fmt.Sprintf("%s %s n=%d", key, name, n), st)
		}
	}
	const file = "testdata/timemodel_pin.txt"
	if os.Getenv("WARPLAB_UPDATE_PIN") != "" {
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}
	for i := range gl {
		if gl[i] != wl[i] {
			t.Errorf("modeled differently:\n got %s\nwant %s", gl[i], wl[i])
		}
	}
}

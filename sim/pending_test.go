package sim

import (
	"context"
	"testing"
)

// TestSectorSpans: a sector's span is its lowest and highest fetching
// block whatever the order the blocks came in or the workers that ran
// them; a sector fetched by blocks span apart waits 1 − span ÷ window of
// the first fetch.
func TestSectorSpans(t *testing.T) {
	tests := []struct {
		name    string
		workers [][][2]uint64 // per worker, (sector, block) touches in order
		window  float64
		want    float64
	}{
		{"one block a sector", [][][2]uint64{{{0, 0}, {1, 1}, {2, 2}}}, 8, 0},
		{"neighbours share a boundary", [][][2]uint64{{{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}}}, 8, 0.875},
		{"far apart", [][][2]uint64{{{0, 0}, {0, 100}, {1, 5}, {1, 300}}}, 8, 0},
		{"one near, one far", [][][2]uint64{{{0, 0}, {0, 4}}, {{1, 10}, {1, 200}}}, 8, 0.25},
		{"a span is first to last", [][][2]uint64{{{0, 0}, {0, 4}}, {{0, 9}}}, 8, 0},
		{"order and workers do not matter", [][][2]uint64{{{0, 9}}, {{0, 4}, {0, 0}}}, 8, 0},
		{"pages apart", [][][2]uint64{{{0, 1}, {1 << 20, 2}}, {{0, 2}, {1 << 20, 3}}}, 8, 0.875},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all sectorSpans
			for _, w := range tt.workers {
				var s sectorSpans
				for _, x := range w {
					s.touch(uint32(x[0]), x[1])
				}
				all.merge(&s)
			}
			if got := all.nearShare(tt.window); got != tt.want {
				t.Errorf("nearShare = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPendingRereads runs the SpMV lesson's warp-per-row kernel on rows of
// three or four entries: neighbouring blocks share the col and val sectors where
// one's rows end and the next one's begin, and fetch them at the same
// time, while x's 256 floats are gathered by blocks all over the grid.
// The stream's re-reads, a block apart, wait for nearly all of the first
// fetch (pending over 0.99), x's, the grid apart, find it in L2 (0); the pending share lengthens the launch's miss latency,
// so the modeled time with it is longer than without it.
func TestPendingRereads(t *testing.T) {
	k, err := NewPTXKernel(parsePTXFile(t, "../lessons/spmv/spmv.ptx"), "spmvCsrWarpPerRow")
	if err != nil {
		t.Fatal(err)
	}
	// Three entries a row and four every seventh, so that a block's eight
	// rows do not end on a sector (8 × 3 entries would).
	const rows = 1 << 16
	rp := make([]int32, rows+1)
	for r := range rp {
		rp[r] = int32(r*3 + r/7)
	}
	n := int(rp[rows])
	col, val := make([]int32, n), make([]float32, n)
	for r := range rows {
		for j := rp[r]; j < rp[r+1]; j++ {
			col[j] = int32(r / 8 % 32 * 8) // block b's rows gather x's sector b mod 32
			val[j] = 1
		}
	}
	d := NewDevice(testModel(t, "h200"))
	gc, gv, gx := mustUpload(t, d, "col", col), mustUpload(t, d, "val", val), mustUpload(t, d, "x", make([]float32, 256))
	st, err := d.LaunchPTX(context.Background(), k, Dim1(rows*32/256), Dim1(256), 0,
		mustUpload(t, d, "rowPtr", rp), gc, gv, gx, mustUpload(t, d, "y", make([]float32, rows)), uint64(rows))
	if err != nil {
		t.Fatal(err)
	}
	names := map[int]string{gc.meta.id: "col", gv.meta.id: "val", gx.meta.id: "x"}
	byName := map[string]float64{}
	for _, ls := range st.loadSites {
		name := names[ls.buf]
		if old, ok := byName[name]; ok && old != ls.pending {
			t.Fatalf("%s: sites of one buffer disagree: %v and %v", name, old, ls.pending)
		}
		byName[name] = ls.pending
	}
	for name, want := range map[string][2]float64{"col": {0.99, 1}, "val": {0.99, 1}, "x": {0, 0}} {
		if got, ok := byName[name]; !ok || got < want[0] || got > want[1] {
			t.Errorf("%s: pending %v (found %v), want %v to %v", name, got, ok, want[0], want[1])
		}
	}
	with := st.Time.KernelSeconds
	for i := range st.loadSites {
		st.loadSites[i].pending = 0
	}
	d.model.estimate(st)
	if without := st.Time.KernelSeconds; with <= without {
		t.Errorf("cold launch: %.2f µs with pending re-reads, %.2f without: want longer", with*1e6, without*1e6)
	}
}

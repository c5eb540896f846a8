package libs

import (
	"slices"
	"strings"
	"testing"
)

// binCases are the binning's edge cases: every bin's boundary lengths (4,
// 5, 8, 9, ..., 128, 129, 1024, 1025), empty rows, a single row, no
// nonzeros, a row count that is not a multiple of a warp, of a block's
// round (256) or of a block's rows (BinRows) and one that is exactly
// BinRows, bins interleaved so that a warp holds rows of many bins; then
// corpus families at 2^12 rows.
func binCases(t *testing.T) []Input {
	t.Helper()
	bounds := []int{0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 1024, 1025, 3000}
	var mixed []int
	for i := range 3*BinRows + 77 {
		mixed = append(mixed, bounds[(i*7+i/5)%len(bounds)]%200) // the long ones less often
	}
	mixed[BinRows-1], mixed[BinRows], mixed[2*BinRows+300] = 1025, 2000, 1500
	ins := []Input{
		lengthsInput("bounds", bounds),
		lengthsInput("single-row", []int{7}),
		lengthsInput("single-long-row", []int{5000}),
		lengthsInput("no-nonzeros", fill(300, 0)),
		lengthsInput("one-block-exactly", fill(BinRows, 3)),
		lengthsInput("mixed", mixed),
		irregular(3000),
	}
	return append(ins, familyInputs(t, 4096, "powerlaw15", "powerlaw25c", "denserows", "road", "blockdiag", "stencil27")...)
}

// TestBinsOnSimulator makes the binned method's preparation on the
// simulator (spmvBinCount, spmvBinScan, spmvBinScatter) on every case: the
// device's bins must be the host's Bins exactly (the same widths, counts
// and rows in the same order), and the binned SpMV over them correct
// (exact on the integer-valued cases).
func TestBinsOnSimulator(t *testing.T) {
	onSimulator(t, binCases(t), func(t *testing.T, c simCase) {
		in, d := c.in, c.d
		p, err := d.prepare(c.ctx, c.dev, c.mod, c.o, MethodBinned)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil || p.DeviceMs <= 0 {
			t.Fatalf("preparation %+v: want a device time", p)
		}
		want := Bins(in.CSR.RowPtr)
		got := d.bins.bins
		if len(got) != len(want) {
			t.Fatalf("%d bins %+v, want %d", len(got), got, len(want))
		}
		all := make([]int32, max(1, in.CSR.Rows))
		if err := d.bins.rows.Download(all); err != nil {
			t.Fatal(err)
		}
		first := 0
		for i, w := range want {
			g := got[i]
			if g.Width != w.Width || g.Count != w.Count || g.First != first {
				t.Fatalf("bin %d: width %d, %d rows from %d; want width %d, %d rows from %d", i, g.Width, g.Count, g.First, w.Width, w.Count, first)
			}
			if rows := all[g.First : g.First+g.Count]; !slices.Equal(rows, w.Rows) {
				t.Fatalf("bin %d (width %d): rows %v, want %v", i, w.Width, head(rows), head(w.Rows))
			}
			first += w.Count
		}
		y := make([]float32, in.CSR.Rows)
		if _, _, err := d.checkedLaunch(c.ctx, c.dev, c.mod, MethodBinned, y); err != nil {
			t.Fatal(err)
		}
		exact := !strings.HasSuffix(in.Key, "-2^12") && in.Key != irregular(1).Key
		if e, ok := maxRelErr(y, in.Want, in.Scale); !ok || (exact && e != 0) {
			t.Errorf("binned SpMV: max relative error %.3g (first bad row %d)", e, firstBad(y, in.Want))
		}
	})
}

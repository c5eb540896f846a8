package libs

import (
	"slices"
	"testing"
)

// TestSplitOnSimulator runs every split<W> twice on matrices whose long
// rows take one chunk, several, and (the dense rows of denserows, 4096
// long) eight: both SpMVs must match the CPU reference, which holds the
// last-warp sum and its reset of the done-counts (a count left at its final
// value would make the second SpMV's last warp never sum). It also checks
// the device's long-row list against the row lengths, and that merge
// path's partitions made on the device (spmvMergePartition) equal the
// host's MergePartitions.
func TestSplitOnSimulator(t *testing.T) {
	ins := append([]Input{irregular(3000)}, familyInputs(t, 4096, "denserows", "powerlaw15")...)
	onSimulator(t, ins, func(t *testing.T, c simCase) {
		in, d := c.in, c.d
		for _, w := range Widths {
			for _, v4 := range []bool{false, true} {
				m := SplitMethod(w, v4)
				if _, err := d.prepare(c.ctx, c.dev, c.mod, c.o, m); err != nil {
					t.Fatalf("%s %s: %v", in.Key, m, err)
				}
				p := d.split[w]
				long, chunks := 0, 0
				for _, n := range in.Lengths {
					if n > SplitLongMin(w) {
						long++
						chunks += ceilDiv(n, SplitChunk)
					}
				}
				if p.nLong != long || p.nChunks != chunks {
					t.Errorf("%s %s: device found %d long rows in %d chunks, want %d in %d", in.Key, m, p.nLong, p.nChunks, long, chunks)
				}
				for rep := 0; rep < 2; rep++ {
					y := make([]float32, in.CSR.Rows)
					if _, _, err := d.checkedLaunch(c.ctx, c.dev, c.mod, m, y); err != nil {
						t.Fatalf("%s %s: %v", in.Key, m, err)
					}
					if e, ok := maxRelErr(y, in.Want, in.Scale); !ok {
						t.Errorf("%s %s, SpMV %d: max relative error %.3g", in.Key, m, rep+1, e)
					}
				}
				allZero(t, in.Key+" "+m+": done-count of long row", p.longDone, p.nLong)
			}
		}
		if _, err := d.prepare(c.ctx, c.dev, c.mod, c.o, MethodMerge); err != nil {
			t.Fatal(err)
		}
		tr, tz := MergePartitions(in.CSR.RowPtr)
		gr, gz := make([]int32, len(tr)), make([]int32, len(tz))
		if err := d.tileRow.Download(gr); err != nil {
			t.Fatal(err)
		}
		if err := d.tileNz.Download(gz); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tr, gr) || !slices.Equal(tz, gz) {
			t.Errorf("%s: device partitions differ from MergePartitions", in.Key)
		}
	})
}

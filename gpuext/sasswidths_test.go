package gpuext

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim"
)

// sassRows is sim's unrolled-rows kernel (timemodel_widths_test.go): 32
// threads store and load the 8 words of their own 128-byte row, which
// ptxas for sm_90 makes 2 STS.128 and 2 LDS.128.
//
// It is read from sim's testdata (unroll_rows.ptx).
func sassRows(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../sim/testdata/unroll_rows.ptx")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSASSWidthsOption: a simulator opened with Options.SASSWidths times the
// kernel's shared loads as the SASS's 2 LDS.128 (64 wavefronts) where
// ptxas is on the machine, and as the PTX's 8 word loads (256) without the
// option or without ptxas; the output is the same. With the option its
// occupancy counts ptxas -v's registers; without, it says they are not known.
func TestSASSWidthsOption(t *testing.T) {
	m := &Module{Name: "rows", PTX: sassRows(t)}
	waves := map[bool]int64{}
	occ := map[bool]string{}
	for _, on := range []bool{false, true} {
		d, err := OpenWith("sim:h200", Options{SASSWidths: on})
		if err != nil {
			t.Fatal(err)
		}
		k, err := m.Kernel("rowSum")
		if err != nil {
			t.Fatal(err)
		}
		out, err := Alloc[float32](d, "out", 32)
		if err != nil {
			t.Fatal(err)
		}
		l, err := d.Launch(context.Background(), k, Config{Grid: 1, Block: 32}, out)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, 32)
		if err := out.Download(got); err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != float32(8*i) {
				t.Fatalf("SASSWidths %v: out[%d] = %v, want %d", on, i, v, 8*i)
			}
		}
		waves[on] = l.Stats.SharedLoad.Wavefronts
		occ[on] = l.Stats.Time.Occupancy
		d.Close()
	}
	want := int64(256)
	if sim.Ptxas() != "" {
		want = 64
	}
	if waves[false] != 256 || waves[true] != want {
		t.Errorf("shared load wavefronts %d without the option and %d with it, want 256 and %d", waves[false], waves[true], want)
	}
	// With the SASS come ptxas -v's registers
	// for the occupancy; without it they are left out, and said so.
	wantOcc := "registers not known"
	if sim.Ptxas() != "" {
		wantOcc = "(ptxas"
	}
	if !strings.Contains(occ[false], "registers not known") || !strings.Contains(occ[true], wantOcc) {
		t.Errorf("occupancy %q without the option and %q with it, want %q in the second", occ[false], occ[true], wantOcc)
	}
}

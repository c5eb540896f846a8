package libs

import (
	"math"
	"os"
	"testing"
)

func TestXSectorsPerNonzero(t *testing.T) {
	seq := func(n int, f func(i int) int32) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		cols []int32
		want float64
	}{
		{"empty", nil, 0},
		{"consecutive", seq(64, func(i int) int32 { return int32(i) }), 8.0 / 64},
		{"a sector apart", seq(64, func(i int) int32 { return int32(8 * i) }), 1},
		{"one column", seq(40, func(int) int32 { return 5 }), 2.0 / 40},
		// Runs are 32 nonzeros from the start: 0..31 and 32..35, whose
		// columns 32..35 share sector 4.
		{"a short last run", seq(36, func(i int) int32 { return int32(i) }), 5.0 / 36},
		{"sector pairs", seq(32, func(i int) int32 { return int32(4 * i) }), 16.0 / 32},
	} {
		if got := XSectorsPerNonzero(tt.cols); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestXSectorsCorpus logs the statistic for the corpus families at the
// rows WARPLAB_LIBS_LOCALITY names (e.g. 1048576), beside the row CV, for
// reading against the recorded run's fastest methods (generation takes
// about a second a family at 2^20).
func TestXSectorsCorpus(t *testing.T) {
	if os.Getenv("WARPLAB_LIBS_LOCALITY") == "" {
		t.Skip("WARPLAB_LIBS_LOCALITY=ROWS runs it")
	}
	rows := 0
	for _, c := range os.Getenv("WARPLAB_LIBS_LOCALITY") {
		rows = rows*10 + int(c-'0')
	}
	for _, f := range []string{"uniform", "banded", "denserows", "blockdiag", "road", "stencil27",
		"powerlaw15", "powerlaw15c", "powerlaw20", "powerlaw20c", "powerlaw25", "powerlaw25c"} {
		in, err := FamilyInput(f, rows, CorpusSeed)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-18s x sectors a nonzero %.3f", in.Key, XSectorsPerNonzero(in.CSR.ColIdx))
	}
}

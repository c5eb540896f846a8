package gpuext

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/sim"
)

// TestTimedFrom: the simulator says its times follow the PTX unless it was
// opened with SASSWidths, and then ptxas's SASS where the machine has ptxas.
func TestTimedFrom(t *testing.T) {
	for _, sass := range []bool{false, true} {
		d, err := OpenWith("sim:h200", Options{SASSWidths: sass})
		if err != nil {
			t.Fatal(err)
		}
		got := d.TimedFrom()
		d.Close()
		want := "the PTX"
		switch {
		case sass && sim.Ptxas() != "":
			want = "ptxas's SASS for sm_90"
		case sass:
			want = "the PTX (no ptxas"
		}
		if !strings.HasPrefix(got, want) || (!sass && got != want) {
			t.Errorf("SASSWidths %v: TimedFrom() = %q, want %q...", sass, got, want)
		}
	}
}

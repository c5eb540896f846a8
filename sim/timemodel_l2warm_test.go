package sim

import (
	"math"
	"os"
	"testing"

	"github.com/warplab/warplab/sim/timing"
)

// TestApplyL2Warm holds the thirty-eighth and thirty-ninth passes' rules
// to their text: the share at F is 1 − the probe's DRAM bytes / F,
// clamped, sorted by F, for the stream (WarmShare) and the many-wave read
// (WarmShareWaves) apart; the timed rows, the copy's and the moved
// stream's are not read; fewer than three rows set no curve.
func TestApplyL2Warm(t *testing.T) {
	row := func(name, param string, v float64, unit string) MicrobenchRow {
		return MicrobenchRow{Name: name, Param: param, Value: v, Unit: unit}
	}
	rows := []MicrobenchRow{
		row("l2warm_read", "8 MiB", 3.8, "us"),
		row("l2warm_read_dram", "40 MiB", 20*mib, "B"),
		row("l2warm_read_dram", "8 MiB", 768, "B"),
		row("l2warm_copy_dram", "8 MiB", 4*mib, "B"),
		row("l2warm_read_dram", "64 MiB", 65*mib, "B"),
		row("l2warm_waves_dram", "8 MiB", 0, "B"),
		row("l2warm_waves_dram", "16 MiB", 4*mib, "B"),
		row("l2warm_moved_dram", "16 MiB", 8*mib, "B"),
	}
	m := applyL2Warm(Model{}, rows)
	if len(m.WarmShareWaves) != 0 {
		t.Errorf("two waves rows set a many-wave curve: %+v", m.WarmShareWaves)
	}
	m = applyL2Warm(Model{}, append(rows, row("l2warm_waves_dram", "4 MiB", 0, "B")))
	if w := m.WarmShareWaves; len(w) != 3 || w[0].Bytes != 4*mib || w[2].Bytes != 16*mib || w[2].Share != 0.75 {
		t.Errorf("many-wave curve %+v, want 4, 8 and 16 MiB, 0.75 at 16 (the moved rows not read)", w)
	}
	want := []struct{ mib, share float64 }{{8, 1 - 768.0/(8*mib)}, {40, 0.5}, {64, 0}}
	if len(m.WarmShare) != len(want) {
		t.Fatalf("WarmShare has %d points, want %d: %+v", len(m.WarmShare), len(want), m.WarmShare)
	}
	for i, w := range want {
		p := m.WarmShare[i]
		if p.Bytes != w.mib*mib || math.Abs(p.Share-w.share) > 1e-12 {
			t.Errorf("point %d = %+v, want %g MiB at %g", i, p, w.mib, w.share)
		}
	}
	if m := applyL2Warm(Model{}, rows[:3]); len(m.WarmShare) != 0 {
		t.Errorf("two read rows set a curve: %+v", m.WarmShare)
	}
}

// TestL2WarmRecorded applies the rules to the H100's recorded runs: the
// thirty-eighth pass's (evidence/timemodel-l2warm-h100-2026-12-07, the
// stream alone, not adopted) and the thirty-ninth's
// (evidence/timemodel-l2warm-waves-h100-2026-12-07, the stream and the
// many-wave read, adopted and embedded as sim/calibration/h100-l2warm.csv).
// Each curve's capacity lies between the footprints where its probe read
// under and over half its bytes from DRAM; the embedded H100 model has
// both curves, 16 points each; the H200, with no l2warm run, keeps half
// its L2.
func TestL2WarmRecorded(t *testing.T) {
	h100, err := ModelByKey("h100")
	if err != nil {
		t.Fatal(err)
	}
	h200, err := ModelByKey("h200")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h200.WarmCapacity(&h200.GPU), float64(h200.L2Bytes)/2; got != want || len(h200.WarmShareWaves) != 0 {
		t.Errorf("embedded H200 warm capacity %g, want half its L2 %g and no many-wave curve (no l2warm run)", got, want)
	}
	if len(h100.WarmShare) != 16 || len(h100.WarmShareWaves) != 16 {
		t.Errorf("embedded H100 curves have %d and %d points, want 16 each", len(h100.WarmShare), len(h100.WarmShareWaves))
	}
	for _, run := range []struct {
		dir   string
		waves bool
	}{
		{"timemodel-l2warm-h100-2026-12-07", false},
		{"timemodel-l2warm-waves-h100-2026-12-07", true},
	} {
		data, err := os.ReadFile("../evidence/" + run.dir + "/l2warm.csv")
		if err != nil {
			t.Fatal(err)
		}
		rows, _, err := ParseMicrobench(data)
		if err != nil {
			t.Fatal(err)
		}
		m := applyL2Warm(Model{GPU: h100.GPU}, rows)
		curves := map[string][]timing.WarmPoint{"stream": m.WarmShare}
		if run.waves {
			curves["many waves"] = m.WarmShareWaves
		} else if len(m.WarmShareWaves) != 0 {
			t.Errorf("%s: a many-wave curve from a run without one", run.dir)
		}
		for name, w := range curves {
			c := (&timing.Constants{WarmShare: w}).WarmCapacity(&m.GPU)
			var under, over float64
			for _, p := range w {
				if p.Share > 0.5 {
					under = p.Bytes
				} else if over == 0 {
					over = p.Bytes
				}
			}
			if len(w) != 16 || c < under || c > over {
				t.Errorf("%s, %s: capacity %.1f MiB, not between %.0f and %.0f MiB (%d points, want 16)", run.dir, name, c/mib, under/mib, over/mib, len(w))
			}
		}
	}
}

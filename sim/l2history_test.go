package sim

import (
	"math"
	"testing"
)

// TestL2Resident follows the model's L2 across launches: half the L2 (30
// MiB on the H200 model, whose L2 is the 60 MiB the device reports) holds
// what was touched last, buffer by buffer.
func TestL2Resident(t *testing.T) {
	m := testModel(t, "h200")
	half := m.L2Bytes / 2
	if half != 30*mib {
		t.Fatalf("half the H200's L2 is %d MiB, want 30", half/mib)
	}
	type use map[int]int64
	for _, tc := range []struct {
		name    string
		history []use // earlier launches, oldest first
		launch  use
		want    float64
	}{
		{"first launch: its warm-ups put it there", nil, use{1: 8 * mib, 2: 8 * mib}, 1},
		{"back to back", []use{{1: 8 * mib, 2: 8 * mib}}, use{1: 8 * mib, 2: 8 * mib}, 1},
		{"a buffer nothing touched before", []use{{9: 400 * mib}}, use{1: 8 * mib}, 1},
		{"pushed out by a large launch", []use{{1: 8 * mib}, {9: 400 * mib}}, use{1: 8 * mib}, 0},
		{"large launch touched it last: what fits of it stays", []use{{1: 8 * mib, 9: 392 * mib}}, use{1: 8 * mib}, float64(half) / (400 * mib)},
		{"small launches in between fit beside it", []use{{1: 8 * mib}, {3: 8 * mib}, {3: 8 * mib, 4: 4 * mib}}, use{1: 8 * mib}, 1},
		{"half pushed out", []use{{1: 10 * mib}, {3: half - 5*mib}}, use{1: 10 * mib}, 0.5},
		{"one buffer kept, one not", []use{{1: 8 * mib}, {9: 400 * mib}, {2: 8 * mib}}, use{1: 8 * mib, 2: 8 * mib}, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDevice(m)
			for _, u := range tc.history {
				var total int64
				for _, n := range u {
					total += n
				}
				d.l2Resident(u, total)
			}
			var total int64
			for _, n := range tc.launch {
				total += n
			}
			if got := d.l2Resident(tc.launch, total); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("share found in L2 = %g, want %g", got, tc.want)
			}
		})
	}
}

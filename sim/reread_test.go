package sim

import "testing"

// TestRereadGranules: a re-read costs the granules of the requests that
// re-read, buffer by buffer; a stream read once (one sector of each pair a
// request, as a thread-per-row CSR walk reads its values) re-reads
// nothing, so its requests do not price another buffer's re-reads.
func TestRereadGranules(t *testing.T) {
	tests := []struct {
		name  string
		sites []loadSite
		uniq  map[int]int64
		want  float64 // granules per re-read sector; 0: no re-reads
	}{
		{"nothing re-read", []loadSite{{l2: 100, l2All: 100, grans: 100, buf: 0}}, map[int]int64{0: 100}, 0},
		{"whole pairs re-read", []loadSite{{l2: 400, l2All: 400, grans: 200, buf: 1}}, map[int]int64{1: 100}, 0.5},
		{"single sectors re-read", []loadSite{{l2: 400, l2All: 400, grans: 400, buf: 1}}, map[int]int64{1: 100}, 1},
		{"a stream read once beside gathers in pairs", []loadSite{
			{l2: 1000, l2All: 1000, grans: 1000, buf: 0}, // values: each sector once, one a pair
			{l2: 400, l2All: 400, grans: 200, buf: 1},    // x: gathered 4 times, whole pairs
		}, map[int]int64{0: 1000, 1: 100}, 0.5},
		{"two sites of one buffer", []loadSite{
			{l2: 300, l2All: 300, grans: 150, buf: 2},
			{l2: 300, l2All: 300, grans: 300, buf: 2},
		}, map[int]int64{2: 200}, 0.75},
		{"weighted by re-reads", []loadSite{
			{l2: 300, l2All: 300, grans: 150, buf: 0}, // 200 re-reads at 0.5
			{l2: 300, l2All: 300, grans: 300, buf: 1}, // 200 re-reads at 1
		}, map[int]int64{0: 100, 1: 100}, 0.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, s := rereadGranules(tt.sites, tt.uniq)
			var got float64
			if s > 0 {
				got = g / s
			}
			if got != tt.want {
				t.Errorf("granules per re-read sector = %v (%v over %v), want %v", got, g, s, tt.want)
			}
		})
	}
}

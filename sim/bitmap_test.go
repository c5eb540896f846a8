package sim

import (
	"sync/atomic"
	"testing"
)

// TestBitmapGroups: countGroups counts the aligned groups of k bits with
// a bit set, whichever bits of a group are set and across words.
func TestBitmapGroups(t *testing.T) {
	for _, tc := range []struct {
		name         string
		set          []uint32
		pairs, quads int64
	}{
		{"empty", nil, 0, 0},
		{"one bit", []uint32{5}, 1, 1},
		{"a whole quad", []uint32{4, 5, 6, 7}, 2, 1},
		{"one bit a quad", []uint32{0, 4, 8, 12}, 4, 4},
		{"across words", []uint32{62, 63, 64, 65, 127, 128}, 4, 4},
	} {
		b := &bitmap{words: make([]atomic.Uint64, 3)}
		for _, i := range tc.set {
			b.set(i)
		}
		if got := b.countGroups(2); got != tc.pairs {
			t.Errorf("%s: %d pairs, want %d", tc.name, got, tc.pairs)
		}
		if got := b.countGroups(4); got != tc.quads {
			t.Errorf("%s: %d quads, want %d", tc.name, got, tc.quads)
		}
		if got := b.count(); got != int64(len(tc.set)) {
			t.Errorf("%s: %d bits, want %d", tc.name, got, len(tc.set))
		}
	}
}

package timing

import (
	"math"
	"testing"
)

func TestRereadMissShare(t *testing.T) {
	const mib = 1 << 20
	stream := BufferReads{Unique: 512 * mib, L2Sectors: 512 * mib / 32}
	gathered := func(mb int64, gathers int64) BufferReads {
		return BufferReads{Unique: mb * mib, L2Sectors: gathers}
	}
	tests := []struct {
		name     string
		reads    []BufferReads
		written  int64
		capacity float64
		lo, hi   float64
	}{
		{"the launch fits", []BufferReads{{Unique: 8 * mib, L2Sectors: 1 << 22}, gathered(4, 1<<24)}, 4 * mib, 35 * mib, 0, 0},
		{"small x gathered often beside a stream", []BufferReads{stream, gathered(8, 1<<26)}, 0, 35 * mib, 0, 1e-6},
		{"x as large as the capacity", []BufferReads{stream, gathered(32, 1<<26)}, 0, 35 * mib, 0.1, 0.4},
		{"x far past the capacity", []BufferReads{stream, gathered(256, 1<<26)}, 0, 35 * mib, 0.8, 0.95},
		{"re-read twice, far apart", []BufferReads{stream, gathered(64, 2*64*mib/32)}, 0, 35 * mib, 0.8, 1},
		{"writes fill the L2 too", []BufferReads{gathered(8, 4*8*mib/32)}, 1024 * mib, 35 * mib, 0.5, 1},
		{"but not between close re-reads", []BufferReads{gathered(8, 1<<26)}, 1024 * mib, 35 * mib, 0, 0.01},
		{"no capacity", []BufferReads{stream, gathered(8, 1<<26)}, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := len(tc.reads) - 1
			got := RereadMissShare(tc.reads, tc.written, b, tc.capacity)
			if got < tc.lo || got > tc.hi || math.IsNaN(got) {
				t.Errorf("RereadMissShare = %.4f, want within [%g, %g]", got, tc.lo, tc.hi)
			}
		})
	}
}

// TestRereadMissShareMonotone: a larger capacity never misses more, and a
// larger gathered buffer (the same gathers) never misses less.
func TestRereadMissShareMonotone(t *testing.T) {
	const mib = 1 << 20
	stream := BufferReads{Unique: 512 * mib, L2Sectors: 512 * mib / 32}
	prev := 2.0
	for c := 8.0; c <= 128; c *= 1.5 {
		got := RereadMissShare([]BufferReads{stream, {Unique: 48 * mib, L2Sectors: 1 << 26}}, 0, 1, c*mib)
		if got > prev {
			t.Errorf("capacity %.0f MiB: miss share %.4f above %.4f at a smaller capacity", c, got, prev)
		}
		prev = got
	}
	prev = -1
	for mb := int64(1); mb <= 512; mb *= 2 {
		got := RereadMissShare([]BufferReads{stream, {Unique: mb * mib, L2Sectors: 1 << 26}}, 0, 1, 35*mib)
		if got < prev {
			t.Errorf("x of %d MiB: miss share %.4f below %.4f for a smaller x", mb, got, prev)
		}
		prev = got
	}
}

// TestRereadMissShareLines: the L2 allocates 128-byte lines. A buffer
// whose loads read one sector of each line (a strided read) holds four
// times its bytes of the L2, so the same re-reads miss more than a dense
// buffer's of the same bytes and touches; a stream read a line a request
// holds what its bytes do, as without lines.
func TestRereadMissShareLines(t *testing.T) {
	const mib = 1 << 20
	stream := BufferReads{Unique: 512 * mib, L2Sectors: 512 * mib / 32}
	streamLines := stream
	streamLines.Lines, streamLines.LineTouches = 512*mib/128, 512*mib/128
	// 16 MiB of sectors, each re-read 8 times by one-lane-a-line requests:
	// dense, its sectors fill 4 Mi lines' worth (every sector of a line
	// read); sparse, one sector a line of 64 MiB of lines.
	dense := BufferReads{Unique: 16 * mib, L2Sectors: 8 * 16 * mib / 32, Lines: 16 * mib / 128, LineTouches: 8 * 16 * mib / 32}
	sparse := BufferReads{Unique: 16 * mib, L2Sectors: 8 * 16 * mib / 32, Lines: 16 * mib / 32, LineTouches: 8 * 16 * mib / 32}
	const capacity = 48 * mib
	d := RereadMissShare([]BufferReads{streamLines, dense}, 0, 1, capacity)
	s := RereadMissShare([]BufferReads{streamLines, sparse}, 0, 1, capacity)
	if !(s > d) {
		t.Errorf("one sector a line: miss share %.4f, not above the dense buffer's %.4f", s, d)
	}
	// The stream's lines, each touched once, fill the window as its bytes.
	a := RereadMissShare([]BufferReads{stream, {Unique: 48 * mib, L2Sectors: 1 << 24}}, 0, 1, capacity)
	b := RereadMissShare([]BufferReads{streamLines, {Unique: 48 * mib, L2Sectors: 1 << 24}}, 0, 1, capacity)
	if math.Abs(a-b) > 1e-9 {
		t.Errorf("a stream read a line a request: miss share %.6f with its lines, %.6f without", b, a)
	}
}

package sim

import (
	"math"
	"testing"
)

// TestHalfToFloat: every binary16 value against its definition,
// (-1)^s · 2^(e-15) · (1 + f/1024), subnormals 2^-14 · f/1024.
func TestHalfToFloat(t *testing.T) {
	for h := range 1 << 16 {
		s, e, f := h>>15, h>>10&0x1f, h&0x3ff
		got := halfToFloat(uint16(h))
		var want float64
		switch {
		case e == 0x1f && f != 0:
			if !math.IsNaN(float64(got)) {
				t.Fatalf("%#04x: %v, want NaN", h, got)
			}
			continue
		case e == 0x1f:
			want = math.Inf(1)
		case e == 0:
			want = math.Ldexp(float64(f)/1024, -14)
		default:
			want = math.Ldexp(1+float64(f)/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		if float64(got) != want || math.Signbit(float64(got)) != (s == 1) {
			t.Fatalf("%#04x: %v, want %v", h, got, want)
		}
	}
}

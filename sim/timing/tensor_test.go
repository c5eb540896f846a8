package timing

import (
	"math"
	"testing"
)

// TestTensorTime: the tensor term is the multiply-adds over the active SMs
// at the measured per-format rate; tf32 takes twice as long per
// multiply-add as f16; a GPU with no measured rate has no term.
func TestTensorTime(t *testing.T) {
	h200 := &GPU{Key: "h200", SMs: 132, ClockHz: 1.98e9}
	cases := []struct {
		name   string
		g      *GPU
		w      TensorWork
		active float64
		want   float64
	}{
		{"f16 on every SM", h200, TensorWork{HalfMACs: 132 * 1207.6 * 1e6}, 132, 1e6 / 1.98e9},
		{"tf32 at half the rate", h200, TensorWork{TF32MACs: 132 * 1207.6 * 1e6}, 132, 2e6 / 1.98e9},
		{"one SM", h200, TensorWork{HalfMACs: 12076}, 1, 10 / 1.98e9},
		{"no tensor work", h200, TensorWork{}, 132, 0},
		{"no measured rate", &GPU{Key: "t4", SMs: 40, ClockHz: 1.59e9}, TensorWork{HalfMACs: 1e9}, 40, 0},
	}
	for _, c := range cases {
		if got := tensorTime(c.g, c.w, c.active); math.Abs(got-c.want) > 1e-9*c.want+1e-18 {
			t.Errorf("%s: %g s, want %g", c.name, got, c.want)
		}
	}
}

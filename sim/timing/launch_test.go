package timing

import "testing"

// TestTimedCall: the time per call is the launch floor or the GPU time,
// whichever is longer, and says which.
func TestTimedCall(t *testing.T) {
	tests := []struct {
		name       string
		gpu, floor float64
		want       float64
		host       bool
	}{
		{"host", 3e-6, 5e-6, 5e-6, true},
		{"gpu", 7e-6, 5e-6, 7e-6, false},
		{"equal", 5e-6, 5e-6, 5e-6, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Constants
			if got, host := c.TimedCall(tc.gpu, tc.floor); got != tc.want || host != tc.host {
				t.Errorf("TimedCall(%g, %g) = %g, %v; want %g, %v", tc.gpu, tc.floor, got, host, tc.want, tc.host)
			}
		})
	}
}

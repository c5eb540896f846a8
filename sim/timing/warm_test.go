package timing

import (
	"math"
	"testing"
)

func TestWarmShare(t *testing.T) {
	const mib = 1 << 20
	g := &GPU{L2Bytes: 50 * mib}
	curve := &Constants{WarmShare: []WarmPoint{{8 * mib, 1}, {32 * mib, 0.9}, {40 * mib, 0.5}, {48 * mib, 0}}}
	none := &Constants{}
	for _, tc := range []struct {
		name      string
		c         *Constants
		footprint int64
		history   float64
		want      float64
	}{
		{"no curve, within half the L2: the history's share", none, 20 * mib, 0.7, 0.7},
		{"no curve, over half the L2: cold", none, 26 * mib, 1, 0},
		{"below the first point: its share", curve, 4 * mib, 1, 1},
		{"between points: linear", curve, 36 * mib, 1, 0.7},
		{"at a point", curve, 40 * mib, 1, 0.5},
		{"above the last point: its share", curve, 64 * mib, 1, 0},
		{"the history bounds it", curve, 36 * mib, 0.25, 0.25},
		{"the curve bounds the history", curve, 44 * mib, 1, 0.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.warmShare(g, tc.footprint, tc.history); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("warmShare(%d MiB, %g) = %g, want %g", tc.footprint/mib, tc.history, got, tc.want)
			}
		})
	}
}

func TestWarmCapacity(t *testing.T) {
	const mib = 1 << 20
	g := &GPU{L2Bytes: 50 * mib}
	for _, tc := range []struct {
		name  string
		curve []WarmPoint
		want  float64
	}{
		{"no curve: half the L2", nil, 25 * mib},
		{"falls to one half between two points", []WarmPoint{{32 * mib, 0.9}, {40 * mib, 0.7}, {44 * mib, 0.1}}, 40*mib + 4*mib*(0.2/0.6)},
		{"at a point", []WarmPoint{{32 * mib, 1}, {40 * mib, 0.5}, {48 * mib, 0}}, 40 * mib},
		{"never falls: the last footprint", []WarmPoint{{8 * mib, 1}, {16 * mib, 0.8}}, 16 * mib},
		{"under one half from the first point", []WarmPoint{{8 * mib, 0.4}, {16 * mib, 0.1}}, 8 * mib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Constants{WarmShare: tc.curve}
			if got := c.WarmCapacity(g); math.Abs(got-tc.want) > 1 {
				t.Errorf("WarmCapacity = %.0f, want %.0f", got, tc.want)
			}
		})
	}
}

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
	both := &Constants{WarmShare: curve.WarmShare, WarmShareWaves: []WarmPoint{{8 * mib, 1}, {24 * mib, 0.5}, {32 * mib, 0.3}}}
	for _, tc := range []struct {
		name      string
		c         *Constants
		footprint int64
		history   float64
		many      bool
		want      float64
	}{
		{"no curve, within half the L2: the history's share", none, 20 * mib, 0.7, false, 0.7},
		{"no curve, over half the L2: cold", none, 26 * mib, 1, false, 0},
		{"below the first point: its share", curve, 4 * mib, 1, false, 1},
		{"between points: linear", curve, 36 * mib, 1, false, 0.7},
		{"at a point", curve, 40 * mib, 1, false, 0.5},
		{"above the last point: its share", curve, 64 * mib, 1, false, 0},
		{"the history bounds it", curve, 36 * mib, 0.25, false, 0.25},
		{"the curve bounds the history", curve, 44 * mib, 1, false, 0.25},
		{"many waves, no many-wave curve: the stream's", curve, 36 * mib, 1, true, 0.7},
		{"many waves, no curve at all: half the L2", none, 26 * mib, 1, true, 0},
		{"many waves: the many-wave curve", both, 28 * mib, 1, true, 0.4},
		{"one wave beside a many-wave curve: the stream's", both, 28 * mib, 1, false, 1 - 0.1*20.0/24},
		{"many waves: the history bounds it", both, 16 * mib, 0.5, true, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.warmShare(g, tc.footprint, tc.history, tc.many); math.Abs(got-tc.want) > 1e-12 {
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

func TestManyWaves(t *testing.T) {
	g := &GPU{SMs: 132}
	for _, tc := range []struct {
		name        string
		blocks      int64
		blocksPerSM int
		want        bool
	}{
		{"every block resident at once", 1056, 8, false},
		{"one block more than the GPU holds", 1057, 8, true},
		{"warp per row at 2^18: 32,768 blocks of 8 warps", 32768, 8, true},
		{"occupancy unknown: one wave", 1 << 20, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := g.ManyWaves(tc.blocks, tc.blocksPerSM); got != tc.want {
				t.Errorf("ManyWaves(%d, %d) = %v, want %v", tc.blocks, tc.blocksPerSM, got, tc.want)
			}
		})
	}
}

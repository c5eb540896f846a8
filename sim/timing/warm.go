package timing

// WarmPoint is one footprint of the warm-share curve (Constants.WarmShare):
// a launch of Bytes distinct bytes, timed back to back, finds Share of
// them in L2.
type WarmPoint struct {
	Bytes, Share float64
}

// shareAt is curve w's share at footprint f: linear between its points,
// the first point's below them and the last point's above them; 1 without
// a curve (the half-L2 rule decides then).
func shareAt(w []WarmPoint, f float64) float64 {
	if len(w) == 0 {
		return 1
	}
	if f <= w[0].Bytes {
		return w[0].Share
	}
	for i := 1; i < len(w); i++ {
		if f <= w[i].Bytes {
			a, b := w[i-1], w[i]
			return a.Share + (b.Share-a.Share)*(f-a.Bytes)/(b.Bytes-a.Bytes)
		}
	}
	return w[len(w)-1].Share
}

// WarmCapacity is how much distinct data the L2 keeps across launches:
// the footprint at which the measured warm share first falls to one half
// (interpolated; the last point's footprint when it never does), or half
// the L2 without a curve (docs/timemodel.md, "Warm and cold"). L2History
// holds a device's recent launches to it.
func (c *Constants) WarmCapacity(g *GPU) float64 {
	w := c.WarmShare
	if len(w) == 0 {
		return float64(g.L2Bytes) / 2
	}
	if w[0].Share <= 0.5 {
		return w[0].Bytes
	}
	for i := 1; i < len(w); i++ {
		if a, b := w[i-1], w[i]; b.Share <= 0.5 {
			return a.Bytes + (b.Bytes-a.Bytes)*(a.Share-0.5)/(a.Share-b.Share)
		}
	}
	return w[len(w)-1].Bytes
}

// warmShare is the share of a launch's footprint found in L2: what its
// history left (l2Share) and, with a measured curve, no more than the
// curve's share at the footprint; without one, the history's share when
// the footprint fits in half the L2 and none otherwise. A launch of more
// than one wave of blocks (manyWaves) keeps less of its footprint across
// launches than a one-wave launch striding over it (the H100: 37.0 MiB
// against 42.7), and takes the many-wave curve where one was measured
// (WarmShareWaves; docs/timemodel.md, "Waves": not because another SM
// reads a byte, which the moved stream ruled out; the cause is open).
func (c *Constants) warmShare(g *GPU, footprint int64, l2Share float64, manyWaves bool) float64 {
	w := c.WarmShare
	if manyWaves && len(c.WarmShareWaves) > 0 {
		w = c.WarmShareWaves
	}
	if len(w) == 0 {
		if footprint > g.L2Bytes/2 {
			return 0
		}
		return l2Share
	}
	return min(l2Share, shareAt(w, float64(footprint)))
}

// ManyWaves reports whether a grid of blocks, blocksPerSM of them an SM at
// once, runs in more than one wave on g: some of its blocks start only when
// others end, on whichever SM frees first. Unknown occupancy (0) is one wave.
func (g *GPU) ManyWaves(blocks int64, blocksPerSM int) bool {
	return blocksPerSM > 0 && blocks > int64(g.SMs)*int64(blocksPerSM)
}

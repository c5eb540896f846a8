package sim

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/warplab/warplab/sim/timing"
)

// The share of its footprint a launch finds in L2 after the same kernel on
// the same buffers (issue 27, the thirty-eighth pass), from the l2warm
// microbenchmark (scripts/evidence/timemodel/l2warm.cu): a float4 read of
// F = 4 to 64 MiB launched four times, then a probe launch whose DRAM read
// bytes Nsight Compute counts with the caches as the four left them. The
// rule was fixed in docs/timemodel.md ("Warm and cold") before any row
// existed; no sweep or lesson run sets anything here.

// l2warmFile is the embedded copy of model key's l2warm run.
func l2warmFile(key string) string { return key + "-l2warm" }

var l2warmParam = regexp.MustCompile(`^(\d+) MiB$`)

// applyL2Warm sets WarmShare from the l2warm_read_dram rows and
// WarmShareWaves from the l2warm_waves_dram rows (the thirty-ninth pass,
// "Waves"): at F MiB the share 1 − DRAM read bytes / F, clamped to [0, 1],
// in increasing F. A curve of fewer than three rows is left unset (no
// WarmShare: half the L2; no WarmShareWaves: a many-wave launch takes
// WarmShare).
func applyL2Warm(m Model, rows []MicrobenchRow) Model {
	if w := warmCurve(rows, "l2warm_read_dram"); w != nil {
		m.WarmShare = w
	}
	if w := warmCurve(rows, "l2warm_waves_dram"); w != nil {
		m.WarmShareWaves = w
	}
	return m
}

// warmCurve is the share curve of the rows called name, nil with fewer
// than three.
func warmCurve(rows []MicrobenchRow, name string) []timing.WarmPoint {
	var w []timing.WarmPoint
	for _, r := range rows {
		if r.Name != name || r.Unit != "B" || r.Value < 0 {
			continue
		}
		p, ok := paramInts(l2warmParam, r.Param)
		if !ok || p[0] <= 0 {
			continue
		}
		f := float64(p[0]) * mib
		w = append(w, timing.WarmPoint{Bytes: f, Share: min(1, max(0, 1-r.Value/f))})
	}
	if len(w) < 3 {
		return nil
	}
	sort.Slice(w, func(i, j int) bool { return w[i].Bytes < w[j].Bytes })
	return w
}

// l2warmSource names WarmCapacity's rows and the embedded file they come
// from, or says the model has none.
func l2warmSource(m Model) string {
	return microbenchSource(l2warmFile(m.Key), len(m.WarmShare) > 0,
		"none: no l2warm microbenchmark for this model (half the L2 kept across launches, a larger footprint found cold)",
		func(file, device string) string {
			waves := "no many-wave curve: a grid of more than one wave takes the same share"
			if n := len(m.WarmShareWaves); n > 0 {
				waves = fmt.Sprintf("a grid of more than one wave takes l2warm_waves_dram's share instead (%d points)", n)
			}
			return fmt.Sprintf("measured: the footprint at which l2warm_read_dram's warm share (1 − the probe's DRAM bytes / F, after four launches of a float4 read of F, Nsight Compute, --cache-control none) falls to one half, %.1f MiB of the %d MiB L2; the share itself, by footprint, weighs the warm time (%d points; %s); %s; %s", m.WarmCapacity(&m.GPU)/mib, m.L2Bytes>>20, len(m.WarmShare), waves, file, device)
		})
}

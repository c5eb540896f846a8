package sim

import (
	"fmt"
	"regexp"

	"github.com/warplab/warplab/internal/stats"
)

// The block's fixed cost on its SM (issue 27, milestone 3), from the
// blockcost microbenchmark (scripts/evidence/timemodel/blockcost.cu,
// evidence/timemodel-blockcost-h200-2026-12-06). Measured and not adopted,
// three times: alone (the twenty-fifth pass), with warp slots freed as
// warps end (timing.Constants.WarpSlotRelease, the twenty-seventh) and
// with those and the L1's lines in flight (the twenty-eighth, which
// adopted the two without it): the sweep or the lesson check lost more
// than they gained (docs/timemodel.md). No model reads the run, so
// BlockSeconds stays 0; TestBlockCostRecorded holds applyBlockCost's rule
// to the recorded rows.

var blockcostParam = regexp.MustCompile(`^T=(\d+) b=(\d+) k=(\d+)$`)

// applyBlockCost sets BlockSeconds from the blockcost_empty rows at one
// block an SM: grids of k generations of empty blocks (k × SMs blocks of
// T threads), each row the GPU's own time per launch. For each T the
// least-squares slope in k is one generation's time, start to start, of
// a block that does nothing; BlockSeconds is the median of those slopes
// over T (the empty block's own path, one instruction, is left in: 2 ns
// at WarpCPI). Fewer than three generations for every T, or a slope out
// of range, leave it as it was.
func applyBlockCost(m Model, rows []MicrobenchRow) Model {
	xs := map[int][]float64{}
	ys := map[int][]float64{}
	for _, r := range rows {
		if r.Name != "blockcost_empty" || r.Unit != "us" {
			continue
		}
		p, ok := paramInts(blockcostParam, r.Param)
		if !ok || p[1] != 1 {
			continue
		}
		threads, k := p[0], p[2]
		if threads <= 0 || k <= 0 {
			continue
		}
		xs[threads] = append(xs[threads], float64(k))
		ys[threads] = append(ys[threads], r.Value*1e-6)
	}
	var slopes []float64
	for t := range xs {
		if len(xs[t]) < 3 {
			continue
		}
		if s, _, ok := leastSquares(xs[t], ys[t]); ok {
			slopes = append(slopes, s)
		}
	}
	if len(slopes) == 0 {
		return m
	}
	s := stats.Median(slopes)
	if s <= 0 || s > 1e-5 {
		return m
	}
	m.BlockSeconds = s
	return m
}

// blockcostSource says where BlockSeconds comes from: nowhere yet.
func blockcostSource(m Model) string {
	if m.BlockSeconds > 0 {
		return fmt.Sprintf("set: %.0f ns a block beyond its path", m.BlockSeconds*1e9)
	}
	return "none: measured on the H200 (153 ns a block generation by applyBlockCost's rule, evidence/timemodel-blockcost-h200-2026-12-06), not adopted: docs/timemodel.md, twenty-fifth and twenty-seventh passes"
}

// warpSlotsSource says whether the schedule frees a warp's slot as the
// warp ends, and where that was measured.
func warpSlotsSource(m Model) string {
	if m.WarpSlotRelease {
		return "set: a warp's slot frees when the warp ends, for blocks of at most two warps a scheduler (timing.GPU.Slots): measured on the H200 (evidence/timemodel-warpslots-h200-2026-12-06); adopted with L1InFlight, docs/timemodel.md, twenty-eighth pass"
	}
	return "none (0): a block's warp slots free when the block ends (not measured for this GPU)"
}

// lineWaitSource says whether a warp's load of a sector another warp has
// in flight waits the rest of that fetch, and where that was measured.
func lineWaitSource(m Model) string {
	if m.L1InFlight {
		return "set: a load of a sector another warp of the block has in flight waits the rest of that fetch: measured on an H100 (evidence/timemodel-linewait-h100-2026-12-06: 733 cycles against the first warp's 732); docs/timemodel.md, twenty-eighth pass"
	}
	return "none (0): a sector another warp fetched is an L1 hit (not measured for this GPU)"
}

// inStepSource says whether blocks that meet at barriers wait for the
// L2 to serve all the GPU's blocks in step, and where that was measured.
func inStepSource(m Model) string {
	if m.InStepBandwidth {
		return "set: blocks that meet at barriers wait for memory in step, each wait at least the L2's time for every block in step on the GPU (timing's inStepMemory): measured on the H200 (evidence/timemodel-phase-h200-2026-12-04: a step is its load plus its tree at one and two blocks an SM, within 3% of that at eight); docs/timemodel.md, thirty-third pass"
	}
	return "none (0): a block's memory waits are its rounds' latencies alone (not measured for this GPU)"
}

// b2f is 1 for true, 0 for false: a switch in the constants' table.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

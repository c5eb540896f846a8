package sim

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// The block's fixed cost on its SM (issue 27, milestone 3), from the
// blockcost microbenchmark (scripts/evidence/timemodel/blockcost.cu,
// recorded on an H100, the H200's SM, as
// evidence/timemodel-blockcost-h100-2026-12-06). Measured and not adopted:
// with it the sweep gained three cases and the held-out libs kernels at
// 2^17 rows 36, but one sweep family fell under 80% and the lesson check
// lost issue 11's Day-37 promise (docs/timemodel.md, the twenty-fifth
// pass). No model reads the run, so BlockSeconds stays 0;
// TestBlockCostRecorded holds applyBlockCost's rule to the recorded rows.

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
		p := blockcostParam.FindStringSubmatch(r.Param)
		if p == nil || p[2] != "1" {
			continue
		}
		threads, _ := strconv.Atoi(p[1])
		k, _ := strconv.Atoi(p[3])
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
	slices.Sort(slopes)
	s := slopes[len(slopes)/2]
	if len(slopes)%2 == 0 {
		s = (slopes[len(slopes)/2-1] + s) / 2
	}
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
	return "none: measured on an H100, the H200's SM (152 ns a block generation by applyBlockCost's rule, evidence/timemodel-blockcost-h100-2026-12-06), not adopted: docs/timemodel.md, twenty-fifth pass (a block's slots free when its path ends)"
}

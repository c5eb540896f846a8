package sim

import (
	"fmt"
	"regexp"

	"github.com/warplab/warplab/internal/stats"
)

// The barrier's SM-wide rate (issue 27, milestone 3), from the contention
// microbenchmark (scripts/evidence/timemodel/contention.cu, recorded on
// the H200 as evidence/timemodel-contention-h200-2026-12-04, whose
// contention.csv is embedded as sim/calibration/<key>-contention.csv, a
// byte-for-byte copy TestContentionCalibrationCopy holds to the recorded
// file). None is set from a sweep or lesson run.

// contentionFile is the embedded copy of model key's contention run.
func contentionFile(key string) string { return key + "-contention" }

var contentionParam = regexp.MustCompile(`^T=(\d+) b=(\d+)$`)

// contentionWarps is the warps an SM at which the barrier's rate is read:
// an SM full, where cont_bar is the barriers' rate and not their latency
// (the rows at 8 and 16 warps take 30–34 cycles a step whatever the
// warps).
const contentionWarps = 64

// applyContention sets BarrierWarpCycles: the median over the cont_bar
// rows at 64 warps an SM (256 threads × 8 blocks, 64 × 32, 1,024 × 2) of
// the step's cycles over 64, the warps' bar.sync one after another. No
// such row, or an implausible value, leaves it as it was.
func applyContention(m Model, rows []MicrobenchRow) Model {
	var per []float64
	for _, r := range rows {
		if r.Name != "cont_bar" || r.Unit != "cycles" {
			continue
		}
		p, ok := paramInts(contentionParam, r.Param)
		if !ok {
			continue
		}
		threads, blocks := p[0], p[1]
		if threads%32 != 0 || threads/32*blocks != contentionWarps {
			continue
		}
		per = append(per, r.Value/contentionWarps)
	}
	if len(per) == 0 {
		return m
	}
	v := stats.Median(per)
	if v > 0 && v < 100 {
		m.BarrierWarpCycles = v
	}
	return m
}

// contentionSource names BarrierWarpCycles' rows and the embedded file
// they come from, or says the model has none.
func contentionSource(m Model) string {
	return microbenchSource(contentionFile(m.Key), m.BarrierWarpCycles > 0,
		"none: no contention microbenchmark for this model (barriers cost only their blocks' paths)",
		func(file, device string) string {
			return fmt.Sprintf("measured: the median of cont_bar's three rows at 64 warps an SM (blocks of 256, 64 and 1,024 threads; barriers alone, 134.9–135.1 cycles a step) over 64: %.2f cycles a warp's bar.sync of its SM; blocks that meet at barriers in step share it, as they share the SM's issue and shared memory (%s; %s)", m.BarrierWarpCycles, file, device)
		})
}

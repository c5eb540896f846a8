package main

import (
	"context"
	"fmt"
	"math"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/cg"
)

// selftestCG runs every GPU stage of the CG lesson at 8³ and compares its
// residual history with the CPU baseline (stage 0), as the lesson does. On a
// GPU the same stage also runs on the simulator, and the two histories must
// be the same bits: the kernels avoid fused multiply-adds and reduce in a
// fixed order, so the GPU and the Go mirrors compute identical doubles.
func selftestCG(ctx context.Context, dev, simDev *gpuext.Device) ([]selftestRow, error) {
	p, err := cg.Generate(cg.Cube(8), cg.GenOptions{})
	if err != nil {
		return nil, err
	}
	ref, err := cg.RunStage(nil, p, 0, cg.RunOptions{})
	if err != nil {
		return nil, err
	}
	var rows []selftestRow
	for s := 1; s < cg.Stages; s++ {
		row := selftestRow{lesson: "cg", input: "8x8x8", kernel: fmt.Sprintf("stage %d (%s)", s, cg.StageName(s)), reference: "ok", mirror: "-"}
		got, err := cg.RunStage(dev, p, s, cg.RunOptions{EventRuns: 1, EventWarmups: 1})
		if err != nil {
			return nil, fmt.Errorf("stage %d: %w", s, err)
		}
		if c := cg.CompareResiduals(ref, got); !c.Identical && !c.WithinTolerance {
			row.reference = fmt.Sprintf("residuals differ from stage 0 by %.3g (tolerance %.3g) from iteration %d", c.MaxEarlyRelDiff, c.Tolerance, c.FirstDiff)
		}
		if simDev != nil {
			m, err := cg.RunStage(simDev, p, s, cg.RunOptions{})
			if err != nil {
				return nil, fmt.Errorf("stage %d on the simulator: %w", s, err)
			}
			row.mirror = sameBits(got.Residuals, m.Residuals)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// sameBits compares two residual histories bit for bit.
func sameBits(a, b []float64) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d iterations vs %d", len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return fmt.Sprintf("first differs at iteration %d: %.17g vs %.17g", i+1, a[i], b[i])
		}
	}
	return "ok (same bits)"
}

package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/warplab/warplab/lessons/cg"
)

// selftestCG runs every GPU stage of the CG lesson at 8³ and compares its
// residual history with the CPU baseline (stage 0), as the lesson does. On a
// GPU the same stage also runs on the simulator from the GPU's PTX (the
// lesson has no Go mirrors: the simulator column is the PTX path), and the
// histories must be the same bits: the kernels avoid fused multiply-adds and
// reduce in a fixed order, so the GPU and the simulator compute identical
// doubles. The residual history is every iteration's ‖r‖, so it takes in
// every kernel's output; the final x is compared too, through its error and
// true residual. cg.cu has no float atomics or .approx (the check reads the
// PTX that ran and says so if that changes); no tolerance is stated, so such
// a change fails the row.
func selftestCG(ctx context.Context, devs selftestDevs) ([]selftestRow, []string, error) {
	p, err := cg.Generate(cg.Cube(8), cg.GenOptions{})
	if err != nil {
		return nil, nil, err
	}
	ref, err := cg.RunStage(nil, p, 0, cg.RunOptions{})
	if err != nil {
		return nil, nil, err
	}
	pc, err := lessonPTX(devs, cg.Module())
	if err != nil {
		return nil, nil, err
	}
	var code []string
	if pc != nil {
		c, err := codeLine(devs, cg.Module(), pc)
		if err != nil {
			return nil, nil, err
		}
		code = append(code, c)
	}
	var rows []selftestRow
	for s := 1; s < cg.Stages; s++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		row := selftestRow{lesson: "cg", input: "8x8x8", kernel: fmt.Sprintf("stage %d (%s)", s, cg.StageName(s)), reference: "ok", ptx: "-"}
		got, err := cg.RunStage(devs.dev, p, s, cg.RunOptions{EventRuns: 1, EventWarmups: 1})
		if err != nil {
			return nil, nil, fmt.Errorf("stage %d: %w", s, err)
		}
		if c := cg.CompareResiduals(ref, got); !c.Identical && !c.WithinTolerance {
			row.reference = fmt.Sprintf("residuals differ from stage 0 by %.3g (tolerance %.3g) from iteration %d", c.MaxEarlyRelDiff, c.Tolerance, c.FirstDiff)
		}
		if pc != nil {
			x, err := cg.RunStage(devs.ptx, p, s, cg.RunOptions{})
			switch {
			case err != nil:
				row.ptx = "simulator: " + err.Error()
			default:
				row.ptx = sameBits(got.Residuals, x.Residuals)
				if row.ptx == "ok (same bits)" && (math.Float64bits(got.TrueResidual) != math.Float64bits(x.TrueResidual) || math.Float64bits(got.MaxErr) != math.Float64bits(x.MaxErr)) {
					row.ptx = fmt.Sprintf("same residual history, but final x differs: true residual %.17g vs %.17g, max error %.17g vs %.17g", got.TrueResidual, x.TrueResidual, got.MaxErr, x.MaxErr)
				}
				if hz := ptxHazards(pc.text, ""); len(hz) > 0 && !strings.HasPrefix(row.ptx, "ok") {
					row.ptx += "; cg.cu's PTX uses " + strings.Join(hz, ", ") + " and no tolerance is stated for it"
				}
			}
		}
		rows = append(rows, row)
	}
	return rows, code, nil
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

package cg

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/warplab/warplab/lessons/lesson"
)

// selfTest (Lesson.SelfTest) runs every GPU stage of the CG lesson at 8³ and compares its
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
func selfTest(ctx context.Context, devs lesson.Devices) ([]lesson.Check, []string, error) {
	p, err := Generate(Cube(8), GenOptions{})
	if err != nil {
		return nil, nil, err
	}
	ref, err := RunStage(nil, p, 0, RunOptions{})
	if err != nil {
		return nil, nil, err
	}
	pc, err := lesson.SimPTX(devs, Module())
	if err != nil {
		return nil, nil, err
	}
	var code []string
	if pc != nil {
		code = append(code, pc.Code)
	}
	var rows []lesson.Check
	for s := 1; s < Stages; s++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		row := lesson.Check{Lesson: "cg", Input: "8x8x8", Kernel: fmt.Sprintf("stage %d (%s)", s, StageName(s)), Reference: lesson.OK(), PTX: lesson.NotCompared()}
		got, err := RunStage(devs.Dev, p, s, RunOptions{EventRuns: 1, EventWarmups: 1})
		if err != nil {
			return nil, nil, fmt.Errorf("stage %d: %w", s, err)
		}
		if c := CompareResiduals(ref, got); !c.Identical && !c.WithinTolerance {
			row.Reference = lesson.Fail(fmt.Sprintf("residuals differ from stage 0 by %.3g (tolerance %.3g) from iteration %d", c.MaxEarlyRelDiff, c.Tolerance, c.FirstDiff))
		}
		if pc != nil {
			x, err := RunStage(devs.PTX, p, s, RunOptions{})
			switch {
			case err != nil:
				row.PTX = lesson.Fail("simulator: " + err.Error())
			default:
				row.PTX = lesson.SameBitsF64(got.Residuals, x.Residuals)
				if row.PTX.OK && (math.Float64bits(got.TrueResidual) != math.Float64bits(x.TrueResidual) || math.Float64bits(got.MaxErr) != math.Float64bits(x.MaxErr)) {
					row.PTX = lesson.Fail(fmt.Sprintf("same residual history, but final x differs: true residual %.17g vs %.17g, max error %.17g vs %.17g", got.TrueResidual, x.TrueResidual, got.MaxErr, x.MaxErr))
				}
				if hz := lesson.PTXHazards(pc.Text, ""); len(hz) > 0 && !row.PTX.OK {
					row.PTX = lesson.Fail(row.PTX.Note + "; cg.cu's PTX uses " + strings.Join(hz, ", ") + " and no tolerance is stated for it")
				}
			}
		}
		rows = append(rows, row)
	}
	return rows, code, nil
}

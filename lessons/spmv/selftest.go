package spmv

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/lessons/lesson"
)

// selftestRows is the seed matrices' size in the self-test: big enough for
// many blocks and both matrices' patterns, small enough to take a moment.
const selftestRows = 8192

// selfTest (Lesson.SelfTest) runs every kernel of spmv.cu on both seed matrices. The
// kernels add in a fixed order with no float atomics or .approx (the check
// reads the PTX that ran), so the GPU and the PTX on the simulator must give
// the same bits; were one to gain either, RelTolerance, the seed's
// tolerance against the CPU reference, is the bound it is held to.
func selfTest(ctx context.Context, devs lesson.Devices) ([]lesson.Check, []string, error) {
	ms, err := SeedMatrices(selftestRows)
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
	dev := devs.Dev
	blocks := ProbeBlocksPerSM * dev.SMs()
	var rows []lesson.Check
	for _, m := range ms {
		for _, k := range KernelNames() {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			out, _, err := Exec(dev, k, m, blocks)
			if err != nil {
				return nil, nil, err
			}
			row := lesson.Check{Lesson: "spmv", Input: fmt.Sprintf("%s %d", m.Name, selftestRows), Kernel: k, Reference: lesson.OK(), PTX: lesson.NotCompared()}
			if msg := Check(m, k, out); msg != "" {
				row.Reference = lesson.Fail(msg)
			}
			if pc != nil {
				// A simulator error is this row's failure, not the
				// self-test's end: the other kernels still say theirs.
				fromPTX, _, err := Exec(devs.PTX, k, m, blocks)
				if err != nil {
					row.PTX = lesson.Fail("simulator: " + err.Error())
				} else {
					row.PTX = pc.CompareF32(k, out, fromPTX, RelTolerance)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, code, nil
}

package main

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/lessons/spmv"
)

// selftestRows is the seed matrices' size in the self-test: big enough for
// many blocks and both matrices' patterns, small enough to take a moment.
const selftestRows = 8192

// selftestSpMV runs every kernel of spmv.cu on both seed matrices. The
// kernels add in a fixed order with no float atomics or .approx (the check
// reads the PTX that ran), so the GPU and the PTX on the simulator must give
// the same bits; were one to gain either, spmv.RelTolerance, the seed's
// tolerance against the CPU reference, is the bound it is held to.
func selftestSpMV(ctx context.Context, devs selftestDevs) ([]selftestRow, []string, error) {
	ms, err := spmv.SeedMatrices(selftestRows)
	if err != nil {
		return nil, nil, err
	}
	pc, err := lessonPTX(devs, spmv.Module())
	if err != nil {
		return nil, nil, err
	}
	var code []string
	if pc != nil {
		c, err := codeLine(devs, spmv.Module(), pc)
		if err != nil {
			return nil, nil, err
		}
		code = append(code, c)
	}
	dev := devs.dev
	blocks := spmv.ProbeBlocksPerSM * dev.SMs()
	var rows []selftestRow
	for _, m := range ms {
		for _, k := range spmv.KernelNames() {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			out, _, err := spmv.Exec(dev, k, m, blocks)
			if err != nil {
				return nil, nil, err
			}
			row := selftestRow{lesson: "spmv", input: fmt.Sprintf("%s %d", m.Name, selftestRows), kernel: k, reference: "ok", ptx: "-"}
			if msg := spmv.Check(m, k, out); msg != "" {
				row.reference = msg
			}
			if pc != nil {
				// A simulator error is this row's failure, not the
				// self-test's end: the other kernels still say theirs.
				fromPTX, _, err := spmv.Exec(devs.ptx, k, m, blocks)
				if err != nil {
					row.ptx = "simulator: " + err.Error()
				} else {
					row.ptx = pc.compareF32(k, out, fromPTX, spmv.RelTolerance)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, code, nil
}

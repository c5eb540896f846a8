package main

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/spmv"
)

// selftestRows is the seed matrices' size in the self-test: big enough for
// many blocks and both matrices' patterns, small enough to take a moment.
const selftestRows = 8192

// selftestSpMV runs every kernel of spmv.cu on both seed matrices.
func selftestSpMV(ctx context.Context, dev, simDev *gpuext.Device) ([]selftestRow, error) {
	ms, err := spmv.SeedMatrices(selftestRows)
	if err != nil {
		return nil, err
	}
	blocks := spmv.ProbeBlocksPerSM * dev.SMs()
	var rows []selftestRow
	for _, m := range ms {
		for _, k := range spmv.KernelNames() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			out, _, err := spmv.Exec(dev, k, m, blocks)
			if err != nil {
				return nil, err
			}
			row := selftestRow{lesson: "spmv", input: fmt.Sprintf("%s %d", m.Name, selftestRows), kernel: k, reference: "ok", mirror: "-"}
			if msg := spmv.Check(m, k, out); msg != "" {
				row.reference = msg
			}
			if simDev != nil {
				mirrored, _, err := spmv.Exec(simDev, k, m, blocks)
				if err != nil {
					return nil, err
				}
				row.mirror = "ok"
				if bad := spmv.FirstMismatch(out, mirrored, spmv.RelTolerance); bad != len(mirrored) {
					row.mirror = fmt.Sprintf("differs at %d: GPU %.9g, mirror %.9g", bad, out[bad], mirrored[bad])
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

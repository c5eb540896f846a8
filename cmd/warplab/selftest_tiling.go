package main

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/tiling"
)

// selftestTiling runs every lecture-4 kernel at a small N. The lesson checks
// each result against its CPU reference, bit for bit where the kernel
// accumulates in the reference's order; on a GPU the same run on the
// simulator checks the mirrors against the same reference, so a kernel whose
// GPU and mirror results both equal the reference's bits agree with each
// other.
func selftestTiling(ctx context.Context, dev, simDev *gpuext.Device) ([]selftestRow, error) {
	opts := tiling.Options{N: 64, Tile: 16, Coarse: 4, NoSweep: true, NoDemos: true, Warmups: 1, Runs: 1}
	res, err := tiling.Run(ctx, dev, opts)
	if err != nil {
		return nil, err
	}
	var mirror map[string]tiling.KernelRun
	if simDev != nil {
		sr, err := tiling.Run(ctx, simDev, opts)
		if err != nil {
			return nil, fmt.Errorf("mirrors on the simulator: %w", err)
		}
		mirror = map[string]tiling.KernelRun{}
		for _, r := range sr.Runs {
			mirror[r.Kernel] = r
		}
	}
	var rows []selftestRow
	for _, r := range res.Runs {
		row := selftestRow{lesson: "tiling", input: fmt.Sprintf("N=%d", r.N), kernel: r.Kernel, reference: "ok", mirror: "-"}
		if !r.Correct {
			row.reference = "differs from the CPU reference"
		}
		if mirror != nil {
			m, ok := mirror[r.Kernel]
			switch {
			case !ok:
				row.mirror = "no simulator run"
			case !m.Correct:
				row.mirror = "mirror differs from the CPU reference"
			case r.BitIdentical && m.BitIdentical:
				row.mirror = "ok (same bits)"
			case r.Correct && m.Correct:
				row.mirror = "ok (both within tolerance of the reference)"
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

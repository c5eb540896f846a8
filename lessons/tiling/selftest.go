package tiling

import (
	"context"
	"fmt"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
)

// selfTest (Lesson.SelfTest) runs every lecture-4 kernel at a small N. The lesson checks
// each result against its CPU reference, bit for bit where the kernel
// accumulates in the reference's order; on a GPU the same run on the
// simulator from the GPU's PTX (the lesson has no Go mirrors: the simulator
// column is the PTX path) checks the simulator against the same reference,
// so a kernel whose GPU and simulator results both equal the reference's
// bits agree with each other bit for bit. A kernel whose results
// only come within the lesson's tolerance of the reference (the SpMV kernels'
// sums, when the reference adds in another order) is shown as such: the
// lesson keeps no copy of its outputs, so the self-test cannot say more.
// tiling.cu has no float atomics or .approx; the row names any that appear.
func selfTest(ctx context.Context, devs lesson.Devices) ([]lesson.Check, []string, error) {
	opts := Options{N: 64, Tile: 16, Coarse: 4, NoSweep: true, NoDemos: true, Warmups: 1, Runs: 1}
	res, err := Run(ctx, devs.Dev, opts)
	if err != nil {
		return nil, nil, err
	}
	sims := func(d *gpuext.Device) (map[string]KernelRun, error) {
		if d == nil {
			return nil, nil
		}
		sr, err := Run(ctx, d, opts)
		if err != nil {
			return nil, err
		}
		runs := map[string]KernelRun{}
		for _, r := range sr.Runs {
			runs[r.Kernel] = r
		}
		return runs, nil
	}
	pc, err := lesson.SimPTX(devs, Module())
	if err != nil {
		return nil, nil, err
	}
	var code []string
	var fromPTX map[string]KernelRun
	var ptxErr error
	if pc != nil {
		code = append(code, pc.Code)
		fromPTX, ptxErr = sims(devs.PTX)
	}
	var rows []lesson.Check
	for _, r := range res.Runs {
		row := lesson.Check{Lesson: "tiling", Input: fmt.Sprintf("N=%d", r.N), Kernel: r.Kernel, Reference: lesson.OK(), PTX: lesson.NotCompared()}
		if !r.Correct {
			row.Reference = lesson.Fail("differs from the CPU reference")
		}
		switch {
		case ptxErr != nil:
			row.PTX = lesson.Fail("simulator: " + ptxErr.Error())
		case fromPTX != nil:
			row.PTX = agreeViaReference(r, fromPTX)
			if hz := lesson.PTXHazards(pc.Text, r.Kernel); len(hz) > 0 && row.PTX != lesson.SameBits() {
				row.PTX = lesson.Fail(row.PTX.String() + "; uses " + strings.Join(hz, ", ") + " and no tolerance is stated for it")
			}
		}
		rows = append(rows, row)
	}
	return rows, code, nil
}

// agreeViaReference compares the GPU's run r with the simulator's run of the
// same kernel from the same PTX, through the CPU reference both were checked
// against: the PTX fixes every rounding, so where one side equals the
// reference's bits the other must too.
func agreeViaReference(r KernelRun, sims map[string]KernelRun) lesson.Outcome {
	m, ok := sims[r.Kernel]
	switch {
	case !ok:
		return lesson.Fail("no simulator run")
	case !m.Correct:
		return lesson.Fail("PTX differs from the CPU reference")
	case r.BitIdentical && m.BitIdentical:
		return lesson.SameBits()
	case r.BitIdentical != m.BitIdentical:
		return lesson.Fail(fmt.Sprintf("not the same bits: GPU bit-identical to the reference %v, PTX %v", r.BitIdentical, m.BitIdentical))
	}
	return lesson.Pass("both within tolerance of the reference; bits not compared")
}

package libs

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/sparse/spmvref"
)

// selftestFamilies and selftestRows are the self-test's inputs: a
// power-law matrix (every method's irregular case: long rows, tiles that
// cut rows, split's long-row pieces) and a few dense rows in a sparse
// matrix (the chooser's hard case), small enough for the simulator to run
// every method in a moment.
var selftestFamilies = []string{"powerlaw15", "denserows"}

const selftestRows = 1 << 12

// selfTest (Lesson.SelfTest) runs every method of libs.cu on the
// self-test's matrices, each output against the float64 CPU reference
// (Tolerance) and, on a GPU, against the simulator running the PTX the GPU
// loaded. The split, tile and merge-path kernels add a row's pieces with
// float atomics or in the order their warps finish, so the GPU and the
// simulator may differ in the last bits there: PTXRun.CompareF32 allows
// Tolerance exactly where the kernel's PTX has such a hazard and asks for
// the same bits elsewhere.
func selfTest(ctx context.Context, devs lesson.Devices) ([]lesson.Check, []string, error) {
	mod := Module()
	pc, err := lesson.SimPTX(devs, mod)
	if err != nil {
		return nil, nil, err
	}
	var code []string
	if pc != nil {
		code = append(code, pc.Code)
	}
	o, err := Options{}.normalize()
	if err != nil {
		return nil, nil, err
	}
	var checks []lesson.Check
	for _, f := range selftestFamilies {
		in, err := FamilyInput(f, selftestRows, CorpusSeed)
		if err != nil {
			return nil, nil, err
		}
		ys, names, err := runMethods(ctx, devs.Dev, mod, in, o)
		if err != nil {
			return nil, nil, err
		}
		var ptxYs map[string][]float32
		if pc != nil {
			if ptxYs, _, err = runMethods(ctx, devs.PTX, mod, in, o); err != nil {
				return nil, nil, fmt.Errorf("simulator: %w", err)
			}
		}
		for _, m := range Methods() {
			c := lesson.Check{Lesson: "libs", Input: fmt.Sprintf("%s %d", f, selftestRows), Kernel: m,
				Reference: lesson.OK(), PTX: lesson.NotCompared()}
			if _, ok := maxRelErr(ys[m], in.Want, in.Scale); !ok {
				bad := spmvref.FirstMismatchScaled(ys[m], in.Want, in.Scale, Tolerance)
				c.Reference = lesson.Fail(fmt.Sprintf("row %d: got %.9g, want %.9g", bad, ys[m][bad], in.Want[bad]))
			}
			if pc != nil {
				c.PTX = pc.CompareF32(hazardKernel(pc, names[m]), ys[m], ptxYs[m], Tolerance)
			}
			checks = append(checks, c)
		}
	}
	return checks, code, nil
}

// runMethods runs every method once on in (prepared as a run prepares
// it) and returns each one's y and the kernels it launched.
func runMethods(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, in Input, o Options) (map[string][]float32, map[string][]string, error) {
	d, err := upload(dev, in)
	if err != nil {
		return nil, nil, err
	}
	defer d.free()
	ys, names := map[string][]float32{}, map[string][]string{}
	for _, m := range Methods() {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if _, err := d.prepare(ctx, dev, mod, o, m); err != nil {
			return nil, nil, fmt.Errorf("libs: preparing %s on %s: %w", m, in.Key, err)
		}
		y := make([]float32, in.CSR.Rows)
		_, ks, err := d.checkedLaunch(ctx, dev, mod, m, y)
		if err != nil {
			return nil, nil, fmt.Errorf("libs: %s on %s: %w", m, in.Key, err)
		}
		ys[m], names[m] = y, ks
	}
	return ys, names, nil
}

// hazardKernel is the kernel of a method's launches whose PTX has a float
// atomic or .approx (the one that lets the GPU and the simulator differ),
// or its first kernel.
func hazardKernel(pc *lesson.PTXRun, kernels []string) string {
	for _, k := range kernels {
		if len(lesson.PTXHazards(pc.Text, k)) > 0 {
			return k
		}
	}
	return kernels[0]
}

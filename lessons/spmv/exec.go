package spmv

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// Exec runs one kernel of the module once on dev over m, with the lesson's
// launch shape, and returns what it wrote: y for an SpMV kernel, the probe's
// partial sums (probeBlocks × 256 of them) for the probe. Stats are the
// simulator's counters, nil on a GPU. It is the building block of
// `warplab selftest`, which runs every kernel on a GPU and on the simulator
// over the same input and compares the two.
func Exec(dev *gpuext.Device, kernel string, m *Matrix, probeBlocks int) ([]float32, *sim.Stats, error) {
	known := false
	for _, k := range KernelNames() {
		known = known || k == kernel
	}
	if !known {
		return nil, nil, fmt.Errorf("spmv: no kernel %q (kernels: %v)", kernel, KernelNames())
	}
	if probeBlocks <= 0 {
		return nil, nil, fmt.Errorf("spmv: probe blocks %d: want a positive grid", probeBlocks)
	}
	d, err := uploadMatrix(dev, m)
	if err != nil {
		return nil, nil, err
	}
	defer d.free()
	mod := Module()
	var l *gpuext.Launch
	out := d.y
	if kernel == KernelProbe {
		partials, err := gpuext.Alloc[float32](dev, "partials", probeBlocks*ThreadsPerBlock)
		if err != nil {
			return nil, nil, err
		}
		defer partials.Free()
		out = partials
		l, err = launchProbe(context.Background(), dev, mod, d, partials, probeBlocks, m.CSR.NNZ())
		if err != nil {
			return nil, nil, err
		}
	} else {
		l, err = launchRowKernel(context.Background(), dev, mod, kernel, d, m.CSR.Rows)
		if err != nil {
			return nil, nil, err
		}
	}
	got := make([]float32, out.Len())
	if err := out.Download(got); err != nil {
		return nil, nil, err
	}
	return got, l.Stats, nil
}

// Check applies the seed's check to what Exec returned: y against the CPU
// reference (first mismatching row named), or the probe's total against the
// reference's total. It returns "" when the output is right.
func Check(m *Matrix, kernel string, out []float32) string {
	if kernel == KernelProbe {
		p, w := Total(out), Total(m.Want)
		if !ProbeTotalOK(p, w, m.ScaleTotal) {
			return fmt.Sprintf("probe total %.17g, reference total %.17g", p, w)
		}
		return ""
	}
	if bad := FirstMismatchScaled(out, m.Want, m.Scale, RelTolerance); bad != len(m.Want) {
		if bad >= len(out) {
			return fmt.Sprintf("wrong at row %d: no output (got %d rows)", bad, len(out))
		}
		return fmt.Sprintf("wrong at row %d: got %.9g, want %.9g", bad, out[bad], m.Want[bad])
	}
	return ""
}

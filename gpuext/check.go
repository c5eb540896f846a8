package gpuext

import (
	"fmt"

	"github.com/warplab/warplab/sim"
)

// Check downloads b and compares every element with want(i), the value a
// CPU computes for element i, naming the first that differs: "y[12] =
// 3.5, want 4". It is how a notebook checks a kernel against its host
// reference in one call. The comparison is exact, as fits a kernel whose
// arithmetic the CPU repeats operation for operation; a kernel that sums
// in another order needs a tolerance, which the caller's own loop states.
func Check[T sim.Elem](b *Buffer[T], want func(i int) T) error {
	if want == nil {
		return fmt.Errorf("gpuext: Check: nil reference function")
	}
	got := make([]T, b.Len())
	if err := b.Download(got); err != nil {
		return err
	}
	for i, g := range got {
		if w := want(i); g != w {
			return fmt.Errorf("gpuext: Check: %s[%d] = %v, want %v (the first of the %d elements that differs)", b.Name(), i, g, w, len(got))
		}
	}
	return nil
}

// Must returns v, and panics if err is not nil, as template.Must does: for
// a notebook cell or a test, where any error ends the run, so that a first
// launch reads as its four steps,
//
//	d := gpuext.Must(gpuext.Open("sim:t4"))
//	saxpy := gpuext.Must(gpuext.CompileKernel("saxpy", saxpyCU))
//	x, y := gpuext.Must(gpuext.Upload(d, "x", hx)), gpuext.Must(gpuext.Upload(d, "y", hy))
//	l := gpuext.Must(d.Launch(ctx, saxpy, gpuext.Config{Grid: n / 256, Block: 256}, int32(n), float32(2.5), x, y))
//
// Programs that go on after an error check it instead.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

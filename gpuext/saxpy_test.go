package gpuext

import (
	"context"
	_ "embed"
	"testing"

	"github.com/warplab/warplab/sim"
)

// The test module: CUDA C in testdata/kernels.cu, its PTX made by
// scripts/cuda/gen-ptx.sh, and a Go mirror of two kernels below, which
// launchMirror runs beside the PTX to check one against the other.
var (
	//go:embed testdata/kernels.cu
	kernelsCUDA string
	//go:embed testdata/kernels.ptx
	kernelsPTX string
)

// saxpyMirror is saxpy's Go form for the simulator, line by line.
func saxpyMirror(args sim.Args) (*sim.Kernel, error) {
	n, err := sim.ArgInt(args, 0)
	if err != nil {
		return nil, err
	}
	a, err := sim.ArgF32(args, 1)
	if err != nil {
		return nil, err
	}
	x, err := sim.ArgBuf[float32](args, 2)
	if err != nil {
		return nil, err
	}
	y, err := sim.ArgBuf[float32](args, 3)
	if err != nil {
		return nil, err
	}
	k := sim.NewKernel("saxpy", false)
	k.Body = func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		if i < n {
			y.St(t, i, a*x.Ld(t, i)+y.Ld(t, i))
		}
	}
	return k, nil
}

// paramsMirror is params' Go form: thread 0 of block 0 writes back the scalars.
func paramsMirror(args sim.Args) (*sim.Kernel, error) {
	var ints [3]int
	for i := range ints {
		v, err := sim.ArgInt(args, i)
		if err != nil {
			return nil, err
		}
		ints[i] = v
	}
	d, err := sim.ArgF32(args, 3)
	if err != nil {
		return nil, err
	}
	e, err := sim.ArgF64(args, 4)
	if err != nil {
		return nil, err
	}
	outI, err := sim.ArgBuf[int64](args, 5)
	if err != nil {
		return nil, err
	}
	outF, err := sim.ArgBuf[float64](args, 6)
	if err != nil {
		return nil, err
	}
	k := sim.NewKernel("params", false)
	k.Body = func(t *sim.Thread) {
		if t.BlockIdx.X == 0 && t.ThreadIdx.X == 0 {
			for i, v := range ints {
				outI.St(t, i, int64(v))
			}
			outF.St(t, 0, float64(d))
			outF.St(t, 1, e)
		}
	}
	return k, nil
}

func saxpyModule() *Module { return NewModule("saxpy_test", kernelsCUDA, kernelsPTX) }

// checkParams launches params with one value of every scalar type and
// checks that each arrives intact: on the simulator through the PTX's
// parameter space, on a GPU through cuLaunchKernel's parameter buffer.
func checkParams(t *testing.T, d *Device, m *Module) {
	t.Helper()
	outI, err := Alloc[int64](d, "outI", 3)
	if err != nil {
		t.Fatal(err)
	}
	outF, err := Alloc[float64](d, "outF", 2)
	if err != nil {
		t.Fatal(err)
	}
	const (
		a = int32(-123456789)
		b = int64(-1) << 40
		c = uint64(1)<<62 + 5
		f = float32(-1.25e-3)
		e = 6.02214076e23
	)
	if _, err := d.Launch(context.Background(), kern(m, "params"), Config{Grid: 2, Block: 64}, a, b, c, f, float64(e), outI, outF); err != nil {
		t.Fatal(err)
	}
	gi, gf := make([]int64, 3), make([]float64, 2)
	if err := outI.Download(gi); err != nil {
		t.Fatal(err)
	}
	if err := outF.Download(gf); err != nil {
		t.Fatal(err)
	}
	if gi[0] != int64(a) || gi[1] != b || gi[2] != int64(c) || gf[0] != float64(f) || gf[1] != e {
		t.Fatalf("params came back as %v %v, want [%d %d %d] [%v %v]", gi, gf, a, b, c, float64(f), e)
	}
}

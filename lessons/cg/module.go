package cg

import (
	_ "embed"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// cgCU is the CUDA C students read; cgPTX is what scripts/cuda/gen-ptx.sh
// generated from it (nvcc 11.8, -arch=compute_75; its first line records
// cg.cu's sha256, which module_test.go checks).
var (
	//go:embed cg.cu
	cgCU string
	//go:embed cg.ptx
	cgPTX string
)

// Kernel names in cg.cu, as Launch takes them.
const (
	kSpMVThreadPerRow        = "spmvCsrThreadPerRow"
	kSpMVThreadPerRowUnroll1 = "spmvCsrThreadPerRowUnroll1"
	kSpMVSubwarp             = "spmvCsrSubwarp"
	kSpMVStencil27           = "spmvStencil27"
	kWaxpby                  = "waxpby"
	kWaxpbyDeviceScalar      = "waxpbyDeviceScalar"
	kDdotPartial             = "ddotPartial"
	kDdotFinal               = "ddotFinal"
	kCgDivide                = "cgDivide"
	kCopyScalar              = "copyScalar"
	kDdotFinalDivide         = "ddotFinalDivide"
	kUpdateXRDot             = "updateXRDot"
	kUpdateXRDotTo           = "updateXRDotTo"
	kCopyVector              = "copyVector"
)

// Module returns the lesson's kernels in both forms: the CUDA C of cg.cu, its
// PTX, and a Go mirror of every kernel for the simulator. It builds a new
// value on each call (a Module holds no state; gpuext loads one per content),
// so callers may not share one by accident.
func Module() *gpuext.Module {
	return &gpuext.Module{
		Name: "cg",
		CUDA: cgCU,
		PTX:  cgPTX,
		Mirrors: map[string]gpuext.Mirror{
			kSpMVThreadPerRow:        bindSpMVThreadPerRow(kSpMVThreadPerRow, unrollDefault),
			kSpMVThreadPerRowUnroll1: bindSpMVThreadPerRow(kSpMVThreadPerRowUnroll1, unrollNone),
			kSpMVSubwarp:             bindSpMVSubwarp,
			kSpMVStencil27:           bindSpMVStencil27,
			kWaxpby:                  bindWaxpby,
			kWaxpbyDeviceScalar:      bindWaxpbyDeviceScalar,
			kDdotPartial:             bindDdotPartial,
			kDdotFinal:               bindDdotFinal,
			kCgDivide:                bindCgDivide,
			kCopyScalar:              bindCopyScalar,
			kDdotFinalDivide:         bindDdotFinalDivide,
			kUpdateXRDot:             bindUpdateXRDot,
			kUpdateXRDotTo:           bindUpdateXRDotTo,
			kCopyVector:              bindCopyVector,
		},
	}
}

// args reads a launch's arguments in order, keeping the first error, so a
// binder reads like the kernel's parameter list.
type args struct {
	a   sim.Args
	i   int
	err error
}

func (r *args) int() int {
	v, err := sim.ArgInt(r.a, r.i)
	r.next(err)
	return v
}

func (r *args) f64() float64 {
	v, err := sim.ArgF64(r.a, r.i)
	r.next(err)
	return v
}

func (r *args) i32s() *sim.I32 {
	v, err := sim.ArgBuf[int32](r.a, r.i)
	r.next(err)
	return v
}

func (r *args) f64s() *sim.F64 {
	v, err := sim.ArgBuf[float64](r.a, r.i)
	r.next(err)
	return v
}

func (r *args) next(err error) {
	if r.err == nil {
		r.err = err
	}
	r.i++
}

// done reports the first error, or one for arguments left over.
func (r *args) done() error {
	if r.err == nil && r.i != len(r.a) {
		return fmt.Errorf("cg: kernel takes %d arguments, got %d", r.i, len(r.a))
	}
	return r.err
}

// (int n, const int* rowPtr, const int* cols, const double* vals,
// const double* x, double* y)
func bindSpMVThreadPerRow(name string, unroll int) gpuext.Mirror {
	return func(a sim.Args) (*sim.Kernel, error) {
		r := &args{a: a}
		n, rowPtr, cols, vals, x, y := r.int(), r.i32s(), r.i32s(), r.f64s(), r.f64s(), r.f64s()
		if err := r.done(); err != nil {
			return nil, err
		}
		return spmvThreadPerRowMirror(name, n, rowPtr, cols, vals, x, y, unroll), nil
	}
}

// (int n, int threadsPerRow, const int* rowPtr, const int* cols,
// const double* vals, const double* x, double* y)
func bindSpMVSubwarp(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	n, tpr, rowPtr, cols, vals, x, y := r.int(), r.int(), r.i32s(), r.i32s(), r.f64s(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return spmvSubwarpMirror(n, tpr, rowPtr, cols, vals, x, y)
}

// (int nx, int ny, int nz, const double* p, double* Ap)
func bindSpMVStencil27(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	nx, ny, nz, p, ap := r.int(), r.int(), r.int(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	if nx < 1 || ny < 1 || nz < 1 {
		return nil, fmt.Errorf("cg: spmvStencil27: grid %dx%dx%d has a dimension below 1", nx, ny, nz)
	}
	// Checked one factor at a time, so that no product overflows.
	l := min(p.Len(), ap.Len())
	if nx > l || ny > l || nz > l || nx*ny > l || nx*ny*nz > l {
		return nil, fmt.Errorf("cg: spmvStencil27: grid %dx%dx%d has more rows than p (%d) or Ap (%d)", nx, ny, nz, p.Len(), ap.Len())
	}
	return spmvStencil27Mirror(nx, ny, nz, p, ap), nil
}

// (int n, double alpha, const double* x, double beta, const double* y,
// double* w)
func bindWaxpby(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	n, alpha, x, beta, y, w := r.int(), r.f64(), r.f64s(), r.f64(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return waxpbyMirror(n, alpha, x, beta, y, w), nil
}

// (int n, const double* x, const double* scale, double sign,
// const double* y, double* w)
func bindWaxpbyDeviceScalar(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	n, x, scale, sign, y, w := r.int(), r.f64s(), r.f64s(), r.f64(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return waxpbyDeviceScalarMirror(n, x, scale, sign, y, w), nil
}

// (int n, const double* x, const double* y, double* partial)
func bindDdotPartial(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	n, x, y, partial := r.int(), r.f64s(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return ddotPartialMirror(n, x, y, partial), nil
}

// (int nPartials, const double* partial, double* result)
func bindDdotFinal(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	np, partial, result := r.int(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return ddotFinalMirror(np, partial, result), nil
}

// (const double* num, const double* den, double* out)
func bindCgDivide(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	num, den, out := r.f64s(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return cgDivideMirror(num, den, out), nil
}

// (const double* src, double* dst)
func bindCopyScalar(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	src, dst := r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return copyScalarMirror(src, dst), nil
}

// (int nPartials, const double* partial, double* result,
// const double* other, int sumIsNumerator, double* out)
func bindDdotFinalDivide(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	np, partial, result, other, sumIsNum, out := r.int(), r.f64s(), r.f64s(), r.f64s(), r.int(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return ddotFinalDivideMirror(np, partial, result, other, sumIsNum, out), nil
}

// (int n, const double* alpha, const double* p, const double* Ap,
// double* x, double* r, double* partial)
func bindUpdateXRDot(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	n, alpha, p, ap, x, rv, partial := r.int(), r.f64s(), r.f64s(), r.f64s(), r.f64s(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return updateXRDotMirror(n, alpha, p, ap, x, rv, partial), nil
}

// (int n, const double* alpha, const double* p, const double* Ap,
// const double* xIn, const double* rIn, double* x, double* r, double* partial)
func bindUpdateXRDotTo(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	n, alpha, p, ap, xIn, rIn, x, rv, partial := r.int(), r.f64s(), r.f64s(), r.f64s(), r.f64s(), r.f64s(), r.f64s(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return updateXRDotToMirror(kUpdateXRDotTo, n, alpha, p, ap, xIn, rIn, x, rv, partial), nil
}

// (int n, const double* x, double* y)
func bindCopyVector(a sim.Args) (*sim.Kernel, error) {
	r := &args{a: a}
	n, x, y := r.int(), r.f64s(), r.f64s()
	if err := r.done(); err != nil {
		return nil, err
	}
	return copyVectorMirror(n, x, y), nil
}

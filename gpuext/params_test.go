package gpuext

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// TestLaunchArgTypeMismatch: an argument whose Go type cannot be its
// parameter's PTX type is an *ArgTypeError naming the kernel, the argument,
// the parameter and both types, before the kernel runs (issue 31, item 7: a
// float32 given for saxpy's int n ran, its bits read as a bound of
// 1065353216, and faulted out of bounds).
func TestLaunchArgTypeMismatch(t *testing.T) {
	d := openSimT(t, "sim")
	x := testenv.Must(Upload(d, "x", make([]float32, 64)))(t)
	y := testenv.Must(Upload(d, "y", make([]float32, 64)))(t)
	oi := testenv.Must(Alloc[int64](d, "outI", 3))(t)
	of := testenv.Must(Alloc[float64](d, "outF", 2))(t)
	saxpy := func(n, a, xx, yy any) []any { return []any{n, a, xx, yy} }
	params := func(a, b, c, dd, e any) []any { return []any{a, b, c, dd, e, oi, of} }
	tests := []struct {
		name    string
		kernel  string
		args    []any
		index   int
		ptxType string
		goType  string
	}{
		{"float32 for int", "saxpy", saxpy(float32(64), float32(2), x, y), 0, ".u32", "float32"},
		{"float64 for int", "saxpy", saxpy(64.0, float32(2), x, y), 0, ".u32", "float64"},
		{"int64 for int", "saxpy", saxpy(int64(64), float32(2), x, y), 0, ".u32", "int64"},
		{"buffer for int", "saxpy", saxpy(x, float32(2), x, y), 0, ".u32", "*gpuext.Buffer[float32]"},
		{"int32 for float", "saxpy", saxpy(int32(64), int32(2), x, y), 1, ".f32", "int32"},
		{"uint32 for float", "saxpy", saxpy(int32(64), uint32(2), x, y), 1, ".f32", "uint32"},
		{"float64 for float", "saxpy", saxpy(int32(64), 2.0, x, y), 1, ".f32", "float64"},
		{"float32 for pointer", "saxpy", saxpy(int32(64), float32(2), float32(0), y), 2, ".u64", "float32"},
		{"float64 for pointer", "saxpy", saxpy(int32(64), float32(2), x, 0.0), 3, ".u64", "float64"},
		{"float64 for long long", "params", params(int32(1), 2.0, uint64(3), float32(4), 5.0), 1, ".u64", "float64"},
		{"float32 for unsigned long long", "params", params(int32(1), int64(2), float32(3), float32(4), 5.0), 2, ".u64", "float32"},
		{"int64 for double", "params", params(int32(1), int64(2), uint64(3), float32(4), int64(5)), 4, ".f64", "int64"},
		{"float32 for double", "params", params(int32(1), int64(2), uint64(3), float32(4), float32(5)), 4, ".f64", "float32"},
		{"buffer for double", "params", params(int32(1), int64(2), uint64(3), float32(4), x), 4, ".f64", "*gpuext.Buffer[float32]"},
		{"buffer for float", "params", params(int32(1), int64(2), uint64(3), y, 5.0), 3, ".f32", "*gpuext.Buffer[float32]"},
	}
	for _, cached := range []bool{false, true} {
		dev, m := d, ptxOnlyModule() // a Module literal: its PTX parsed at each Kernel call
		if cached {
			m = saxpyModule() // NewModule: parsed once, one handle per kernel
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := dev.Launch(context.Background(), kern(m, tt.kernel), Config{Grid: 1, Block: 32}, tt.args...)
				var ae *ArgTypeError
				var le *LaunchError
				if !errors.As(err, &ae) || !errors.As(err, &le) {
					t.Fatalf("cached module %v: %v, want an *ArgTypeError inside a *LaunchError", cached, err)
				}
				var f *sim.Fault
				if errors.As(err, &f) {
					t.Fatalf("a fault: %v", err)
				}
				if ae.Kernel != tt.kernel || ae.Index != tt.index || ae.PTXType != tt.ptxType || ae.GoType != tt.goType {
					t.Errorf("ArgTypeError %+v, want kernel %s, argument %d, PTX type %s, Go type %s", *ae, tt.kernel, tt.index, tt.ptxType, tt.goType)
				}
				msg := err.Error()
				for _, want := range []string{"type mismatch", "kernel " + tt.kernel, "argument ", tt.ptxType, "Go " + tt.goType, ae.Param} {
					if !strings.Contains(msg, want) {
						t.Errorf("%q does not say %q", msg, want)
					}
				}
				if strings.Contains(msg, "out of bounds") {
					t.Errorf("%q speaks of bounds", msg)
				}
				// Record refuses the same launch when it is recorded.
				_, rerr := dev.Record(func() error {
					_, err := dev.Launch(context.Background(), kern(m, tt.kernel), Config{Grid: 1, Block: 32}, tt.args...)
					return err
				})
				if !errors.As(rerr, &ae) {
					t.Errorf("Record: %v, want an *ArgTypeError", rerr)
				}
			})
		}
	}

	// What fits runs: int32 and uint32 for .u32, int64 and uint64 for .u64.
	m := ptxOnlyModule()
	for _, n := range []any{int32(64), uint32(64)} {
		if _, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 64}, n, float32(2), x, y); err != nil {
			t.Errorf("saxpy with n a %T: %v", n, err)
		}
	}
	if _, err := d.Launch(context.Background(), kern(m, "params"), Config{Grid: 1, Block: 32}, int32(1), uint64(2), int64(3), float32(4), 5.0, oi, of); err != nil {
		t.Errorf("params with uint64 for long long and int64 for unsigned long long: %v", err)
	}
	// The count, and Go's int, keep their own messages.
	if _, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 64}, int32(64), float32(2), x); err == nil ||
		!strings.Contains(err.Error(), "takes 4 parameters (.u32, .f32, .u64, .u64), and the launch gives 3") {
		t.Errorf("three arguments for four: %v", err)
	}
	if _, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 64}, 64, float32(2), x, y); err == nil ||
		!strings.Contains(err.Error(), "Go int") {
		t.Errorf("a Go int: %v", err)
	}
}

package gpuext

import (
	"fmt"
	"strings"

	"github.com/warplab/warplab/sim/ptx"
)

// ArgTypeError is a launch argument whose Go type cannot be its kernel
// parameter's PTX type: a float32 for a .u32 (CUDA int) parameter, an
// int32 for a .f32, a buffer for a 32-bit scalar, a float64 for a .u32,
// an int64 for a .u32. The simulator reports it before the kernel runs
// whenever it runs the kernel from its PTX, where the parameter types are
// known (a Go mirror binds its arguments itself, and a GPU copies each
// parameter's bytes as given).
type ArgTypeError struct {
	Kernel  string // the kernel's name
	Index   int    // the argument's position, from 0
	Param   string // the parameter's name in the PTX (nvcc's <kernel>_param_<i>)
	PTXType string // the parameter's PTX type, e.g. ".u32"; a .b8 array (a struct by value) as ".b8[16]"
	GoType  string // the Go type given, e.g. "float32" or "*gpuext.Buffer[float32]"
	Want    string // the Go types that fit the parameter
}

func (e *ArgTypeError) Error() string {
	return fmt.Sprintf("type mismatch: kernel %s, argument %d (parameter %s, PTX type %s) is a Go %s; a %s parameter takes %s",
		e.Kernel, e.Index, e.Param, e.PTXType, e.GoType, e.PTXType, e.Want)
}

// argKind is what a Go launch argument is, as the parameter check sees it.
type argKind int

const (
	argOther argKind = iota // not an argument type Launch takes (scalarBits names it)
	argInt
	argFloat
	argBuffer
)

// classify returns a launch argument's kind and byte size.
func classify(a any) (argKind, int) {
	switch a.(type) {
	case bufferArg:
		return argBuffer, 8
	case int32, uint32:
		return argInt, 4
	case int64, uint64:
		return argInt, 8
	case float32:
		return argFloat, 4
	case float64:
		return argFloat, 8
	}
	return argOther, 0
}

// wantFor lists the Go types that fit parameter p.
func wantFor(p ptx.Param) string {
	if p.Size != p.Type.Size() {
		return fmt.Sprintf("nothing Launch can pass (%d bytes of a struct by value)", p.Size)
	}
	switch {
	case p.Type.IsFloat():
		switch p.Size {
		case 4:
			return "float32"
		case 8:
			return "float64"
		}
		return "no Go type Launch passes"
	case p.Size == 4:
		if p.Type == ptx.B32 {
			return "int32, uint32 or float32"
		}
		return "int32 or uint32 (CUDA int or unsigned int)"
	case p.Size == 8:
		if p.Type == ptx.B64 {
			return "a *gpuext.Buffer[T], int64, uint64 or float64"
		}
		return "a *gpuext.Buffer[T] (a pointer), int64 or uint64 (long long, size_t)"
	}
	return "no Go type Launch passes (a " + fmt.Sprint(p.Size) + "-byte parameter)"
}

// ptxTypeName is p's PTX type as the PTX writes it.
func ptxTypeName(p ptx.Param) string {
	if p.Size != p.Type.Size() {
		return fmt.Sprintf(".%s[%d]", p.Type, p.Size)
	}
	return "." + p.Type.String()
}

// fits reports whether an argument of kind k and size n can be parameter p.
func fits(p ptx.Param, k argKind, n int) bool {
	if p.Size != p.Type.Size() || n != p.Size {
		return false // a .b8 array, or the wrong width
	}
	switch {
	case p.Type.IsFloat():
		return k == argFloat
	case p.Type == ptx.B32 || p.Type == ptx.B64:
		return true // untyped bits: any value of the width
	default: // .u, .s: integers, and 64-bit addresses
		return k == argInt || k == argBuffer
	}
}

// checkParamTypes checks a launch's arguments against kernel's PTX
// parameters: their number, and each argument's Go type against its
// parameter's PTX type, so that a float given for an int is a type
// mismatch naming the parameter rather than a kernel that reads the
// float's bits as a bound and runs out of bounds. Arguments of a type
// Launch does not take at all are left to scalarBits, which says so.
func checkParamTypes(kernel string, params []ptx.Param, args []any) error {
	if len(args) != len(params) {
		names := make([]string, len(params))
		for i, p := range params {
			names[i] = ptxTypeName(p)
		}
		given := fmt.Sprintf("%d arguments", len(args))
		if len(args) == 1 {
			given = "1 argument"
		}
		return fmt.Errorf("kernel %s takes %d parameters (%s), and the launch gives %s",
			kernel, len(params), strings.Join(names, ", "), given)
	}
	for i, a := range args {
		k, n := classify(a)
		if k == argOther {
			continue
		}
		p := params[i]
		if fits(p, k, n) {
			continue
		}
		return &ArgTypeError{Kernel: kernel, Index: i, Param: p.Name, PTXType: ptxTypeName(p),
			GoType: fmt.Sprintf("%T", a), Want: wantFor(p)}
	}
	return nil
}

package gpuext

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/warplab/warplab/sim"
)

// Argument tags of FuzzLaunchArgs' encoding: each argument is one tag byte
// and eight value bytes (little endian), read as the tag says.
const (
	fzInt32 = iota
	fzUint32
	fzInt64
	fzUint64
	fzFloat32 // the low 4 value bytes as float32 bits: NaN, Inf, subnormals
	fzFloat64
	fzGoInt
	fzNil
	fzBufF32 // a live buffer of float32, value%300 elements (0 allowed)
	fzBufI64
	fzBufF64
	fzBufI32
	fzFreed   // a float32 buffer, freed before the launch
	fzForeign // a float32 buffer of another Device
	fzString  // a type Launch does not take
	fzSimGlobal
	fzTags
)

// Launch modes of FuzzLaunchArgs.
const (
	fzLaunch  = iota // a plain launch
	fzLaunch2        // the same (once the Go-mirror mode; kept so the seed corpus keeps its meaning)
	fzPTXOnly        // the same, on a Module literal (no parsed-PTX cache)
	fzRecord         // recorded by Record, then replayed
	fzTime           // inside Time
	fzModes
)

// fzArg builds one argument from its tag and value; buffers are made on
// devs[0] (fzForeign: devs[1]) and added to free.
func fzArg(t *testing.T, devs [2]*Device, tag byte, v uint64, free *[]func() error) any {
	n := int(v % 300)
	switch tag % fzTags {
	case fzInt32:
		return int32(v)
	case fzUint32:
		return uint32(v)
	case fzInt64:
		return int64(v)
	case fzUint64:
		return v
	case fzFloat32:
		return math.Float32frombits(uint32(v))
	case fzFloat64:
		return math.Float64frombits(v)
	case fzGoInt:
		return int(v)
	case fzNil:
		return nil
	case fzBufF32, fzFreed, fzForeign:
		d := devs[0]
		if tag%fzTags == fzForeign {
			d = devs[1]
		}
		b, err := Alloc[float32](d, "f32", n)
		if err != nil {
			return nil // a size Alloc refuses: a nil argument, also a case
		}
		if tag%fzTags == fzFreed {
			if err := b.Free(); err != nil {
				t.Fatal(err)
			}
		} else {
			*free = append(*free, b.Free)
		}
		return b
	case fzBufI64:
		b, err := Alloc[int64](devs[0], "i64", n)
		if err != nil {
			return nil
		}
		*free = append(*free, b.Free)
		return b
	case fzBufF64:
		b, err := Alloc[float64](devs[0], "f64", n)
		if err != nil {
			return nil
		}
		*free = append(*free, b.Free)
		return b
	case fzBufI32:
		b, err := Alloc[int32](devs[0], "i32", n)
		if err != nil {
			return nil
		}
		*free = append(*free, b.Free)
		return b
	case fzString:
		return "64"
	case fzSimGlobal: // the simulator's own buffer type, not a gpuext one
		g, err := sim.Alloc[float32](sim.NewDevice(devs[0].Model()), "raw", n)
		if err != nil {
			return nil
		}
		return g
	}
	panic("unreachable")
}

// fzFits is the test's own statement of which Go argument may stand for
// which parameter of the test kernels (PTX "u32", "u64", "f32", "f64").
func fzFits(param string, a any) bool {
	switch a.(type) {
	case int32, uint32:
		return param == "u32"
	case int64, uint64, bufferArg:
		return param == "u64"
	case float32:
		return param == "f32"
	case float64:
		return param == "f64"
	}
	return false
}

// FuzzLaunchArgs launches the test kernels (testdata/kernels.cu: saxpy and
// params, and a kernel that does not exist) with random argument lists:
// any count, every Go type Launch takes and several it does not, any value
// (NaN, huge bounds), buffers of any length, freed, or of another Device;
// through the mirrors, the PTX (Options.SimPTX, a module without mirrors),
// Record and Graph.Launch, and Time. A launch must never panic or hang:
// it runs, or returns a *LaunchError. On the PTX path a launch that runs
// had an argument of the right kind for every parameter, so a float never
// stands for an int (issue 31, item 7).
//
// CI runs the seed corpus (go test); a longer run is
// go test -run x -fuzz FuzzLaunchArgs -fuzztime 60s ./gpuext/ (README.md).
func FuzzLaunchArgs(f *testing.F) {
	enc := func(args ...any) []byte {
		var b []byte
		for i := 0; i+1 < len(args); i += 2 {
			var v [8]byte
			binary.LittleEndian.PutUint64(v[:], args[i+1].(uint64))
			b = append(append(b, byte(args[i].(int))), v[:]...)
		}
		return b
	}
	f32 := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	f64 := math.Float64bits
	good := enc(fzInt32, uint64(64), fzFloat32, f32(2), fzBufF32, uint64(64), fzBufF32, uint64(64))
	for mode := range fzModes {
		f.Add(uint8(mode), uint8(0), uint8(1), good)                                                                                   // saxpy as written
		f.Add(uint8(mode), uint8(0), uint8(3), enc(fzFloat32, f32(64), fzFloat32, f32(2), fzBufF32, uint64(64), fzBufF32, uint64(64))) // float for int
		f.Add(uint8(mode), uint8(1), uint8(0), enc(fzInt32, uint64(1), fzInt64, uint64(2), fzUint64, uint64(3), fzFloat32, f32(4), fzFloat64, f64(5), fzBufI64, uint64(3), fzBufF64, uint64(2)))
	}
	for _, args := range [][]byte{
		nil,                                      // no arguments
		enc(fzInt32, uint64(64)),                 // too few
		append(good, enc(fzInt32, uint64(1))...), // too many
		enc(fzInt32, uint64(1)<<31-1, fzFloat32, f32(1), fzBufF32, uint64(1), fzBufF32, uint64(1)),                                                       // n far past short buffers
		enc(fzInt32, uint64(64), fzFloat32, uint64(0x7fc00000), fzBufF32, uint64(0), fzBufF32, uint64(0)),                                                // NaN, empty buffers
		enc(fzInt32, uint64(64), fzFloat32, f32(2), fzFreed, uint64(64), fzBufF32, uint64(64)),                                                           // freed buffer
		enc(fzInt32, uint64(64), fzFloat32, f32(2), fzForeign, uint64(64), fzBufF32, uint64(64)),                                                         // another device's
		enc(fzInt32, uint64(64), fzFloat32, f32(2), fzUint64, uint64(0), fzBufF32, uint64(64)),                                                           // raw address 0
		enc(fzInt32, uint64(64), fzFloat32, f32(2), fzBufI32, uint64(64), fzBufF64, uint64(64)),                                                          // wrong element types
		enc(fzGoInt, uint64(64), fzFloat32, f32(2), fzBufF32, uint64(64), fzBufF32, uint64(64)),                                                          // Go int
		enc(fzInt32, uint64(64), fzNil, uint64(0), fzString, uint64(0), fzSimGlobal, uint64(64)),                                                         // nil, string, sim buffer
		enc(fzBufF32, uint64(64), fzFloat64, f64(2), fzFloat32, f32(0), fzInt64, uint64(64)),                                                             // everything shifted
		enc(fzInt32, uint64(1), fzUint64, uint64(2), fzInt64, uint64(3), fzFloat32, f32(4), fzFloat32, f32(5), fzBufI64, uint64(3), fzBufF64, uint64(2)), // params: float32 for double
	} {
		for mode := range fzModes {
			f.Add(uint8(mode), uint8(0), uint8(2), args)
			f.Add(uint8(mode), uint8(1), uint8(2), args)
		}
	}
	f.Add(uint8(fzPTXOnly), uint8(2), uint8(0), good) // a kernel the module does not have

	open := func(o Options) *Device {
		d, err := OpenWith("sim", o)
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { _ = d.Close() })
		return d
	}
	plain, other := open(Options{}), open(Options{})
	cached, literal := saxpyModule(), ptxOnlyModule()
	kernels := []string{"saxpy", "params", "nope"}
	sigs := map[string][]string{
		"saxpy":  {"u32", "f32", "u64", "u64"},
		"params": {"u32", "u64", "u64", "f32", "f64", "u64", "u64"},
	}

	f.Fuzz(func(t *testing.T, mode, kernel, shape uint8, data []byte) {
		mode %= fzModes
		name := kernels[int(kernel)%len(kernels)]
		d, m := plain, cached
		if mode == fzPTXOnly {
			m = literal
		}
		k, err := m.Kernel(name)
		if _, ok := sigs[name]; !ok {
			if err == nil {
				t.Fatalf("Kernel(%q) of a module without it succeeded", name)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var free []func() error
		defer func() {
			for _, fr := range free {
				if err := fr(); err != nil {
					t.Errorf("Free: %v", err)
				}
			}
		}()
		var args []any
		for len(data) >= 9 && len(args) < 12 {
			args = append(args, fzArg(t, [2]*Device{d, other}, data[0], binary.LittleEndian.Uint64(data[1:9]), &free))
			data = data[9:]
		}
		// At most 4 blocks of at most 128 threads: a wrong bound faults,
		// it does not run for long.
		grid, block := sim.Dim1(1+int(shape%4)), sim.Dim1(32*(1+int(shape/4%4)))

		switch mode {
		case fzRecord:
			var g *Graph
			g, err = d.Record(func() error {
				_, err := d.Launch(context.Background(), k, Config{Grid: grid, Block: block}, args...)
				return err
			})
			if err == nil {
				_, err = g.Launch(context.Background())
				if cerr := g.Close(); cerr != nil {
					t.Errorf("Graph.Close: %v", cerr)
				}
			}
		case fzTime:
			_, err = d.TimeContext(context.Background(), func(ctx context.Context) error {
				_, err := d.Launch(ctx, k, Config{Grid: grid, Block: block}, args...)
				return err
			}, 0, 1)
		default:
			_, err = d.Launch(context.Background(), k, Config{Grid: grid, Block: block}, args...)
		}
		var le *LaunchError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("mode %d, %s%v: %v is not a *LaunchError", mode, name, args, err)
		}
		if err == nil {
			sig := sigs[name]
			if len(sig) != len(args) {
				t.Fatalf("mode %d: %s ran with %d arguments for %d parameters", mode, name, len(args), len(sig))
			}
			for i, a := range args {
				if !fzFits(sig[i], a) {
					t.Fatalf("mode %d: %s ran with argument %d a %T for a .%s parameter", mode, name, i, a, sig[i])
				}
			}
		}
	})
}

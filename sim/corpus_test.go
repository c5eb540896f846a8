package sim_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The kernel corpus of issue 28 (testdata/corpus): CUDA C kernels of what
// a course teaches after the basics, each with the PTX nvcc 11.8 made of it
// (compute_75, or the architecture the kernel's instructions need; see
// testdata/corpus/README.md), run on the simulator against a CPU
// reference. Each case builds its inputs, launches, and checks the
// outputs; cases that the GPU would fault on too (a stack overflow) say
// the fault instead.

// corpusCase is one launch of a corpus kernel.
type corpusCase struct {
	name         string // test name: file/kernel[/variant]
	file, kernel string
	grid, block  sim.Dim3
	shared       int
	// setup allocates the inputs on d and returns the arguments and the
	// check of the outputs once the launch is done.
	setup func(d *sim.Device) (args []any, check func(st *sim.Stats) error)
	fault string // a launch that must fault, with this Kind
}

var corpusMods sync.Map // file -> *ptx.Module

// corpusModule parses testdata/corpus/<file>.ptx once, kernel by kernel
// (ptx.ParseKernels: a kernel the simulator cannot run fails alone).
func corpusModule(t testing.TB, file string) *ptx.Module {
	if m, ok := corpusMods.Load(file); ok {
		return m.(*ptx.Module)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "corpus", file+".ptx"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ptx.ParseKernels(file+".ptx", string(src))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	corpusMods.Store(file, m)
	return m
}

// seq is 0, 1, ..., n-1 through f.
func seq[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// equal compares got with want element by element.
func equal[T comparable](what string, got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
	return nil
}

func fib(n int) int32 {
	if n < 2 {
		return int32(n)
	}
	return fib(n-1) + fib(n-2)
}

var corpus = []corpusCase{
	{
		name: "calls/calls", file: "calls", kernel: "calls", grid: sim.Dim1(2), block: sim.Dim1(64),
		setup: func(d *sim.Device) ([]any, func(*sim.Stats) error) {
			const n = 100
			out, _ := sim.Alloc[int32](d, "out", n)
			fout, _ := sim.Alloc[float32](d, "fout", 2*n)
			return []any{out, fout, int32(n)}, func(*sim.Stats) error {
				if err := equal("out", out.Data, seq(n, func(i int) int32 { return int32(i*i+3) + fib(i%12) })); err != nil {
					return err
				}
				return equal("fout", fout.Data, seq(2*n, func(j int) float32 {
					i := float32(j / 2)
					if j%2 == 1 {
						i = -i
					}
					return i * 0.5
				}))
			}
		},
	},
	{
		name: "calls/recurse", file: "calls", kernel: "recurse", grid: sim.Dim1(1), block: sim.Dim1(32),
		setup: func(d *sim.Device) ([]any, func(*sim.Stats) error) {
			out, _ := sim.Alloc[int32](d, "out", 32)
			return []any{out, int32(5)}, func(*sim.Stats) error {
				return equal("out", out.Data, seq(32, func(i int) int32 { n := int32(5 + i&1); return n * (n + 1) / 2 }))
			}
		},
	},
	{
		name: "calls/recurse/overflow", file: "calls", kernel: "recurse", grid: sim.Dim1(1), block: sim.Dim1(32),
		setup: func(d *sim.Device) ([]any, func(*sim.Stats) error) {
			out, _ := sim.Alloc[int32](d, "out", 32)
			return []any{out, int32(100000)}, nil
		},
		fault: "stack overflow",
	},
	{
		name: "calls/hello", file: "calls", kernel: "hello", grid: sim.Dim1(2), block: sim.Dim1(8),
		setup: func(d *sim.Device) ([]any, func(*sim.Stats) error) {
			const n = 10
			out, _ := sim.Alloc[int32](d, "out", n)
			return []any{out, int32(n)}, func(st *sim.Stats) error {
				var want strings.Builder
				for i := 0; i < n; i++ {
					if i%3 != 0 {
						continue
					}
					parity := "even"
					if i%2 == 1 {
						parity = "odd"
					}
					fmt.Fprintf(&want, "block %d thread %2d: %5.2f %e %s %d %x %c%%\n", i/8, i%8, float32(1.5)*float32(i), 1e-3*float64(i),
						parity, int64(i)<<40, 255+i, 'A'+i%26)
				}
				if st.Printf != want.String() || st.PrintfDropped != 0 {
					return fmt.Errorf("printf:\n%q\nwant\n%q (%d dropped)", st.Printf, want.String(), st.PrintfDropped)
				}
				return equal("out", out.Data, seq(n, func(i int) int32 { return int32(i) }))
			}
		},
	},
}

// TestCorpus runs every corpus case on the simulator against its CPU
// reference.
func TestCorpus(t *testing.T) {
	m, _ := sim.ModelByKey("h200")
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			mod := corpusModule(t, c.file)
			k, err := sim.NewPTXKernel(mod, c.kernel)
			if err != nil {
				t.Fatal(err)
			}
			d := sim.NewDevice(m)
			args, check := c.setup(d)
			st, err := d.LaunchPTX(context.Background(), k, c.grid, c.block, c.shared, args...)
			if c.fault != "" {
				var f *sim.Fault
				if !errors.As(err, &f) || f.Kind != c.fault {
					t.Fatalf("got %v, want a %q fault", err, c.fault)
				}
				t.Logf("%v", f)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := check(st); err != nil {
				t.Error(err)
			}
		})
	}
}

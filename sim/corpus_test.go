package sim_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
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
	setup func(d *sim.Device, m *ptx.Module) (args []any, check func(st *sim.Stats) error)
	fault sim.FaultKind // a launch that must fault, with this Kind
	// orderDependent names output buffers whose bytes depend on the
	// order threads ran in (which thread won a CAS): the recorded GPU run
	// checks them with the CPU reference only, not byte for byte.
	orderDependent map[string]bool
	// approx names output buffers (float32) computed with .approx
	// instructions (sin, cos, ex2, tanh: what __sinf, __expf and tanhf's
	// fast path compile to), whose results the PTX manual bounds but does
	// not fix: the recorded GPU run holds them to the given absolute
	// error, not byte for byte.
	approx map[string]float64
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
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
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
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
			out, _ := sim.Alloc[int32](d, "out", 32)
			return []any{out, int32(5)}, func(*sim.Stats) error {
				return equal("out", out.Data, seq(32, func(i int) int32 { n := int32(5 + i&1); return n * (n + 1) / 2 }))
			}
		},
	},
	{
		name: "calls/recurse/overflow", file: "calls", kernel: "recurse", grid: sim.Dim1(1), block: sim.Dim1(32),
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
			out, _ := sim.Alloc[int32](d, "out", 32)
			return []any{out, int32(100000)}, nil
		},
		fault: "stack overflow",
	},
	{
		name: "calls/hello", file: "calls", kernel: "hello", grid: sim.Dim1(2), block: sim.Dim1(8),
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
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

// conv1dRef is globals.cu's conv1d on the CPU, in its order of additions.
func conv1dRef(in []float32, filt []float32) []float32 {
	n := len(in)
	out := make([]float32, n)
	for i := range out {
		var s float32
		for k := -2; k <= 2; k++ {
			j := min(max(i+k, 0), n-1)
			// nvcc contracts s += f*x to fma.rn.f32; the product of two
			// floats is exact in a float64, so this rounds once per step
			// for the inputs used here (small integers and halves).
			s = float32(math.FMA(float64(filt[k+2]), float64(in[j]), float64(s)))
		}
		out[i] = s
	}
	return out
}

func init() {
	corpus = append(corpus,
		corpusCase{
			name: "globals/conv1d", file: "globals", kernel: "conv1d", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 100
				in, _ := sim.Upload(d, "in", seq(n, func(i int) float32 { return float32(i%13) - 6 }))
				out, _ := sim.Alloc[float32](d, "out", n)
				return []any{in, out, int32(n)}, func(st *sim.Stats) error {
					if err := closeTo("out", out.Data, conv1dRef(in.Data, []float32{0.0625, 0.25, 0.375, 0.25, 0.0625}), 0); err != nil {
						return err
					}
					// Every lane reads one tap at a time: broadcast, one
					// pass per request (5 taps × 4 warps).
					if want := (sim.ConstTraffic{Requests: 20, Transactions: 20}); st.ConstLoad != want {
						return fmt.Errorf("ConstLoad %+v, want %+v", st.ConstLoad, want)
					}
					return nil
				}
			},
		},
		corpusCase{
			name: "globals/conv1d/host-filter", file: "globals", kernel: "conv1d", grid: sim.Dim1(1), block: sim.Dim1(32),
			setup: func(d *sim.Device, m *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 32
				filt, err := sim.ModuleVar[float32](d, m, "filt")
				if err != nil || len(filt) != 5 || filt[2] != 0.375 {
					panic(fmt.Sprint(filt, err))
				}
				copy(filt, []float32{0, 0, 1, 0, 0}) // cudaMemcpyToSymbol
				in, _ := sim.Upload(d, "in", seq(n, func(i int) float32 { return float32(i) * 1.5 }))
				out, _ := sim.Alloc[float32](d, "out", n)
				return []any{in, out, int32(n)}, func(*sim.Stats) error { return equal("out", out.Data, in.Data) }
			},
		},
		corpusCase{
			name: "globals/lookup", file: "globals", kernel: "lookup", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, m *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 100
				out, _ := sim.Alloc[int32](d, "out", n)
				lut := []int32{3, 1, 4, 1, 5, 9, 2, 6}
				table := []int32{10, 20, 30, 40}
				return []any{out, int32(n)}, func(st *sim.Stats) error {
					if err := equal("out", out.Data, seq(n, func(i int) int32 { return lut[(i%64)%8] + table[i%4] })); err != nil {
						return err
					}
					// 8 distinct addresses in each full warp, 4 in the
					// last (lanes 0-3): serialized.
					if want := (sim.ConstTraffic{Requests: 4, Transactions: 28}); st.ConstLoad != want {
						return fmt.Errorf("ConstLoad %+v, want %+v", st.ConstLoad, want)
					}
					c, err := sim.ModuleVar[uint32](d, m, "launches")
					if err != nil || len(c) != 1 || c[0] != 101 {
						return fmt.Errorf("launches = %v (%v), want 101", c, err)
					}
					return nil
				}
			},
		},
	)
}

// closeTo compares floats to within tol (0: bit for bit).
func closeTo(what string, got, want []float32, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := float64(got[i]) - float64(want[i]); d > tol || d < -tol {
			return fmt.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
	return nil
}

// TestModuleGlobalsPersist: a __device__ variable keeps its value from
// launch to launch and kernel to kernel on one device, starts anew on
// another, and the host reads it (cudaMemcpyFromSymbol).
func TestModuleGlobalsPersist(t *testing.T) {
	m, _ := sim.ModelByKey("h200")
	mod := corpusModule(t, "globals")
	lookup, err := sim.NewPTXKernel(mod, "lookup")
	if err != nil {
		t.Fatal(err)
	}
	read, err := sim.NewPTXKernel(mod, "readCounter")
	if err != nil {
		t.Fatal(err)
	}
	for _, launches := range []int{0, 3} {
		d := sim.NewDevice(m)
		out, _ := sim.Alloc[int32](d, "out", 8)
		got, _ := sim.Alloc[uint32](d, "got", 1)
		for range launches {
			if _, err := d.LaunchPTX(context.Background(), lookup, sim.Dim1(1), sim.Dim1(8), 0, out, int32(8)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.LaunchPTX(context.Background(), read, sim.Dim1(1), sim.Dim1(1), 0, got); err != nil {
			t.Fatal(err)
		}
		if want := uint32(100 + launches); got.Data[0] != want {
			t.Errorf("after %d launches the kernel reads %d, want %d", launches, got.Data[0], want)
		}
		if v, _ := sim.ModuleVar[uint32](d, mod, "launches"); v[0] != uint32(100+launches) {
			t.Errorf("the host reads %d", v[0])
		}
	}
	d := sim.NewDevice(m)
	if _, err := d.ModuleGlobal(mod, "nothere"); err == nil || !strings.Contains(err.Error(), "variables: filt, lut, launches, table") {
		t.Errorf("unknown variable: %v", err)
	}
	if _, err := sim.ModuleVar[float64](d, mod, "filt"); err == nil {
		t.Error("20 bytes as float64: no error")
	}
}

// launchCorpus runs case c once on a fresh simulated device of model m: the
// launch's counters and error, its arguments after the launch and the
// case's check.
func launchCorpus(t testing.TB, c corpusCase, m sim.Model) (*sim.Stats, []any, func(*sim.Stats) error, error) {
	t.Helper()
	mod := corpusModule(t, c.file)
	k, err := sim.NewPTXKernel(mod, c.kernel)
	if err != nil {
		t.Fatal(err)
	}
	d := sim.NewDevice(m)
	args, check := c.setup(d, mod)
	st, err := d.LaunchPTX(context.Background(), k, c.grid, c.block, c.shared, args...)
	return st, args, check, err
}

// TestCorpus runs every corpus case on the simulator against its CPU
// reference.
func TestCorpus(t *testing.T) {
	m, _ := sim.ModelByKey("h200")
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			st, _, check, err := launchCorpus(t, c, m)
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

// TestCorpusLinesAreTheStudents: an instruction nvcc inlined from a CUDA
// header (atomicAdd's body in device_atomic_functions.hpp) is credited to
// the student's line that called it, in site labels and in faults.
func TestCorpusLinesAreTheStudents(t *testing.T) {
	mod := corpusModule(t, "atomics")
	k, err := sim.NewPTXKernel(mod, "histogram")
	if err != nil {
		t.Fatal(err)
	}
	var atoms []string
	for _, l := range k.SiteLabels() {
		if strings.Contains(l, " atom.") {
			atoms = append(atoms, l)
		}
	}
	want := []string{"atomics.cu:75 ", "atomics.cu:78 "}
	if len(atoms) != 2 || !strings.HasPrefix(atoms[0], want[0]) || !strings.HasPrefix(atoms[1], want[1]) {
		t.Errorf("atomic sites %q, want them at %q", atoms, want)
	}
	m, _ := sim.ModelByKey("h200")
	d := sim.NewDevice(m)
	in, _ := sim.Upload(d, "in", []uint32{1, 2, 3})
	bins, _ := sim.Alloc[uint32](d, "bins", 2) // too small: bin 3 is out of bounds
	_, err = d.LaunchPTX(context.Background(), k, sim.Dim1(1), sim.Dim1(32), 0, in, bins, int32(3))
	var f *sim.Fault
	if !errors.As(err, &f) || f.Kind != "out of bounds" || !strings.HasPrefix(f.Site, "atomics.cu:78 ") || strings.Contains(f.Site, ".hpp") {
		t.Errorf("fault %v, want out of bounds at atomics.cu:78", err)
	}
}

// TestCorpusFresh: each corpus PTX is what scripts/cuda/gen-ptx.sh made
// of its .cu as it is now (the first line records the source's sha256).
func TestCorpusFresh(t *testing.T) {
	cus, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.cu"))
	if err != nil || len(cus) == 0 {
		t.Fatalf("no corpus sources: %v", err)
	}
	for _, cu := range cus {
		src, err := os.ReadFile(cu)
		if err != nil {
			t.Fatal(err)
		}
		ptxText, err := os.ReadFile(strings.TrimSuffix(cu, ".cu") + ".ptx")
		if err != nil {
			t.Errorf("%s has no PTX: run scripts/cuda/gen-ptx.sh %s", cu, cu)
			continue
		}
		first, _, _ := strings.Cut(string(ptxText), "\n")
		if want := fmt.Sprintf("// warplab: source sha256 %x of %s,", sha256.Sum256(src), filepath.Base(cu)); !strings.HasPrefix(first, want) {
			t.Errorf("%s's PTX is stale (%q): run scripts/cuda/gen-ptx.sh %s", cu, first, cu)
		}
	}
}

// TestPrintfLimit: past CUDA's default 1 MiB printf buffer, later lines
// are dropped, counted and noted; the kept lines are the first blocks'.
func TestPrintfLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("about 20,000 printf lines")
	}
	m, _ := sim.ModelByKey("h200")
	k, err := sim.NewPTXKernel(corpusModule(t, "calls"), "hello")
	if err != nil {
		t.Fatal(err)
	}
	d := sim.NewDevice(m)
	const blocks, threads = 256, 256
	out, _ := sim.Alloc[int32](d, "out", blocks*threads)
	st, err := d.LaunchPTX(context.Background(), k, sim.Dim1(blocks), sim.Dim1(threads), 0, out, int32(blocks*threads))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(st.Printf, "\n")
	total := (blocks*threads + 2) / 3 // i % 3 == 0
	if len(st.Printf) > sim.DefaultPrintfBytes || st.PrintfDropped == 0 || lines+st.PrintfDropped != total {
		t.Fatalf("%d bytes, %d lines kept, %d dropped; want at most %d bytes and %d lines in all", len(st.Printf), lines, st.PrintfDropped, sim.DefaultPrintfBytes, total)
	}
	if !strings.HasPrefix(st.Printf, "block 0 thread  0:") || !strings.Contains(st.PrintfNote(), "printf lines dropped") {
		t.Errorf("first line %q, note %q", st.Printf[:40], st.PrintfNote())
	}
}

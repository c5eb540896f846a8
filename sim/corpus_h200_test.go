package sim_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The corpus on a GPU: TestCorpusManifest writes every case's launch and
// inputs (WARPLAB_CORPUS_MANIFEST=file), scripts/evidence/ptx-corpus.py
// runs them with CuPy from the same PTX and records the outputs and printf
// text, and TestCorpusH200 holds the simulator to the recorded run: the
// GPU's outputs pass each case's CPU reference check, and the simulator's
// outputs equal the GPU's byte for byte (except outputs a case declares
// order-dependent).

// corpusRecord is the recorded run's folder.
const corpusRecord = "../evidence/ptx-corpus-h200-2026-12-04/results.json"

// manifestArg is one launch argument: a buffer's element type and bytes,
// or a scalar's type and bits.
type manifestArg struct {
	Buffer string `json:"buffer,omitempty"` // the buffer's name
	Type   string `json:"type"`             // f32 f64 i32 i64 u32
	Data   string `json:"data,omitempty"`   // base64 of the buffer's bytes before the launch
	Bits   uint64 `json:"bits,omitempty"`   // a scalar's bits
}

// manifestCase is one corpus launch as the GPU runs it.
type manifestCase struct {
	Name    string            `json:"name"`
	PTX     string            `json:"ptx"` // the PTX file, relative to sim/testdata/corpus
	Kernel  string            `json:"kernel"`
	Grid    [3]int            `json:"grid"`
	Block   [3]int            `json:"block"`
	Shared  int               `json:"shared"`
	Args    []manifestArg     `json:"args"`
	Globals map[string]string `json:"globals,omitempty"` // module variables the case sets before the launch: base64 bytes
}

// corpusResult is one case's recorded run.
type corpusResult struct {
	Name    string            `json:"name"`
	Outputs map[string]string `json:"outputs"` // buffer name -> base64 bytes after the launch
	Printf  string            `json:"printf"`
	Error   string            `json:"error,omitempty"`
}

// bufBytes is a *sim.Global[T]'s type name and data bytes (aliasing).
func bufBytes(a any) (name, typ string, b []byte, ok bool) {
	switch g := a.(type) {
	case *sim.Global[float32]:
		return g.Name(), "f32", sliceBytes(g.Data), true
	case *sim.Global[float64]:
		return g.Name(), "f64", sliceBytes(g.Data), true
	case *sim.Global[int32]:
		return g.Name(), "i32", sliceBytes(g.Data), true
	case *sim.Global[int64]:
		return g.Name(), "i64", sliceBytes(g.Data), true
	case *sim.Global[uint32]:
		return g.Name(), "u32", sliceBytes(g.Data), true
	}
	return "", "", nil, false
}

func sliceBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// scalarArg is a scalar argument's type name and bits.
func scalarArg(a any) (manifestArg, error) {
	v := reflect.ValueOf(a)
	switch x := a.(type) {
	case int32:
		return manifestArg{Type: "i32", Bits: uint64(uint32(x))}, nil
	case uint32:
		return manifestArg{Type: "u32", Bits: uint64(x)}, nil
	case int64:
		return manifestArg{Type: "i64", Bits: uint64(x)}, nil
	case float32:
		return manifestArg{Type: "f32", Bits: uint64(*(*uint32)(unsafe.Pointer(&x)))}, nil
	case float64:
		return manifestArg{Type: "f64", Bits: *(*uint64)(unsafe.Pointer(&x))}, nil
	}
	return manifestArg{}, fmt.Errorf("argument of type %s", v.Type())
}

// manifestOf builds case c's launch on a fresh device: its arguments'
// bytes and the module variables its setup changed.
func manifestOf(t *testing.T, c corpusCase) manifestCase {
	m, _ := sim.ModelByKey("h200")
	mod := corpusModule(t, c.file)
	d := sim.NewDevice(m)
	args, _ := c.setup(d, mod)
	mc := manifestCase{Name: c.name, PTX: c.file + ".ptx", Kernel: c.kernel, Shared: c.shared,
		Grid: [3]int{c.grid.X, c.grid.Y, c.grid.Z}, Block: [3]int{c.block.X, c.block.Y, c.block.Z}}
	for _, a := range args {
		if name, typ, b, ok := bufBytes(a); ok {
			mc.Args = append(mc.Args, manifestArg{Buffer: name, Type: typ, Data: base64.StdEncoding.EncodeToString(b)})
			continue
		}
		sa, err := scalarArg(a)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mc.Args = append(mc.Args, sa)
	}
	for _, v := range mod.Vars {
		if v.Space != ptx.SpaceGlobal && v.Space != ptx.SpaceConst {
			continue
		}
		cur, err := d.ModuleGlobal(mod, v.Name)
		if err != nil {
			t.Fatal(err)
		}
		init := make([]byte, len(cur))
		copy(init, v.Init)
		if !bytes.Equal(cur, init) {
			if mc.Globals == nil {
				mc.Globals = map[string]string{}
			}
			mc.Globals[v.Name] = base64.StdEncoding.EncodeToString(cur)
		}
	}
	return mc
}

// TestCorpusManifest writes the corpus's launches for the GPU run
// (WARPLAB_CORPUS_MANIFEST names the file; skipped without it).
func TestCorpusManifest(t *testing.T) {
	out := os.Getenv("WARPLAB_CORPUS_MANIFEST")
	if out == "" {
		t.Skip("WARPLAB_CORPUS_MANIFEST not set")
	}
	var cases []manifestCase
	for _, c := range corpus {
		if c.fault != "" {
			continue // a launch the GPU would fail too, and lose its context
		}
		cases = append(cases, manifestOf(t, c))
	}
	b, err := json.MarshalIndent(cases, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases to %s", len(cases), out)
}

// TestCorpusH200 holds the simulator to the corpus's recorded H200 run.
func TestCorpusH200(t *testing.T) {
	raw, err := os.ReadFile(filepath.FromSlash(corpusRecord))
	if os.IsNotExist(err) {
		t.Skip("no recorded run at " + corpusRecord)
	}
	if err != nil {
		t.Fatal(err)
	}
	var results []corpusResult
	if err := json.Unmarshal(raw, &results); err != nil {
		t.Fatal(err)
	}
	byName := map[string]corpusResult{}
	for _, r := range results {
		byName[r.Name] = r
	}
	m, _ := sim.ModelByKey("h200")
	for _, c := range corpus {
		if c.fault != "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r, ok := byName[c.name]
			if !ok {
				t.Skip("not in the recorded run (a case added after it)")
			}
			if r.Error != "" {
				t.Fatalf("the GPU run failed: %s", r.Error)
			}
			st, args, check, err := launchCorpus(t, c, m)
			if err != nil {
				t.Fatal(err)
			}
			// The simulator's outputs against the GPU's, byte for byte.
			for _, a := range args {
				name, _, b, ok := bufBytes(a)
				if !ok {
					continue
				}
				gpu, err := base64.StdEncoding.DecodeString(r.Outputs[name])
				if err != nil || len(gpu) != len(b) {
					t.Fatalf("%s: recorded %d bytes (%v), simulator %d", name, len(gpu), err, len(b))
				}
				switch tol, approx := c.approx[name]; {
				case bytes.Equal(gpu, b) || c.orderDependent[name]:
				case approx:
					d, i := maxAbsDiff32(gpu, b)
					if d > tol {
						t.Errorf("%s[%d] differs from the H200's by %g, over the .approx bound %g", name, i, d, tol)
					}
					t.Logf("%s: at most %.2g from the H200's (bound %g)", name, d, tol)
				default:
					t.Errorf("%s differs from the H200's", name)
				}
				copy(b, gpu) // then the GPU's outputs go through the CPU reference check
			}
			// printf: the same lines; a warp's lines in lane order on
			// both, but the GPU's blocks run concurrently, so its order
			// of blocks is its schedule's (the simulator's is block order).
			if st.Printf != r.Printf {
				if sortedLines(st.Printf) != sortedLines(r.Printf) {
					t.Errorf("printf differs from the H200's:\nsim %q\nGPU %q", st.Printf, r.Printf)
				} else {
					t.Logf("printf: the same lines in another order of blocks:\nsim %q\nGPU %q", st.Printf, r.Printf)
				}
			}
			if sortedLines(st.Printf) != sortedLines(r.Printf) {
				st.Printf = r.Printf // so that the reference check says what is wrong with the GPU's
			}
			if err := check(st); err != nil {
				t.Errorf("the H200's outputs against the CPU reference: %v", err)
			}
		})
	}
}

// sortedLines is text's lines in sorted order.
func sortedLines(text string) string {
	l := strings.SplitAfter(text, "\n")
	sort.Strings(l)
	return strings.Join(l, "")
}

// maxAbsDiff32 is the largest absolute difference between two buffers of
// float32s, and where it is.
func maxAbsDiff32(a, b []byte) (float64, int) {
	worst, at := 0.0, -1
	for i := 0; i+4 <= len(a) && i+4 <= len(b); i += 4 {
		x := float64(math.Float32frombits(binary.LittleEndian.Uint32(a[i:])))
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
		if d := math.Abs(x - y); d > worst || math.IsNaN(d) {
			worst, at = d, i/4
		}
	}
	return worst, at
}

package gpuext

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/warplab/warplab/sim"
)

// The PTX corpus (sim/testdata/corpus) is recorded on the H200 through
// CuPy (evidence/ptx-corpus-h200-2026-12-04: manifest.json holds each
// launch's PTX, configuration and input bytes, results.json the outputs).
// sim's TestCorpusH200 holds the executor to that run directly; the tests
// here hold gpuext to it, so that every corpus kernel also runs through
// the package students use: Module from PTX, Kernel handle, Upload,
// WriteGlobal, Launch with Config, Download. TestCorpusThroughGpuext runs
// it on the simulator (in CI); TestGPUCorpusThroughGpuext (-tags cuda) on
// a GPU.

const corpusEvidence = "../evidence/ptx-corpus-h200-2026-12-04"

// corpusLaunch is one case of manifest.json.
type corpusLaunch struct {
	Name   string `json:"name"`
	PTX    string `json:"ptx"`
	Kernel string `json:"kernel"`
	Grid   [3]int `json:"grid"`
	Block  [3]int `json:"block"`
	Shared int    `json:"shared"`
	Args   []struct {
		Buffer string `json:"buffer"`
		Type   string `json:"type"`
		Data   string `json:"data"`
		Bits   uint64 `json:"bits"`
	} `json:"args"`
	Globals map[string]string `json:"globals"`
}

// corpusOutputs is one case of results.json: buffer name to its bytes
// after the launch on the H200.
type corpusOutputs struct {
	Name    string            `json:"name"`
	Outputs map[string]string `json:"outputs"`
}

// corpusOrderDependent names the outputs whose bytes depend on the order
// in which the hardware ran warps (sim's corpus cases declare the same two
// and check them against a CPU reference instead).
var corpusOrderDependent = map[string]bool{"u": true, "next": true}

func readCorpus(t *testing.T) ([]corpusLaunch, map[string]corpusOutputs) {
	t.Helper()
	var launches []corpusLaunch
	var results []corpusOutputs
	for file, v := range map[string]any{"manifest.json": &launches, "results.json": &results} {
		b, err := os.ReadFile(filepath.Join(corpusEvidence, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	byName := map[string]corpusOutputs{}
	for _, r := range results {
		byName[r.Name] = r
	}
	if len(launches) == 0 || len(launches) != len(byName) {
		t.Fatalf("%d launches in the manifest, %d results", len(launches), len(byName))
	}
	return launches, byName
}

// bytesAs reinterprets b as elements of T (the recorded buffers are the
// GPU's little-endian bytes, as Go's are on every platform we build for).
func bytesAs[T sim.Elem](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	out := make([]T, n)
	if n > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	}
	return out
}

func asBytes[T sim.Elem](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(z)))
}

// corpusBuffer is an uploaded buffer whose bytes can be read back.
type corpusBuffer struct {
	arg      any
	download func() ([]byte, error)
}

func uploadAs[T sim.Elem](d *Device, name string, b []byte) (corpusBuffer, error) {
	buf, err := Upload(d, name, bytesAs[T](b))
	if err != nil {
		return corpusBuffer{}, err
	}
	return corpusBuffer{arg: buf, download: func() ([]byte, error) {
		out := make([]T, buf.Len())
		err := buf.Download(out)
		return asBytes(out), err
	}}, nil
}

func corpusUpload(d *Device, name, typ string, b []byte) (corpusBuffer, error) {
	switch typ {
	case "f32":
		return uploadAs[float32](d, name, b)
	case "f64":
		return uploadAs[float64](d, name, b)
	case "i32":
		return uploadAs[int32](d, name, b)
	case "i64":
		return uploadAs[int64](d, name, b)
	case "u32":
		return uploadAs[uint32](d, name, b)
	}
	return corpusBuffer{}, fmt.Errorf("buffer %s: element type %q", name, typ)
}

func corpusScalar(typ string, bits uint64) (any, error) {
	switch typ {
	case "i32":
		return int32(uint32(bits)), nil
	case "u32":
		return uint32(bits), nil
	case "i64":
		return int64(bits), nil
	case "f32":
		return math.Float32frombits(uint32(bits)), nil
	case "f64":
		return math.Float64frombits(bits), nil
	}
	return nil, fmt.Errorf("scalar of type %q", typ)
}

// runCorpusCase launches one corpus case on d and returns its buffers'
// bytes afterwards, by name.
func runCorpusCase(d *Device, c corpusLaunch) (map[string][]byte, error) {
	src, err := os.ReadFile(filepath.Join("../sim/testdata/corpus", c.PTX))
	if err != nil {
		return nil, err
	}
	m := NewModule(c.Name, "", string(src))
	k, err := m.Kernel(c.Kernel)
	if err != nil {
		return nil, err
	}
	for name, b64 := range c.Globals {
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, err
		}
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("global %s: %d bytes, not whole words", name, len(b))
		}
		if err := WriteGlobal(d, m, name, bytesAs[uint32](b)); err != nil {
			return nil, err
		}
	}
	var args []any
	bufs := map[string]corpusBuffer{}
	for _, a := range c.Args {
		if a.Buffer == "" {
			v, err := corpusScalar(a.Type, a.Bits)
			if err != nil {
				return nil, err
			}
			args = append(args, v)
			continue
		}
		b, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil {
			return nil, err
		}
		cb, err := corpusUpload(d, a.Buffer, a.Type, b)
		if err != nil {
			return nil, err
		}
		bufs[a.Buffer] = cb
		args = append(args, cb.arg)
	}
	cfg := Config{
		Grid:   sim.Dim3{X: c.Grid[0], Y: c.Grid[1], Z: c.Grid[2]},
		Block:  sim.Dim3{X: c.Block[0], Y: c.Block[1], Z: c.Block[2]},
		Shared: c.Shared,
	}
	if _, err := d.Launch(context.Background(), k, cfg, args...); err != nil {
		return nil, err
	}
	if err := d.Synchronize(); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name, cb := range bufs {
		b, err := cb.download()
		if err != nil {
			return nil, err
		}
		out[name] = b
	}
	return out, nil
}

// approxClose reports whether two float32 buffers agree within the
// .approx instructions' error (the PTX manual's bounds are about 2^-22
// relative; sim's corpus test holds each case to its own bound).
func approxClose(a, b []byte) bool {
	if len(a) != len(b) || len(a)%4 != 0 {
		return false
	}
	x, y := bytesAs[float32](a), bytesAs[float32](b)
	for i := range x {
		d := math.Abs(float64(x[i]) - float64(y[i]))
		if d > 1e-6+1e-6*math.Abs(float64(y[i])) {
			return false
		}
	}
	return true
}

// checkCorpus runs every corpus case on d and compares each output buffer
// with the H200's bytes. exact says the device is the GPU the corpus was
// recorded on, so every output but the order-dependent ones must be equal
// byte for byte; on the simulator float32 outputs may differ within
// .approx's error, and the test reports how many did.
func checkCorpus(t *testing.T, d *Device, exact bool) {
	launches, results := readCorpus(t)
	approx := 0
	for _, c := range launches {
		got, err := runCorpusCase(d, c)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		for name, b64 := range results[c.Name].Outputs {
			want, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatal(err)
			}
			g, ok := got[name]
			switch {
			case !ok:
				t.Errorf("%s: no buffer %q", c.Name, name)
			case string(g) == string(want), corpusOrderDependent[name]:
			case !exact && approxClose(g, want):
				approx++
			default:
				t.Errorf("%s: buffer %s differs from the H200's recorded bytes", c.Name, name)
			}
		}
	}
	t.Logf("%d corpus launches through gpuext on %s; %d float outputs within .approx's error, the rest byte-equal to the H200 (order-dependent outputs aside)", len(launches), d.Name(), approx)
}

func TestCorpusThroughGpuext(t *testing.T) {
	d, err := Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkCorpus(t, d, false)
}

package gpuext

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// runSaxpy launches saxpy of m on d over a small vector and returns the
// launch and y.
func runSaxpy(t *testing.T, d *Device, m *Module) (*Launch, []float32) {
	t.Helper()
	const n = 300
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i)*0.5, float32(i+3)
	}
	x, err := Upload(d, "x", xs)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Upload(d, "y", ys)
	if err != nil {
		t.Fatal(err)
	}
	l, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: (n + 127) / 128, Block: 128}, int32(n), float32(1.5), x, y)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := y.Download(got); err != nil {
		t.Fatal(err)
	}
	return l, got
}

// TestLoadSaysPTX: the simulator runs a module's PTX, and Load says which
// PTX (compiler, target) and which kernels.
func TestLoadSaysPTX(t *testing.T) {
	d := openSimT(t, "sim")
	li, err := d.Load(saxpyModule())
	if err != nil {
		t.Fatal(err)
	}
	if li.Path != PathPTX || !strings.Contains(li.Note, "saxpy") || !strings.Contains(li.PTX, "nvcc 11.8") || li.Arch != "sm_75" {
		t.Errorf("Load = %+v; want path ptx naming saxpy, nvcc 11.8 and sm_75", li)
	}
	l, _ := runSaxpy(t, d, saxpyModule())
	if l.Path != PathPTX || !strings.Contains(l.PTX, ".target sm_75") {
		t.Errorf("launch: path %q, PTX %q; want ptx from the sm_75 PTX", l.Path, l.PTX)
	}
	if _, err := saxpyModule().Kernel("saxpi"); err == nil || !strings.Contains(err.Error(), "no such kernel") || !strings.Contains(err.Error(), "saxpy") {
		t.Errorf("Kernel(saxpi) = %v; want an error naming the kernels the PTX has", err)
	}
}

// fakeGPU is a backend that only answers loadedPTX, as a GPU Device
// holding a cubin (or JIT-loaded PTX) would. Any other call panics on the
// nil embedded interface: the test must not reach them.
type fakeGPU struct {
	backend
	ptx   string
	info  LoadInfo
	err   error
	calls int
}

func (f *fakeGPU) loadedPTX(m *Module) (string, LoadInfo, error) {
	f.calls++
	li := f.info
	li.Module = m.Name
	return f.ptx, li, f.err
}

func fakeGPUDevice(f *fakeGPU) *Device {
	return &Device{kind: "gpu", name: "fake GPU", be: f, live: map[*bufState]struct{}{}}
}

// TestPTXFrom: with Options.PTXFrom the simulator runs the PTX the GPU
// Device loaded, also for a module with no PTX of its own (CUDA C compiled by
// the GPU's nvcc), and every result says where that PTX came from.
func TestPTXFrom(t *testing.T) {
	// The GPU's nvcc made this PTX; mark it so the test can tell it from
	// the module's embedded PTX.
	nvccPTX := strings.Replace(kernelsPTX, "//", "// made beside the cubin\n//", 1)
	f := &fakeGPU{ptx: nvccPTX, info: LoadInfo{Path: "cubin", Arch: "sm_90"}}
	d, err := OpenWith("sim", Options{PTXFrom: fakeGPUDevice(f)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	cudaOnly := &Module{Name: "cuda_only", CUDA: kernelsCUDA}
	li, err := d.Load(cudaOnly)
	if err != nil {
		t.Fatal(err)
	}
	if li.Path != PathPTX || !strings.Contains(li.PTX, "beside the sm_90 cubin fake GPU loaded") {
		t.Errorf("Load = %+v; want the PTX made beside the GPU's cubin", li)
	}
	l, got := runSaxpy(t, d, cudaOnly)
	if l.Path != PathPTX || !strings.Contains(l.PTX, "nvcc 11.8") || !strings.Contains(l.PTX, "cubin fake GPU loaded") {
		t.Errorf("launch path %q, PTX %q; want the compiler and the cubin's PTX named", l.Path, l.PTX)
	}
	_, want := runSaxpy(t, openSimT(t, "sim"), ptxOnlyModule())
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("y[%d] = %v from the GPU's PTX, %v from the same PTX embedded", i, got[i], want[i])
		}
	}
	if nvccPTX == kernelsPTX {
		t.Fatal("the test's marked PTX is the embedded PTX")
	}
	text, prov, err := d.SimPTXSource(cudaOnly)
	if err != nil || text != nvccPTX || !strings.Contains(prov, "cubin fake GPU loaded") {
		t.Errorf("SimPTXSource = %d bytes, %q, %v; want the GPU's PTX, named", len(text), prov, err)
	}
	if _, _, err := fakeGPUDevice(f).SimPTXSource(cudaOnly); err == nil {
		t.Error("SimPTXSource on a GPU Device did not fail")
	}

	// The PTX path on the GPU: the simulator says it ran the JIT-loaded PTX.
	f.info = LoadInfo{Path: "ptx", Arch: "sm_75"}
	jit := saxpyModule()
	if l, _ := runSaxpy(t, d, jit); !strings.Contains(l.PTX, "embedded PTX fake GPU JIT-compiled") {
		t.Errorf("launch PTX %q; want the JIT-loaded PTX named", l.PTX)
	}

	// A failure to make the PTX is the launch's error, not a silent run of
	// other code.
	f.err = errors.New("nvcc exploded")
	buf, err := Alloc[float32](d, "buf", 32)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Launch(context.Background(), kern(&Module{Name: "broken", CUDA: kernelsCUDA}, "saxpy"), Config{Grid: 1, Block: 32}, int32(0), float32(1), buf, buf)
	if err == nil || !strings.Contains(err.Error(), "nvcc exploded") || !strings.Contains(err.Error(), "PTXFrom") {
		t.Errorf("launch with a failing PTXFrom: %v; want the cause and the option named", err)
	}

	// PTXFrom naming a simulator Device changes nothing: the module's own PTX runs.
	s, err := OpenWith("sim", Options{PTXFrom: openSimT(t, "sim")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l, _ := runSaxpy(t, s, ptxOnlyModule()); l.PTX != ptxProvenanceOf(t, kernelsPTX) {
		t.Errorf("PTXFrom a simulator: PTX %q; want the module's own", l.PTX)
	}
}

func ptxProvenanceOf(t *testing.T, text string) string {
	t.Helper()
	d := openSimT(t, "sim")
	li, err := d.Load(&Module{Name: "p", PTX: text})
	if err != nil {
		t.Fatal(err)
	}
	return li.PTX
}

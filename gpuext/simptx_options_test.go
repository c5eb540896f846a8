package gpuext

import (
	"errors"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim"
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
	l, err := d.Launch(m, "saxpy", sim.Dim1((n+127)/128), sim.Dim1(128), 0, int32(n), float32(1.5), x, y)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := y.Download(got); err != nil {
		t.Fatal(err)
	}
	return l, got
}

// TestSimPTXOption: with Options.SimPTX the simulator runs a kernel that has
// a Go mirror from its PTX, and Load says so; without it the mirror runs.
func TestSimPTXOption(t *testing.T) {
	plain := openSimT(t, "sim")
	forced, err := OpenWith("sim", Options{SimPTX: true})
	if err != nil {
		t.Fatal(err)
	}
	defer forced.Close()
	m := saxpyModule()

	li, err := forced.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if li.Path != "ptx" || !strings.Contains(li.Note, "saxpy") || !strings.Contains(li.Note, "SimPTX") || !strings.Contains(li.PTX, "nvcc 11.8") {
		t.Errorf("Load with SimPTX = %+v; want path ptx naming saxpy, the option and nvcc 11.8", li)
	}
	t.Setenv("WARPLAB_SIM_PTX", "1")
	if !OptionsFromEnv().SimPTX {
		t.Error("WARPLAB_SIM_PTX=1 does not set SimPTX")
	}
	if li, err := plain.Load(m); err != nil || li.Path != "mirror" {
		t.Errorf("Load without SimPTX = %+v, %v; want path mirror", li, err)
	}

	lf, gotPTX := runSaxpy(t, forced, m)
	lp, _ := runSaxpy(t, plain, m)
	if lf.Path != "ptx" || !strings.Contains(lf.PTX, ".target sm_75") {
		t.Errorf("SimPTX launch: path %q, PTX %q; want ptx from the sm_75 PTX", lf.Path, lf.PTX)
	}
	if lp.Path != "mirror" || lp.PTX != "" {
		t.Errorf("plain launch: path %q, PTX %q; want the mirror", lp.Path, lp.PTX)
	}
	// The forced run is the PTX-only module's run, bit for bit.
	_, want := runSaxpy(t, forced, ptxOnlyModule())
	for i := range want {
		if gotPTX[i] != want[i] {
			t.Fatalf("y[%d] = %v with SimPTX, %v from the PTX-only module", i, gotPTX[i], want[i])
		}
	}

	// A kernel the PTX lacks is an error naming the option, not a silent
	// fall-back to the mirror.
	noPTX := &Module{Name: "mirror_only", Mirrors: saxpyModule().Mirrors}
	buf, err := Alloc[float32](forced, "buf", 32)
	if err != nil {
		t.Fatal(err)
	}
	_, err = forced.Launch(noPTX, "saxpy", sim.Dim1(1), sim.Dim1(32), 0, int32(0), float32(1), buf, buf)
	if err == nil || !strings.Contains(err.Error(), "SimPTX") {
		t.Errorf("SimPTX launch of a module without PTX: %v; want an error naming SimPTX", err)
	}
}

// fakeGPU is a gpuBackend that only answers loadedPTX, as a GPU Device
// holding a cubin (or JIT-loaded PTX) would. Any other call panics on the
// nil embedded interface: the test must not reach them.
type fakeGPU struct {
	gpuBackend
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
	return &Device{kind: "gpu", name: "fake GPU", gpu: f, live: map[*bufState]struct{}{}}
}

// TestPTXFrom: with Options.PTXFrom the simulator runs the PTX the GPU
// Device loaded, also for a module with no PTX of its own (CUDA C compiled by
// the GPU's nvcc), and every result says where that PTX came from.
func TestPTXFrom(t *testing.T) {
	// The GPU's nvcc made this PTX; mark it so the test can tell it from
	// the module's embedded PTX.
	nvccPTX := strings.Replace(kernelsPTX, "//", "// made beside the cubin\n//", 1)
	f := &fakeGPU{ptx: nvccPTX, info: LoadInfo{Path: "cubin", Arch: "sm_90"}}
	d, err := OpenWith("sim", Options{PTXFrom: fakeGPUDevice(f), SimPTX: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	cudaOnly := &Module{Name: "cuda_only", CUDA: kernelsCUDA}
	li, err := d.Load(cudaOnly)
	if err != nil {
		t.Fatal(err)
	}
	if li.Path != "ptx" || !strings.Contains(li.PTX, "beside the sm_90 cubin fake GPU loaded") {
		t.Errorf("Load = %+v; want the PTX made beside the GPU's cubin", li)
	}
	l, got := runSaxpy(t, d, cudaOnly)
	if l.Path != "ptx" || !strings.Contains(l.PTX, "nvcc 11.8") || !strings.Contains(l.PTX, "cubin fake GPU loaded") {
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
	_, err = d.Launch(&Module{Name: "broken", CUDA: kernelsCUDA}, "saxpy", sim.Dim1(1), sim.Dim1(32), 0, int32(0), float32(1), buf, buf)
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

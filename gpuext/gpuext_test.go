package gpuext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

func openSimT(t *testing.T, spec string) *Device {
	t.Helper()
	d, err := Open(spec)
	if err != nil {
		t.Fatalf("Open(%q): %v", spec, err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func TestOpenSpecs(t *testing.T) {
	tests := []struct {
		spec     string
		kind     Kind // "" means Open must fail
		model    string
		errParts []string
	}{
		{spec: "sim", kind: "sim", model: "h200"},
		{spec: " SIM:T4 ", kind: "sim", model: "t4"},
		{spec: "sim:a100", kind: "sim", model: "a100"},
		{spec: "sim:h100", kind: "sim", model: "h100"},
		{spec: "sim:h200", kind: "sim", model: "h200"},
		{spec: "sim:v100", errParts: []string{`Open("sim:v100")`, "v100"}},
		{spec: "tpu", errParts: []string{"unknown device", "sim:t4|a100|h100|h200"}},
		{spec: "gpu:x", errParts: []string{"not a GPU number"}},
		{spec: "gpu:-1", errParts: []string{"not a GPU number"}},
	}
	if !GPUBackend() {
		tests = append(tests,
			struct {
				spec     string
				kind     Kind
				model    string
				errParts []string
			}{spec: "auto", kind: "sim", model: "h200"},
			struct {
				spec     string
				kind     Kind
				model    string
				errParts []string
			}{spec: "", kind: "sim", model: "h200"},
			struct {
				spec     string
				kind     Kind
				model    string
				errParts []string
			}{spec: "gpu", errParts: []string{"-tags cuda", "scripts/cuda/build.sh"}},
			struct {
				spec     string
				kind     Kind
				model    string
				errParts []string
			}{spec: "gpu:1", errParts: []string{"-tags cuda"}},
		)
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			d, err := Open(tt.spec)
			if tt.kind == "" {
				if err == nil {
					d.Close()
					t.Fatalf("Open(%q) succeeded, want an error", tt.spec)
				}
				for _, p := range tt.errParts {
					if !strings.Contains(err.Error(), p) {
						t.Errorf("Open(%q) error %q does not mention %q", tt.spec, err, p)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q): %v", tt.spec, err)
			}
			defer d.Close()
			if d.Kind() != tt.kind || d.Model().Key != tt.model {
				t.Fatalf("Open(%q) = kind %q model %q, want %q %q", tt.spec, d.Kind(), d.Model().Key, tt.kind, tt.model)
			}
			m := testenv.Must(sim.ModelByKey(tt.model))(t)
			if maj, min := d.ComputeCapability(); maj != m.CCMajor || min != m.CCMinor {
				t.Errorf("ComputeCapability = %d.%d, want %d.%d", maj, min, m.CCMajor, m.CCMinor)
			}
			if d.SMs() != m.SMs || d.MemoryBytes() != m.MemoryBytes {
				t.Errorf("SMs, MemoryBytes = %d, %d; want %d, %d", d.SMs(), d.MemoryBytes(), m.SMs, m.MemoryBytes)
			}
			if !strings.Contains(d.Name(), m.Name) || !strings.Contains(d.Name(), "modeled") {
				t.Errorf("Name = %q, want it to name %q and say modeled", d.Name(), m.Name)
			}
		})
	}
}

func TestGPUWithoutBackendIsErrNoGPUBackend(t *testing.T) {
	if GPUBackend() {
		t.Skip("this build has the GPU backend")
	}
	_, err := Open("gpu")
	if !errors.Is(err, ErrNoGPUBackend) {
		t.Fatalf("Open(gpu) error = %v, want ErrNoGPUBackend", err)
	}
	d := openSimT(t, "auto")
	if !strings.Contains(d.Reason(), "no GPU backend") {
		t.Errorf("auto Reason = %q, want it to say why the simulator was chosen", d.Reason())
	}
}

// roundTrip uploads src, checks Len, downloads, and compares.
func roundTrip[T sim.Elem](t *testing.T, d *Device, src []T) {
	t.Helper()
	b, err := Upload(d, "rt", src)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != len(src) {
		t.Fatalf("Len = %d, want %d", b.Len(), len(src))
	}
	got := make([]T, len(src))
	if err := b.Download(got); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if got[i] != src[i] {
			t.Fatalf("%T element %d = %v, want %v", src[0], i, got[i], src[i])
		}
	}
	// Upload copies: changing src must not change the buffer.
	src[0]++
	if err := b.Download(got); err != nil {
		t.Fatal(err)
	}
	if got[0] == src[0] {
		t.Fatalf("%T: buffer follows the host slice; Upload must copy", src[0])
	}
	// CopyFrom overwrites.
	if err := b.CopyFrom(src); err != nil {
		t.Fatal(err)
	}
	if err := b.Download(got); err != nil {
		t.Fatal(err)
	}
	if got[0] != src[0] {
		t.Fatalf("%T: CopyFrom did not overwrite: %v, want %v", src[0], got[0], src[0])
	}
}

func TestBufferRoundTrip(t *testing.T) {
	d := openSimT(t, "sim")
	roundTrip(t, d, []float32{1.5, -2, float32(math.Inf(1)), 3e-38})
	roundTrip(t, d, []float64{math.Pi, -1e300, 0})
	roundTrip(t, d, []int32{math.MaxInt32, math.MinInt32, 7})
	roundTrip(t, d, []int64{math.MaxInt64, math.MinInt64, 7})
	roundTrip(t, d, []uint32{math.MaxUint32, 0, 9})
}

func TestAllocZeroedAndFill(t *testing.T) {
	d := openSimT(t, "sim:t4")
	b, err := Alloc[float64](d, "z", 5)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 5)
	if err := b.Download(got); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 0 {
			t.Fatalf("fresh buffer element %d = %v, want 0", i, v)
		}
	}
	for _, v := range []float64{-0.25, 1e10} {
		if err := b.Fill(v); err != nil {
			t.Fatal(err)
		}
		if err := b.Download(got); err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if g != v {
				t.Fatalf("after Fill(%v) element %d = %v", v, i, g)
			}
		}
	}
	i, err := Alloc[int32](d, "i", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := i.Fill(-7); err != nil {
		t.Fatal(err)
	}
	gi := make([]int32, 3)
	if err := i.Download(gi); err != nil {
		t.Fatal(err)
	}
	if gi[0] != -7 || gi[2] != -7 {
		t.Fatalf("int32 Fill(-7) gave %v", gi)
	}
	empty, err := Alloc[float32](d, "empty", 0)
	if err != nil {
		t.Fatalf("zero-length Alloc: %v", err)
	}
	if err := empty.Download(nil); err != nil {
		t.Fatalf("zero-length Download: %v", err)
	}
}

func TestBufferErrors(t *testing.T) {
	d := openSimT(t, "sim")
	b, err := Upload(d, "x", []float32{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Download(make([]float32, 2)); err == nil || !strings.Contains(err.Error(), "length 3") {
		t.Errorf("Download into a short slice: %v, want a length error", err)
	}
	if err := b.CopyFrom(make([]float32, 4)); err == nil || !strings.Contains(err.Error(), "length 3") {
		t.Errorf("CopyFrom a long slice: %v, want a length error", err)
	}
	if _, err := Alloc[float32](d, "neg", -1); err == nil {
		t.Error("Alloc of -1 elements succeeded")
	}
	if _, err := Alloc[float32](d, "huge", int(d.MemoryBytes()/4+1)); err == nil || !strings.Contains(err.Error(), "out of device memory") {
		t.Errorf("Alloc beyond device memory: %v, want out of device memory", err)
	}

	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	uses := map[string]func() error{
		"Download": func() error { return b.Download(make([]float32, 3)) },
		"CopyFrom": func() error { return b.CopyFrom(make([]float32, 3)) },
		"Fill":     func() error { return b.Fill(1) },
		"Free":     b.Free,
	}
	for name, use := range uses {
		if err := use(); err == nil || !strings.Contains(err.Error(), "freed") || !strings.Contains(err.Error(), "x (float32[3])") {
			t.Errorf("%s after Free: %v, want an error naming the freed buffer", name, err)
		}
	}
	_, err = d.Launch(context.Background(), kern(saxpyModule(), "saxpy"), Config{Grid: 1, Block: 32}, int32(3), float32(2), b, b)
	if err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("Launch with a freed buffer: %v, want an error", err)
	}

	var nilBuf *Buffer[float32]
	if err := nilBuf.Fill(1); err == nil {
		t.Error("Fill on a nil buffer succeeded")
	}
}

func TestCloseFreesEverything(t *testing.T) {
	d, err := Open("sim:a100")
	if err != nil {
		t.Fatal(err)
	}
	free0, total, err := d.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	if free0 != total || total != d.MemoryBytes() {
		t.Fatalf("fresh device: free %d total %d, want both %d", free0, total, d.MemoryBytes())
	}
	a := testenv.Must(Alloc[float64](d, "a", 1000))(t)
	b := testenv.Must(Alloc[int32](d, "b", 1000))(t)
	free1, _, err := d.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	if want := free0 - 8000 - 4000; free1 != want {
		t.Fatalf("free after 12000 B = %d, want %d", free1, want)
	}
	if err := a.Free(); err != nil {
		t.Fatal(err)
	}
	if free2, _, err := d.MemInfo(); err != nil || free2 != free0-4000 {
		t.Fatalf("free after freeing a = %d (%v), want %d", free2, err, free0-4000)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := b.Fill(1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Fill after Close: %v, want a closed-device error", err)
	}
	if _, err := Alloc[float32](d, "c", 1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Alloc after Close: %v, want a closed-device error", err)
	}
	if _, _, err := d.MemInfo(); err == nil {
		t.Error("MemInfo after Close succeeded")
	}
	if _, err := d.Launch(context.Background(), kern(saxpyModule(), "saxpy"), Config{Grid: 1, Block: 1}); err == nil {
		t.Error("Launch after Close succeeded")
	}
}

func TestLaunchValidation(t *testing.T) {
	d := openSimT(t, "sim:t4")
	x := testenv.Must(Upload(d, "x", []float32{1, 2}))(t)
	y := testenv.Must(Upload(d, "y", []float32{3, 4}))(t)
	args := []any{int32(2), float32(1), x, y}
	tests := []struct {
		name        string
		grid, block sim.Dim3
		shared      int
		want        []string
	}{
		{"too many threads", sim.Dim1(1), sim.Dim1(2048), 0, []string{"2048 threads", "at most 1024 threads per block", "Tesla T4"}},
		{"zero y", sim.Dim1(1), sim.Dim3{X: 32}, 0, []string{"block (32,0,0)", "at least 1", "write an int for one dimension"}},
		{"zero grid", sim.Dim1(0), sim.Dim1(32), 0, []string{"grid (0,1,1)", "at least 1"}},
		{"block z", sim.Dim1(1), sim.Dim3{X: 1, Y: 1, Z: 128}, 0, []string{"128 threads along z", "at most 64"}},
		{"grid y", sim.Dim3{X: 1, Y: 70000, Z: 1}, sim.Dim1(32), 0, []string{"70000 blocks along y", "65535", "put the large dimension in x"}},
		{"grid x", sim.Dim1(1 << 31), sim.Dim1(32), 0, []string{"2147483648 blocks along x"}},
		{"negative shared", sim.Dim1(1), sim.Dim1(32), -4, []string{"negative"}},
		{"too much shared", sim.Dim1(1), sim.Dim1(32), 1 << 20, []string{"1048576 bytes", "dynamic shared memory", "at most 65536 bytes", "Tesla T4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Launch(context.Background(), kern(saxpyModule(), "saxpy"), Config{Grid: tt.grid, Block: tt.block, Shared: tt.shared}, args...)
			if err == nil {
				t.Fatal("launch succeeded, want a validation error")
			}
			var le *LaunchError
			if !errors.As(err, &le) || le.Kernel != "saxpy" || le.Module != "saxpy_test" || le.Grid != tt.grid || le.Block != tt.block || le.Shared != tt.shared {
				t.Fatalf("error %v is not a LaunchError naming the kernel and config", err)
			}
			msg := err.Error()
			for _, w := range append(tt.want, "saxpy_test.saxpy<<<") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestLaunchArgumentErrors(t *testing.T) {
	d := openSimT(t, "sim")
	other := openSimT(t, "sim")
	x := testenv.Must(Upload(d, "x", []float32{1, 2}))(t)
	y := testenv.Must(Upload(d, "y", []float32{3, 4}))(t)
	foreign := testenv.Must(Upload(other, "foreign", []float32{3, 4}))(t)
	tests := []struct {
		name string
		kern string
		args []any
		want string
	}{
		{"go int", "saxpy", []any{2, float32(1), x, y}, "int32(2)"},
		{"nil arg", "saxpy", []any{int32(2), float32(1), nil, y}, "argument 2 is nil"},
		{"string", "saxpy", []any{int32(2), float32(1), "x", y}, "argument 2 has type string"},
		{"foreign buffer", "saxpy", []any{int32(2), float32(1), x, foreign}, "belongs to device"},
		{"int for a pointer", "saxpy", []any{int32(2), float32(1), x, int32(5)}, "argument 3 (parameter saxpy_param_3, PTX type .u64) is a Go int32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Launch(context.Background(), kern(saxpyModule(), tt.kern), Config{Grid: 1, Block: 32}, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Launch: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := d.Launch(context.Background(), nil, Config{Grid: 1, Block: 1}); err == nil || !strings.Contains(err.Error(), "nil *Kernel") {
		t.Errorf("Launch of a nil kernel: %v", err)
	}
	if _, err := saxpyModule().Kernel("daxpy"); err == nil || !strings.Contains(err.Error(), `Kernel("daxpy"): module saxpy_test has no such kernel (its kernels: saxpy, params)`) {
		t.Errorf("Kernel(daxpy): %v", err)
	}
	if _, err := (*Module)(nil).Kernel("saxpy"); err == nil {
		t.Error("Kernel of a nil module succeeded")
	}
	for _, c := range []Config{{Block: 32}, {Grid: 1}, {Grid: "1", Block: 32}, {Grid: 1.5, Block: 32}} {
		if _, err := d.Launch(context.Background(), kern(saxpyModule(), "saxpy"), c, int32(2), float32(1), x, y); err == nil || !strings.Contains(err.Error(), "give an int") {
			t.Errorf("Launch with %+v: %v, want an error saying what Grid and Block take", c, err)
		}
	}
}

func TestSaxpyOnSimulator(t *testing.T) {
	d := openSimT(t, "sim:h200")
	const n = 1000
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), float32(2*i+1)
	}
	x, err := Upload(d, "x", xs)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Upload(d, "y", ys)
	if err != nil {
		t.Fatal(err)
	}
	m := saxpyModule()
	li, err := d.Load(m)
	if err != nil || li.Path != PathPTX {
		t.Fatalf("Load = %+v, %v; want path ptx", li, err)
	}
	const block = 256
	l, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: (n + block - 1) / block, Block: block}, int32(n), float32(3), x, y)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := y.Download(got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if want := 3*xs[i] + ys[i]; got[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
	st := l.Stats
	if st == nil {
		t.Fatal("simulated launch returned no Stats")
	}
	// 1000 threads = 31.25 warps -> 32 warps make one request per access site;
	// x and y loads: 2 load requests per warp, the y store 1.
	warps := int64((n + 31) / 32)
	if st.GlobalLoad.Requests != 2*warps || st.GlobalStore.Requests != warps {
		t.Errorf("requests: load %d store %d, want %d and %d", st.GlobalLoad.Requests, st.GlobalStore.Requests, 2*warps, warps)
	}
	// Each full warp touches 128 contiguous bytes = 4 sectors per access;
	// 1000 floats = 4000 bytes = 125 sectors per array.
	if st.GlobalLoad.Sectors != 2*125 || st.GlobalStore.Sectors != 125 {
		t.Errorf("sectors: load %d store %d, want 250 and 125", st.GlobalLoad.Sectors, st.GlobalStore.Sectors)
	}
	if st.Time.Kind != "modeled" || st.Time.Seconds <= 0 {
		t.Errorf("modeled time %+v, want a positive modeled time", st.Time)
	}
}

func TestTimeOnSimulatorIsModeled(t *testing.T) {
	d := openSimT(t, "sim")
	x := testenv.Must(Upload(d, "x", make([]float32, 4096)))(t)
	y := testenv.Must(Upload(d, "y", make([]float32, 4096)))(t)
	m := saxpyModule()
	var one float64
	launch := func() error {
		l, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 16, Block: 256}, int32(4096), float32(1), x, y)
		if err == nil {
			one = l.Stats.Time.Seconds
		}
		return err
	}
	tm, err := d.Time(launch, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Kind != Modeled || tm.Runs != 1 || tm.Warmups != 0 {
		t.Fatalf("Timing = %+v, want Kind modeled from one run", tm)
	}
	if math.Abs(tm.MeanMs-one*1e3) > 1e-12 || tm.MinMs != tm.MeanMs || tm.MedianMs != tm.MeanMs {
		t.Fatalf("Timing = %+v, want mean = min = median = the launch's modeled %v ms", tm, one*1e3)
	}
	// Two launches per run: their modeled times add up.
	tm2, err := d.Time(func() error {
		if err := launch(); err != nil {
			return err
		}
		return launch()
	}, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(tm2.MeanMs-2*tm.MeanMs) > 1e-9 {
		t.Fatalf("two launches modeled %v ms, want twice %v", tm2.MeanMs, tm.MeanMs)
	}
	if !strings.Contains(tm.String(), "modeled") {
		t.Errorf("Timing.String() = %q, want it labeled modeled", tm.String())
	}
	if _, err := d.Time(func() error { return nil }, 0, 1); err == nil || !strings.Contains(err.Error(), "no kernel") {
		t.Errorf("Time of a function that launches nothing: %v, want an error", err)
	}
	boom := fmt.Errorf("boom")
	if _, err := d.Time(func() error { return boom }, 0, 1); !errors.Is(err, boom) {
		t.Errorf("Time of a failing function: %v, want it wrapped", err)
	}
	if _, err := d.Time(func() error {
		_, err := d.Time(launch, 0, 1)
		return err
	}, 0, 1); err == nil || !strings.Contains(err.Error(), "do not nest") {
		t.Errorf("nested Time: %v, want an error", err)
	}
}

func TestSimFaultIsWrapped(t *testing.T) {
	d := openSimT(t, "sim")
	x := testenv.Must(Upload(d, "x", make([]float32, 10)))(t)
	y := testenv.Must(Upload(d, "y", make([]float32, 10)))(t)
	// n = 64 but the buffers hold 10: the kernel reads past x's end.
	_, err := d.Launch(context.Background(), kern(saxpyModule(), "saxpy"), Config{Grid: 1, Block: 64}, int32(64), float32(1), x, y)
	var f *sim.Fault
	var le *LaunchError
	if !errors.As(err, &f) || !errors.As(err, &le) {
		t.Fatalf("out-of-bounds launch: %v, want a *sim.Fault inside a *LaunchError", err)
	}
	if le.Call != "sim.LaunchPTX" || !strings.Contains(err.Error(), "saxpy_test.saxpy<<<grid (1,1,1), block (64,1,1), shared 0 B>>>") {
		t.Fatalf("error %q does not name the call and config", err)
	}
}

func TestModelFor(t *testing.T) {
	h200 := testenv.Must(sim.ModelByKey("h200"))(t)
	t4 := testenv.Must(sim.ModelByKey("t4"))(t)
	tests := []struct {
		name    string
		attrs   gpuAttrs
		wantKey string
		wantBW  float64
	}{
		{"h200", gpuAttrs{Name: "NVIDIA H200", CCMajor: 9, SMs: 132, MemoryBytes: 150e9}, "h200", h200.DRAMBandwidth},
		{"t4", gpuAttrs{Name: "Tesla T4", CCMajor: 7, CCMinor: 5, SMs: 40}, "t4", t4.DRAMBandwidth},
		{"h100 pcie", gpuAttrs{Name: "NVIDIA H100 PCIe", CCMajor: 9, SMs: 114}, "h100", 0},
		{"a100 sxm", gpuAttrs{Name: "NVIDIA A100-SXM4-80GB", CCMajor: 8, SMs: 108}, "a100", 0},
		{"unknown", gpuAttrs{Name: "NVIDIA GeForce RTX 4090", CCMajor: 8, CCMinor: 9, SMs: 128,
			ClockKHz: 2520000, MemClockKHz: 10501000, BusWidthBits: 384}, "gpu", 2 * 10501000e3 * 384 / 8},
		{"no false h100", gpuAttrs{Name: "Fake H1000", CCMajor: 9, SMs: 10, ClockKHz: 1e6, MemClockKHz: 1e6, BusWidthBits: 64}, "gpu", 2 * 1e9 * 64 / 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := modelFor(tt.attrs)
			if m.Key != tt.wantKey || m.Name != tt.attrs.Name || m.SMs != tt.attrs.SMs || m.CCMajor != tt.attrs.CCMajor || m.CCMinor != tt.attrs.CCMinor {
				t.Fatalf("modelFor(%q) = key %q name %q SMs %d CC %d.%d", tt.attrs.Name, m.Key, m.Name, m.SMs, m.CCMajor, m.CCMinor)
			}
			if tt.wantBW != 0 && m.DRAMBandwidth != tt.wantBW {
				t.Errorf("DRAMBandwidth = %g, want %g", m.DRAMBandwidth, tt.wantBW)
			}
			if tt.attrs.MemoryBytes != 0 && m.MemoryBytes != tt.attrs.MemoryBytes {
				t.Errorf("MemoryBytes = %d, want the GPU's %d", m.MemoryBytes, tt.attrs.MemoryBytes)
			}
			if m.FP32Flops <= 0 {
				t.Errorf("FP32Flops = %g, want > 0", m.FP32Flops)
			}
		})
	}
}

func TestParamsOnSimulator(t *testing.T) {
	checkParams(t, openSimT(t, "sim"), saxpyModule())
}

func TestLaunchCancelled(t *testing.T) {
	dev, err := Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	k := kern(saxpyModule(), "saxpy")
	x := testenv.Must(Alloc[float32](dev, "x", 32))(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := dev.Launch(ctx, k, Config{Grid: 1, Block: 32}, int32(32), float32(1), x, x); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if _, err := dev.Launch(nil, k, Config{Grid: 1, Block: 32}, int32(32), float32(1), x, x); err != nil { //nolint:staticcheck // a nil context is context.Background()
		t.Fatalf("a launch without a context: %v", err)
	}
}

// TimeOnce runs its function exactly once, on the simulator as on a GPU,
// and the simulator's answer is Time's modeled sum.
func TestTimeOnceRunsOnce(t *testing.T) {
	d := openSimT(t, "sim")
	x := testenv.Must(Upload(d, "x", make([]float32, 4096)))(t)
	y := testenv.Must(Upload(d, "y", make([]float32, 4096)))(t)
	m := saxpyModule()
	calls := 0
	var sum float64
	f := func() error {
		calls++
		for range 2 {
			l, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 16, Block: 256}, int32(4096), float32(1), x, y)
			if err != nil {
				return err
			}
			sum += l.Stats.Time.Seconds
		}
		return nil
	}
	tm, err := d.TimeOnce(f)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || tm.Kind != Modeled || tm.Runs != 1 || math.Abs(tm.MeanMs-sum*1e3) > 1e-12 {
		t.Fatalf("TimeOnce: %d calls, %+v; want one call modeled at %v ms", calls, tm, sum*1e3)
	}
	if _, err := d.TimeOnce(func() error { return errors.New("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("TimeOnce of a failing function: %v, want its error", err)
	}
}

//go:build cuda

// GPU tests. They run only on a host with an NVIDIA GPU and driver:
// gorgonia.org/cu's package init calls cuInit and exits the process when no
// GPU answers, before any test could skip. Run them there with
//
//	go test -tags cuda ./gpuext/
//
// (WARPLAB_PTX_ONLY is ignored here: each test picks its load path.)

package gpuext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

func openGPUT(t *testing.T, opts Options) *Device {
	t.Helper()
	d, err := OpenWith("gpu", opts)
	if err != nil {
		t.Fatalf("Open(gpu): %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

func TestGPUOpen(t *testing.T) {
	d := openGPUT(t, Options{})
	maj, min := d.ComputeCapability()
	if d.Kind() != GPU || d.Name() == "" || maj < 7 || d.SMs() < 1 || d.MemoryBytes() < 1<<30 {
		t.Fatalf("gpu device: kind %q name %q cc %d.%d SMs %d memory %d", d.Kind(), d.Name(), maj, min, d.SMs(), d.MemoryBytes())
	}
	if m := d.Model(); m.SMs != d.SMs() || m.Name != d.Name() {
		t.Errorf("Model() = %q with %d SMs, want the GPU's own", m.Name, m.SMs)
	}
	free, total, err := d.MemInfo()
	if err != nil || free <= 0 || free > total {
		t.Fatalf("MemInfo = %d, %d, %v", free, total, err)
	}
	a, err := Open("auto")
	if err != nil || a.Kind() != GPU {
		t.Fatalf("Open(auto) on a GPU host = %v, %v; want the GPU", a, err)
	}
	a.Close()
	if _, err := Open("gpu:999"); err == nil {
		t.Error("Open(gpu:999) succeeded")
	}
	t.Logf("%s, cc %d.%d, %d SMs, %s free of %s, model %s", d.Name(), maj, min, d.SMs(), human(free), human(total), d.Model().Key)
}

func TestGPUBuffers(t *testing.T) {
	d := openGPUT(t, Options{})
	roundTrip(t, d, []float32{1.5, -2, float32(math.Inf(1)), 3e-38})
	roundTrip(t, d, []float64{math.Pi, -1e300, 0})
	roundTrip(t, d, []int32{math.MaxInt32, math.MinInt32, 7})
	roundTrip(t, d, []int64{math.MaxInt64, math.MinInt64, 7})

	// Fill: 4-byte memset, 8-byte memset (equal halves) and 8-byte staging
	// (unequal halves) across more than one staging chunk.
	n := fillChunk + 3
	f64, err := Alloc[float64](d, "f64", n)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, n)
	for _, v := range []float64{0, math.Pi} {
		if err := f64.Fill(v); err != nil {
			t.Fatal(err)
		}
		if err := f64.Download(got); err != nil {
			t.Fatal(err)
		}
		if got[0] != v || got[n-1] != v || got[fillChunk] != v {
			t.Fatalf("Fill(%v): got %v ... %v", v, got[0], got[n-1])
		}
	}
	i64 := testenv.Must(Alloc[int64](d, "i64", 3))(t)
	if err := i64.Fill(-1); err != nil {
		t.Fatal(err)
	}
	gi := make([]int64, 3)
	if err := i64.Download(gi); err != nil || gi[2] != -1 {
		t.Fatalf("int64 Fill(-1) = %v, %v", gi, err)
	}
	f32 := testenv.Must(Alloc[float32](d, "f32", 5))(t)
	if err := f32.Fill(2.5); err != nil {
		t.Fatal(err)
	}
	g32 := make([]float32, 5)
	if err := f32.Download(g32); err != nil || g32[4] != 2.5 {
		t.Fatalf("float32 Fill(2.5) = %v, %v", g32, err)
	}
}

// saxpyBoth runs saxpy on d and on the simulator with the same input and
// compares both with the CPU.
func saxpyBoth(t *testing.T, d *Device, m *Module) {
	t.Helper()
	const n = 100_003
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i%977)*0.5, float32(i%13)-6
	}
	run := func(dev *Device) []float32 {
		x, err := Upload(dev, "x", xs)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Upload(dev, "y", ys)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dev.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: (n + 255) / 256, Block: 256}, int32(n), float32(2), x, y); err != nil {
			t.Fatal(err)
		}
		out := make([]float32, n)
		if err := y.Download(out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	gpu := run(d)
	s := openSimT(t, "sim")
	simulated := run(s)
	for i := range gpu {
		want := 2*xs[i] + ys[i]
		if gpu[i] != want || simulated[i] != want {
			t.Fatalf("y[%d]: gpu %v, simulator %v, cpu %v", i, gpu[i], simulated[i], want)
		}
	}
}

func TestGPUPTXPath(t *testing.T) {
	d := openGPUT(t, Options{PTXOnly: true})
	m := saxpyModule()
	li, err := d.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if li.Path != PathPTX || li.Arch != "sm_75" {
		t.Fatalf("Load = %+v, want the embedded compute_75 PTX", li)
	}
	saxpyBoth(t, d, m)
	checkParams(t, d, m)
}

func TestGPUCubinPath(t *testing.T) {
	if _, err := exec.LookPath("nvcc"); err != nil {
		t.Skip("no nvcc on PATH: the cubin path is not available on this host")
	}
	d := openGPUT(t, Options{CacheDir: t.TempDir()})
	m := saxpyModule()
	li, err := d.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	maj, min := d.ComputeCapability()
	if li.Path != PathCubin || li.Arch != fmt.Sprintf("sm_%d%d", maj, min) || li.Cache == "" {
		t.Fatalf("Load = %+v, want a cubin for this GPU", li)
	}
	saxpyBoth(t, d, m)
	checkParams(t, d, m)
	// A student module with CUDA C and no PTX compiles too.
	student := &Module{Name: "student", CUDA: `extern "C" __global__ void twice(int n, float *v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= 2.0f;
}
`}
	v := testenv.Must(Upload(d, "v", []float32{1, 2, 3}))(t)
	if _, err := d.Launch(context.Background(), kern(student, "twice"), Config{Grid: 1, Block: 32}, int32(3), v); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 3)
	if err := v.Download(got); err != nil || got[2] != 6 {
		t.Fatalf("student kernel: %v, %v", got, err)
	}
	bad := &Module{Name: "bad", CUDA: "extern \"C\" __global__ void k() { nope = 1; }\n"}
	if _, err := d.Launch(context.Background(), kern(bad, "k"), Config{Grid: 1, Block: 1}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("broken student kernel: %v, want nvcc's message", err)
	}
}

func TestGPUErrors(t *testing.T) {
	d := openGPUT(t, Options{PTXOnly: true})
	m := saxpyModule()
	_, err := m.Kernel("nosuch")
	if err == nil || !strings.Contains(err.Error(), `extern "C"`) {
		t.Errorf("unknown kernel: %v, want the extern \"C\" hint", err)
	}
	_, err = d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 2048})
	if err == nil || !strings.Contains(err.Error(), "threads per block") {
		t.Errorf("2048-thread block: %v, want a validation error", err)
	}
	noPTX := &Module{Name: "noptx", CUDA: "x"}
	if _, err := d.Launch(context.Background(), kern(noPTX, "k"), Config{Grid: 1, Block: 1}); err == nil || !strings.Contains(err.Error(), "no PTX") {
		t.Errorf("module without PTX, PTXOnly: %v, want a clear error", err)
	}
	// Out of memory is an error, and the device stays usable.
	_, err = Alloc[float32](d, "huge", int(d.MemoryBytes()))
	var le *LaunchError
	if err == nil || !strings.Contains(err.Error(), "out of memory") || errors.As(err, &le) {
		t.Fatalf("Alloc of 4x the GPU's memory: %v, want an out-of-memory error", err)
	}
	saxpyBoth(t, d, m)
}

// TestGPUNoLeaks is the self-check: 1,000 lesson-sized runs leave
// free memory where it started.
func TestGPUNoLeaks(t *testing.T) {
	d := openGPUT(t, Options{PTXOnly: true})
	m := saxpyModule()
	xs := make([]float32, 1<<16)
	if _, err := d.Load(m); err != nil {
		t.Fatal(err)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	free0, _, err := d.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		x, err := Upload(d, "x", xs)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Alloc[float32](d, "y", len(xs))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: len(xs) / 256, Block: 256}, int32(len(xs)), float32(1), x, y); err != nil {
			t.Fatal(err)
		}
		if err := x.Free(); err != nil {
			t.Fatal(err)
		}
		if err := y.Free(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 100; i++ { // devices closed with live buffers free them
		e, err := Open("gpu")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Upload(e, "x", xs); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	free1, _, err := d.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	if free1 != free0 {
		t.Fatalf("free memory %d before, %d after 1,000 runs and 100 device closes (%+d bytes)", free0, free1, free1-free0)
	}
}

func TestGPUTime(t *testing.T) {
	d := openGPUT(t, Options{PTXOnly: true})
	m := saxpyModule()
	const n = 1 << 22
	x := testenv.Must(Alloc[float32](d, "x", n))(t)
	y := testenv.Must(Alloc[float32](d, "y", n))(t)
	calls := 0
	tm, err := d.Time(func() error {
		calls++
		_, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: n / 256, Block: 256}, int32(n), float32(1), x, y)
		return err
	}, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Kind != Measured || tm.Warmups != DefaultWarmups || tm.Runs != DefaultRuns || calls != DefaultWarmups+2*DefaultRuns {
		t.Fatalf("Timing %+v after %d calls, want measured, 3 warm-ups, 10 runs in each of two passes", tm, calls)
	}
	if !(tm.MeanMs > 0 && tm.MinMs > 0 && tm.MinMs <= tm.MedianMs) || tm.Device != d.Name() || tm.Driver == "" {
		t.Fatalf("Timing %+v: want positive times, min <= median, GPU and driver named", tm)
	}
	t.Log(tm)
}

// TestGPUTimeConcurrentAndPanic: on a GPU, Time calls on several goroutines
// at once all succeed (each measures its stream span, which may include the
// others' kernels: the documented limitation), TimeContext hands f its
// context, and a panic in f reaches the caller and leaves Time usable.
func TestGPUTimeConcurrentAndPanic(t *testing.T) {
	d := openGPUT(t, Options{PTXOnly: true})
	m := saxpyModule()
	const n = 1 << 20
	x := testenv.Must(Alloc[float32](d, "x", n))(t)
	y := testenv.Must(Alloc[float32](d, "y", n))(t)
	launch := func() error {
		_, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: n / 256, Block: 256}, int32(n), float32(1), x, y)
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tm, err := d.Time(launch, 1, 5)
			if err == nil && !(tm.MeanMs > 0) {
				err = fmt.Errorf("Timing %+v", tm)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Time: %v", err)
		}
	}
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "mine")
	if _, err := d.TimeContext(ctx, func(c context.Context) error {
		if c.Value(key{}) != "mine" {
			return fmt.Errorf("f's context does not derive from TimeContext's")
		}
		return launch()
	}, 0, 1); err != nil {
		t.Errorf("TimeContext: %v", err)
	}
	got := func() (p any) {
		defer func() { p = recover() }()
		_, _ = d.Time(func() error {
			if err := launch(); err != nil {
				return err
			}
			panic("boom")
		}, 0, 1)
		return nil
	}()
	if got != "boom" {
		t.Fatalf("recovered %v, want the function's panic", got)
	}
	if tm, err := d.Time(launch, 0, 3); err != nil || !(tm.MeanMs > 0) {
		t.Fatalf("Time after a panic: %+v, %v", tm, err)
	}
}

// TestGPUReadAsync: reads queued after each of several launches, all in
// flight before the first Wait, each see exactly the launches before it;
// the vector is large enough (16 Mi floats) that the kernels are still
// running when the reads are queued. Then: errors, reuse of the pinned
// blocks, and Wait after Close.
func TestGPUReadAsync(t *testing.T) {
	d := openGPUT(t, Options{})
	checkReadAsync(t, d, 1<<24, 8)
	checkReadAsync(t, d, 1000, 3) // again: pinned blocks and events from the pool

	b, err := Upload(d, "v", []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadAsync(4); err == nil {
		t.Error("ReadAsync(4) of 3 elements succeeded")
	}
	var many []*Pending[float64]
	for range 100 { // more in flight than one pinned block
		p, err := b.ReadAsync(3)
		if err != nil {
			t.Fatal(err)
		}
		many = append(many, p)
	}
	for i, p := range many {
		if v, err := p.Wait(); err != nil || len(v) != 3 || v[0] != 1 || v[2] != 3 {
			t.Fatalf("Wait %d = %v, %v; want [1 2 3]", i, v, err)
		}
	}

	d2, err := Open("gpu")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Upload(d2, "c", []int32{5, 6})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.ReadAsync(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Close(); err != nil {
		t.Fatalf("Close with a read pending: %v", err)
	}
	if v, err := p.Wait(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Wait after Close = %v, %v; want an error saying the device is closed", v, err)
	}
}

// TestGPUCopyFromBuffer runs the device-to-device copy's test on the GPU,
// where CopyFromBuffer is cuMemcpyDtoD.
func TestGPUCopyFromBuffer(t *testing.T) {
	checkCopyFromBuffer(t, openGPUT(t, Options{}))
}

// TestGPUPTXFrom: the simulator given the GPU Device (Options.PTXFrom) runs
// the PTX behind the code the GPU loaded, on both load paths, and saxpy
// gives the GPU's bits (no float atomics or .approx in it).
func TestGPUPTXFrom(t *testing.T) {
	for _, opts := range []Options{{PTXOnly: true, CacheDir: t.TempDir()}, {CacheDir: t.TempDir()}} {
		g := openGPUT(t, opts)
		s, err := OpenWith("sim", Options{PTXFrom: g})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		m := saxpyModule()
		li, err := g.Load(m)
		if err != nil {
			t.Fatal(err)
		}
		_, want := runSaxpy(t, g, m)
		l, got := runSaxpy(t, s, m)
		if l.Path != PathPTX || (li.Path == PathCubin && !strings.Contains(l.PTX, "cubin")) || (li.Path == PathPTX && !strings.Contains(l.PTX, "JIT")) {
			t.Errorf("GPU loaded %s %s; simulator ran %q (%s)", li.Path, li.Arch, l.PTX, l.Path)
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s path: y[%d] GPU %v, simulator %v", li.Path, i, want[i], got[i])
			}
		}
	}
}

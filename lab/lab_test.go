package lab

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/launchbench"
)

// TestFromEnv: each WARPLAB_* switch lands in its field, and the device's
// compile options are the PTX options (one reading serves both).
func TestFromEnv(t *testing.T) {
	for k, v := range map[string]string{
		"WARPLAB_PTX_ONLY": "1", "WARPLAB_NVCC": "/opt/nvcc", "WARPLAB_CUBIN_CACHE": "/c/cubin",
		"WARPLAB_PTX_CACHE": "/c/ptx", "WARPLAB_PTXCACHE_RECORD": "/rec",
		"WARPLAB_MATRICES": "/m", "WARPLAB_LIBS_RECORDED": "/l", "WARPLAB_SASS": "1", "WARPLAB_HOST_FLOOR": "/f",
	} {
		t.Setenv(k, v)
	}
	o := FromEnv()
	d, p := o.Device, o.PTX
	if !d.PTXOnly || d.NVCC != "/opt/nvcc" || d.CacheDir != "/c/cubin" || !d.SASSWidths {
		t.Errorf("Device = %+v", d)
	}
	if p.NVCC != "/opt/nvcc" || p.CacheDir != "/c/ptx" || p.Record != "/rec" || p.Repo == nil || p.RepoName != "notebooks/ptxcache" {
		t.Errorf("PTX = %+v", p)
	}
	if d.Compile.Repo == nil || d.Compile.CacheDir != p.CacheDir {
		t.Errorf("Device.Compile = %+v, want the PTX options", d.Compile)
	}
	if o.Matrices != "/m" || o.LibsRecorded != "/l" || o.HostFloor != "/f" {
		t.Errorf("Matrices, LibsRecorded, HostFloor = %q, %q, %q", o.Matrices, o.LibsRecorded, o.HostFloor)
	}
	t.Setenv("WARPLAB_PTX_ONLY", "0")
	t.Setenv("WARPLAB_SASS", "")
	if d := FromEnv().Device; d.PTXOnly || d.SASSWidths {
		t.Errorf("WARPLAB_PTX_ONLY=0, WARPLAB_SASS empty: PTXOnly %v, SASSWidths %v", d.PTXOnly, d.SASSWidths)
	}
}

// TestCompileFromRepository: a notebook's kernel compiles from the
// repository's cache with no nvcc at all, and says so.
func TestCompileFromRepository(t *testing.T) {
	t.Setenv("WARPLAB_NVCC", "/nonexistent/nvcc")
	t.Setenv("WARPLAB_PTX_CACHE", t.TempDir())
	const saxpyCU = `
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}`
	k, err := CompileKernel("saxpy", saxpyCU)
	if err != nil {
		t.Fatal(err)
	}
	if ci := k.Module().Compiled; ci.From != "repository" || !strings.HasPrefix(ci.Path, "notebooks/ptxcache/") {
		t.Errorf("Compiled = %+v; want the repository's cache", ci)
	}
	if _, err := CompileKernel("saxpy", saxpyCU+"\n// not in any cache\n"); err == nil || !strings.Contains(err.Error(), "nvcc") {
		t.Errorf("a source in no cache, without nvcc: %v", err)
	}
}

// TestOpenHostFloor: WARPLAB_HOST_FLOOR's records set the simulator's
// host floor (a kernel at the floor is timed at it); a folder without
// records is an error that names the variable.
func TestOpenHostFloor(t *testing.T) {
	dir := t.TempDir()
	r := launchbench.Result{Launches: 1000, AsyncMicros: 40, RoundTripMicros: 60, ArgsAsyncMicros: 41, WideAsyncMicros: 41, ScalarsAsyncMicros: 40,
		Repeats: 101, TimedEmptyMicros: 40, TimedArgsMicros: 42, TimedWideMicros: 43, TimedScalarsMicros: 40.6}
	var b strings.Builder
	if err := r.WriteText(&b, "NVIDIA H200", false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "launch-go-r1.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Options{HostFloor: dir}.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if f := d.Model().HostFloor; math.Abs(f.TimedLaunch-40e-6) > 1e-12 {
		t.Errorf("host floor %+v, want 40 µs from the record", f)
	}
	if want := "simulated NVIDIA H200 with a host floor of 40.00 µs (modeled)"; d.Name() != want {
		t.Errorf("Name() = %q, want %q: a device with another host's floor says so", d.Name(), want)
	}
	if _, err := (Options{HostFloor: t.TempDir()}).Open("sim:h200"); err == nil || !strings.Contains(err.Error(), "WARPLAB_HOST_FLOOR") {
		t.Errorf("a folder without records: %v", err)
	}
}

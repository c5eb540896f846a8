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
// host floor (a kernel at the floor is timed at it); several folders, one
// a lease, give the median of their floors; a folder without records is
// an error that names the variable.
func TestOpenHostFloor(t *testing.T) {
	lease := func(empty float64) string {
		dir := t.TempDir()
		r := launchbench.Result{Launches: 1000, AsyncMicros: empty, RoundTripMicros: 60, ArgsAsyncMicros: empty + 1, WideAsyncMicros: empty + 1, ScalarsAsyncMicros: empty,
			Repeats: 101, TimedEmptyMicros: empty, TimedArgsMicros: empty + 2, TimedWideMicros: empty + 3, TimedScalarsMicros: empty + 0.6}
		var b strings.Builder
		if err := r.WriteText(&b, "NVIDIA H200", false); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "launch-go-r1.txt"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := lease(40)
	two, err := Options{HostFloor: dir + "," + lease(50)}.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	if f := two.Model().HostFloor; math.Abs(f.TimedLaunch-45e-6) > 1e-12 {
		t.Errorf("two leases' host floor %+v, want 45 µs, the median (mean) of 40 and 50", f)
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
	for _, spec := range []string{t.TempDir(), dir + "," + t.TempDir(), dir + ","} {
		if _, err := (Options{HostFloor: spec}).Open("sim:h200"); err == nil || !strings.Contains(err.Error(), "WARPLAB_HOST_FLOOR") {
			t.Errorf("WARPLAB_HOST_FLOOR=%s, a folder without records: %v", spec, err)
		}
	}
}

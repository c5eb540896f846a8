package gpuext

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/notebooks/ptxcache"
	"github.com/warplab/warplab/sim"
)

// notebookSource is the CUDA C of the notebook kernel source name, from
// notebooks/ptxcache.
func notebookSource(t *testing.T, name string) string {
	t.Helper()
	for _, e := range repoEntries(t) {
		if e.name == name && e.ext == ".ptx" {
			return e.src
		}
	}
	t.Fatalf("notebooks/ptxcache has no PTX named %s", name)
	return ""
}

// TestConfigTrace: a Module with CUDA C and no PTX runs on the
// simulator (compiled by Compile's rules, here from the repository's
// cache), and Config.Trace returns warp 0's accesses, whose sectors
// are the counters' sectors per request.
func TestConfigTrace(t *testing.T) {
	m := &Module{Name: "strided_copy", CUDA: notebookSource(t, "strided_copy")}
	d := openRepoSim(t)
	const n = 1 << 12
	for _, tc := range []struct{ stride, sectors int }{{1, 4}, {2, 8}, {8, 32}} {
		src := testenv.Must(Alloc[float32](d, "src", n*tc.stride))(t)
		dst := testenv.Must(Alloc[float32](d, "dst", n))(t)
		w := sim.WarpRef{Block: 3, Warp: 5}
		l, err := d.Launch(context.Background(), kern(m, "strided_copy"), Config{Grid: n / 256, Block: 256, Trace: []sim.WarpRef{w}}, int32(n), int32(tc.stride), src, dst)
		if err != nil {
			t.Fatal(err)
		}
		if l.Path != PathPTX || !strings.Contains(l.PTX, "compiled from the module's CUDA C") {
			t.Errorf("path %q, PTX %q; want the PTX compiled from the module's CUDA C", l.Path, l.PTX)
		}
		if l.Trace == nil || len(l.Trace.Events) != 2 {
			t.Fatalf("stride %d: trace %+v; want a load and a store", tc.stride, l.Trace)
		}
		ld := l.Trace.Events[0]
		first := 32*(256*w.Block/32+w.Warp) + 0 // the warp's first thread
		if ld.Warp != w || ld.Op != "ld" || ld.Lanes[0].Buffer != "src" || ld.Lanes[0].Offset != uint64(4*first*tc.stride) {
			t.Errorf("stride %d: load %+v", tc.stride, ld.Lanes[0])
		}
		if got := ld.DistinctSectors(); got != tc.sectors {
			t.Errorf("stride %d: the traced load touches %d sectors, want %d", tc.stride, got, tc.sectors)
		}
		if r := l.Lines()[0]; r.SectorsPerRequest != float64(tc.sectors) {
			t.Errorf("stride %d: counters say %.2f sectors per request, the trace %d", tc.stride, r.SectorsPerRequest, tc.sectors)
		}
	}
	if _, err := d.Launch(context.Background(), kern(m, "strided_copy"), Config{Grid: 1, Block: 32, Trace: []sim.WarpRef{{Block: 99}}}, int32(32), int32(1), testenv.Must(Alloc[float32](d, "a", 32))(t), testenv.Must(Alloc[float32](d, "b", 32))(t)); err == nil {
		t.Error("tracing block 99 of a 1-block launch: no error")
	}
}

// TestConfigMaxInstructions: a kernel that never ends (the notebook's
// wait_for) is stopped by MaxInstructions quickly, and by its context.
func TestConfigMaxInstructions(t *testing.T) {
	m := &Module{Name: "wait_for", CUDA: notebookSource(t, "wait_for")}
	d := openRepoSim(t)
	flag := testenv.Must(Alloc[int32](d, "flag", 1))(t)
	start := time.Now()
	_, err := d.Launch(context.Background(), kern(m, "wait_for"), Config{Grid: 8, Block: 64, MaxInstructions: 200_000}, flag)
	var f *sim.Fault
	if !errors.As(err, &f) || f.Kind != sim.FaultRunawayWarp || !strings.Contains(f.Site, "wait_for.cu:3") {
		t.Fatalf("limit: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("a 200000-instruction limit took %v", el)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = d.Launch(ctx, kern(m, "wait_for"), Config{Grid: 8, Block: 64}, flag)
	if !errors.As(err, &f) || f.Kind != sim.FaultCancelled {
		t.Fatalf("cancel: %v", err)
	}
	// The device is still usable.
	if err := flag.Fill(1); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Launch(context.Background(), kern(m, "wait_for"), Config{Grid: 8, Block: 64}, flag); err != nil {
		t.Fatalf("with the flag set the kernel ends: %v", err)
	}
}

// openRepoSim opens a simulated T4 that compiles a Module{CUDA} from the
// repository's PTX cache (no nvcc needed), as a notebook's lab.Open does.
func openRepoSim(t *testing.T) *Device {
	t.Helper()
	d, err := OpenWith("sim:t4", Options{Compile: CompileOptions{Repo: ptxcache.FS, NVCC: "/nonexistent/nvcc", CacheDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

package gpuext

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/testenv"
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

// TestLaunchWithTrace: a Module with CUDA C and no PTX runs on the
// simulator (compiled by CompileCUDA's rules, here from the repository's
// cache), and LaunchOptions.Trace returns warp 0's accesses, whose sectors
// are the counters' sectors per request.
func TestLaunchWithTrace(t *testing.T) {
	m := &Module{Name: "strided_copy", CUDA: notebookSource(t, "strided_copy")}
	d := openSimT(t, "sim:t4")
	const n = 1 << 12
	for _, tc := range []struct{ stride, sectors int }{{1, 4}, {2, 8}, {8, 32}} {
		src := testenv.Must(Alloc[float32](d, "src", n*tc.stride))(t)
		dst := testenv.Must(Alloc[float32](d, "dst", n))(t)
		w := sim.WarpRef{Block: 3, Warp: 5}
		l, err := d.LaunchWith(context.Background(), LaunchOptions{Trace: []sim.WarpRef{w}}, m, "strided_copy",
			sim.Dim1(n/256), sim.Dim1(256), 0, int32(n), int32(tc.stride), src, dst)
		if err != nil {
			t.Fatal(err)
		}
		if l.Path != "ptx" || !strings.Contains(l.PTX, "compiled from the module's CUDA C") {
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
		if r := Lines(l.Stats)[0]; r.SectorsPerRequest != float64(tc.sectors) {
			t.Errorf("stride %d: counters say %.2f sectors per request, the trace %d", tc.stride, r.SectorsPerRequest, tc.sectors)
		}
	}
	if _, err := d.LaunchWith(context.Background(), LaunchOptions{Trace: []sim.WarpRef{{Block: 99}}}, m, "strided_copy",
		sim.Dim1(1), sim.Dim1(32), 0, int32(32), int32(1), testenv.Must(Alloc[float32](d, "a", 32))(t), testenv.Must(Alloc[float32](d, "b", 32))(t)); err == nil {
		t.Error("tracing block 99 of a 1-block launch: no error")
	}
}

// TestLaunchWithRunaway: a kernel that never ends (the notebook's
// wait_for) is stopped by MaxInstructions quickly, and by its context.
func TestLaunchWithRunaway(t *testing.T) {
	m := &Module{Name: "wait_for", CUDA: notebookSource(t, "wait_for")}
	d := openSimT(t, "sim:t4")
	flag := testenv.Must(Alloc[int32](d, "flag", 1))(t)
	start := time.Now()
	_, err := d.LaunchWith(context.Background(), LaunchOptions{MaxInstructions: 200_000}, m, "wait_for", sim.Dim1(8), sim.Dim1(64), 0, flag)
	var f *sim.Fault
	if !errors.As(err, &f) || f.Kind != "runaway warp" || !strings.Contains(f.Site, "wait_for.cu:3") {
		t.Fatalf("limit: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("a 200000-instruction limit took %v", el)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = d.LaunchContext(ctx, m, "wait_for", sim.Dim1(8), sim.Dim1(64), 0, flag)
	if !errors.As(err, &f) || f.Kind != "cancelled" {
		t.Fatalf("cancel: %v", err)
	}
	// The device is still usable.
	if err := flag.Fill(1); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Launch(m, "wait_for", sim.Dim1(8), sim.Dim1(64), 0, flag); err != nil {
		t.Fatalf("with the flag set the kernel ends: %v", err)
	}
}

// TestLaunchWithMirror: options that need the PTX path are refused for a
// kernel that runs its Go mirror, with a message that says how.
func TestLaunchWithMirror(t *testing.T) {
	d := openSimT(t, "sim")
	m := &Module{Name: "m", Mirrors: map[string]Mirror{"k": func(sim.Args) (*sim.Kernel, error) {
		k := sim.NewKernel("k", false)
		k.Body = func(*sim.Thread) {}
		return k, nil
	}}}
	_, err := d.LaunchWith(context.Background(), LaunchOptions{MaxInstructions: 10}, m, "k", sim.Dim1(1), sim.Dim1(32), 0)
	if err == nil || !strings.Contains(err.Error(), "Options.SimPTX") {
		t.Fatalf("%v", err)
	}
}

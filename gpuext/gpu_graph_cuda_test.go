//go:build cuda

package gpuext

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/testenv"
)

// TestGPUGraph: on a GPU, a recorded graph of kernels, a copy and fills
// (graphSteps), replayed many times, leaves every buffer bit for bit as
// the same steps launched one by one do, on both load paths.
func TestGPUGraph(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"ptx", Options{PTXOnly: true}},
		{"default", Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []struct{ n, reps int }{{3001, 1}, {3001, 200}, {1 << 22, 20}} {
				checkGraphReplay(t, openGPUT(t, tc.opts), openGPUT(t, tc.opts), saxpyModule(), size.n, size.reps)
			}
		})
	}
}

// TestGPUGraphErrors: what only a GPU checks when a graph is built (the
// kernel's name in the loaded module), and the lifetime errors.
func TestGPUGraphErrors(t *testing.T) {
	d := openGPUT(t, Options{PTXOnly: true})
	m := saxpyModule()
	const n = 1024
	x := testenv.Must(Alloc[float32](d, "x", n))(t)
	y := testenv.Must(Alloc[float32](d, "y", n))(t)
	saxpy := func(name string) error {
		k, err := m.Kernel(name) // a kernel the module lacks is refused here, before the driver
		if err != nil {
			return err
		}
		_, err = d.Launch(context.Background(), k, Config{Grid: 4, Block: 256}, int32(n), float32(1), x, y)
		return err
	}
	_, err := d.Record(func() error { return saxpy("saxpi") })
	if err == nil || !strings.Contains(err.Error(), "saxpi") || !strings.Contains(err.Error(), "no such kernel") {
		t.Errorf("Record of a kernel the module lacks: %v; want an error naming saxpi", err)
	}
	g, err := d.Record(func() error { return saxpy("saxpy") })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Launch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := g.Launch(context.Background()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Launch after Close: %v, want an error", err)
	}
	g2, err := d.Record(func() error { return saxpy("saxpy") })
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Free(); err != nil {
		t.Fatal(err)
	}
	if _, err := g2.Launch(context.Background()); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("Launch with a freed buffer: %v, want an error", err)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatalf("the device after the refused launches: %v", err)
	}
	// g2 is left open: the device's Close (openGPUT's cleanup) frees it.
}

// TestGPUGraphTime times replays against the same kernels launched one by
// one, with CUDA events (Device.Time: the seed's protocol, 3 warm-ups and
// 10 timed runs), for a chain of short kernels (where the host's launch
// cost should dominate) and of long ones, and the host's cost of one
// replay against one plain launch by the host clock. These are the
// measurements GraphLaunchSeconds's assumption is to be checked against;
// the log lines hold every number, with the time model's prediction beside.
func TestGPUGraphTime(t *testing.T) {
	d := openGPUT(t, Options{PTXOnly: true})
	m := saxpyModule()
	mod := d.Model()
	t.Logf("GPU %s, driver %s, cuda.h %d, %s", d.Name(), d.Driver(), CUDAHeaderVersion(), time.Now().UTC().Format(time.RFC3339))
	for _, tc := range []struct {
		name     string
		n        int
		kernels  int
		wantFast bool // replays must beat plain launches
	}{
		{"short kernels", 4096, 8, true},
		{"short kernels, one", 4096, 1, false},
		{"long kernels", 1 << 24, 8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := testenv.Must(Alloc[float32](d, "x", tc.n))(t)
			y := testenv.Must(Alloc[float32](d, "y", tc.n))(t)
			steps := func() error {
				for k := 0; k < tc.kernels; k++ {
					if _, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: (tc.n + 255) / 256, Block: 256}, int32(tc.n), float32(1e-3), x, y); err != nil {
						return err
					}
				}
				return nil
			}
			g, err := d.Record(steps)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			replay := func() error { _, err := g.Launch(context.Background()); return err }
			plain, err := d.Time(steps, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			graphed, err := d.Time(replay, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Host clock: calls back to back, one synchronize at the end.
			const calls = 2000
			hostPer := func(f func() error) float64 {
				if err := d.Synchronize(); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				for i := 0; i < calls; i++ {
					if err := f(); err != nil {
						t.Fatal(err)
					}
				}
				if err := d.Synchronize(); err != nil {
					t.Fatal(err)
				}
				return time.Since(start).Seconds() / calls
			}
			hostPlain, hostGraph := hostPer(steps), hostPer(replay)
			t.Logf("%s: %d saxpy kernels of %d elements per run", tc.name, tc.kernels, tc.n)
			t.Logf("  events, plain launches: mean %.4f ms, median %.4f ms (measured)", plain.MeanMs, plain.MedianMs)
			t.Logf("  events, one replay:     mean %.4f ms, median %.4f ms (measured); replay/plain %.3f",
				graphed.MeanMs, graphed.MedianMs, graphed.MeanMs/plain.MeanMs)
			t.Logf("  host clock, %d runs back to back: plain %.2f µs per run, replay %.2f µs per run (measured)",
				calls, hostPlain*1e6, hostGraph*1e6)
			t.Logf("  model (%s): TimedLaunch %.2f µs per plain launch, GraphLaunchSeconds %.2f µs per replay (0.44 of TimedLaunch, from this test on the H200), LaunchOverhead %.2f µs per kernel",
				mod.Key, mod.TimedLaunch*1e6, GraphLaunchSeconds(mod)*1e6, mod.LaunchOverhead*1e6)
			fmt.Printf("graph-time,%s,%d,%d,%.6f,%.6f,%.3f,%.3f\n", strings.NewReplacer(" ", "_", ",", "").Replace(tc.name), tc.kernels, tc.n,
				plain.MeanMs, graphed.MeanMs, hostPlain*1e6, hostGraph*1e6)
			if tc.wantFast && !(graphed.MeanMs < plain.MeanMs) {
				t.Errorf("%d short kernels: a replay took %.4f ms, plain launches %.4f ms; want the replay faster", tc.kernels, graphed.MeanMs, plain.MeanMs)
			}
		})
	}
}

package gpuext

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// graphBufs are the buffers of graphSteps, one set per device.
type graphBufs struct {
	x, y, z, w *Buffer[float32]
	d          *Buffer[float64]
}

// newGraphBufs uploads the same n-element inputs on d.
func newGraphBufs(t *testing.T, d *Device, n int) graphBufs {
	t.Helper()
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%101)*0.25 - 3
		ys[i] = float32(i%7) + 0.125
	}
	return graphBufs{
		x: testenv.Must(Upload(d, "x", xs))(t),
		y: testenv.Must(Upload(d, "y", ys))(t),
		z: testenv.Must(Alloc[float32](d, "z", n))(t),
		w: testenv.Must(Alloc[float32](d, "w", n))(t),
		d: testenv.Must(Upload(d, "d", []float64{math.Pi}))(t),
	}
}

// graphSteps is one "iteration" whose result depends on the order of its
// steps: kernels reading what the copy and fill before them wrote, and a
// copy reading what the kernel before it wrote. It returns the Launch of
// each kernel in order.
func graphSteps(d *Device, m *Module, b graphBufs, n int) ([]*Launch, error) {
	grid, block := sim.Dim1((n+255)/256), sim.Dim1(256)
	var ls []*Launch
	launch := func(a float32, x, y *Buffer[float32]) error {
		l, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: grid, Block: block}, int32(n), a, x, y)
		ls = append(ls, l)
		return err
	}
	if err := launch(0.5, b.x, b.y); err != nil { // y += x/2
		return nil, err
	}
	if err := b.z.CopyFromBuffer(b.y); err != nil { // z = y
		return nil, err
	}
	if err := b.w.Fill(-1.25); err != nil {
		return nil, err
	}
	if err := launch(-0.75, b.z, b.x); err != nil { // x -= 3z/4
		return nil, err
	}
	if err := launch(2, b.w, b.y); err != nil { // y += 2w
		return nil, err
	}
	if err := b.d.Fill(0); err != nil { // an 8-byte fill both halves of which agree
		return nil, err
	}
	return ls, nil
}

// download returns every buffer's contents, x, y, z, w as float32 bits
// and d as float64 bits, for a bit-for-bit comparison.
func (b graphBufs) download(t *testing.T) []uint64 {
	t.Helper()
	var bits []uint64
	for _, buf := range []*Buffer[float32]{b.x, b.y, b.z, b.w} {
		v := make([]float32, buf.Len())
		if err := buf.Download(v); err != nil {
			t.Fatal(err)
		}
		for _, f := range v {
			bits = append(bits, uint64(math.Float32bits(f)))
		}
	}
	v := make([]float64, b.d.Len())
	if err := b.d.Download(v); err != nil {
		t.Fatal(err)
	}
	for _, f := range v {
		bits = append(bits, math.Float64bits(f))
	}
	return bits
}

// checkGraphReplay runs graphSteps reps times with plain calls on plain and
// as reps replays of one recorded graph on graphed (two devices of the same
// backend), and checks that every buffer ends bit for bit the same. It
// returns the plain launches and the replays of the last repetition.
func checkGraphReplay(t *testing.T, plain, graphed *Device, m *Module, n, reps int) ([]*Launch, *GraphLaunch) {
	t.Helper()
	pb, gb := newGraphBufs(t, plain, n), newGraphBufs(t, graphed, n)
	var last []*Launch
	for range reps {
		ls, err := graphSteps(plain, m, pb, n)
		if err != nil {
			t.Fatal(err)
		}
		last = ls
	}
	g, err := graphed.Record(func() error {
		ls, err := graphSteps(graphed, m, gb, n)
		for _, l := range ls {
			if err == nil && l.Stats != nil {
				t.Errorf("a Launch inside Record returned Stats: the kernel ran while recording")
			}
		}
		return err
	})
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	defer g.Close()
	if g.Kernels() != 3 || len(g.ops) != 6 {
		t.Fatalf("recorded %d kernels in %d steps, want 3 in 6: %v", g.Kernels(), len(g.ops), g)
	}
	// Nothing ran while recording: the graph's buffers are as uploaded.
	fresh := newGraphBufs(t, graphed, n)
	if !slices.Equal(gb.download(t), fresh.download(t)) {
		t.Fatal("recording changed the buffers: a step ran instead of being recorded")
	}
	var gl *GraphLaunch
	for range reps {
		if gl, err = g.Launch(context.Background()); err != nil {
			t.Fatalf("Graph.Launch: %v", err)
		}
	}
	want, got := pb.download(t), gb.download(t)
	if len(want) != len(got) {
		t.Fatalf("downloads differ in length: %d and %d", len(want), len(got))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("after %d iterations, element %d of the buffers (x, y, z, w, d in turn) is %#x replayed and %#x launched one by one",
				reps, i, got[i], want[i])
		}
	}
	return last, gl
}

func TestGraphReplayEqualsLaunches(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		path LoadPath
	}{
		{"ptx", Options{}, PathPTX},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := func() *Device {
				d, err := OpenWith("sim", tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = d.Close() })
				return d
			}
			const n, reps = 3001, 4
			plain, gl := checkGraphReplay(t, open(), open(), saxpyModule(), n, reps)
			if len(gl.Kernels) != len(plain) {
				t.Fatalf("replay returned %d kernel launches, want %d", len(gl.Kernels), len(plain))
			}
			for i, l := range gl.Kernels {
				if l.Path != tc.path || plain[i].Path != tc.path {
					t.Errorf("kernel %d ran by %q replayed, %q plain; want %q", i, l.Path, plain[i].Path, tc.path)
				}
				a, err := json.Marshal(l.Stats)
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(plain[i].Stats)
				if err != nil {
					t.Fatal(err)
				}
				if string(a) != string(b) {
					t.Errorf("kernel %d: replay's counters differ from the plain launch's:\nreplay %s\nplain  %s", i, a, b)
				}
			}
		})
	}
}

// TestGraphModeledTime checks that a replay's modeled time is its kernels'
// GPU time or one graph launch's host cost, whichever is longer, where the
// same launches one by one each cost at least the host's launch interval.
func TestGraphModeledTime(t *testing.T) {
	for _, tc := range []struct {
		name        string
		n           int  // elements per saxpy
		launchBound bool // each plain launch takes the host's launch interval
	}{
		{"launch-bound", 1024, true},
		{"bandwidth-bound", 1 << 22, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := openSimT(t, "sim")
			m := saxpyModule()
			b := newGraphBufs(t, d, tc.n)
			var ls []*Launch
			plain, err := d.Time(func() error {
				var err error
				ls, err = graphSteps(d, m, b, tc.n)
				return err
			}, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			g, err := d.Record(func() error { _, err := graphSteps(d, m, b, tc.n); return err })
			if err != nil {
				t.Fatal(err)
			}
			var gl *GraphLaunch
			replay, err := d.Time(func() error { var err error; gl, err = g.Launch(context.Background()); return err }, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			mod := d.Model()
			var sum, gpu float64
			for _, l := range ls {
				sum += l.Stats.Time.Seconds
				gpu += l.Stats.Time.GPUSeconds
				if l.Stats.Time.Seconds < mod.TimedLaunch {
					t.Fatalf("a plain launch modeled %g s, under the host's launch interval %g s", l.Stats.Time.Seconds, mod.TimedLaunch)
				}
			}
			if math.Abs(plain.MeanMs-sum*1e3) > 1e-9 {
				t.Fatalf("plain launches modeled %v ms, want the sum of their times %v ms", plain.MeanMs, sum*1e3)
			}
			want := max(gpu, GraphLaunchSeconds(mod))
			if math.Abs(replay.MeanMs-want*1e3) > 1e-9 || math.Abs(gl.Seconds-want) > 1e-15 ||
				math.Abs(gl.GPUSeconds-gpu) > 1e-15 || gl.HostSeconds != GraphLaunchSeconds(mod) {
				t.Fatalf("replay modeled %v ms (%+v), want max(kernels' GPU time %g s, one graph launch %g s) = %v ms",
					replay.MeanMs, gl, gpu, GraphLaunchSeconds(mod), want*1e3)
			}
			saved := plain.MeanMs - replay.MeanMs
			t.Logf("%d kernels: plain %.4f ms, replay %.4f ms (modeled), %.2f µs saved", len(ls), plain.MeanMs, replay.MeanMs, saved*1e3)
			for _, l := range ls {
				if bound := l.Stats.Time.Bound == "launch"; bound != tc.launchBound {
					t.Fatalf("a plain launch is bound by %q; this case wants launch-bound %v", l.Stats.Time.Bound, tc.launchBound)
				}
			}
			if tc.launchBound && saved < 1e-3*mod.TimedLaunch*1e3 {
				t.Fatalf("launch-bound kernels: replay modeled %v ms, not less than the plain launches' %v ms", replay.MeanMs, plain.MeanMs)
			}
			// Kernels longer than a launch hide the host's launches behind
			// them one by one too: a graph saves nothing there.
			if !tc.launchBound && math.Abs(saved) > 1e-12 {
				t.Fatalf("GPU-bound kernels: replay modeled %v ms, plain %v ms; want the same", replay.MeanMs, plain.MeanMs)
			}
		})
	}
}

// TestGraphErrors: every misuse is an error that says what went wrong.
func TestGraphErrors(t *testing.T) {
	m := saxpyModule()
	const n = 64
	type env struct {
		d    *Device
		x, y *Buffer[float32]
		v    *Buffer[float64]
	}
	setup := func(t *testing.T) env {
		d := openSimT(t, "sim")
		return env{d: d,
			x: testenv.Must(Upload(d, "x", make([]float32, n)))(t),
			y: testenv.Must(Upload(d, "y", make([]float32, n)))(t),
			v: testenv.Must(Alloc[float64](d, "v", n))(t)}
	}
	saxpy := func(e env) error {
		_, err := e.d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: n}, int32(n), float32(1), e.x, e.y)
		return err
	}
	record := func(t *testing.T, e env) *Graph {
		g, err := e.d.Record(func() error { return saxpy(e) })
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, e env) error
		want []string // all in the error
	}{
		{"launch a closed graph", func(t *testing.T, e env) error {
			g := record(t, e)
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			if err := g.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			_, err := g.Launch(context.Background())
			return err
		}, []string{"Graph.Launch", "closed", "saxpy"}},
		{"record on a closed device", func(t *testing.T, e env) error {
			e.d.Close()
			_, err := e.d.Record(func() error { return saxpy(e) })
			return err
		}, []string{"Record", "closed"}},
		{"launch after the device closed", func(t *testing.T, e env) error {
			g := record(t, e)
			e.d.Close()
			_, err := g.Launch(context.Background())
			return err
		}, []string{"Graph.Launch", "closed"}},
		{"block too large, error ignored by f", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				_ = saxpy(e)
				e.d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 4096}, int32(n), float32(1), e.x, e.y)
				return nil
			})
			return err
		}, []string{"Record", "saxpy", "4096"}},
		{"nil kernel", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				_, err := e.d.Launch(context.Background(), nil, Config{Grid: 1, Block: n}, int32(n), float32(1), e.x, e.y)
				return err
			})
			return err
		}, []string{"Record", "nil *Kernel"}},
		{"Go int argument", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				_, err := e.d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: n}, n, float32(1), e.x, e.y)
				return err
			})
			return err
		}, []string{"Record", "saxpy", "int32"}},
		{"arguments of the wrong types", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				_, err := e.d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: n}, int32(n), e.x, e.x, e.y)
				return err
			})
			return err
		}, []string{"Record", "saxpy", "type mismatch"}},
		{"nested Record", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				_, err := e.d.Record(func() error { return saxpy(e) })
				return err
			})
			return err
		}, []string{"Record", "do not nest"}},
		{"Download inside Record", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				if err := saxpy(e); err != nil {
					return err
				}
				_ = e.y.Download(make([]float32, n)) // ignored: Record still fails
				return nil
			})
			return err
		}, []string{"Download y", "inside Device.Record"}},
		{"Upload inside Record", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				_, err := Upload(e.d, "late", []float32{1})
				return err
			})
			return err
		}, []string{"Alloc late", "inside Device.Record"}},
		{"Time inside Record", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error {
				_, err := e.d.Time(func() error { return saxpy(e) }, 0, 1)
				return err
			})
			return err
		}, []string{"Time", "inside Device.Record"}},
		{"Graph.Launch inside Record", func(t *testing.T, e env) error {
			g := record(t, e)
			_, err := e.d.Record(func() error { _, err := g.Launch(context.Background()); return err })
			return err
		}, []string{"Graph.Launch", "inside Device.Record"}},
		{"Fill of a double whose halves differ", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error { return e.v.Fill(1.5) })
			return err
		}, []string{"Fill v", "halves", "kernel"}},
		{"nothing recorded", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error { return nil })
			return err
		}, []string{"Record", "nothing"}},
		{"nil function", func(t *testing.T, e env) error {
			_, err := e.d.Record(nil)
			return err
		}, []string{"Record", "nil function"}},
		{"f's own error", func(t *testing.T, e env) error {
			_, err := e.d.Record(func() error { return errors.New("boom") })
			return err
		}, []string{"Record", "boom"}},
		{"a freed buffer", func(t *testing.T, e env) error {
			g := record(t, e)
			if err := e.x.Free(); err != nil {
				t.Fatal(err)
			}
			_, err := g.Launch(context.Background())
			return err
		}, []string{"Graph.Launch", "x (float32[64])", "freed"}},
		{"nil graph", func(t *testing.T, e env) error {
			var g *Graph
			_, err := g.Launch(context.Background())
			return err
		}, []string{"nil *Graph"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t)
			err := tc.run(t, e)
			if err == nil {
				t.Fatalf("no error; want one containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			// The device is usable afterwards unless the case closed it.
			if e.d.check("test") == nil {
				if e.d.recording() != nil {
					t.Fatal("the device is still recording")
				}
				if err := saxpy(e); err != nil && !strings.Contains(err.Error(), "freed") {
					t.Errorf("a plain launch after the error: %v", err)
				}
			}
		})
	}
}

// TestGraphLaunchErrorsNameTheKernel: a launch refused while recording is a
// *LaunchError naming the kernel, and a kernel faulting in a replay is the
// same *sim.Fault a plain launch gives, inside a *LaunchError naming it.
func TestGraphLaunchErrorsNameTheKernel(t *testing.T) {
	d := openSimT(t, "sim")
	m := saxpyModule()
	x := testenv.Must(Alloc[float32](d, "x", 100))(t)
	y := testenv.Must(Alloc[float32](d, "y", 100))(t)
	_, err := d.Record(func() error {
		_, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 0, Block: 32}, int32(100), float32(1), x, y)
		return err
	})
	var le *LaunchError
	if !errors.As(err, &le) || le.Kernel != "saxpy" || le.Module != m.Name {
		t.Fatalf("Record with an empty grid: %v; want a *LaunchError naming %s.saxpy", err, m.Name)
	}
	// n = 200 reads past the 100-element buffers.
	bad := func() error {
		_, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 256}, int32(200), float32(1), x, y)
		return err
	}
	plainErr := bad()
	g, err := d.Record(bad)
	if err != nil {
		t.Fatalf("Record of an out-of-bounds launch (which fails only when it runs): %v", err)
	}
	_, err = g.Launch(context.Background())
	var pf, gf *sim.Fault
	if !errors.As(plainErr, &pf) || !errors.As(err, &gf) || !errors.As(err, &le) || le.Kernel != "saxpy" {
		t.Fatalf("replay error %v (plain %v); want a *LaunchError naming saxpy around a *sim.Fault", err, plainErr)
	}
	if pf.Error() != gf.Error() {
		t.Errorf("replay's fault %q differs from the plain launch's %q", gf, pf)
	}
	if !strings.Contains(err.Error(), "step 1 of 1") {
		t.Errorf("replay error %q does not name the step", err)
	}
}

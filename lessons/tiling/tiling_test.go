package tiling

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ptxcheck"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

func openSim(t testing.TB) *gpuext.Device {
	t.Helper()
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// launchMatmul runs one matmul kernel at n on fresh inputs and returns C,
// the reference and the counters.
func launchMatmul(t *testing.T, dev *gpuext.Device, kernel string, n, tile, coarse int) ([]float32, []float32, *sim.Stats, error) {
	t.Helper()
	got, want, l, err := launchMatmulLaunch(t, dev, kernel, n, tile, coarse)
	if err != nil {
		return nil, nil, nil, err
	}
	return got, want, l.Stats, nil
}

// launchMatmulLaunch is launchMatmul returning the whole launch record.
func launchMatmulLaunch(t *testing.T, dev *gpuext.Device, kernel string, n, tile, coarse int) ([]float32, []float32, *gpuext.Launch, error) {
	t.Helper()
	a, b := randomMatrix(n*n, 5), randomMatrix(n*n, 6)
	A := testenv.Must(gpuext.Upload(dev, "A", a))(t)
	B := testenv.Must(gpuext.Upload(dev, "B", b))(t)
	C := testenv.Must(gpuext.Alloc[float32](dev, "C", n*n))(t)
	defer A.Free()
	defer B.Free()
	defer C.Free()
	if err := C.Fill(float32(math.NaN())); err != nil {
		t.Fatal(err)
	}
	grid, block, shared := matmulGrid(n, tile, coarse)
	l, err := dev.Launch(context.Background(), Module().MustKernel(kernel), gpuext.Config{Grid: grid, Block: block, Shared: shared}, A, B, C, int32(n))
	if err != nil {
		return nil, nil, nil, err
	}
	got := make([]float32, n*n)
	if err := C.Download(got); err != nil {
		t.Fatal(err)
	}
	ref, err := refMatmul(context.Background(), a, b, n)
	return got, ref, l, err
}

func TestPTXMatchesSource(t *testing.T) {
	if err := ptxcheck.Check("tiling.cu", []byte(CUDA()), []byte(PTX())); err != nil {
		t.Fatal(err)
	}
}

// Every matmul variant adds its products in the same order, so each equals
// the sequential CPU product bit for bit, at sizes TILE divides and (for the
// bounds-checked kernel) sizes it does not.
func TestMatmulBitIdentical(t *testing.T) {
	dev := openSim(t)
	cases := []struct {
		kernel          string
		n, tile, coarse int
	}{
		{KMatmulNaive, 48, 16, 1},
		{KMatmulNaive, 37, 8, 1},
		{KMatmulTiled, 64, 1, 1},
		{KMatmulTiled, 64, 4, 1},
		{KMatmulTiled, 64, 16, 1},
		{KMatmulTiled, 64, 32, 1},
		{KMatmulTiled, 37, 8, 1},  // ragged edge: zero padding
		{KMatmulTiled, 40, 32, 1}, // fewer than two tiles
		{KMatmulTiledNoBounds, 64, 16, 1},
		{CoarseKernel(1), 64, 16, 1},
		{CoarseKernel(2), 64, 8, 2},
		{CoarseKernel(4), 64, 16, 4},
		{CoarseKernel(8), 64, 8, 8},
	}
	for _, c := range cases {
		got, want, _, err := launchMatmul(t, dev, c.kernel, c.n, c.tile, c.coarse)
		if err != nil {
			t.Fatalf("%s N=%d TILE=%d: %v", c.kernel, c.n, c.tile, err)
		}
		if ok, i := equal(got, want); !ok {
			t.Errorf("%s N=%d TILE=%d COARSE=%d: C[%d] = %v, sequential CPU %v", c.kernel, c.n, c.tile, c.coarse, i, got[i], want[i])
		}
	}
}

// The rounded product and sum really differ from a fused multiply-add on
// these inputs, so bit-identity above is a claim about operation order and
// rounding, not luck.
func TestNonFusedMatters(t *testing.T) {
	a, b := randomMatrix(64*64, 5), randomMatrix(64*64, 6)
	ref := testenv.Must(refMatmul(context.Background(), a, b, 64))(t)
	differ := 0
	for c := 0; c < 64; c++ {
		var acc float32
		for k := 0; k < 64; k++ {
			acc = float32(math.FMA(float64(a[k]), float64(b[k*64+c]), float64(acc)))
		}
		if acc != ref[c] {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("fused and non-fused sums agree on every element of row 0; the bit-identity test would not detect an FMA")
	}
}

// The counted element loads (active lanes at the A and B load sites) equal
// the lecture's formulas exactly; at TILE = 32 every load request is 32
// lanes reading 128 contiguous bytes.
func TestLoadFormulas(t *testing.T) {
	dev := openSim(t)
	const n = 64
	for _, tile := range Tiles() {
		for _, kind := range []string{"naive", "tiled"} {
			name := KMatmulNaive
			if kind == "tiled" {
				name = KMatmulTiled
			}
			_, _, st, err := launchMatmul(t, dev, name, n, tile, 1)
			if err != nil {
				t.Fatal(err)
			}
			row, err := loadRow(st, kind, name, n, tile, 1)
			if err != nil {
				t.Fatal(err)
			}
			if row.Counted != row.Formula {
				t.Errorf("%s TILE=%d: counted %d element loads, formula %s = %d", name, tile, row.Counted, row.Text, row.Formula)
			}
			if row.ALoads != row.BLoads {
				t.Errorf("%s TILE=%d: A loads %d != B loads %d", name, tile, row.ALoads, row.BLoads)
			}
			if kind == "tiled" && tile == 32 {
				if row.Requests*32 != row.Counted || row.Sectors != 4*row.Requests {
					t.Errorf("tiled TILE=32: %d requests, %d sectors for %d loads; want full, 4-sector requests", row.Requests, row.Sectors, row.Counted)
				}
			}
		}
	}
	for _, c := range Coarsenings() {
		_, _, st, err := launchMatmul(t, dev, CoarseKernel(c), n, 8, c)
		if err != nil {
			t.Fatal(err)
		}
		row, err := loadRow(st, "coarse", CoarseKernel(c), n, 8, c)
		if err != nil {
			t.Fatal(err)
		}
		n3 := int64(n * n * n)
		if row.ALoads != n3/int64(8*c) || row.BLoads != n3/8 || row.Counted != row.Formula {
			t.Errorf("coarse %d: A %d B %d (want %d, %d), formula %d", c, row.ALoads, row.BLoads, n3/int64(8*c), n3/8, row.Formula)
		}
	}
}

// Shared-memory traffic of the tiled kernel at TILE = 32: loads broadcast
// (As[ty][k]) or hit 32 banks (Bs[k][tx]), so no bank conflicts.
func TestTiledNoBankConflicts(t *testing.T) {
	_, _, st, err := launchMatmul(t, openSim(t), KMatmulTiled, 64, 32, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.SharedLoad.Conflicts != 0 || st.SharedStore.Conflicts != 0 {
		t.Errorf("tiled TILE=32: %d load and %d store bank conflicts, want 0", st.SharedLoad.Conflicts, st.SharedStore.Conflicts)
	}
}

// Transposes: correct, 4 sectors per request on both sides except the naive
// store (32), and 32-way store conflicts without padding, none with it.
func TestTransposes(t *testing.T) {
	dev := openSim(t)
	const m, T = 96, 32
	a := randomMatrix(m*m, 9)
	want := refTranspose(a, m)
	da := testenv.Must(gpuext.Upload(dev, "a", a))(t)
	dc := testenv.Must(gpuext.Alloc[float32](dev, "c", m*m))(t)
	cases := []struct {
		kernel             string
		shared             int
		ldSPR, stSPR       float64
		stWavefrontsPerReq int64
		conflicts          bool
	}{
		{KTransposeNaive, 0, 4, 32, 0, false},
		{KTransposeShared, T * T * 4, 4, 4, 32, true},
		{KTransposeSharedPadded, T * (T + 1) * 4, 4, 4, 1, false},
	}
	for _, c := range cases {
		if err := dc.Fill(0); err != nil {
			t.Fatal(err)
		}
		l, err := dev.Launch(context.Background(), Module().MustKernel(c.kernel), gpuext.Config{Grid: sim.Dim2(m/T, m/T), Block: sim.Dim2(T, T), Shared: c.shared}, da, dc, int32(m))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, m*m)
		if err := dc.Download(got); err != nil {
			t.Fatal(err)
		}
		if ok, i := equal(got, want); !ok {
			t.Errorf("%s: c[%d] = %v, want %v", c.kernel, i, got[i], want[i])
		}
		st := l.Stats
		if g := st.GlobalLoad.SectorsPerRequest(); g != c.ldSPR {
			t.Errorf("%s: %v load sectors/request, want %v", c.kernel, g, c.ldSPR)
		}
		if g := st.GlobalStore.SectorsPerRequest(); g != c.stSPR {
			t.Errorf("%s: %v store sectors/request, want %v", c.kernel, g, c.stSPR)
		}
		if c.shared > 0 {
			if st.SharedStore.Wavefronts != c.stWavefrontsPerReq*st.SharedStore.Requests {
				t.Errorf("%s: %d store wavefronts for %d requests, want %d each", c.kernel, st.SharedStore.Wavefronts, st.SharedStore.Requests, c.stWavefrontsPerReq)
			}
			wantConf := int64(0)
			if c.conflicts {
				wantConf = 31 * st.SharedStore.Requests
			}
			if st.SharedStore.Conflicts != wantConf || st.SharedLoad.Conflicts != 0 {
				t.Errorf("%s: %d store / %d load bank conflicts, want %d / 0", c.kernel, st.SharedStore.Conflicts, st.SharedLoad.Conflicts, wantConf)
			}
		}
	}
}

// Dense -> CSR and the three SpMV kernels, through Run's own path.
func TestSparse(t *testing.T) {
	dev := openSim(t)
	o, err := Options{N: 96, Tile: 8, Coarse: 4, NoSweep: true, NoDemos: true, Density: 0.3}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{ctx: context.Background(), dev: dev, m: Module(), o: o, res: &Result{}}
	if err := r.sparse(); err != nil {
		t.Fatal(err)
	}
	if len(r.res.Failures) > 0 {
		t.Fatal(r.res.Failures)
	}
	want := map[string]bool{KDenseRowCount: true, KDenseToCSR: true, KSpMVThread: true, KSpMVWarp: true, KSpMVWarpShfl: true}
	for _, run := range r.res.Runs {
		if !run.Correct || !run.BitIdentical {
			t.Errorf("%s: correct %v, bit-identical %v", run.Kernel, run.Correct, run.BitIdentical)
		}
		delete(want, run.Kernel)
	}
	if len(want) > 0 {
		t.Errorf("kernels not run: %v", want)
	}
}

// The order-emulating references differ from each other on this input, so
// matching one of them bit for bit means something.
func TestSpMVReferencesDiffer(t *testing.T) {
	M := randomSparse(64, 64, 0.5, 3)
	a := refDenseToCSR(M, 64, 64)
	x := randomMatrix(64, 4)
	row, warp := refSpMVRow(a, x), refSpMVWarp(a, x)
	if ok, _ := equal(row, warp); ok {
		t.Fatal("row-order and warp-order sums agree everywhere; the SpMV bit test would not tell them apart")
	}
	if !closeTo(warp, row) {
		t.Fatal("warp-order sums are not close to row-order sums")
	}
}

// The bug demonstrations produce the faults the lesson describes.
func TestDemos(t *testing.T) {
	dev := openSim(t)
	cases := []struct {
		kernel  string
		kind    sim.FaultKind
		n, tile int
		where   []string
	}{
		// The PTX reads Bs[k][tx] before As[ty][k]: lane 16 of warp 0,
		// thread (0,1,0), is the first to read a word another thread,
		// (0,0,0), wrote: Bs[0][0].
		{KMatmulTiledNoSync1, "shared race", 40, 16, []string{"Bs[0][0]", "thread (0,1,0)"}},
		{KMatmulTiledNoSync2, "shared race", 40, 16, []string{"As[0][0]"}},
		{KMatmulTiledNoSync1, "shared race", 32, 32, []string{"block (0,0,0)", "As[0][0]"}},
		// A's 1,600 floats are 25 x 256 bytes, and the simulator lays out
		// buffers 256-byte aligned and back to back, as cudaMalloc may: the
		// wild reads A[1600..] are B[0..], valid addresses, so the first
		// access outside every buffer is the store C[1600].
		{KMatmulTiledNoBounds, "out of bounds", 40, 16, []string{"block (0,2,0)", "thread (0,8,0)", "C[1600]", "length 1600"}},
	}
	for _, c := range cases {
		d, err := RunDemo(dev, c.kernel, c.n, c.tile)
		if err != nil {
			t.Fatalf("%s: %v", c.kernel, err)
		}
		if d.Kind != c.kind {
			t.Errorf("%s: fault %q, want %q (%s)", c.kernel, d.Kind, c.kind, d.Fault)
		}
		for _, w := range c.where {
			if !strings.Contains(d.Where, w) {
				t.Errorf("%s: %q does not name %q", c.kernel, d.Where, w)
			}
		}
	}
	// With one phase there is nothing to overwrite: dropping the second
	// barrier is harmless at N = TILE, and the kernel's output is right.
	if _, err := RunDemo(dev, KMatmulTiledNoSync2, 16, 16); err == nil || !strings.Contains(err.Error(), "without a fault") {
		t.Errorf("NoSync2 with one phase: %v, want a clean run", err)
	}
	// The same N with bounds checks runs cleanly and correctly.
	got, want, _, err := launchMatmul(t, dev, KMatmulTiled, 40, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ok, i := equal(got, want); !ok {
		t.Errorf("bounds-checked tiled at N=40: C[%d] = %v, want %v", i, got[i], want[i])
	}
	var f *sim.Fault
	_, _, _, err = launchMatmul(t, dev, KMatmulTiledNoBounds, 40, 16, 1)
	if !errors.As(err, &f) || f.Buffer != "C" || f.Index != 1600 || !strings.Contains(f.Site, "st.global") {
		t.Errorf("slide version at N=40: %v, want an out-of-bounds fault on C[1600] at its store", err)
	}
}

func TestOptionErrors(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{N: -4}, "must be positive"},
		{Options{N: 64, Tile: 3}, "TILE = 3"},
		{Options{N: 64, Tile: 64}, "TILE = 64"},
		{Options{N: 64, Tile: 8, Coarse: 3}, "COARSE = 3"},
		{Options{N: 100, Tile: 16, Coarse: 1}, "not a multiple of TILE*COARSE"},
		{Options{N: 64, Tile: 16, Coarse: 8}, "not a multiple of TILE*COARSE"},
		{Options{N: 64, Tile: 8, Coarse: 2, Tiles: []int{5}}, "sweep TILE = 5"},
		{Options{N: 64, Tile: 8, Coarse: 2, TransposeTile: 32, SweepN: 48}, "sweep N = 48"},
		{Options{N: 48, Tile: 8, Coarse: 2}, "transpose tile 32"},
		{Options{N: 64, Tile: 8, Coarse: 2, Density: 2}, "density"},
		{Options{N: 1 << 20}, "limit"},
	}
	dev := openSim(t)
	for _, c := range cases {
		_, err := Run(context.Background(), dev, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.o, err, c.want)
		}
	}
	if _, err := Run(context.Background(), nil, Options{N: 64, Tile: 8, Coarse: 2}); err == nil {
		t.Error("nil device: no error")
	}
}

// Run end to end on the simulator: no failures, and the JSON has the shape
// the notebook and the CLI read.
func TestRunJSON(t *testing.T) {
	res, err := Run(context.Background(), openSim(t), Options{N: 64, Tile: 8, Coarse: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatal(res.Failures)
	}
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lesson  string                   `json:"lesson"`
		Backend string                   `json:"backend"`
		Device  map[string]any           `json:"device"`
		Runs    []map[string]any         `json:"runs"`
		Loads   []map[string]any         `json:"loads"`
		Roof    []map[string]any         `json:"roofline"`
		Demos   []map[string]interface{} `json:"demos"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Lesson != "tiling" || doc.Backend != "sim" || doc.Device["name"] == nil {
		t.Errorf("header: %q %q %v", doc.Lesson, doc.Backend, doc.Device)
	}
	keys := []string{"kernel", "n", "tile", "coarse", "requests", "sectors", "shared_wavefronts", "bank_conflicts", "time_ms", "time_kind", "gflops", "correct"}
	for _, r := range doc.Runs {
		for _, k := range keys {
			if _, ok := r[k]; !ok {
				t.Errorf("run %v has no %q", r["kernel"], k)
			}
		}
		if r["time_kind"] != "modeled" || r["correct"] != true {
			t.Errorf("run %v: time_kind %v correct %v", r["kernel"], r["time_kind"], r["correct"])
		}
	}
	if len(doc.Runs) != 11 || len(doc.Loads) != 2*len(Tiles())+1+len(Coarsenings()) || len(doc.Roof) == 0 || len(doc.Demos) != 3 {
		t.Errorf("%d runs, %d load rows, %d roofline rows, %d demos", len(doc.Runs), len(doc.Loads), len(doc.Roof), len(doc.Demos))
	}
	// Roofline: every matmul variant's DRAM intensity is the compulsory
	// 2N^3 / (3 N^2 * 4 bytes) = N/6 here (the whole problem fits in L2),
	// while the load intensity grows with TILE and COARSE.
	for _, row := range res.Roofline {
		if strings.HasPrefix(row.Kernel, "matmul") && math.Abs(row.IntensityDRAM-64.0/6) > 1e-9 {
			t.Errorf("%s: DRAM intensity %v, want %v", row.Kernel, row.IntensityDRAM, 64.0/6)
		}
		if row.Kernel == KMatmulNaive && row.IntensityLoads != 0.25 {
			t.Errorf("naive load intensity %v, want 0.25", row.IntensityLoads)
		}
	}
}

// BenchmarkLesson runs the whole lesson at N = 512 on the simulator and
// reports simulated warp instructions per second.
func BenchmarkLesson(b *testing.B) {
	dev := openSim(b)
	var wi int64
	for b.Loop() {
		res, err := Run(context.Background(), dev, Options{N: 512})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Failures) > 0 {
			b.Fatal(res.Failures)
		}
		for _, r := range res.Runs {
			if r.WarpInstructions != nil {
				wi += *r.WarpInstructions
			}
		}
		for _, r := range res.Loads {
			wi += r.WarpInstructions
		}
	}
	b.ReportMetric(float64(wi)/float64(b.N), "warp-instr/op")
	b.ReportMetric(float64(wi)/b.Elapsed().Seconds(), "warp-instr/s")
}

// The CPU reference of the product stops when ctx is cancelled: at 4096 it
// is 11 minutes of multiply-adds, and Ctrl-C waited for all of them before
// issue 31. The bound is correctness, not speed.
func TestRefMatmulCancelled(t *testing.T) {
	const n = 4096
	a, b := make([]float32, n*n), make([]float32, n*n)
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(100*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
	c, err := refMatmul(ctx, a, b, n)
	if took := time.Since(<-cancelled); !errors.Is(err, context.Canceled) || c != nil || took > 2*time.Second {
		t.Errorf("refMatmul: %v after %v; want context.Canceled within 2 s of the cancel", err, took)
	}
}

// Run at N = 4096 on the simulator, cancelled in its first stage, returns
// context.Canceled promptly.
func TestRunCancelled(t *testing.T) {
	dev := openSim(t)
	for _, after := range []time.Duration{20 * time.Millisecond, 1500 * time.Millisecond} { // the inputs, then the reference
		ctx, cancel := context.WithCancel(context.Background())
		cancelled := make(chan time.Time, 1)
		time.AfterFunc(after, func() { cancelled <- time.Now(); cancel() })
		res, err := Run(ctx, dev, Options{N: 4096, NoSweep: true, NoDemos: true})
		if took := time.Since(<-cancelled); !errors.Is(err, context.Canceled) || res != nil || took > 2*time.Second {
			t.Errorf("cancelled after %v: result %v, error %v, %v after the cancel; want context.Canceled within 2 s", after, res != nil, err, took)
		}
	}
}

// Options beyond the lesson's size are refused, not a crash (SweepN 10^8
// panicked in makeslice).
func TestOptionsSizeLimits(t *testing.T) {
	for _, o := range []Options{{N: MaxN + 1}, {N: 64, Tile: 8, Coarse: 2, SweepN: 100_000_000}, {SweepN: -1}} {
		if _, err := o.withDefaults(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

package spmv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ptxcheck"
	"github.com/warplab/warplab/internal/testenv"
)

func TestPTXMatchesSource(t *testing.T) {
	cu, ptx := Source()
	if err := ptxcheck.Check("spmv.cu", []byte(cu), []byte(ptx)); err != nil {
		t.Fatal(err)
	}
	for _, name := range KernelNames() {
		if !strings.Contains(ptx, ".entry "+name+"(") {
			t.Errorf("spmv.ptx has no entry %s (is it extern \"C\"?)", name)
		}
	}
	// The simulator runs every kernel from that PTX: the Module has no other
	// form of them.
	dev := openSim(t)
	li, err := dev.Load(Module())
	if err != nil {
		t.Fatal(err)
	}
	if li.Path != gpuext.PathPTX || li.Arch != "sm_75" || !strings.Contains(li.PTX, "nvcc 11.8") {
		t.Errorf("the simulator loads spmv as %+v; want its nvcc 11.8 sm_75 PTX", li)
	}
	for _, name := range KernelNames() {
		if !strings.Contains(li.Note, name) {
			t.Errorf("the simulator's load note %q does not name %s", li.Note, name)
		}
	}
}

// The seed's lane-slot numbers, worked out by hand from its formulas at 2^19
// rows (16,384 groups of 32 rows):
//
//	even,   thread per row: 16 × 32 per group                 =   8,388,608 (100%)
//	even,   warp per row:   1 pass × 32 per row               =  16,777,216 (50.0%)
//	skewed, thread per row: 419 × 32 per group                = 219,676,672 (3.8%)
//	skewed, warp per row:   (31 × 1 + 1 × 14 passes) × 32     =  23,592,960 (35.6%)
//
// (419 = 13·32 + 3 takes ceil(419/32) = 14 passes, as the seed's comment says.)
func TestLaneSlotsSeed(t *testing.T) {
	r, err := Predict(Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		matrix, kernel string
		slots          int64
		useful         string
	}{
		{"even", ThreadPerRowRun, 8388608, "100.0"},
		{"even", WarpPerRowRun, 16777216, "50.0"},
		{"skewed", ThreadPerRowRun, 219676672, "3.8"},
		{"skewed", WarpPerRowRun, 23592960, "35.6"},
	}
	if len(r.Predictions) != len(want) {
		t.Fatalf("%d predictions, want %d", len(r.Predictions), len(want))
	}
	for i, w := range want {
		p := r.Predictions[i]
		if p.Matrix != w.matrix || p.Kernel != w.kernel || p.LaneSlots != w.slots {
			t.Errorf("prediction %d: %s %s %d, want %s %s %d", i, p.Matrix, p.Kernel, p.LaneSlots, w.matrix, w.kernel, w.slots)
		}
		if got := fmt.Sprintf("%.1f", 100*p.Useful); got != w.useful {
			t.Errorf("%s %s useful %s%%, want %s%%", p.Matrix, p.Kernel, got, w.useful)
		}
	}
	var b bytes.Buffer
	if err := r.WritePrediction(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"even     thread per row        8388608   100.0%",
		"skewed   warp per row         23592960    35.6%",
		"even        8388608       16       16     16.00",
		"skewed      8388608        3      419     16.00",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("prediction text lacks %q:\n%s", line, b.String())
		}
	}
}

func TestLaneSlotArithmetic(t *testing.T) {
	cases := []struct {
		name         string
		lengths      []int
		thread, warp int64
	}{
		{"empty", nil, 0, 0},
		{"one row of 3", []int{3}, 96, 32},
		{"32 rows of 1", repeat(1, 32), 32, 32 * 32},
		{"rows of 0 cost no passes", repeat(0, 40), 0, 0},
		{"33 rows: a second, partial warp", append(repeat(2, 32), 5), 2*32 + 5*32, 33 * 32},
		{"row of 32 vs 33", []int{32, 33}, 33 * 32, 32 + 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ThreadPerRowLaneSlots(c.lengths); got != c.thread {
				t.Errorf("thread per row: %d, want %d", got, c.thread)
			}
			if got := WarpPerRowLaneSlots(c.lengths); got != c.warp {
				t.Errorf("warp per row: %d, want %d", got, c.warp)
			}
		})
	}
	if u := UsefulShare(10, 0); u != 0 {
		t.Errorf("UsefulShare with no slots: %v, want 0", u)
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestSeedMatrices(t *testing.T) {
	for _, rows := range []int{448, 4096, 1 << 19} {
		ms, err := SeedMatrices(rows)
		if err != nil {
			t.Fatal(err)
		}
		if ms[0].CSR.NNZ() != rows*16 || ms[1].CSR.NNZ() != rows*16 {
			t.Errorf("rows %d: nnz even %d, skewed %d, want both %d", rows, ms[0].CSR.NNZ(), ms[1].CSR.NNZ(), rows*16)
		}
		for i, want := range []MatrixInfo{
			{Name: "even", Rows: rows, Cols: rows, NNZ: rows * 16, MinRow: 16, MaxRow: 16, MeanRow: 16},
			{Name: "skewed", Rows: rows, Cols: rows, NNZ: rows * 16, MinRow: 3, MaxRow: 419, MeanRow: 16},
		} {
			if got := matrixInfo(ms[i]); got != want {
				t.Errorf("rows %d: %+v, want %+v", rows, got, want)
			}
			if err := ms[i].CSR.Validate(); err != nil {
				t.Error(err)
			}
		}
		// The seed's column and value rules, spot-checked: the last row of
		// the skewed matrix is heavy and shifted left to end at the last
		// column; values run j%7+1 along a row.
		sk := ms[1].CSR
		last := rows - 1
		lo, hi := sk.RowPtr[last], sk.RowPtr[last+1]
		if hi-lo != 419 || sk.ColIdx[lo] != int32(rows-419) || sk.ColIdx[hi-1] != int32(rows-1) {
			t.Errorf("rows %d: last skewed row spans columns %d..%d (%d entries)", rows, sk.ColIdx[lo], sk.ColIdx[hi-1], hi-lo)
		}
		if sk.Val[lo+8] != 2 || ms[0].X[14] != 2 {
			t.Errorf("value rule: val[8] = %v (want 2), x[14] = %v (want 2)", sk.Val[lo+8], ms[0].X[14])
		}
	}
	for _, bad := range []int{0, -32, 100, 416, 1 << 28} {
		if _, err := SeedMatrices(bad); err == nil {
			t.Errorf("SeedMatrices(%d) gave no error", bad)
		}
	}
}

func TestChecksCatchWrongY(t *testing.T) {
	want := []float32{1, 2, 0, 4, 5}
	cases := []struct {
		name string
		got  []float32
		bad  int
	}{
		{"equal", []float32{1, 2, 0, 4, 5}, 5},
		{"within 1e-5", []float32{1, 2 * (1 + 5e-6), 0, 4, 5}, 5},
		{"row 3 off", []float32{1, 2, 0, 4.001, 5}, 3},
		{"zero want is absolute", []float32{1, 2, 2e-5, 4, 5}, 2},
		{"NaN", []float32{1, float32(math.NaN()), 0, 4, 5}, 1},
		{"short", []float32{1, 2}, 2},
	}
	for _, c := range cases {
		if got := FirstMismatch(c.got, want, RelTolerance); got != c.bad {
			t.Errorf("%s: first mismatch %d, want %d", c.name, got, c.bad)
		}
	}
	// Scaled: a row whose products cancel is judged against its |val·x| sum.
	if got := FirstMismatchScaled([]float32{1e-3, 5}, []float32{0, 5}, []float32{200, 5}, RelTolerance); got != 2 {
		t.Errorf("scaled check flagged cancellation noise at %d", got)
	}
	if got := FirstMismatchScaled([]float32{3e-3, 5}, []float32{0, 5}, []float32{200, 5}, RelTolerance); got != 0 {
		t.Errorf("scaled check missed a wrong row: %d", got)
	}
	if !ProbeTotalOK(1e9, 1e9+999, 1e9+999) || ProbeTotalOK(1e9, 1e9+1001, 1e9+1001) {
		t.Error("probe total tolerance is not 1e-6 relative")
	}
}

// A kernel that leaves one row wrong is reported by name and row, through
// the same path Run takes.
func TestRunReportsWrongRow(t *testing.T) {
	dev := openSim(t)
	ms, err := SeedMatrices(448)
	if err != nil {
		t.Fatal(err)
	}
	m := ms[1]
	m.Want[300] += 1 // the reference now disagrees with every kernel at row 300
	r := newResult(ms[1:])
	r.ProbeBlocks = 8
	dm, err := uploadMatrix(dev, m)
	if err != nil {
		t.Fatal(err)
	}
	o := testenv.Must(Options{}.normalize())(t)
	if err := runMatrix(context.Background(), dev, Module(), kernelsFor(4), m, dm, r, o, func(string) {}); err != nil {
		t.Fatal(err)
	}
	var sawThread, sawWarp, sawProbe bool
	for _, f := range r.Failures {
		sawThread = sawThread || strings.HasPrefix(f, "skewed thread per row wrong at row 300:")
		sawWarp = sawWarp || strings.HasPrefix(f, "skewed warp per row wrong at row 300:")
		sawProbe = sawProbe || strings.HasPrefix(f, "skewed probe total")
	}
	if !sawThread || !sawWarp || !sawProbe {
		t.Errorf("failures do not name both kernels at row 300 and the probe total: %q", r.Failures)
	}
	for _, run := range r.Runs {
		if run.Correct {
			t.Errorf("%s marked correct against a wrong reference", run.Kernel)
		}
	}
}

func openSim(t testing.TB) *gpuext.Device {
	t.Helper()
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

func TestRunQuickSim(t *testing.T) {
	for _, unroll := range []int{1, 4} {
		dev := openSim(t)
		var predicted *Result
		var stages []string
		r, err := Run(context.Background(), dev, Options{
			Rows: 4096, Unroll: unroll,
			Predicted: func(r *Result) {
				predicted = r
				if len(r.Runs) != 0 {
					t.Error("Predicted called after a kernel ran")
				}
			},
			Progress: func(stage string, done, total int) { stages = append(stages, stage) },
		})
		if err != nil {
			t.Fatal(err)
		}
		if predicted == nil || len(predicted.Predictions) != 4 {
			t.Fatal("Predicted was not called with the lane-slot table")
		}
		if len(stages) != 8 || stages[0] != "build" || stages[7] != "skewed warp_per_row" {
			t.Errorf("progress stages %q", stages)
		}
		if !r.OK() {
			t.Fatalf("checks failed: %q", r.Failures)
		}
		if r.ProbeBlocks != 8*132 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "0.076 ms") {
			t.Errorf("probe blocks %d, notes %q", r.ProbeBlocks, r.Notes)
		}
		if len(r.Runs) != 6 {
			t.Fatalf("%d runs, want 6", len(r.Runs))
		}
		for _, run := range r.Runs {
			if !run.Correct || run.TimeKind != gpuext.Modeled || run.TimeMs <= 0 || run.Requests == nil || run.Sectors == nil || run.DRAMBytes == nil {
				t.Errorf("run %+v", run)
			}
			if (run.Kernel == ProbeRun) != (run.LaneSlots == nil) {
				t.Errorf("%s %s: lane slots %v", run.Matrix, run.Kernel, run.LaneSlots)
			}
			wantName := map[string]string{ProbeRun: KernelProbe, ThreadPerRowRun: kernelsFor(unroll)[0], WarpPerRowRun: kernelsFor(unroll)[1]}[run.Kernel]
			if run.CUDAKernel != wantName || run.Stats.Kernel != wantName {
				t.Errorf("%s ran %s (stats %s), want %s", run.Kernel, run.CUDAKernel, run.Stats.Kernel, wantName)
			}
		}
		var text bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Code, "nvcc 11.8") || !strings.Contains(r.Code, "sm_75") || predicted.Code != r.Code {
			t.Errorf("code %q (at prediction %q); want the embedded nvcc 11.8 sm_75 PTX, named before any kernel ran", r.Code, predicted.Code)
		}
		for _, s := range []string{"Code: spmv.ptx, nvcc 11.8", "Part 1: two matrices, 4096 rows, 65536 nonzeros each", "Lane-slots issued", "model (ms)",
			"stream probe (floor)", "All six rows above ran the same 131072 flops"} {
			if !strings.Contains(text.String(), s) {
				t.Errorf("text lacks %q:\n%s", s, text.String())
			}
		}
		if !strings.Contains(r.HTMLTables(), "<caption>Lane-slots issued") {
			t.Error("HTML lacks the lane-slot table")
		}
		checkJSONShape(t, r)
	}
}

// checkJSONShape decodes the JSON generically and checks the field names the
// issue specifies, with nulls where a number is unknown.
func checkJSONShape(t *testing.T, r *Result) {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["lesson"] != "spmv" || doc["backend"] != "sim" {
		t.Errorf("lesson %v backend %v", doc["lesson"], doc["backend"])
	}
	dev, _ := doc["device"].(map[string]any)
	for _, k := range []string{"name", "sms", "model"} {
		if _, ok := dev[k]; !ok {
			t.Errorf("device lacks %q", k)
		}
	}
	runs, _ := doc["runs"].([]any)
	if len(runs) == 0 {
		t.Fatal("no runs in JSON")
	}
	for _, x := range runs {
		run := x.(map[string]any)
		for _, k := range []string{"matrix", "kernel", "rows", "nnz", "lane_slots", "useful_share", "requests", "sectors",
			"dram_bytes", "time_ms", "time_kind", "gflops", "x_floor", "correct"} {
			if _, ok := run[k]; !ok {
				t.Errorf("run lacks %q: %v", k, run)
			}
		}
		if run["kernel"] == "probe" && (run["lane_slots"] != nil || run["useful_share"] != nil) {
			t.Errorf("probe lane slots not null: %v", run)
		}
	}
	if f, ok := doc["failures"].([]any); !ok || len(f) != 0 {
		t.Errorf("failures %v, want []", doc["failures"])
	}
}

func TestOptionsRejected(t *testing.T) {
	dev := openSim(t)
	for _, o := range []Options{
		{Rows: 100},
		{Rows: 4096, Matrix: "x.mtx"},
		{Unroll: 2},
		{ProbeBlocks: -1},
		{Runs: -1},
		{Matrix: "/does/not/exist.mtx"},
	} {
		if _, err := Run(context.Background(), dev, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := Run(context.Background(), nil, Options{}); err == nil {
		t.Error("nil device: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, dev, Options{Rows: 448}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestProbeNote(t *testing.T) {
	if n := probeNote(40, 320); n != "" {
		t.Errorf("T4 note %q, want none", n)
	}
	if n := probeNote(132, 320); !strings.Contains(n, "2.4 per SM") || !strings.Contains(n, "320 blocks as asked") {
		t.Errorf("H200 with seed grid: %q", n)
	}
	if n := probeNote(132, 1056); !strings.Contains(n, "1056 blocks, 8 per SM") {
		t.Errorf("H200 sized: %q", n)
	}
}

// The embedded recorded run is a GPU's, names GPU, driver and date, holds
// the seed's six rows, all measured, and the seed's lane-slot prediction.
func TestRecorded(t *testing.T) {
	r, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	if r.Backend != "gpu" || r.Device.Name == "" || r.Driver == "" || r.Date == "" {
		t.Errorf("recorded run lacks its label: backend %q device %q driver %q date %q", r.Backend, r.Device.Name, r.Driver, r.Date)
	}
	if len(r.Runs) != 6 || !r.OK() {
		t.Fatalf("%d runs, failures %q", len(r.Runs), r.Failures)
	}
	for _, run := range r.Runs {
		if run.TimeKind != gpuext.Measured || run.TimeMs <= 0 || run.Requests != nil {
			t.Errorf("recorded run %+v", run)
		}
	}
	if r.Predictions[3].LaneSlots != 23592960 {
		t.Errorf("recorded skewed warp-per-row lane-slots %d", r.Predictions[3].LaneSlots)
	}
	var b bytes.Buffer
	r.WriteText(&b)
	if !strings.Contains(b.String(), "All six rows") || !strings.Contains(b.String(), "10 timed runs after 3 warm-ups") {
		t.Errorf("recorded text:\n%s", b.String())
	}
}

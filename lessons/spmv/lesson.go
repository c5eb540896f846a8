package spmv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/sim"
)

// Kernel names in a Run and a LaneSlots row (the JSON's "kernel").
const (
	ProbeRun        = "probe"
	ThreadPerRowRun = "thread_per_row"
	WarpPerRowRun   = "warp_per_row"
)

// Options choose the lesson's inputs and how it runs. The zero value is the
// seed: its two matrices at 2^19 rows, the probe sized from the device,
// kernels as nvcc compiles them, 3 warm-ups and 10 timed runs.
type Options struct {
	// Rows of the seed matrices; 0 means 1<<19, the seed's. It must be a
	// multiple of 32 and at least 448 (the heavy row of 419 must fit).
	Rows int
	// Matrix is a Matrix Market file to run the same kernels on instead of
	// the seed pair (x[c] = c%13+1 as in the seed). Rows must then be 0.
	Matrix string
	// ProbeBlocks is the probe's grid: 0 means 8 blocks per SM of the
	// device, the fix this lesson makes; SeedProbeBlocks (320) is the
	// seed's fixed grid, 8 per SM of a 40-SM T4 only.
	ProbeBlocks int
	// Unroll picks the SpMV kernels: 0 or 4 runs spmvCsrThreadPerRow and
	// spmvCsrWarpPerRow as nvcc compiles them (row loop unrolled by four,
	// remainder first); 1 runs their _unroll1 variants (#pragma unroll 1),
	// where the simulator's request and sector counts equal Nsight
	// Compute's exactly.
	Unroll int
	// Warmups and Runs are the GPU timing protocol; 0 means the seed's 3
	// and 10. The simulator's time is a deterministic model, so it uses the
	// checked launch's modeled time and runs nothing more.
	Warmups, Runs int
	// Progress, if set, is told each stage as it starts ("build", "predict",
	// "<matrix> <kernel>") with the stages done and the total.
	Progress func(stage string, done, total int)
	// Predicted, if set, is called once before any kernel runs, with the
	// Result holding the device, the Part 1 table and the lane-slot
	// prediction, so that the prediction can be shown before the timings
	// exist (the seed prints it first for that reason).
	Predicted func(*Result)
}

// Device identifies where the lesson ran.
type Device struct {
	Name  string `json:"name"`
	SMs   int    `json:"sms"`
	Model string `json:"model"` // the simulator model key ("h200"), also on a GPU: the model that predicts it
	CC    string `json:"cc"`    // compute capability, "9.0"
}

// MatrixInfo is one row of the Part 1 table.
type MatrixInfo struct {
	Name    string  `json:"name"`
	Rows    int     `json:"rows"`
	Cols    int     `json:"cols"`
	NNZ     int     `json:"nnz"`
	MinRow  int     `json:"min_row"`
	MaxRow  int     `json:"max_row"`
	MeanRow float64 `json:"mean_row"`
}

// LaneSlots is one row of the lane-slot table: host arithmetic on the row
// lengths, the prediction the timings are judged against.
type LaneSlots struct {
	Matrix    string  `json:"matrix"`
	Kernel    string  `json:"kernel"` // "thread_per_row" | "warp_per_row"
	LaneSlots int64   `json:"lane_slots"`
	Useful    float64 `json:"useful"` // share of lane-slots with a nonzero to do, 0..1
}

// KernelRun is one row of the Part 2 table: one kernel on one matrix.
// (It would be called Run, but Run is the function that runs the lesson.)
type KernelRun struct {
	Matrix      string          `json:"matrix"` // "even", "skewed", or the .mtx base name
	Kernel      string          `json:"kernel"` // "probe" | "thread_per_row" | "warp_per_row"
	CUDAKernel  string          `json:"cuda_kernel"`
	Rows        int             `json:"rows"`
	NNZ         int             `json:"nnz"`
	LaneSlots   *int64          `json:"lane_slots"`   // null for the probe
	UsefulShare *float64        `json:"useful_share"` // null for the probe
	Requests    *int64          `json:"requests"`     // global loads as ncu counts them; simulator only, null on a GPU
	Sectors     *int64          `json:"sectors"`      // global-load sectors; simulator only
	DRAMBytes   *int64          `json:"dram_bytes"`   // modeled DRAM bytes read and written; simulator only
	TimeMs      float64         `json:"time_ms"`
	TimeKind    gpuext.TimeKind `json:"time_kind"`
	GFlops      float64         `json:"gflops"`
	XFloor      float64         `json:"x_floor"` // time over the probe's time on the same matrix
	Correct     bool            `json:"correct"`
	Stats       *sim.Stats      `json:"-"` // the simulator's full counters; nil on a GPU
}

// Result is everything the lesson printed and measured.
type Result struct {
	Lesson      string       `json:"lesson"` // "spmv"
	Backend     gpuext.Kind  `json:"backend"`
	Device      Device       `json:"device"`
	Driver      string       `json:"driver,omitempty"` // CUDA driver, on a GPU
	Code        string       `json:"code,omitempty"`   // which code of the kernels ran: the PTX the simulator executed (compiler, target), or the GPU's cubin or PTX
	Date        string       `json:"date"`             // when it ran, RFC 3339
	ProbeBlocks int          `json:"probe_blocks"`
	Unroll      int          `json:"unroll"`
	Warmups     int          `json:"warmups"` // GPU timing protocol; 0 on the simulator
	TimedRuns   int          `json:"timed_runs"`
	Matrices    []MatrixInfo `json:"matrices"`
	Predictions []LaneSlots  `json:"lane_slot_predictions"`
	Runs        []KernelRun  `json:"runs"`
	Notes       []string     `json:"notes"`    // e.g. why the seed's 320-block probe is no floor here
	Failures    []string     `json:"failures"` // the seed's checks that failed, first mismatching row named
}

// seedPair reports whether r is the seed's even/skewed pair, whose text
// says "two matrices" and "six rows".
func (r *Result) seedPair() bool {
	return len(r.Matrices) == 2 && r.Matrices[0].Name == "even" && r.Matrices[1].Name == "skewed"
}

// OK reports whether every check passed.
func (r *Result) OK() bool { return len(r.Failures) == 0 }

// Validate reports options that cannot run (a row count the seed matrices
// cannot be built with, an unknown unroll factor, ...) without building or
// running anything; Run and Predict make the same checks. A missing or
// malformed Matrix file is found only when it is read.
func (o Options) Validate() error {
	_, err := o.normalize()
	return err
}

// normalize fills in defaults and rejects options that cannot run.
func (o Options) normalize() (Options, error) {
	if o.Matrix != "" && o.Rows != 0 {
		return o, errors.New("spmv: Rows sizes the seed matrices and Matrix replaces them; set one, not both")
	}
	if o.Matrix == "" {
		if o.Rows == 0 {
			o.Rows = defaultRows
		}
		if err := checkSeedRows(o.Rows); err != nil {
			return o, err
		}
	}
	switch o.Unroll {
	case 0:
		o.Unroll = defaultUnroll
	case 1, defaultUnroll:
	default:
		return o, fmt.Errorf("spmv: Unroll %d: want 1 (#pragma unroll 1) or 4 (as nvcc compiles by default)", o.Unroll)
	}
	if o.ProbeBlocks < 0 {
		return o, fmt.Errorf("spmv: ProbeBlocks %d: want 0 (8 per SM) or a positive grid size", o.ProbeBlocks)
	}
	if o.Warmups < 0 || o.Runs < 0 {
		return o, fmt.Errorf("spmv: Warmups %d, Runs %d: want 0 (the seed's 3 and 10) or more", o.Warmups, o.Runs)
	}
	if o.Warmups == 0 {
		o.Warmups = gpuext.DefaultWarmups
	}
	if o.Runs == 0 {
		o.Runs = gpuext.DefaultRuns
	}
	return o, nil
}

// Matrices builds the lesson's inputs for opts: the seed pair, or the one
// Matrix Market file.
func Matrices(opts Options) ([]*Matrix, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	if o.Matrix != "" {
		m, err := FileMatrix(o.Matrix)
		if err != nil {
			return nil, err
		}
		return []*Matrix{m}, nil
	}
	return SeedMatrices(o.Rows)
}

// Predict builds the inputs and returns a Result holding only the Part 1
// table and the lane-slot prediction: what the lesson says before anything
// runs, with no device needed.
func Predict(opts Options) (*Result, error) {
	ms, err := Matrices(opts)
	if err != nil {
		return nil, err
	}
	r := newResult(ms)
	r.Backend = "none"
	return r, nil
}

func newResult(ms []*Matrix) *Result {
	r := &Result{Lesson: "spmv", Runs: []KernelRun{}, Notes: []string{}, Failures: []string{}}
	for _, m := range ms {
		r.Matrices = append(r.Matrices, matrixInfo(m))
		r.Predictions = append(r.Predictions, predictions(m)...)
		if got := m.CSR.NNZ(); got != m.Expected {
			r.Failures = append(r.Failures, fmt.Sprintf(
				"%s matrix holds %d nonzeros, expected %d; the matrices are not comparable", m.Name, got, m.Expected))
		}
	}
	return r
}

// probeGrid returns the probe's grid on dev for opts.
func probeGrid(dev *gpuext.Device, o Options) int {
	if o.ProbeBlocks > 0 {
		return o.ProbeBlocks
	}
	return ProbeBlocksPerSM * dev.SMs()
}

// probeNote explains, on a device whose SM count is not the T4's 40, why the
// seed's fixed 320-block probe is no floor there.
func probeNote(sms, blocks int) string {
	if sms == seedProbeSMs {
		return ""
	}
	s := fmt.Sprintf("Probe grid: the Day-37 lecture's 320 blocks are 8 per SM of a T4's 40 SMs; on this device's %d SMs they are %.1f per SM, "+
		"too few warps in flight to stream at full bandwidth (H200, measured: 320-block probe 0.076 ms, even thread per row 0.041 ms), so it is no floor.",
		sms, float64(SeedProbeBlocks)/float64(sms))
	if blocks == ProbeBlocksPerSM*sms {
		return s + fmt.Sprintf(" This run sizes it from the device: %d blocks, 8 per SM.", blocks)
	}
	return s + fmt.Sprintf(" This run uses %d blocks as asked (%.1f per SM), so its x floor column may read below 1.", blocks, float64(blocks)/float64(sms))
}

// Run runs the lesson on dev: builds the inputs, predicts lane-slots,
// uploads, and for each matrix runs the probe, thread per row and warp per
// row, each once checked against the CPU reference and then timed (measured
// by CUDA events on a GPU, modeled on the simulator). A failed check is
// recorded in Result.Failures and the lesson goes on, as the seed does; an
// error means the lesson could not run (bad options, a file that does not
// parse, a device error, ctx cancelled).
func Run(ctx context.Context, dev *gpuext.Device, opts Options) (*Result, error) {
	if dev == nil {
		return nil, errors.New("spmv: Run: nil device (open one with gpuext.Open)")
	}
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	stages := 2 + 6
	if o.Matrix != "" {
		stages = 2 + 3
	}
	done := 0
	progress := func(stage string) {
		if o.Progress != nil {
			o.Progress(stage, done, stages)
		}
		done++
	}

	progress("build")
	// Building the seed pair or parsing a file is seconds of CPU at large
	// sizes in package sparse, which takes no ctx: Ctrl-C returns now and
	// leaves it to finish in the background.
	ms, err := lesson.Interruptible(ctx, func() ([]*Matrix, error) { return Matrices(o) })
	if err != nil {
		return nil, err
	}
	progress("predict")
	r := newResult(ms)
	major, minor := dev.ComputeCapability()
	r.Backend = dev.Kind()
	r.Device = Device{Name: dev.Name(), SMs: dev.SMs(), Model: dev.Model().Key, CC: fmt.Sprintf("%d.%d", major, minor)}
	r.Date = time.Now().UTC().Format(time.RFC3339)
	r.ProbeBlocks = probeGrid(dev, o)
	r.Unroll = o.Unroll
	if dev.Kind() == gpuext.GPU {
		r.Warmups, r.TimedRuns = o.Warmups, o.Runs
	}
	if n := probeNote(dev.SMs(), r.ProbeBlocks); n != "" {
		r.Notes = append(r.Notes, n)
	}
	// Load before anything runs, so that the header can say which code the
	// timings come from.
	mod := Module()
	li, err := dev.Load(mod)
	if err != nil {
		return nil, err
	}
	r.Code = codeText(li)
	if o.Predicted != nil {
		o.Predicted(r)
	}

	kernels := kernelsFor(o.Unroll)
	for _, m := range ms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dm, err := uploadMatrix(dev, m)
		if err != nil {
			return nil, err
		}
		err = runMatrix(ctx, dev, mod, kernels, m, dm, r, o, progress)
		if ferr := dm.free(); err == nil {
			err = ferr
		}
		if err != nil {
			return nil, err
		}
	}
	if want := 3 * len(ms); len(r.Runs) != want {
		r.Failures = append(r.Failures, fmt.Sprintf(
			"printed %d rows, expected %d; the lesson's table and this program disagree", len(r.Runs), want))
	}
	return r, nil
}

// codeText says which code of spmv.cu a device runs: on the simulator the
// PTX it executes, with its compiler and target; on a GPU the cubin's
// architecture or the embedded PTX it JIT-compiled.
func codeText(li gpuext.LoadInfo) string {
	switch {
	case li.PTX != "":
		return "spmv.ptx, " + li.PTX + ", executed by the simulator"
	case li.Path == gpuext.PathCubin:
		return "cubin for " + li.Arch + " from spmv.cu"
	case li.Path == gpuext.PathPTX:
		return "spmv.ptx (.target " + li.Arch + "), JIT-compiled by the driver"
	}
	return li.Path.String()
}

// kernelsFor returns the CUDA names of thread per row and warp per row.
func kernelsFor(unroll int) [2]string {
	if unroll == 1 {
		return [2]string{KernelThreadPerRowUnroll1, KernelWarpPerRowUnroll1}
	}
	return [2]string{KernelThreadPerRow, KernelWarpPerRow}
}

// deviceMatrix is one matrix and its vectors in device memory.
type deviceMatrix struct {
	rowPtr, colIdx *gpuext.Buffer[int32]
	val, x, y      *gpuext.Buffer[float32]
}

func uploadMatrix(dev *gpuext.Device, m *Matrix) (*deviceMatrix, error) {
	d := &deviceMatrix{}
	var err error
	if d.rowPtr, err = gpuext.Upload(dev, "rowPtr", m.CSR.RowPtr); err != nil {
		return nil, err
	}
	if d.colIdx, err = gpuext.Upload(dev, "colIdx", m.CSR.ColIdx); err != nil {
		d.free()
		return nil, err
	}
	if d.val, err = gpuext.Upload(dev, "val", m.CSR.Val); err != nil {
		d.free()
		return nil, err
	}
	if d.x, err = gpuext.Upload(dev, "x", m.X); err != nil {
		d.free()
		return nil, err
	}
	if d.y, err = gpuext.Alloc[float32](dev, "y", m.CSR.Rows); err != nil {
		d.free()
		return nil, err
	}
	return d, nil
}

// free releases the buffers that were allocated and returns the first error.
func (d *deviceMatrix) free() error {
	var first error
	if d.rowPtr != nil {
		first = errors.Join(first, d.rowPtr.Free())
	}
	if d.colIdx != nil {
		first = errors.Join(first, d.colIdx.Free())
	}
	if d.val != nil {
		first = errors.Join(first, d.val.Free())
	}
	if d.x != nil {
		first = errors.Join(first, d.x.Free())
	}
	if d.y != nil {
		first = errors.Join(first, d.y.Free())
	}
	return first
}

// launchRowKernel launches an SpMV kernel with the seed's shape: 256 threads
// a block, one thread (thread per row) or one warp (warp per row) a row.
func launchRowKernel(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, name string, d *deviceMatrix, rows int) (*gpuext.Launch, error) {
	threads := rows
	if name == KernelWarpPerRow || name == KernelWarpPerRowUnroll1 {
		threads = rows * WarpSize
	}
	blocks := max(1, (threads+ThreadsPerBlock-1)/ThreadsPerBlock)
	return dev.Launch(ctx, mod.MustKernel(name), gpuext.Config{Grid: blocks, Block: ThreadsPerBlock}, d.rowPtr, d.colIdx, d.val, d.x, d.y, uint64(rows))
}

func launchProbe(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, d *deviceMatrix, partials *gpuext.Buffer[float32], blocks, nnz int) (*gpuext.Launch, error) {
	return dev.Launch(ctx, mod.MustKernel(KernelProbe), gpuext.Config{Grid: blocks, Block: ThreadsPerBlock}, d.colIdx, d.val, d.x, partials, uint64(nnz))
}

// timeIt returns the time of one run of launch: the checked launch's modeled
// time on the simulator (deterministic, so running again would model the
// same), CUDA events over the timed runs on a GPU.
func timeIt(dev *gpuext.Device, checked *gpuext.Launch, o Options, launch func() error) (ms float64, kind gpuext.TimeKind, driver string, err error) {
	if checked != nil && checked.Stats != nil {
		return checked.Stats.Time.Seconds * 1e3, gpuext.Modeled, "", nil
	}
	t, err := dev.Time(launch, o.Warmups, o.Runs)
	if err != nil {
		return 0, "", "", err
	}
	return t.MeanMs, t.Kind, t.Driver, nil
}

// runMatrix runs the three kernels on one matrix and appends their rows.
func runMatrix(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, kernels [2]string,
	m *Matrix, d *deviceMatrix, r *Result, o Options, progress func(string)) error {
	rows, nnz := m.CSR.Rows, m.CSR.NNZ()
	flops := 2 * float64(nnz)
	gflops := func(ms float64) float64 {
		if ms <= 0 {
			return 0
		}
		return flops / (ms * 1e-3) / 1e9
	}
	base := func(kernel, cudaName string, l *gpuext.Launch) KernelRun {
		run := KernelRun{Matrix: m.Name, Kernel: kernel, CUDAKernel: cudaName, Rows: rows, NNZ: nnz}
		if l != nil && l.Stats != nil {
			st := l.Stats
			req, sec, dram := st.GlobalLoad.Requests, st.GlobalLoad.Sectors, st.DRAMReadBytes+st.DRAMWriteBytes
			run.Requests, run.Sectors, run.DRAMBytes, run.Stats = &req, &sec, &dram, st
		}
		return run
	}

	// The probe first: it is the floor the other two are read against.
	progress(m.Name + " probe")
	partials, err := gpuext.Alloc[float32](dev, "partials", r.ProbeBlocks*ThreadsPerBlock)
	if err != nil {
		return err
	}
	defer partials.Free()
	l, err := launchProbe(ctx, dev, mod, d, partials, r.ProbeBlocks, nnz)
	if err != nil {
		return err
	}
	got := make([]float32, partials.Len())
	if err := partials.Download(got); err != nil {
		return err
	}
	probeTotal, wantTotal := Total(got), Total(m.Want)
	run := base(ProbeRun, KernelProbe, l)
	run.Correct = ProbeTotalOK(probeTotal, wantTotal, m.ScaleTotal)
	if !run.Correct {
		r.Failures = append(r.Failures, fmt.Sprintf("%s probe total %.17g, reference total %.17g", m.Name, probeTotal, wantTotal))
	}
	probeMs, kind, driver, err := timeIt(dev, l, o, func() error {
		_, err := launchProbe(ctx, dev, mod, d, partials, r.ProbeBlocks, nnz)
		return err
	})
	if err != nil {
		return err
	}
	run.TimeMs, run.TimeKind, run.GFlops, run.XFloor = probeMs, kind, gflops(probeMs), 1
	if driver != "" {
		r.Driver = driver
	}
	r.Runs = append(r.Runs, run)

	preds := predictions(m)
	y := make([]float32, rows)
	for i, kernel := range []string{ThreadPerRowRun, WarpPerRowRun} {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := kernels[i]
		progress(m.Name + " " + kernel)
		// One untimed, checked launch before any number reaches the table.
		// y is cleared first, so a row the kernel never writes shows up as
		// a mismatch rather than as the last kernel's answer.
		if err := d.y.Fill(0); err != nil {
			return err
		}
		l, err := launchRowKernel(ctx, dev, mod, name, d, rows)
		if err != nil {
			return err
		}
		if err := d.y.Download(y); err != nil {
			return err
		}
		run := base(kernel, name, l)
		slots, useful := preds[i].LaneSlots, preds[i].Useful
		run.LaneSlots, run.UsefulShare = &slots, &useful
		bad := FirstMismatchScaled(y, m.Want, m.Scale, RelTolerance)
		run.Correct = bad == len(m.Want)
		if !run.Correct {
			r.Failures = append(r.Failures, fmt.Sprintf("%s %s wrong at row %d: got %.9g, want %.9g",
				m.Name, kernelLabel(kernel), bad, y[bad], m.Want[bad]))
		}
		ms, kind, _, err := timeIt(dev, l, o, func() error {
			_, err := launchRowKernel(ctx, dev, mod, name, d, rows)
			return err
		})
		if err != nil {
			return err
		}
		run.TimeMs, run.TimeKind, run.GFlops = ms, kind, gflops(ms)
		if probeMs > 0 {
			run.XFloor = ms / probeMs
		}
		r.Runs = append(r.Runs, run)
	}
	return nil
}

// kernelLabel is how the tables name a kernel.
func kernelLabel(kernel string) string {
	switch kernel {
	case ProbeRun:
		return "stream probe (floor)"
	case ThreadPerRowRun:
		return "thread per row"
	case WarpPerRowRun:
		return "warp per row"
	}
	return kernel
}

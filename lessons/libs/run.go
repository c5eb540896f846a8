package libs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sparse"
	"github.com/warplab/warplab/sparse/gen"
	"github.com/warplab/warplab/sparse/spmvref"
)

// Tolerance is the check's relative tolerance: |y - reference| at most
// 1e-5 of the row's sum of |val·x| (spmvref.RelTolerance, the Day-37 check).
// The reference sums in float64; the kernels sum in float32 and in another
// order (lanes stride the row, shuffles fold a tree, merge path adds
// carries atomically in any order). Each float32 addition rounds by at most
// 2^-24 of its result, so two orders of n terms part by at most about
// n·2^-24 of the row's |val·x| sum, and by about √n·2^-24 typically: for the
// longest row here (1442) that is 2.3e-6 typically, 8.6e-5 at worst. So y is
// not bit-exact against the reference, nor between kernels; 1e-5 leaves
// room for the typical error while a wrong entry or a lost carry (at least
// one whole product) fails.
const Tolerance = spmvref.RelTolerance

// Options choose the lesson's inputs and how it runs. The zero value runs
// the seed pair at 2^14 rows, every method, 3 warm-ups and 10 timed runs.
type Options struct {
	// SeedRows are the sizes at which the Day-37 pair (even, skewed) is
	// built; each a multiple of 32, at least 448. Nil means {1 << 14};
	// an empty non-nil slice means no seed matrices.
	SeedRows []int
	// Families are sparse/gen families (gen.Names) generated at each of
	// FamilyRows after the seed pair, deterministic from Seed: the corpus.
	Families []string
	// FamilyRows are the families' sizes, each from gen.MinRows to
	// gen.MaxRows (stencil27 rounds down to a cube). Nil means SeedRows.
	FamilyRows []int
	// Seed is the generator's seed (0 means CorpusSeed). Another seed gives
	// the same shapes with other draws: matrices no rule was fitted on.
	Seed uint64
	// Matrices are Matrix Market files run after the families.
	Matrices []string
	// Methods restricts the methods run (names from Methods()); nil means
	// all. The chooser's pick is always run.
	Methods []string
	// CopyBytes is the size of the copy that gives the bandwidth reference:
	// 0 means 256 MiB on a GPU and, on the simulator, half the largest seed
	// matrix's minimum bytes (read plus write = that SpMV's); negative skips it.
	CopyBytes int64
	// Warmups and Runs are the GPU timing protocol (0: 3 and 10). The
	// simulator's time is a model: one checked launch gives it.
	Warmups, Runs int
	// MaxPasses skips a method whose longest row is more than this many
	// dependent passes of its group (CSR-vector: the row over W lanes;
	// binned: over 256 past BlockRowMin): such a run would take seconds on
	// a matrix with a dense row (a row of 2^23 is 4 Mi passes of 2 lanes)
	// and is recorded as skipped, with the reason, instead of timed. 0
	// means DefaultMaxPasses; negative, no limit. The chooser's pick is
	// run whatever its passes.
	MaxPasses int
	// DumpDir, if set, receives each matrix as WriteCSRFile writes it
	// (<key>.csr) before it runs: the peer program's input.
	DumpDir string
	// Progress, if set, is told each stage as it starts.
	Progress func(stage string, done, total int)
}

// DefaultRows is the seed pair's size when Options.SeedRows is nil.
const DefaultRows = 1 << 14

// DefaultMaxPasses is Options.MaxPasses' default: 2^15 passes, tens of
// milliseconds a run at the H200's dependent-load latency.
const DefaultMaxPasses = 1 << 15

// CorpusSeed is the generator's seed of the recorded corpus runs.
const CorpusSeed = 1

// CorpusRows are the corpus's sizes, 2^14 to 2^23 rows: from a matrix an
// H200 cannot fill to one that streams a gigabyte.
var CorpusRows = []int{1 << 14, 1 << 17, 1 << 20, 1 << 23}

// familyRowsWant says what a family size lacks, "" when it is one.
func familyRowsWant(r int) string {
	if r < gen.MinRows || r > gen.MaxRows {
		return fmt.Sprintf("want %d to %d rows", gen.MinRows, gen.MaxRows)
	}
	return ""
}

// seedRowsWant says what a seed size lacks ("want ..."), "" when it is
// one: Options' error and --rows say it alike.
func seedRowsWant(r int) string {
	if r%WarpSize != 0 || r < spmvref.HeavyRowLen || r > (1<<31-1)/spmvref.EvenRowLen {
		return fmt.Sprintf("want a multiple of 32 from 448 to %d", (1<<31-1)/spmvref.EvenRowLen)
	}
	return ""
}

func (o Options) normalize() (Options, error) {
	if o.SeedRows == nil {
		o.SeedRows = []int{DefaultRows}
	}
	for _, r := range o.SeedRows {
		if want := seedRowsWant(r); want != "" {
			return o, fmt.Errorf("libs: seed rows %d: %s", r, want)
		}
	}
	all := Methods()
	for _, m := range o.Methods {
		if !slices.Contains(all, m) {
			return o, fmt.Errorf("libs: no method %q (methods: %s)", m, strings.Join(all, ", "))
		}
	}
	if o.Warmups < 0 || o.Runs < 0 {
		return o, fmt.Errorf("libs: Warmups %d, Runs %d: want 0 (3 and 10) or more", o.Warmups, o.Runs)
	}
	if o.Warmups == 0 {
		o.Warmups = gpuext.DefaultWarmups
	}
	if o.Runs == 0 {
		o.Runs = gpuext.DefaultRuns
	}
	if o.FamilyRows == nil {
		o.FamilyRows = o.SeedRows
	}
	if o.MaxPasses == 0 {
		o.MaxPasses = DefaultMaxPasses
	}
	for _, f := range o.Families {
		if _, err := gen.Lookup(f); err != nil {
			return o, fmt.Errorf("libs: %w", err)
		}
	}
	if len(o.Families) > 0 {
		if len(o.FamilyRows) == 0 {
			return o, errors.New("libs: families without sizes: give FamilyRows")
		}
		for _, r := range o.FamilyRows {
			if want := familyRowsWant(r); want != "" {
				return o, fmt.Errorf("libs: family rows %d: %s", r, want)
			}
		}
	}
	if o.Seed == 0 {
		o.Seed = CorpusSeed
	}
	if len(o.SeedRows) == 0 && len(o.Matrices) == 0 && len(o.Families) == 0 {
		return o, errors.New("libs: no matrices: give SeedRows, Families or Matrices")
	}
	return o, nil
}

// normalizeRun is normalize for RunInputs, whose matrices come built.
func (o Options) normalizeRun() (Options, error) {
	o.Matrices = []string{"(built)"}
	n, err := o.normalize()
	n.Matrices = nil
	return n, err
}

// Validate reports options that cannot run, without building anything.
func (o Options) Validate() error { _, err := o.normalize(); return err }

// Input is one matrix of the lesson with its CPU reference.
type Input struct {
	*spmvref.Matrix
	Key  string // "even-2^14", "skewed-2^23", "rajat01": what tables, JSON and the peer program call it
	File string // the Matrix Market file it was read from; "" for a generated matrix
}

// SeedKey names a seed matrix at a size: "even-2^19", or "even-1000" for a
// size that is not a power of two.
func SeedKey(name string, rows int) string {
	if rows > 0 && rows&(rows-1) == 0 {
		return fmt.Sprintf("%s-2^%d", name, int(math.Log2(float64(rows))))
	}
	return fmt.Sprintf("%s-%d", name, rows)
}

// FamilyKey names a generated matrix: "powerlaw20-2^20" (SeedKey's
// form).
func FamilyKey(family string, rows int) string { return SeedKey(family, rows) }

// FamilyInput generates family at rows from seed and wraps it as an input
// (NewInput) under FamilySeedKey (FamilyKey for CorpusSeed).
func FamilyInput(family string, rows int, seed uint64) (Input, error) {
	f, err := gen.Lookup(family)
	if err != nil {
		return Input{}, fmt.Errorf("libs: %w", err)
	}
	c, err := f.Generate(rows, seed)
	if err != nil {
		return Input{}, fmt.Errorf("libs: %w", err)
	}
	return NewInput(FamilySeedKey(family, rows, seed), c), nil
}

// Family is the corpus family of a matrix key: the generated family
// ("powerlaw20" of "powerlaw20-2^20"), "seed" for the seed pair, and the
// key itself for a file (each SuiteSparse matrix is its own family, for a
// leave-one-family-out judgement).
func Family(key string) string {
	name, _, _ := strings.Cut(key, "-")
	if name == "even" || name == "skewed" {
		return "seed"
	}
	for _, f := range gen.Names() {
		if f == name && name != key {
			return f
		}
	}
	return key
}

// Inputs builds the matrices of opts in order: the seed pair at each size,
// the families at each of their sizes, then the files. A file named twice
// (--matrix and --corpus's SuiteSparse set may both name one) runs once;
// two inputs of one key are refused, since the lesson's tables, the
// recorded runs and `warplab timemodel libs` tell matrices apart by key.
func Inputs(opts Options) ([]Input, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	var out []Input
	for _, r := range o.SeedRows {
		ms, err := spmvref.SeedMatrices("libs", r)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			out = append(out, Input{Matrix: m, Key: SeedKey(m.Name, r)})
		}
	}
	for _, f := range o.Families {
		for _, r := range o.FamilyRows {
			in, err := FamilyInput(f, r, o.Seed)
			if err != nil {
				return nil, err
			}
			out = append(out, in)
		}
	}
	files := map[string]bool{}
	for _, p := range o.Matrices {
		if abs, err := filepath.Abs(p); err == nil {
			if files[abs] {
				continue
			}
			files[abs] = true
		}
		m, err := spmvref.FileMatrix("libs", p)
		if err != nil {
			return nil, err
		}
		if m.CSR.Rows == 0 {
			return nil, fmt.Errorf("libs: %s has no rows", p)
		}
		out = append(out, Input{Matrix: m, Key: strings.TrimSuffix(filepath.Base(p), ".mtx"), File: p})
	}
	return out, uniqueKeys(out)
}

// uniqueKeys refuses two inputs of one key, naming both.
func uniqueKeys(ins []Input) error {
	first := map[string]Input{}
	for _, in := range ins {
		if prev, ok := first[in.Key]; ok {
			return fmt.Errorf("libs: %s and %s are both %q: the lesson tells matrices apart by name; rename one file", prev.source(), in.source(), in.Key)
		}
		first[in.Key] = in
	}
	return nil
}

// source says where an input came from: its file, or that it was generated.
func (in Input) source() string {
	if in.File != "" {
		return in.File
	}
	return "a generated matrix"
}

// NewInput wraps a CSR matrix as an input under key, with the seed's x
// (x[c] = c%13 + 1), the float64 CPU reference and the per-row scales the
// check is relative to.
func NewInput(key string, csr *sparse.CSR) Input {
	return Input{Matrix: spmvref.NewMatrix(key, csr, csr.NNZ()), Key: key}
}

// Device identifies where the lesson ran.
type Device struct {
	Name  string `json:"name"`
	SMs   int    `json:"sms"`
	Model string `json:"model"`
	CC    string `json:"cc"`
	// TimedFrom, on the simulator, is the code its times follow
	// (gpuext.Device.TimedFrom: the PTX, or ptxas's SASS with
	// WARPLAB_SASS=1).
	TimedFrom string `json:"timed_from,omitempty"`
}

// Timing is the code a simulator run's times follow, in words: TimedFrom,
// or "the PTX" for a result recorded before the field was (the PTX was
// all the simulator timed then).
func (d Device) Timing() string {
	if d.TimedFrom == "" {
		return "the PTX"
	}
	return d.TimedFrom
}

// Prep is one method's one-time preparation on one matrix, timed apart from
// the SpMV as cuSPARSE's analysis is: host wall clock for building the bins
// or partitions and uploading them (measured on either backend; the
// simulator's "upload" is a copy in host memory).
type Prep struct {
	Method string  `json:"method"`
	HostMs float64 `json:"host_ms"`
	// DeviceMs is the preparation's kernels alone, timed as an SpMV is
	// (CUDA events, mean; modeled on the simulator), where it runs on the
	// device: every method's now (binning's since its counting sort moved
	// there); 0 in runs recorded before that, when binning was made on the
	// host.
	DeviceMs float64         `json:"device_ms,omitempty"`
	TimeKind gpuext.TimeKind `json:"time_kind,omitempty"`
	Bytes    int64           `json:"bytes"` // device memory the preparation holds
	Note     string          `json:"note"`
}

// KernelRun is one method on one matrix.
type KernelRun struct {
	Method   string          `json:"method"`
	Kernels  string          `json:"kernels"`  // the CUDA kernels launched, in order, "+"-joined
	Launches int             `json:"launches"` // per SpMV
	TimeMs   float64         `json:"time_ms"`  // per SpMV, preparation excluded
	MinMs    float64         `json:"min_ms"`
	TimeKind gpuext.TimeKind `json:"time_kind"`
	GBs      float64         `json:"gb_s"` // MinBytes / TimeMs
	Correct  bool            `json:"correct"`
	MaxErr   float64         `json:"max_rel_err"` // max |y - ref| / row scale
	// Skipped, when set, says why the method was not run (Options.MaxPasses).
	Skipped string `json:"skipped,omitempty"`
	// Predicted: the lane-slot model on the host (see Predict).
	PredSlots  int64   `json:"pred_slots"`
	PredUseful float64 `json:"pred_useful"`
	// Simulator only (nil on a GPU): the nonzero loop's lane-slots and
	// useful share as executed, and all global-load sectors and DRAM bytes.
	SimSlots   *int64   `json:"sim_slots,omitempty"`
	SimUseful  *float64 `json:"sim_useful,omitempty"`
	SimNonzero *int64   `json:"sim_nonzero_lanes,omitempty"`
	Requests   *int64   `json:"requests,omitempty"`
	Sectors    *int64   `json:"sectors,omitempty"`
	DRAMBytes  *int64   `json:"dram_bytes,omitempty"`
}

// MatrixResult is everything about one matrix.
type MatrixResult struct {
	Key   string   `json:"key"`
	Rows  int      `json:"rows"`
	Cols  int      `json:"cols"`
	NNZ   int      `json:"nnz"`
	Stats RowStats `json:"stats"`
	// XSectors is XSectorsPerNonzero of the matrix's columns, recorded so
	// that a later fit can judge a column-locality rule; 0 in runs made
	// before it was recorded.
	XSectors float64     `json:"x_sectors_per_nonzero,omitempty"`
	Choice   Choice      `json:"choice"`
	MinBytes int64       `json:"min_bytes"` // rowPtr + colIdx + val + x read once, y written once
	Bins     []Bin       `json:"bins"`
	Prep     []Prep      `json:"prep"`
	Runs     []KernelRun `json:"runs"`
}

// ChooserStats is what the chooser reads of a recorded matrix: its row
// statistics with the column locality (XSectors) it was recorded with.
func (m MatrixResult) ChooserStats() RowStats {
	s := m.Stats
	s.XSectors = m.XSectors
	return s
}

// CopyRun is the bandwidth reference: read plus write bytes over time.
type CopyRun struct {
	What     string          `json:"what"` // "cuMemcpyDtoD" | "copyFloat4 kernel"
	Bytes    int64           `json:"bytes"`
	TimeMs   float64         `json:"time_ms"`
	GBs      float64         `json:"gb_s"` // 2 × Bytes / time
	TimeKind gpuext.TimeKind `json:"time_kind"`
}

// Result is the lesson's output, also its JSON.
type Result struct {
	Lesson    string         `json:"lesson"` // "libs"
	Backend   gpuext.Kind    `json:"backend"`
	Device    Device         `json:"device"`
	Driver    string         `json:"driver,omitempty"`
	Date      string         `json:"date"`
	Warmups   int            `json:"warmups"`
	TimedRuns int            `json:"timed_runs"`
	Copy      []CopyRun      `json:"copy"`
	Matrices  []MatrixResult `json:"matrices"`
	Failures  []string       `json:"failures"`
}

// OK reports whether every output matched the reference.
func (r *Result) OK() bool { return len(r.Failures) == 0 }

// MinBytes is the least an SpMV can move: rowPtr, colIdx, val and x read
// once, y written once.
func MinBytes(rows, cols, nnz int) int64 {
	return int64(rows+1)*4 + int64(nnz)*8 + int64(cols)*4 + int64(rows)*4
}

// Run runs the lesson on dev: for each matrix, row statistics and the
// chooser's pick, the one-time preparations (timed), then every method once
// checked against the CPU reference and timed (CUDA events on a GPU,
// modeled on the simulator); and the copy reference. A wrong output is
// recorded in Failures and the lesson goes on; an error means it could not
// run.
func Run(ctx context.Context, dev *gpuext.Device, opts Options) (_ *Result, err error) {
	defer func() { err = ctxError(ctx, err) }()
	if dev == nil {
		return nil, errors.New("libs: Run: nil device (open one with gpuext.Open)")
	}
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	r := newResult(dev, o)
	mod := Module()
	done, total := 0, 1+len(o.SeedRows)*2+len(o.Families)*len(o.FamilyRows)+len(o.Matrices)
	progress := func(s string) {
		if o.Progress != nil {
			o.Progress(s, done, total)
		}
		done++
	}
	progress("copy")
	if r.Copy, err = runCopy(ctx, dev, mod, o); err != nil {
		return nil, err
	}
	if r.Copy == nil {
		r.Copy = []CopyRun{}
	}
	// One matrix at a time, built, run and dropped, so that the 2^23 pair
	// is never in host memory together with everything else.
	var sizes [][]int
	for _, rows := range o.SeedRows {
		sizes = append(sizes, []int{rows})
	}
	// Building a seed pair or parsing a file is seconds of CPU at large
	// sizes in packages spmv and sparse, which take no ctx: Ctrl-C returns
	// now and leaves it to finish in the background.
	inputs := func(o Options) ([]Input, error) {
		return lesson.Interruptible(ctx, func() ([]Input, error) { return Inputs(o) })
	}
	for _, s := range sizes {
		ins, err := inputs(Options{SeedRows: s})
		if err != nil {
			return nil, err
		}
		for _, in := range ins {
			progress(in.Key)
			if err := runInput(ctx, dev, mod, in, o, r); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range o.Families {
		for _, rows := range o.FamilyRows {
			in, err := lesson.Interruptible(ctx, func() (Input, error) { return FamilyInput(f, rows, o.Seed) })
			if err != nil {
				return nil, err
			}
			progress(in.Key)
			if err := runInput(ctx, dev, mod, in, o, r); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range o.Matrices {
		ins, err := inputs(Options{SeedRows: []int{}, Matrices: []string{p}})
		if err != nil {
			return nil, err
		}
		progress(ins[0].Key)
		if err := runInput(ctx, dev, mod, ins[0], o, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ctxError is err, or, when ctx is done and err does not already say so,
// an error wrapping ctx's (a launch the simulator stopped fails with a
// "cancelled" fault, which does not say why).
func ctxError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); err != nil && cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}

// ResidentThreads is how many threads dev holds at once, the chooser's
// measure of "small": SMs × threads per SM of its model.
func ResidentThreads(dev *gpuext.Device) int {
	m := dev.Model()
	return m.SMs * m.MaxThreadsPerSM
}

// RunInputs is Run over inputs already built (NewInput, Inputs), with
// opts' methods and timing; opts' matrices are ignored and the copy
// reference is skipped unless opts.CopyBytes is positive.
func RunInputs(ctx context.Context, dev *gpuext.Device, ins []Input, opts Options) (_ *Result, err error) {
	defer func() { err = ctxError(ctx, err) }()
	if dev == nil {
		return nil, errors.New("libs: RunInputs: nil device")
	}
	opts.SeedRows, opts.Matrices = []int{}, nil
	o, err := opts.normalizeRun()
	if err != nil {
		return nil, err
	}
	r := newResult(dev, o)
	mod := Module()
	if o.CopyBytes > 0 {
		if r.Copy, err = runCopy(ctx, dev, mod, o); err != nil {
			return nil, err
		}
	}
	for _, in := range ins {
		if err := runInput(ctx, dev, mod, in, o, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func newResult(dev *gpuext.Device, o Options) *Result {
	major, minor := dev.ComputeCapability()
	r := &Result{Lesson: "libs", Backend: dev.Kind(), Failures: []string{}, Copy: []CopyRun{},
		Device: Device{Name: dev.Name(), SMs: dev.SMs(), Model: dev.Model().Key, CC: fmt.Sprintf("%d.%d", major, minor), TimedFrom: dev.TimedFrom()},
		Date:   time.Now().UTC().Format(time.RFC3339)}
	if dev.Kind() == gpuext.GPU {
		r.Warmups, r.TimedRuns = o.Warmups, o.Runs
	}
	return r
}

// methodsFor is what runs on one matrix: the asked methods (all by
// default) plus the choice.
func methodsFor(o Options, choice string) []string {
	ms := o.Methods
	if ms == nil {
		ms = Methods()
	}
	if !slices.Contains(ms, choice) {
		ms = append(slices.Clone(ms), choice)
	}
	return ms
}

func runInput(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, in Input, o Options, r *Result) error {
	c := in.CSR
	st := StatsOf(in.Lengths)
	st.XSectors = XSectorsPerNonzero(c.ColIdx)
	mr := MatrixResult{Key: in.Key, Rows: c.Rows, Cols: c.Cols, NNZ: c.NNZ(), Stats: st, XSectors: st.XSectors, Choice: Choose(st, ResidentThreads(dev)),
		MinBytes: MinBytes(c.Rows, c.Cols, c.NNZ())}
	if o.DumpDir != "" {
		if _, err := WriteCSRFile(o.DumpDir, in); err != nil {
			return err
		}
	}
	d, err := upload(dev, in)
	if err != nil {
		return err
	}
	defer d.free()
	methods := methodsFor(o, mr.Choice.Method)
	y := make([]float32, c.Rows)
	for _, m := range methods {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p := CriticalPasses(st, m); m != mr.Choice.Method && o.MaxPasses > 0 && p > o.MaxPasses {
			mr.Runs = append(mr.Runs, KernelRun{Method: m, Skipped: fmt.Sprintf(
				"not run: the longest row (%d) is %d dependent passes of this method's group, over the limit of %d", st.Max, p, o.MaxPasses)})
			continue
		}
		if p, err := d.prepare(ctx, dev, mod, o, m); err != nil {
			return err
		} else if p != nil {
			mr.Prep = append(mr.Prep, *p)
			if m == MethodBinned {
				mr.Bins = d.bins.recorded()
			}
		}
		steps, err := d.plan(mod, m)
		if err != nil {
			return fmt.Errorf("libs: %s on %s: %w", m, in.Key, err)
		}
		ls, names, err := d.checkedRun(ctx, dev, steps, y)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				err = cerr // the simulator's "cancelled" fault: say it was ctx
			}
			return fmt.Errorf("libs: %s on %s: %w", m, in.Key, err)
		}
		run := KernelRun{Method: m, Kernels: strings.Join(names, "+"), Launches: len(names)}
		run.MaxErr, run.Correct = maxRelErr(y, in.Want, in.Scale)
		if !run.Correct {
			bad := spmvref.FirstMismatchScaled(y, in.Want, in.Scale, Tolerance)
			r.Failures = append(r.Failures, fmt.Sprintf("%s %s wrong at row %d: got %.9g, want %.9g",
				in.Key, m, bad, y[bad], in.Want[bad]))
		}
		run.PredSlots, run.PredUseful = Predict(c, m)
		simCounters(&run, ls, names)
		if ls[0].Stats != nil {
			for _, l := range ls {
				run.TimeMs += l.Stats.Time.Seconds * 1e3
			}
			run.MinMs, run.TimeKind = run.TimeMs, gpuext.Modeled
		} else {
			t, err := dev.Time(func() error { _, _, err := runPlan(ctx, dev, steps); return err }, o.Warmups, o.Runs)
			if err != nil {
				return fmt.Errorf("libs: timing %s on %s: %w", m, in.Key, err)
			}
			run.TimeMs, run.MinMs, run.TimeKind = t.MeanMs, t.MinMs, t.Kind
			r.Driver = t.Driver
		}
		if run.TimeMs > 0 {
			run.GBs = float64(mr.MinBytes) / (run.TimeMs * 1e-3) / 1e9
		}
		mr.Runs = append(mr.Runs, run)
	}
	r.Matrices = append(r.Matrices, mr)
	return nil
}

// checkedLaunch runs one SpMV by method (prepared) into y: y on the device
// is filled with NaN first, so a row no thread writes cannot pass as the
// previous method's answer. It returns the launches and their kernels.
func (d *devMatrix) checkedLaunch(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, method string, y []float32) ([]*gpuext.Launch, []string, error) {
	steps, err := d.plan(mod, method)
	if err != nil {
		return nil, nil, err
	}
	return d.checkedRun(ctx, dev, steps, y)
}

// checkedRun is checkedLaunch of a method already planned: run plans a
// method once for its checked launch and its timed ones.
func (d *devMatrix) checkedRun(ctx context.Context, dev *gpuext.Device, steps []launchStep, y []float32) ([]*gpuext.Launch, []string, error) {
	if err := d.y.Fill(float32(math.NaN())); err != nil {
		return nil, nil, err
	}
	ls, names, err := runPlan(ctx, dev, steps)
	if err != nil {
		return nil, nil, err
	}
	return ls, names, d.y.Download(y)
}

// CriticalPasses is the dependent passes the longest row of a matrix with
// statistics s costs one group of method: CSR-vector max/W (a quarter of
// that with float4 loads), binned max/256 past BlockRowMin (else at most
// 32), split and merge path at most SplitPasses and MergeItems.
func CriticalPasses(s RowStats, method string) int {
	if w, v4, ok := parseVector(method); ok {
		if v4 {
			return ceilDiv(s.Max, 4*w)
		}
		return ceilDiv(s.Max, w)
	}
	switch {
	case method == MethodBinned && s.Max > BlockRowMin:
		return ceilDiv(s.Max, ThreadsPerBlock)
	case method == MethodBinned:
		return min(ceilDiv(s.Max, max(1, BinWidth(s.Max))), 32)
	case method == MethodMerge:
		return MergeItems
	case method == MethodTile || method == MethodTileV4:
		return TileNZ / WarpSize
	}
	return SplitPasses
}

// maxRelErr returns the largest |got - want| / scale (1e30 for a NaN or
// infinite output) and whether every row is within Tolerance (NaN fails).
func maxRelErr(got, want, scale []float32) (float64, bool) {
	worst, ok := 0.0, true
	for i, w := range want {
		s := float64(scale[i])
		if s == 0 {
			s = 1
		}
		e := math.Abs(float64(got[i])-float64(w)) / s
		if !(e <= float64(Tolerance)) {
			ok = false
		}
		if math.IsNaN(e) || math.IsInf(e, 0) {
			e = 1e30 // a NaN or infinite output; JSON has no Inf
		}
		worst = max(worst, e)
	}
	return worst, ok
}

// simCounters sums the simulator's counters over a method's launches
// (names: their kernels), and counts the nonzero loop's lane-slots from the
// read-only float loads, val's and x's: each nonzero is one val and one x,
// read by a scalar load (one a lane) or, val's in the float4 body, by a
// v4 load (four a lane). Half their lane-slots and active lanes are the
// nonzero loop's. Merge path's fixup (its carries are floats too) and
// split's __ldcg reads of partial sums (ld.global.cg) are not the loop.
// The count reads the PTX instruction in each site's label, not the .cu
// line, which for these inlined templates names the kernel's wrapper.
func simCounters(run *KernelRun, ls []*gpuext.Launch, names []string) {
	if len(ls) == 0 || ls[0].Stats == nil {
		return
	}
	var req, sec, dram, slots, lanes int64
	for i, l := range ls {
		st := l.Stats
		req += st.GlobalLoad.Requests
		sec += st.GlobalLoad.Sectors
		dram += st.DRAMReadBytes + st.DRAMWriteBytes
		if i < len(names) && names[i] == KernelMergeFixup {
			continue
		}
		for _, s := range st.Sites {
			if per := valSite(s); per > 0 {
				slots += int64(per) * s.LaneSlots
				lanes += int64(per) * s.ActiveLanes
			}
		}
	}
	slots, lanes = slots/2, lanes/2
	run.Requests, run.Sectors, run.DRAMBytes, run.SimSlots, run.SimNonzero = &req, &sec, &dram, &slots, &lanes
	if slots > 0 {
		u := float64(lanes) / float64(slots)
		run.SimUseful = &u
	}
}

// valSite says whether a simulator site is a read-only float load of the
// nonzero loop (val or x: non-coherent, or streaming as spmvTile loads
// val) and how many nonzeros one lane of it reads: 4 for a float4 load, 1
// for a scalar one, 0 for any other.
func valSite(s sim.SiteStats) int {
	if s.Space != "global" || s.Op != "ld" {
		return 0
	}
	switch {
	case strings.Contains(s.Label, "ld.global.nc.v4.f32"), strings.Contains(s.Label, "ld.global.cs.v4.f32"):
		return 4
	case strings.Contains(s.Label, "ld.global.nc.f32"), strings.Contains(s.Label, "ld.global.cs.f32"):
		return 1
	}
	return 0
}

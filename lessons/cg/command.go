package cg

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/lesson"
)

// Default grids of the command line: the article's 100³ on a GPU; on the
// simulator 16³, which runs all stages in about half a minute on two cores
// (20³ about twice that).
const (
	DefaultGPUGrid = 100
	DefaultSimGrid = 16
)

// MaxSimRows caps the grid the simulator accepts from the command line. The
// simulator runs every thread of every launch in Go, about a microsecond
// per simulated thread-step on a laptop core: 64³ rows would take minutes
// per stage, 100³ most of an hour. Larger grids belong on a GPU.
const MaxSimRows = 64 * 64 * 64

// Options is one run of the lesson: the grid, the stages and how each
// stage runs. The zero Grid means DefaultGPUGrid on a GPU and
// DefaultSimGrid on the simulator; no Stages means all of them.
type Options struct {
	Grid   Grid  // zero: DefaultGPUGrid or DefaultSimGrid by device
	Stages []int // which stages, in order; nil: 0 to Stages-1
	Run    RunOptions
	// Progress, if set, is told each stage as it starts, with the stages
	// done and the total.
	Progress func(stage string, done, total int)
}

// Report is the lesson's result, what `warplab run cg --json` writes: the
// run and one entry per stage.
type Report struct {
	Lesson  string         `json:"lesson"`
	Backend string         `json:"backend"`
	Device  string         `json:"device"`
	Grid    [3]int         `json:"grid"`
	Date    string         `json:"date"`
	Stages  []*StageResult `json:"stages"`
	// Failures are the stages whose residual history left stage 0's
	// tolerance (see ResidualComparison).
	Failures []string `json:"failures"`
	// Header is the line naming the problem, first in WriteText.
	Header string `json:"-"`
}

// Validate checks o without a device: the stages, the grid's size and the
// per-stage options.
func (o Options) Validate() error {
	for _, s := range o.Stages {
		if s < 0 || s >= Stages {
			return fmt.Errorf("cg: stage %d: want 0 to %d", s, Stages-1)
		}
	}
	if o.Grid != (Grid{}) {
		if _, err := EstimateBytes(o.Grid); err != nil {
			return err
		}
	}
	_, err := o.Run.withDefaults()
	return err
}

// ParseStages reads --stage: one stage 0..10, a comma-separated list (each
// stage once, in the order given), or "all".
func ParseStages(s string) ([]int, error) {
	if strings.TrimSpace(s) == "all" {
		all := make([]int, Stages)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 || v >= Stages {
			return nil, fmt.Errorf("--stage %q: want 0 to %d, a comma-separated list, or all", s, Stages-1)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// Run runs the stages of opts on dev (dev may be nil when only stage 0, the
// CPU, runs): it generates the problem and runs stage 0 as the reference
// whenever another stage runs. ctx stops it while it generates the
// problem, between stage 0's iterations, and between the operations and
// inside the simulator's launches of a device stage (a kernel already
// queued on a GPU runs to its end); Run then returns an error wrapping
// ctx's.
func Run(ctx context.Context, dev *gpuext.Device, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	stages := opts.Stages
	if len(stages) == 0 {
		stages, _ = ParseStages("all")
	}
	needDev := false
	for _, s := range stages {
		needDev = needDev || s > 0
	}
	if needDev && dev == nil {
		return nil, errors.New("cg: Run: stages 1 and up need a device (open one with gpuext.Open)")
	}
	onSim := dev == nil || dev.Kind() == gpuext.Sim
	g := opts.Grid
	if g == (Grid{}) {
		g = Cube(DefaultGPUGrid)
		if onSim {
			g = Cube(DefaultSimGrid)
		}
	}
	if needDev && onSim {
		if rows, err := g.Rows(); err == nil && rows > MaxSimRows {
			return nil, fmt.Errorf("grid %v has %d rows; the simulator takes at most %d (64³) from the command line — it runs every thread in Go and would take many minutes per stage. Use a smaller --grid or --backend gpu", g, rows, MaxSimRows)
		}
	}
	p, err := GenerateContext(ctx, g, GenOptions{})
	if err != nil {
		return nil, err
	}
	rep := &Report{Lesson: "cg", Backend: "cpu", Device: "cpu", Grid: g.Dims(), Date: time.Now().UTC().Format(time.RFC3339), Failures: []string{}}
	if dev != nil {
		rep.Backend, rep.Device = dev.Kind().String(), dev.Name()
	}
	rep.Header = fmt.Sprintf("HPCCG CG on a %v grid: %d rows, %d nonzeros, ‖b‖ = %.17g", g, p.A.Rows, p.A.NNZ(), p.NormB())
	progress := func(string, int, int) {}
	if opts.Progress != nil {
		progress = opts.Progress
	}

	var ref *StageResult
	total := len(stages)
	if needDev && stages[0] != 0 {
		// Stage 0 is the reference every other stage's residuals are
		// compared with; run it even when it is not printed.
		total++
		progress(fmt.Sprintf("stage 0 (%s), the reference", StageName(0)), 0, total)
		r, err := RunStageContext(ctx, nil, p, 0, opts.Run)
		if err != nil {
			return nil, err
		}
		ref = r
	}
	for i, s := range stages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		progress(fmt.Sprintf("stage %d (%s)", s, StageName(s)), total-len(stages)+i, total)
		warm := 0
		if s > 0 && dev != nil && dev.Kind() == gpuext.GPU {
			warm = opts.Run.WarmupSolves
		}
		for range warm {
			if _, err := RunStageContext(ctx, dev, p, s, opts.Run); err != nil {
				return nil, fmt.Errorf("warm-up solve: %w", err)
			}
		}
		r, err := RunStageContext(ctx, dev, p, s, opts.Run)
		if err != nil {
			return nil, err
		}
		r.WarmupSolves = warm
		if s == 0 {
			ref = r
		} else if ref != nil {
			c := CompareResiduals(ref, r)
			r.VsStage0 = &c
			if !c.WithinTolerance {
				rep.Failures = append(rep.Failures, fmt.Sprintf("stage %d (%s): residual history outside stage 0's tolerance: %s", s, r.Name, c.String()))
			}
		}
		rep.Stages = append(rep.Stages, r)
	}
	return rep, nil
}

// WriteText writes the header, each stage's report and the summary table.
func (rep *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if rep.Header != "" {
		fmt.Fprintf(bw, "%s\n\n", rep.Header)
	}
	for _, r := range rep.Stages {
		WriteStageReport(bw, r)
		fmt.Fprintln(bw)
	}
	WriteSummary(bw, rep.Stages)
	return bw.Flush()
}

// WriteJSON writes the report as indented JSON.
func (rep *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// OK reports whether every stage's residuals stayed within stage 0's
// tolerance.
func (rep *Report) OK() bool { return len(rep.Failures) == 0 }

// WriteFailures writes one line per failed stage; nothing when OK.
func (rep *Report) WriteFailures(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, f := range rep.Failures {
		fmt.Fprintf(bw, "FAILED: %s\n", f)
	}
	return bw.Flush()
}

// Summary is the lesson's one line, in `warplab help` and its usage.
const Summary = "Porting a CG solver to the GPU, one step at a time (HPCCG's 27-point stencil, stages 0–10)"

// Lesson returns the lesson's descriptor (see package lesson): --grid,
// --stage, --threads-per-row, --unroll and --max-iter bound to an Options.
func Lesson() *lesson.Lesson {
	return &lesson.Lesson{
		Name: "cg",
		Doc:  Summary,
		Flags: func(fs *flag.FlagSet, env lab.Options) lesson.Command {
			l := &cliLesson{grid: "", stage: "all", unroll: 4,
				opts: Options{Run: RunOptions{ThreadsPerRow: DefaultThreadsPerRow, MaxIter: DefaultMaxIter}}}
			l.RegisterFlags(fs)
			return l
		},
		Recorded:  recordedResult,
		Module:    Module,
		SelfTest:  selfTest,
		TimeCheck: timeCheck(),
	}
}

// cliLesson is one run of the lesson from the command line (lesson.Command).

type cliLesson struct {
	opts          Options
	grid, stage   string
	unroll        int
	unroll1Legacy bool
	fs            *flag.FlagSet // to tell --unroll given from its default
}

func (l *cliLesson) RegisterFlags(fs *flag.FlagSet) {
	l.fs = fs
	fs.StringVar(&l.grid, "grid", "", fmt.Sprintf("grid N or NX,NY,NZ (default %d on a GPU, %d on the simulator)", DefaultGPUGrid, DefaultSimGrid))
	fs.StringVar(&l.stage, "stage", "all", "stage 0..10, a list such as 0,3,5, or all")
	fs.IntVar(&l.opts.Run.ThreadsPerRow, "threads-per-row", DefaultThreadsPerRow, "stages 5-7 and 9: threads per matrix row (1, 2, 4, 8, 16 or 32)")
	fs.IntVar(&l.unroll, "unroll", 4, "stages 1-4: 4, the SpMV as nvcc unrolls it; 1, its #pragma unroll 1 variant")
	fs.BoolVar(&l.unroll1Legacy, "unroll1", false, "deprecated: --unroll 1")
	fs.IntVar(&l.opts.Run.MaxIter, "max-iter", DefaultMaxIter, fmt.Sprintf("HPCCG's max_iter, 1 to %d (the loop runs max_iter-1 iterations)", MaxIterLimit))
	fs.IntVar(&l.opts.Run.WarmupSolves, "warmup-solves", 0, "GPU: untimed solves of each stage right before the one reported (0 to 10)")
}

// Validate parses --grid and --stage and checks every value it can
// without a device, each error naming its flag and the range it wants.
func (l *cliLesson) Validate() error {
	if l.unroll != 1 && l.unroll != 4 {
		return fmt.Errorf("--unroll %d: want 1 or 4", l.unroll)
	}
	if l.unroll1Legacy && l.unroll != 1 && l.given("unroll") {
		return fmt.Errorf("--unroll %d and --unroll1 (the old spelling of --unroll 1) disagree: give one", l.unroll)
	}
	l.opts.Run.Unroll1 = l.unroll == 1 || l.unroll1Legacy
	r := l.opts.Run
	switch {
	case r.MaxIter < 1 || r.MaxIter > MaxIterLimit:
		return fmt.Errorf("--max-iter %d: want 1 to %d", r.MaxIter, MaxIterLimit)
	case r.ThreadsPerRow < 1 || r.ThreadsPerRow > 32 || r.ThreadsPerRow&(r.ThreadsPerRow-1) != 0:
		return fmt.Errorf("--threads-per-row %d: want a power of two from 1 to 32", r.ThreadsPerRow)
	case r.WarmupSolves < 0 || r.WarmupSolves > 10:
		return fmt.Errorf("--warmup-solves %d: want 0 to 10", r.WarmupSolves)
	}
	l.opts.Grid = Grid{}
	if l.grid != "" {
		g, err := l.parseGrid()
		if err != nil {
			return err
		}
		l.opts.Grid = g
	}
	st, err := ParseStages(l.stage)
	if err != nil {
		return err
	}
	l.opts.Stages = st
	return l.opts.Validate()
}

// given reports whether the command line set flag name (false before
// RegisterFlags, when nothing was parsed).
func (l *cliLesson) given(name string) bool {
	set := false
	if l.fs != nil {
		l.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	}
	return set
}

// parseGrid reads --grid and checks its size against what Generate takes
// (DefaultMaxBytes), so that a grid no machine runs is a usage error
// naming the largest that runs, not a failure after the device opened.
func (l *cliLesson) parseGrid() (Grid, error) {
	g, err := ParseGrid(l.grid)
	if err != nil {
		return Grid{}, fmt.Errorf("--grid %s", strings.TrimPrefix(err.Error(), "cg: grid "))
	}
	limit := fmt.Sprintf("want every dimension at least 1 and the whole within %s for the matrix and the CG vectors (a cube up to %d³; the simulator takes up to 64³)",
		human(DefaultMaxBytes), MaxCube(0))
	if _, err := g.Rows(); errors.Is(err, ErrInvalidGrid) {
		return Grid{}, fmt.Errorf("--grid %s: every dimension must be at least 1", l.grid)
	}
	b, err := EstimateBytes(g)
	var se *SizeError
	switch {
	case errors.As(err, &se):
		return Grid{}, fmt.Errorf("--grid %s: %s; %s", l.grid, se.Reason, limit)
	case err != nil:
		return Grid{}, fmt.Errorf("--grid %s: %v", l.grid, err)
	case b > DefaultMaxBytes:
		need := human(b)
		if b == math.MaxInt64 {
			need = "more than 2^63 bytes"
		}
		return Grid{}, fmt.Errorf("--grid %s: %v needs %s; %s", l.grid, g, need, limit)
	}
	return g, nil
}

func (l *cliLesson) Run(ctx context.Context, dev *gpuext.Device, p lesson.Progress) (lesson.Result, error) {
	o := l.opts
	o.Progress = p.Stage
	// The simulator's cap depends on the device, so Validate cannot see
	// it; it is the command line's all the same.
	if rows, err := o.Grid.Rows(); err == nil && rows > MaxSimRows && dev != nil && dev.Kind() == gpuext.Sim && needsDevice(o.Stages) {
		return nil, lesson.Usagef("--grid %s: %d rows; the simulator takes at most %d (64³) from the command line, since it runs every thread in Go and would take many minutes per stage: want a smaller --grid, or --backend gpu", l.grid, rows, MaxSimRows)
	}
	rep, err := Run(ctx, dev, o)
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// needsDevice reports whether stages (nil: all) has one past stage 0.
func needsDevice(stages []int) bool {
	if stages == nil {
		return true
	}
	for _, s := range stages {
		if s > 0 {
			return true
		}
	}
	return false
}

// WriteStageReport prints one stage the way HPCCG reports a run (iterations,
// final residual, time and MFLOPS per kernel and in total), plus what the
// lesson adds: true residual, both timers per kernel, copies and launches.
func WriteStageReport(w io.Writer, r *StageResult) {
	fmt.Fprintf(w, "== Stage %d (%s): %s\n", r.Stage, r.Name, StageTitle(r.Stage))
	fmt.Fprintf(w, "   device: %s", r.Device)
	if r.Date != "" {
		fmt.Fprintf(w, ", %s", r.Date)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "   iterations: %d   final residual: %.17g   true residual ‖b−Ax‖: %.3g   max|x−1|: %.3g\n",
		r.Iterations, r.FinalResidual, r.TrueResidual, r.MaxErr)
	fmt.Fprintf(w, "   total time: %.6f s (%s)   %.1f MFLOPS\n", r.WallSeconds, r.TimeKind, r.TotalMFLOPS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "   kernel\twhere\tcalls\tlaunches\ttime (s)\ttimer\thost timer (s)\tMFLOPS\t")
	for _, k := range r.Kernels {
		where := k.Where
		if where == "" {
			where = WhereCPU
		}
		fmt.Fprintf(tw, "   %s\t%s\t%d\t%d\t%.6f\t%s\t%.6f\t%.1f\t\n", k.Name, where, k.Calls, k.Launches, k.Seconds, timerLabel(k), k.HostSeconds, k.MFLOPS)
	}
	tw.Flush()
	t := r.Transfers
	if r.Stage > 0 {
		fmt.Fprintf(w, "   copies: H2D %d (%s), D2H %d (%s), D2D %d (%s): %.6f s (%s)   launches: %d\n",
			t.H2DCalls, bytesLabel(t.H2DBytes), t.D2HCalls, bytesLabel(t.D2HBytes), t.D2DCalls, bytesLabel(t.D2DBytes), t.Seconds, t.TimeKind, r.Launches)
		fmt.Fprintf(w, "   setup (untimed): H2D %d (%s)\n", r.Setup.H2DCalls, bytesLabel(r.Setup.H2DBytes))
	}
	if r.SimSeconds > 0 {
		fmt.Fprintf(w, "   the simulator took %.2f s on this machine\n", r.SimSeconds)
	}
	if c := r.SpMVBefore; c != nil {
		fmt.Fprintf(w, "   SpMV before (%s), one launch: %d load requests, %d sectors, %d ideal: %.1f%% excessive; modeled %.2f µs (%s-bound)\n",
			c.Kernel, c.Requests, c.Sectors, c.IdealSectors, 100*c.ExcessiveShare, 1e6*c.ModeledSeconds, c.Bound)
	}
	if c := r.SpMV; c != nil {
		label := "SpMV"
		if r.SpMVBefore != nil {
			label = "SpMV after"
		}
		fmt.Fprintf(w, "   %s (%s), one launch: %d load requests, %d sectors, %d ideal: %.1f%% excessive; modeled %.2f µs (%s-bound)\n",
			label, c.Kernel, c.Requests, c.Sectors, c.IdealSectors, 100*c.ExcessiveShare, 1e6*c.ModeledSeconds, c.Bound)
	}
	if b := r.Bandwidth; b != nil {
		fmt.Fprintf(w, "   bandwidth (%s): %s per iteration (kernel lower bound) in %.2f µs = %.1f GB/s; copyVector on %d doubles: %.1f GB/s; fraction %.3f\n",
			b.TimeKind, bytesLabel(int64(b.BytesPerIter)), 1e6*r.WallSeconds/float64(max(r.Iterations, 1)), b.AchievedGBps, b.CopyElems, b.CopyGBps, b.Fraction)
	}
	if a := r.Account; a != nil {
		by := "by kernel"
		if a.TimeKind == gpuext.Modeled {
			by = "by kernel, launch overhead included"
		}
		fmt.Fprintf(w, "   where the time goes (%s): kernels %.3f ms (%s: ", a.TimeKind, 1e3*a.KernelSeconds, by)
		for i, k := range r.Kernels {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "%s %.3f", k.Name, 1e3*k.Seconds)
		}
		fmt.Fprintln(w, ")")
		if a.TimeKind == gpuext.Modeled {
			fmt.Fprintf(w, "     + launch overhead %d × %.2f µs = %.3f ms + copies %.3f ms; no overlap, no idle in the model\n",
				r.Launches, 1e6*a.PerLaunchSeconds, 1e3*a.LaunchSeconds, 1e3*a.CopySeconds)
		} else {
			if r.GPUSpanSeconds > 0 {
				fmt.Fprintf(w, "     GPU span of the solve (events before its first and after its last operation) %.3f ms of the host's %.3f ms, of which %.3f ms after the last iteration's work (x downloaded); %d warm-up solves before it\n",
					1e3*r.GPUSpanSeconds, 1e3*r.WallSeconds, 1e3*r.XDownloadSeconds, r.WarmupSolves)
			}
			fmt.Fprintf(w, "     GPU idle (wall − kernels) %.3f ms; copies %d × %.2f µs = %.3f ms; host waiting in copies for queued kernels %.3f ms; launches %d × %.2f µs = %.3f ms (host; mostly overlapped); exposed per sync (copy + one launch) %.3f ms; unexplained idle %.3f ms\n",
				1e3*a.IdleSeconds, r.Transfers.D2HCalls, 1e6*a.PerCopySeconds, 1e3*a.CopySeconds, 1e3*a.SyncWaitSeconds,
				r.Launches, 1e6*a.PerLaunchSeconds, 1e3*a.LaunchSeconds, 1e3*a.ExposedSeconds, 1e3*max(0, a.IdleSeconds-a.ExposedSeconds))
		}
	}
	if c := r.VsStage0; c != nil {
		fmt.Fprintf(w, "   vs stage 0: %s\n", c.String())
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "   note: %s\n", n)
	}
}

func timerLabel(k KernelStat) string {
	switch k.Timer {
	case TimerModel:
		return "modeled"
	case TimerEvent:
		return "CUDA events"
	}
	return "host"
}

// String says in one line how a history compares with stage 0's.
func (c ResidualComparison) String() string {
	if c.Identical {
		return "residual history bit-identical"
	}
	ok := "within"
	if !c.WithinTolerance {
		ok = "OUTSIDE"
	}
	return fmt.Sprintf("first differs at iteration %d; max relative difference %.1e over the %d iterations above √ε·‖b‖ (%s tolerance %.1e)",
		c.FirstDiff, c.MaxEarlyRelDiff, c.EarlyIters, ok, c.Tolerance)
}

func bytesLabel(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// WriteSummary prints the per-stage table: time split, copies, launches and
// numerics.
func WriteSummary(w io.Writer, rs []*StageResult) {
	fmt.Fprintln(w, "Summary (times in ms; kind says measured or modeled)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tname\tbackend\ttotal\tkernels\tcopies\toverhead\tkind\tlaunches\tH2D\tD2H\tD2D\tMiB moved\titers\tfinal residual\ttrue residual\tvs stage 0\t")
	for _, r := range rs {
		b := r.Breakdown()
		t := r.Transfers
		vs := "reference"
		if c := r.VsStage0; c != nil {
			vs = "identical"
			if !c.Identical {
				vs = fmt.Sprintf("≤%.0e early", max(c.MaxEarlyRelDiff, 1e-17))
			}
		} else if r.Stage != 0 {
			vs = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%d\t%d\t%d\t%d\t%.2f\t%d\t%.3e\t%.3e\t%s\t\n",
			r.Stage, r.Name, r.Backend, 1e3*b.Total, 1e3*b.Kernel, 1e3*b.Transfer, 1e3*b.Overhead, r.TimeKind,
			r.Launches, t.H2DCalls, t.D2HCalls, t.D2DCalls, float64(t.H2DBytes+t.D2HBytes)/(1<<20),
			r.Iterations, r.FinalResidual, r.TrueResidual, vs)
	}
	tw.Flush()
}

// recordedResult returns the recorded H200 run of stages 0–8 at 100³
// (Recorded) as a Report, labelled with its GPU, driver and date.
func recordedResult() (lesson.Result, string, error) {
	rs, err := Recorded()
	if err != nil {
		return nil, "", err
	}
	on := lesson.MeasuredOn(RecordedGPU, RecordedDriver, RecordedDate)
	g := rs[len(rs)-1].Grid
	rep := &Report{Lesson: "cg", Backend: "gpu", Device: RecordedGPU + ", driver " + RecordedDriver, Grid: g, Date: RecordedDate, Stages: rs, Failures: []string{},
		Header: fmt.Sprintf("HPCCG CG on a %dx%dx%d grid, recorded: %s (stage 0 on that machine's host CPU)", g[0], g[1], g[2], on)}
	return rep, on, nil
}

package cg

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/warplab/warplab/gpuext"
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

// Options is what Command parsed: the whole run, for callers that want to
// run it without the flag syntax.
type Options struct {
	Backend string // gpuext.Open spec: auto, sim, gpu, gpu:N
	Model   string // simulator model key (t4, a100, h100, h200); "" = h200
	Grid    Grid   // zero: DefaultGPUGrid or DefaultSimGrid by backend
	Stages  []int  // which stages, in order
	JSON    string // file to write the results to ("" none, "-" stdout)
	Run     RunOptions
}

// Report is what `warplab run cg --json` writes: the run and one entry per
// stage.
type Report struct {
	Lesson  string         `json:"lesson"`
	Backend string         `json:"backend"`
	Device  string         `json:"device"`
	Grid    [3]int         `json:"grid"`
	Date    string         `json:"date"`
	Stages  []*StageResult `json:"stages"`
}

// Command implements `warplab run cg [--backend auto|sim|gpu] [--model KEY]
// [--grid NX[,NY,NZ]] [--stage 0..8|all] [--json FILE]`: it runs the
// stages, prints an HPCCG-like report for each and a summary table, and
// writes the JSON report. It returns the process exit status: 0, 1 for a
// failed run, 2 for bad usage. Bad inputs (a grid of 0, a negative or
// too-big grid, an unknown stage or model) are reported before anything is
// allocated.
func Command(args []string, stdout, stderr io.Writer) int {
	opt, err := ParseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "warplab run cg: %v\n", err)
		return 2
	}
	rep, err := Run(opt, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "warplab run cg: %v\n", err)
		return 1
	}
	if opt.JSON != "" {
		if err := writeJSON(opt.JSON, rep, stdout); err != nil {
			fmt.Fprintf(stderr, "warplab run cg: %v\n", err)
			return 1
		}
	}
	return 0
}

// ParseArgs parses Command's flags and checks every value it can without a
// device.
func ParseArgs(args []string, stderr io.Writer) (Options, error) {
	fs := flag.NewFlagSet("warplab run cg", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "auto", "where stages 1-8 run: auto, sim, gpu or gpu:N")
	model := fs.String("model", "", "simulated GPU for --backend sim: t4, a100, h100, h200 (default h200)")
	grid := fs.String("grid", "", fmt.Sprintf("grid N or NX,NY,NZ (default %d on a GPU, %d on the simulator)", DefaultGPUGrid, DefaultSimGrid))
	stage := fs.String("stage", "all", "stage 0..8, a list such as 0,3,5, or all")
	jsonOut := fs.String("json", "", "write the results as JSON to this file (- for stdout)")
	tpr := fs.Int("threads-per-row", DefaultThreadsPerRow, "stages 5 and 6: threads per matrix row (1, 2, 4, 8, 16 or 32)")
	unroll1 := fs.Bool("unroll1", false, "stages 1-4: use the SpMV compiled with #pragma unroll 1")
	maxIter := fs.Int("max-iter", DefaultMaxIter, "HPCCG's max_iter (the loop runs max_iter-1 iterations)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: warplab run cg [--backend auto|sim|gpu] [--model KEY] [--grid NX[,NY,NZ]] [--stage 0..8|all] [--json FILE]")
		fmt.Fprintln(stderr, "Runs HPCCG's CG solver in the lesson's stages, from the CPU baseline to the GPU-resident, coalesced port.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	opt := Options{Backend: *backend, Model: *model, JSON: *jsonOut,
		Run: RunOptions{ThreadsPerRow: *tpr, Unroll1: *unroll1, MaxIter: *maxIter}}
	if *maxIter < 1 {
		return opt, fmt.Errorf("--max-iter %d: want at least 1", *maxIter)
	}
	if _, err := opt.Run.withDefaults(); err != nil {
		return opt, err
	}
	switch b := opt.Backend; {
	case b == "auto" || b == "sim" || b == "gpu" || strings.HasPrefix(b, "gpu:"):
	default:
		return opt, fmt.Errorf("--backend %q: want auto, sim, gpu or gpu:N", b)
	}
	if opt.Model != "" {
		if opt.Backend == "gpu" || strings.HasPrefix(opt.Backend, "gpu:") {
			return opt, fmt.Errorf("--model %s is for the simulator; the GPU is what it is", opt.Model)
		}
		if _, err := gpuextModel(opt.Model); err != nil {
			return opt, err
		}
	}
	if *grid != "" {
		g, err := ParseGrid(*grid)
		if err != nil {
			return opt, err
		}
		if _, err := EstimateBytes(g); err != nil {
			return opt, err
		}
		opt.Grid = g
	}
	st, err := parseStages(*stage)
	if err != nil {
		return opt, err
	}
	opt.Stages = st
	return opt, nil
}

func gpuextModel(key string) (string, error) {
	for _, k := range []string{"t4", "a100", "h100", "h200"} {
		if strings.EqualFold(k, key) {
			return "sim:" + k, nil
		}
	}
	return "", fmt.Errorf("--model %q: want t4, a100, h100 or h200", key)
}

func parseStages(s string) ([]int, error) {
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

// Run executes opt: it opens the device (only when a GPU stage is asked
// for), generates the problem, runs stage 0 as the reference whenever
// another stage runs, and prints each stage's report and the summary to w.
func Run(opt Options, w io.Writer) (*Report, error) {
	var dev *gpuext.Device
	needDev := false
	for _, s := range opt.Stages {
		needDev = needDev || s > 0
	}
	spec := opt.Backend
	if opt.Model != "" {
		m, err := gpuextModel(opt.Model)
		if err != nil {
			return nil, err
		}
		spec = m
	}
	g := opt.Grid
	if needDev {
		var err error
		if dev, err = gpuext.Open(spec); err != nil {
			return nil, err
		}
		defer dev.Close()
		if dev.Reason() != "" {
			fmt.Fprintf(w, "backend: %s (%s)\n", dev.Name(), dev.Reason())
		}
	}
	if g == (Grid{}) {
		g = Cube(DefaultGPUGrid)
		if dev == nil || dev.Kind() == "sim" {
			g = Cube(DefaultSimGrid)
		}
	}
	if dev != nil && dev.Kind() == "sim" {
		if rows, err := g.Rows(); err == nil && rows > MaxSimRows {
			return nil, fmt.Errorf("grid %v has %d rows; the simulator takes at most %d (64³) from the command line — it runs every thread in Go and would take many minutes per stage. Use a smaller --grid or --backend gpu", g, rows, MaxSimRows)
		}
	}
	p, err := Generate(g, GenOptions{})
	if err != nil {
		return nil, err
	}
	rep := &Report{Lesson: "cg", Backend: "cpu", Device: "cpu", Grid: g.Dims(), Date: time.Now().UTC().Format(time.RFC3339)}
	if dev != nil {
		rep.Backend, rep.Device = dev.Kind(), dev.Name()
	}
	fmt.Fprintf(w, "HPCCG CG on a %v grid: %d rows, %d nonzeros, ‖b‖ = %.17g\n\n", g, p.A.N, p.A.NNZ(), p.NormB())

	var ref *StageResult
	stages := opt.Stages
	if needDev && stages[0] != 0 {
		// Stage 0 is the reference every other stage's residuals are
		// compared with; run it even when it is not printed.
		r, err := RunStage(nil, p, 0, opt.Run)
		if err != nil {
			return nil, err
		}
		ref = r
	}
	for _, s := range stages {
		r, err := RunStage(dev, p, s, opt.Run)
		if err != nil {
			return nil, err
		}
		if s == 0 {
			ref = r
		} else if ref != nil {
			c := CompareResiduals(ref, r)
			r.VsStage0 = &c
		}
		rep.Stages = append(rep.Stages, r)
		WriteStageReport(w, r)
		fmt.Fprintln(w)
	}
	WriteSummary(w, rep.Stages)
	return rep, nil
}

func writeJSON(path string, rep *Report, stdout io.Writer) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
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
		if a.TimeKind == TimeModeled {
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
		if a.TimeKind == TimeModeled {
			fmt.Fprintf(w, "     + launch overhead %d × %.2f µs = %.3f ms + copies %.3f ms; no overlap, no idle in the model\n",
				r.Launches, 1e6*a.PerLaunchSeconds, 1e3*a.LaunchSeconds, 1e3*a.CopySeconds)
		} else {
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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/warplab/warplab/internal/sweep"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/timecheck"
)

// runTimeModelSweep is `warplab timemodel sweep`: the time model's recorded
// sweep (internal/sweep), one JSON line per case, written as each case
// ends so that a run cut short keeps what it measured.
func runTimeModelSweep(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab timemodel sweep"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "gpu", "gpu (measured, CUDA events), gpu:N, or sim (modeled)")
	model := fs.String("model", "", "with --backend sim, the simulated device (default h200)")
	family := fs.String("family", "", "run only these families (comma-separated; default all: "+strings.Join(sweep.FamilyNames(), ", ")+")")
	sizes := fs.Int("sizes", 0, "run only each family's K smallest sizes (0: all; the local dry run uses 1 or 2)")
	out := fs.String("out", "", "write the records to this .jsonl file (required)")
	list := fs.Bool("list", false, "list the families, their inputs and kernels, and exit")
	deadline := fs.Duration("deadline", 0, "stop starting new inputs after this long (0: none); the records so far are kept")
	simWork := fs.Float64("sim-work", 0, "with --backend sim, the budget per input in thread instructions: a larger input runs its grids sampled, timing only (0: every block)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	if fs.NArg() > 0 {
		return fail(stderr, cmd, usageErrorf("unexpected argument %q", fs.Arg(0)))
	}
	if *sizes < 0 {
		return fail(stderr, cmd, usageErrorf("--sizes %d: want 0 (all) or more", *sizes))
	}
	if *simWork < 0 {
		return fail(stderr, cmd, usageErrorf("--sim-work %g: want 0 (every block) or a positive budget", *simWork))
	}
	var fams []string
	if *family != "" {
		fams = strings.Split(*family, ",")
	}
	o := sweep.Options{Families: fams, Sizes: *sizes, SimWork: *simWork}
	inputs, err := sweep.Select(o)
	if err != nil {
		return fail(stderr, cmd, usageErrorf("--family: %v", err))
	}
	if *list {
		for _, in := range inputs {
			fmt.Fprintf(stdout, "%-16s %-18s %s\n", in.Family, in.Name, strings.Join(in.Kernels, ", "))
		}
		return exitOK
	}
	if *out == "" {
		return fail(stderr, cmd, usageErrorf("--out FILE.jsonl is required"))
	}
	if !strings.HasSuffix(*out, ".jsonl") {
		return fail(stderr, cmd, usageErrorf("--out %q: want a .jsonl file", *out))
	}
	if *backend != "sim" && *model != "" {
		return fail(stderr, cmd, usageErrorf("--model picks the simulated device; it needs --backend sim"))
	}
	if *backend != "sim" && *simWork != 0 {
		return fail(stderr, cmd, usageErrorf("--sim-work samples simulated grids; it needs --backend sim"))
	}
	if *backend != "sim" && *backend != "gpu" && !strings.HasPrefix(*backend, "gpu:") {
		return fail(stderr, cmd, usageErrorf("--backend %q: want gpu, gpu:N or sim", *backend))
	}
	dev, err := openDevice(*backend, *model)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	defer dev.Close()
	if *backend != "sim" && dev.Kind() != "gpu" {
		return fail(stderr, cmd, fmt.Errorf("--backend %s opened %s, not a GPU", *backend, dev.Name()))
	}
	if dev.Kind() == "gpu" {
		// How each module's code reached the GPU (a cubin from the host's
		// nvcc, or the embedded PTX), for the record.
		for _, m := range sweep.Modules() {
			li, err := dev.Load(m)
			if err != nil {
				return fail(stderr, cmd, err)
			}
			fmt.Fprintf(stdout, "module %s: %s %s %s %s\n", li.Module, li.Path, li.Arch, li.PTX, li.Note)
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	defer f.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	n := 0
	o.Progress = func(what string) {
		fmt.Fprintf(stderr, "[%5.1fs] %s\n", time.Since(start).Seconds(), what)
	}
	if *deadline > 0 {
		o.Until = start.Add(*deadline)
	}
	if dev.Kind() == "gpu" {
		o.Prefetch = 4 // the device machine's cores build the next matrices while the GPU times
		// Smallest inputs first: a run the deadline cuts short loses the
		// largest inputs, not whole families.
		sort.SliceStable(inputs, func(i, j int) bool { return inputs[i].Work < inputs[j].Work })
	}
	err = sweep.Run(ctx, dev, inputs, o, func(r sweep.Record) error {
		n++
		return sweep.WriteRecord(f, r)
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	fmt.Fprintf(stdout, "%d cases on %s in %.1f s written to %s\n", n, dev.Name(), time.Since(start).Seconds(), *out)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	return exitOK
}

// sweepFlags are `warplab timemodel check`'s flags for the sweep.
type sweepFlags struct {
	skip, only bool
	files      string
	from       string
	jsonPath   string
	family     string
	maxWork    float64
	ptxWidths  bool
}

func sweepCheckFlags(fs *flag.FlagSet) *sweepFlags {
	sf := &sweepFlags{}
	fs.BoolVar(&sf.skip, "no-sweep", false, "check only the lessons' recorded runs, not the recorded sweep")
	fs.BoolVar(&sf.only, "sweep-only", false, "check only the recorded sweep")
	fs.StringVar(&sf.files, "sweep", "", "the sweep's .jsonl files, comma-separated (default: every evidence/timemodel-sweep-*/*.jsonl)")
	fs.StringVar(&sf.from, "sweep-from", "", "take the sweep's modeled times from this earlier --sweep-json report instead of simulating")
	fs.StringVar(&sf.jsonPath, "sweep-json", "", "also write the sweep's report as JSON to this file")
	fs.StringVar(&sf.family, "family", "", "simulate only the sweep's cases of these families (comma-separated); the rest are listed unmodeled, or with --sweep-from taken from that report")
	fs.BoolVar(&sf.ptxWidths, "ptx-widths", false, "time shared accesses at the PTX's widths, and loads at the PTX's loop passes, even where ptxas can give the compiled ones")
	fs.Float64Var(&sf.maxWork, "sim-work", 0, fmt.Sprintf("the sweep's simulation budget per input, in thread instructions (default %.0e); inputs past it are simulated sampled, one block in every ceil(work/budget), timing only", timecheck.DefaultMaxWork))
	return sf
}

func (sf *sweepFlags) validate() error {
	if sf.skip && sf.only {
		return usageErrorf("--no-sweep and --sweep-only exclude each other")
	}
	if sf.maxWork < 0 {
		return usageErrorf("--sim-work %g: want a positive budget", sf.maxWork)
	}
	for _, f := range strings.Split(sf.family, ",") {
		if f == "" {
			continue
		}
		if _, err := sweep.Lookup(f); err != nil {
			return usageErrorf("--family: %v", err)
		}
	}
	return nil
}

// runSweepCheck models the recorded sweep and prints its report.
func runSweepCheck(cmd, root, model string, sf *sweepFlags, stdout, stderr io.Writer) int {
	var cases []timecheck.SweepCase
	var err error
	if sf.files != "" {
		cases, err = timecheck.SweepFiles(root, strings.Split(sf.files, ","))
	} else {
		cases, err = timecheck.SweepRecorded(root)
	}
	if err != nil {
		return fail(stderr, cmd, err)
	}
	// The check judges the model's own GPU's runs; a sweep recorded on
	// another GPU is its model's (--model h100 for an H100's).
	cases, others := timecheck.SweepOfModel(cases, model)
	if len(cases) == 0 {
		if sf.only {
			return fail(stderr, cmd, fmt.Errorf("no recorded sweep (evidence/timemodel-sweep-*/*.jsonl) of a GPU model %s stands for under %s%s", model, root, othersNote(others)))
		}
		fmt.Fprintf(stdout, "no recorded sweep of a GPU model %s stands for under %s/evidence%s\n", model, root, othersNote(others))
		return exitOK
	}
	// The host floor of the lease that recorded a folder, where its launch
	// records lie beside the sweep (timemodel-sweep.sh since the
	// thirty-fifth pass).
	floors, err := timecheck.LeaseFloors(root, model)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	widths := ""
	if sf.from != "" {
		f, err := os.Open(sf.from)
		if err != nil {
			return fail(stderr, cmd, err)
		}
		prev, err := timecheck.ReadSweepReport(f)
		f.Close()
		if err != nil {
			return fail(stderr, cmd, err)
		}
		timecheck.TakeSweepModeled(cases, prev.Cases)
		widths = prev.Widths
	}
	if sf.from == "" || sf.family != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		o := timecheck.SweepSimOptions{Model: model, MaxWork: sf.maxWork, PTXWidths: sf.ptxWidths, Floors: floors}
		if w := timecheck.SweepWidths(model, sf.ptxWidths); widths == "" || widths == w {
			widths = w
		} else {
			widths = "families " + sf.family + ": " + w + "; the rest from " + sf.from + ": " + widths
		}
		if sf.family != "" {
			want := strings.Split(sf.family, ",")
			o.Only = func(c timecheck.SweepCase) bool {
				for _, w := range want {
					if c.Family == w {
						return true
					}
				}
				return false
			}
		}
		if isTerminal(stderr) {
			o.Progress = func(what string) { fmt.Fprintf(stderr, "\r\033[Ksimulating %s ...", what) }
		}
		err := timecheck.SimulateSweep(ctx, cases, o)
		if isTerminal(stderr) {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err != nil {
			return fail(stderr, cmd, err)
		}
	}
	rep, err := timecheck.NewSweepReport(model, cases)
	if err != nil {
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	rep.Widths = widths
	rep.SetHostFloors(floors)
	if err := rep.WriteTable(stdout); err != nil {
		return fail(stderr, cmd, err)
	}
	if n := othersNote(others); n != "" {
		fmt.Fprintf(stdout, "left out%s\n", n)
	}
	if sf.jsonPath != "" {
		if err := writeFileAtomic(sf.jsonPath, rep.WriteJSON); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--sweep-json: %w", err))
		}
	}
	return exitOK
}

// othersNote says which recorded sweep cases another GPU's model judges:
// ": 223 cases recorded on NVIDIA H100 80GB HBM3 (--model h100)"; "" for
// none.
func othersNote(others map[string]int) string {
	gpus := make([]string, 0, len(others))
	for g := range others {
		gpus = append(gpus, g)
	}
	sort.Strings(gpus)
	var parts []string
	for _, g := range gpus {
		p := fmt.Sprintf("%d cases recorded on %s", others[g], g)
		if others[g] == 1 {
			p = "1 case recorded on " + g
		}
		if m, ok := sim.ModelNamed(g); ok {
			p += " (--model " + m.Key + ")"
		} else {
			p += " (no model of that GPU)"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, "; ")
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/launchbench"
	"github.com/warplab/warplab/internal/launchrec"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/libs"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/timecheck"
)

// runTimeModel is `warplab timemodel check|sweep|constants|calibrate`.
//
//	check      modeled against measured for every recorded run (issue 13)
//	           and every case of the recorded sweep (issue 27)
//	sweep      run the time model's sweep (internal/sweep) on a GPU or the
//	           simulator, one JSON line per case
//	constants  the model's time constants with their sources
//	calibrate  copy the newest recorded microbenchmark run into
//	           sim/calibration/<model>.csv, where the model reads it
//	libs       a simulator run of the libs lesson against recorded GPU
//	           runs of it: the model on kernels it was not built against
//	floorcopy  the warp copy's GPU time at the launch floor, from recorded
//	           `warplab bench launch` texts, beside the model's
func runTimeModel(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab timemodel"
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "usage: warplab timemodel check|sweep|constants|calibrate|libs|floorcopy [flags]\n")
		return exitUsage
	}
	switch args[0] {
	case "check":
		return runTimeModelCheck(args[1:], stdout, stderr)
	case "sweep":
		return runTimeModelSweep(args[1:], stdout, stderr)
	case "constants":
		return runTimeModelConstants(args[1:], stdout, stderr)
	case "calibrate":
		return runTimeModelCalibrate(args[1:], stdout, stderr)
	case "libs":
		return runTimeModelLibs(args[1:], stdout, stderr)
	case "floorcopy":
		return runTimeModelFloorCopy(args[1:], stdout, stderr)
	}
	return fail(stderr, cmd, usageErrorf("unknown subcommand %q (check, sweep, constants, calibrate, libs, floorcopy)", args[0]))
}

func runTimeModelCheck(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab timemodel check"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the repository root (its evidence/ holds the recorded runs)")
	model := fs.String("model", "h200", "the simulated device; the sweep judged is the one recorded on its GPU (h100: the H100's sweep, with --sweep-only; the lesson runs were recorded on the H200)")
	matrices := fs.String("matrices", defaultMatrices(), "folder of the SuiteSparse .mtx files the recorded spmv runs used")
	only := fs.String("only", "", "simulate only runs whose \"lesson input\" contains this text (e.g. \"spmv even\"); the rest are listed unmodeled")
	half := fs.String("half", "", "simulate only the runs of this half (train or test)")
	from := fs.String("from", "", "take modeled times from this earlier --json report instead of simulating")
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	sf := sweepCheckFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	if fs.NArg() > 0 {
		return fail(stderr, cmd, usageErrorf("unexpected argument %q", fs.Arg(0)))
	}
	if *half != "" && *half != "train" && *half != "test" {
		return fail(stderr, cmd, usageErrorf("--half %q: want train or test", *half))
	}
	if err := sf.validate(); err != nil {
		return fail(stderr, cmd, err)
	}
	if sf.only {
		return runSweepCheck(cmd, *root, *model, sf, stdout, stderr)
	}
	runs, err := timecheck.Recorded(*root)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	if len(runs) == 0 {
		return fail(stderr, cmd, fmt.Errorf("no recorded runs under %s", filepath.Join(*root, "evidence")))
	}
	if *from != "" {
		f, err := os.Open(*from)
		if err != nil {
			return fail(stderr, cmd, err)
		}
		prev, err := timecheck.ReadReport(f)
		f.Close()
		if err != nil {
			return fail(stderr, cmd, err)
		}
		timecheck.TakeModeled(runs, prev.Runs)
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		o := timecheck.SimOptions{Model: *model, Matrices: *matrices}
		if *only != "" || *half != "" {
			o.Only = func(r timecheck.Run) bool {
				return strings.Contains(r.Lesson+" "+r.Input, *only) && (*half == "" || r.Half == *half)
			}
		}
		if isTerminal(stderr) {
			o.Progress = func(what string) { fmt.Fprintf(stderr, "\r\033[Ksimulating %s ...", what) }
		}
		err := timecheck.Simulate(ctx, runs, o)
		if isTerminal(stderr) {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err != nil {
			return fail(stderr, cmd, err)
		}
	}
	rep, err := timecheck.NewReport(*model, runs)
	if err != nil {
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	if err := rep.WriteTable(stdout); err != nil {
		return fail(stderr, cmd, err)
	}
	if *jsonPath != "" {
		if err := writeFileAtomic(*jsonPath, rep.WriteJSON); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--json: %w", err))
		}
	}
	if stale := timecheck.StaleCalibration(*root); stale != "" {
		fmt.Fprintf(stdout, "\nnote: %s\n", stale)
	}
	if sf.skip {
		return exitOK
	}
	fmt.Fprintf(stdout, "\n== the recorded sweep (issue 27) ==\n\n")
	return runSweepCheck(cmd, *root, *model, sf, stdout, stderr)
}

// modelCommand parses args for a subcommand whose one flag is --model
// (help says what the model selects) and returns the model and the
// arguments after the flags; done is true when the command is over (help
// printed, or a usage error reported), with its exit code.
func modelCommand(cmd, help string, args []string, stderr io.Writer) (m sim.Model, rest []string, code int, done bool) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "h200", help+": t4, a100, h100 or h200")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return sim.Model{}, nil, exitOK, true
		}
		return sim.Model{}, nil, fail(stderr, cmd, usageErrorf("%v", err)), true
	}
	m, err := sim.ModelByKey(*model)
	if err != nil {
		return sim.Model{}, nil, fail(stderr, cmd, usageErrorf("%v", err)), true
	}
	return m, fs.Args(), 0, false
}

func runTimeModelConstants(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab timemodel constants"
	m, _, code, done := modelCommand(cmd, "the device model", args, stderr)
	if done {
		return code
	}
	rep := &timecheck.Report{Model: m.Key, Constants: sim.TimeConstants(m)}
	fmt.Fprintf(stdout, "time-model constants of %s (%s)\n", m.Name, m.Key)
	if err := rep.WriteConstants(stdout); err != nil {
		return fail(stderr, cmd, err)
	}
	return exitOK
}

func runTimeModelCalibrate(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab timemodel calibrate"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the repository root")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	src, dst, err := timecheck.Calibrate(*root)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	fmt.Fprintf(stdout, "copied %s to %s; rebuild for the model to read it\n", src, dst)
	return exitOK
}

// runTimeModelFloorCopy is `warplab timemodel floorcopy [--model M] DIR...`:
// the rule for a launch that touches memory at the floor
// (docs/timemodel.md, "At the floor, a kernel that touches memory"), on
// the `warplab bench launch` records (DIR/launch-go*.txt) of the model's
// GPU: the warp copy's GPU time (launchrec.WarpCopyGPU) against the
// simulator's for the same launch (launchbench.ModeledWarpCopy), and what
// it exceeds it by, the fixed cost the rule gives such a launch.
func runTimeModelFloorCopy(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab timemodel floorcopy"
	m, dirs, code, done := modelCommand(cmd, "the device model whose GPU's records are read", args, stderr)
	if done {
		return code
	}
	if len(dirs) == 0 {
		return fail(stderr, cmd, usageErrorf("no folder of launch records (DIR/launch-go*.txt)"))
	}
	var recs []launchrec.Record
	for _, dir := range dirs {
		rs, err := launchrec.ReadDir(dir, func(gpu string) bool { of, ok := sim.ModelNamed(gpu); return ok && of.Key == m.Key })
		if err != nil {
			return fail(stderr, cmd, err)
		}
		recs = append(recs, rs...)
	}
	copies := 0
	for _, r := range recs {
		if r.WarpCopy > 0 {
			copies++
		}
	}
	if copies == 0 {
		return fail(stderr, cmd, fmt.Errorf("none of the %d launch records of %s in %s times the copy kernels (records since 2026-12-07)", len(recs), m.Name, strings.Join(dirs, ", ")))
	}
	dev, err := gpuext.Open("sim:" + m.Key)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	defer dev.Close()
	modeled, err := launchbench.ModeledWarpCopy(dev)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	gpu, n := launchrec.WarpCopyGPU(recs)
	fmt.Fprintf(stdout, "warp copy (32 floats, one warp) on %s: %d of %d records time it, %d over the copy's own floor (the empty kernel, two buffers and a count) by more than %.1f µs\n", m.Name, copies, len(recs), n, launchrec.CopyAboveFloor)
	fmt.Fprintf(stdout, "  modeled GPU time: %.3f µs\n", modeled*1e6)
	if n == 0 {
		fmt.Fprintf(stdout, "  its GPU time is under the floor on every record: no fixed cost by the rule\n")
		return exitOK
	}
	fmt.Fprintf(stdout, "  measured GPU time (a call less the spin curve's offset), median: %.3f µs\n", gpu*1e6)
	fmt.Fprintf(stdout, "  fixed GPU cost of a launch that loads or stores global memory, by the rule: %.3f µs\n", max(0, gpu-modeled)*1e6)
	return exitOK
}

// defaultMatrices is where the recorded SuiteSparse matrices are looked
// for: $WARPLAB_MATRICES (read by lab.FromEnv, the command's edge), else
// the shared folder of the development machine.
func defaultMatrices() string {
	if d := lab.FromEnv().Matrices; d != "" {
		return d
	}
	return "/work/shared/matrices"
}

// runTimeModelLibs is `warplab timemodel libs --modeled SIM.json[,SIM2.json...]
// GPU.json...`: the libs lesson's kernels, which no part of the model was
// built from, modeled (`warplab run libs --backend sim --json` files, one
// a size) against the same matrices and methods measured (`--backend gpu
// --json` files, such as the corpus run's in evidence/), with the sweep's
// figures and pairs, in one report.
func runTimeModelLibs(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab timemodel libs"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	modeled := fs.String("modeled", "", "the simulator's runs, comma-separated (one a size): `warplab run libs --backend sim --json FILE`")
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	if *modeled == "" || fs.NArg() == 0 {
		return fail(stderr, cmd, usageErrorf("want --modeled SIM.json and one or more measured GPU runs' JSON files"))
	}
	var sims []*libs.Result
	for _, f := range strings.Split(*modeled, ",") {
		sim, err := libs.LoadRecordedFile(f)
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("--modeled: %w", err))
		}
		sims = append(sims, sim)
	}
	sim := sims[0]
	var measured []*libs.Result
	for _, f := range fs.Args() {
		r, err := libs.LoadRecordedFile(f)
		if err != nil {
			return fail(stderr, cmd, err)
		}
		measured = append(measured, r)
	}
	cases, err := timecheck.LibsCasesOf(sims, measured...)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	rep, err := timecheck.NewSweepReport(sim.Device.Model, cases)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	rep.SetLibsSizes()
	rep.About = fmt.Sprintf("Measured: the libs lesson's GPU runs (%s), CUDA events, mean of the runs after warm-ups, per SpMV; "+
		"modeled: %s, one checked launch per method, times from %s. Families are libs-<corpus family>; no regime (the lesson keeps no bound).",
		strings.Join(fs.Args(), ", "), sim.Device.Name, sim.Device.Timing())
	if err := rep.WriteTable(stdout); err != nil {
		return fail(stderr, cmd, err)
	}
	if *jsonPath != "" {
		if err := writeFileAtomic(*jsonPath, rep.WriteJSON); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--json: %w", err))
		}
	}
	return exitOK
}

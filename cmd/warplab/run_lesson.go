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
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/lesson"
)

// sharedFlags are the flags every lesson's command has.
type sharedFlags struct {
	backend, model, jsonPath, svgPath string
	recorded                          bool
	// launchRecords is a folder for `warplab bench launch` records made
	// by the run's own process before and after the lesson: the host's
	// launch floor in the mode the run's own process had (a process may
	// run in a slower one than its neighbours; docs/timemodel.md).
	launchRecords string
}

// parseLessonFlags defines the shared flags and l's own on one flag set,
// parses args and validates both, and returns the lesson's command bound
// to them; every error it returns is a usage error.
func parseLessonFlags(l *lesson.Lesson, args []string, stderr io.Writer) (lesson.Command, sharedFlags, error) {
	var f sharedFlags
	cmd := "warplab run " + l.Name
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.backend, "backend", "auto", "where kernels run: auto (the GPU when this build has one and it answers, else the simulator), sim, gpu or gpu:N")
	fs.StringVar(&f.model, "model", "", "the GPU the simulator models: t4, a100, h100 or h200 (default: the GPU present, else h200)")
	fs.StringVar(&f.jsonPath, "json", "", "write the result as JSON to this file (- for stdout)")
	fs.StringVar(&f.svgPath, "svg", "", "draw the lesson's figure to this file (.svg or .png)")
	fs.StringVar(&f.launchRecords, "launch-records", "", "on a GPU, time the launch floor in this process before and after the lesson, as `warplab bench launch` does, into this folder (launch-go-NAME-before.txt, -after.txt; WARPLAB_HOST_FLOOR=FOLDER models a run with that floor)")
	fs.BoolVar(&f.recorded, "recorded", false, "run nothing: show the lesson's recorded GPU run (its GPU, driver and date first), with --json and --svg as for a run")
	lc := l.Flags(fs, lab.FromEnv())
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [flags]\n\n%s\n\nflags:\n", cmd, l.Doc)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, f, err
		}
		return nil, f, usageErrorf("%v", err)
	}
	if fs.NArg() > 0 {
		return nil, f, usageErrorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	if f.recorded {
		var where []string
		fs.Visit(func(fl *flag.Flag) {
			if fl.Name == "backend" || fl.Name == "model" {
				where = append(where, "--"+fl.Name)
			}
		})
		if f.launchRecords != "" {
			where = append(where, "--launch-records")
		}
		if len(where) > 0 {
			return nil, f, usageErrorf("--recorded shows a run already made; %s chooses where to run one: give one or the other", strings.Join(where, " and "))
		}
	}
	if err := lc.Validate(); err != nil {
		return nil, f, usageErrorf("%v", err)
	}
	// Output paths are checked now, not after a run of minutes: the
	// extension, a folder that exists and takes a file, a path that is
	// not a folder. --json - is stdout; a figure is written by name.
	if f.jsonPath != "-" {
		if err := lesson.CheckOutputFile("--json", f.jsonPath); err != nil {
			return nil, f, usageErrorf("%v", err)
		}
	}
	if err := lesson.CheckOutputFile("--svg", f.svgPath, ".svg", ".png"); err != nil {
		return nil, f, usageErrorf("%v", err)
	}
	if f.launchRecords != "" {
		if st, err := os.Stat(f.launchRecords); err != nil || !st.IsDir() {
			return nil, f, usageErrorf("--launch-records %s: not a folder (make it first)", f.launchRecords)
		}
	}
	if f.jsonPath != "" && f.jsonPath != "-" && filepath.Clean(f.jsonPath) == filepath.Clean(f.svgPath) {
		return nil, f, usageErrorf("--json and --svg both name %s: give each its own file", f.jsonPath)
	}
	return lc, f, nil
}

// runLesson is `warplab run NAME` for a lesson of the contract: flags and
// output paths checked before anything runs, the device, Ctrl-C
// cancelling the run (or, with --recorded, the recorded run and no device),
// the text on stdout, failed checks on stderr, JSON and figure written
// atomically. Exit status 0 when every check passed, 1 when one failed or
// the lesson could not run, 2 for a usage error.
func runLesson(l *lesson.Lesson, args []string, stdout, stderr io.Writer) int {
	cmd := "warplab run " + l.Name
	lc, f, err := parseLessonFlags(l, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return fail(stderr, cmd, err)
	}
	var res lesson.Result
	if f.recorded {
		var on string
		res, on, err = l.Recorded()
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("--recorded: %w", err))
		}
		fmt.Fprintf(stdout, "Recorded GPU run: %s\n\n", on)
	} else {
		res, err = runOnDevice(l, lc, f, stdout, stderr)
		if err != nil {
			return fail(stderr, cmd, err)
		}
	}
	if err := res.WriteText(stdout); err != nil {
		return fail(stderr, cmd, err)
	}
	status := exitOK
	if !res.OK() {
		res.WriteFailures(stderr)
		status = exitFail
	}
	switch f.jsonPath {
	case "":
	case "-":
		if err := res.WriteJSON(stdout); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--json: %w", err))
		}
	default:
		if err := writeFileAtomic(f.jsonPath, res.WriteJSON); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--json: %w", err))
		}
	}
	if f.svgPath != "" {
		if err := res.WriteFigure(f.svgPath); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--svg: %w", err))
		}
	}
	return status
}

// runOnDevice opens the device the shared flags name and runs lc, l's
// command, on it, with Ctrl-C cancelling the run and the progress line on
// stderr.
func runOnDevice(l *lesson.Lesson, lc lesson.Command, f sharedFlags, stdout, stderr io.Writer) (lesson.Result, error) {
	dev, err := openDevice(f.backend, f.model)
	if err != nil {
		if errors.Is(err, errUsage) {
			return nil, err
		}
		return nil, deviceError(err)
	}
	defer dev.Close()
	if l.CheckFigure != nil && f.svgPath != "" {
		if err := l.CheckFigure(dev); err != nil {
			return nil, usageErrorf("--svg %s: %v", f.svgPath, err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	update, clear := progressLine(stderr)
	p := lesson.Progress{
		Stage: update,
		Early: func(write func(io.Writer) error) error {
			clear()
			return write(stdout)
		},
	}
	record := func(string) error { return nil }
	if f.launchRecords != "" {
		if dev.Kind() == gpuext.Sim {
			return nil, usageErrorf("--launch-records times the GPU host's launch floor; the simulator's is its model's (--backend gpu)")
		}
		record = func(when string) error {
			return recordLaunchFloor(dev, filepath.Join(f.launchRecords, "launch-go-"+l.Name+"-"+when+".txt"))
		}
	}
	if err := record("before"); err != nil {
		return nil, err
	}
	res, err := lc.Run(ctx, dev, p)
	clear()
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted (%w)", err)
	}
	if err == nil {
		// The lesson's result is kept whatever this says: a record that
		// could not be made after a run of minutes must not lose the run.
		if rerr := record("after"); rerr != nil {
			fmt.Fprintf(stderr, "warplab run %s: %v (the run's result is kept)\n", l.Name, rerr)
			res = recordsFailed{res}
		}
	}
	return res, err
}

// recordsFailed is a lesson's result whose closing launch record could
// not be made: written as the result is, but not OK, so the exit status
// says the run's output is incomplete.
type recordsFailed struct{ lesson.Result }

func (recordsFailed) OK() bool { return false }

// recordLaunchFloor times dev's launch floor (launchbench.Measure, as
// `warplab bench launch` with its default launches) into path, in the
// text launchrec reads.
func recordLaunchFloor(dev *gpuext.Device, path string) error {
	r, err := launchbench.Measure(dev, launchbench.DefaultLaunches)
	if err != nil {
		return fmt.Errorf("--launch-records: %w", err)
	}
	if err := writeFileAtomic(path, func(w io.Writer) error { return r.WriteText(w, dev.Name(), false) }); err != nil {
		return fmt.Errorf("--launch-records: %w", err)
	}
	return nil
}

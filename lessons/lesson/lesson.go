// Package lesson is the contract between a lesson package and the tools
// that drive every lesson: a Lesson value describes one lesson (its name,
// doc, flags, run, recorded run, kernels, self-test cases and time-check
// cases), as go/analysis's Analyzer describes an analyzer, so that `warplab
// run NAME`, `warplab selftest`, the time model's check (package
// timecheck) and lessontest are generic drivers over a list of them
// (lessons/all) with no file or switch per lesson.
//
// A lesson package (lessons/spmv, lessons/tiling, lessons/cg, lessons/libs)
// exports Lesson(), which returns its descriptor; lessons/all lists them,
// so a new lesson is one package and one line there. The command line's
// shared flags (--backend, --model, --json, --svg, --recorded), signal
// handling (Ctrl-C cancels ctx), atomic writes and exit statuses live in
// cmd/warplab, once; a lesson registers only its own flags (Lesson.Flags,
// which returns the Command bound to them) and never opens a device: it
// runs on the one it is given.
//
// The shared meanings: --backend auto is the GPU when the build has one and
// it answers, else the simulator; --model defaults to the GPU present, else
// the H200; --json writes Result.WriteJSON and --svg Result.WriteFigure;
// --recorded shows Lesson.Recorded, the lesson's recorded GPU run, without
// a device, the way a notebook shows it where no GPU is.
//
// A Result draws its own figure: the lesson's figure code lives in the
// lesson package (figure.go), drawn with plots/chart, which imports gonum
// and no lesson. MeasuredOn and SimLabel are the one way every lesson
// labels where a number came from.
//
// Hostile input has one answer everywhere: every flag value out of range,
// every output path that could not be written (CheckOutputFile,
// CheckOutputDir) and every conflict between flags is a usage error found
// before anything runs, one line naming the flag (exit 2); Ctrl-C stops a
// run within a fraction of a second, CPU checks included.
//
// A lesson's self-test cases live with the lesson too (Lesson.SelfTest):
// its kernels on a small input against its CPU reference and, on a GPU,
// against the simulator running the GPU's PTX (selftest.go: Devices, Check,
// Outcome, the PTX hazard rules). So do its time-check cases
// (Lesson.TimeCheck, timecheck.go): how the simulator models a recorded
// GPU run of the lesson.
//
// This package imports gpuext, lab (the environment's options, which the
// edge passes down) and the standard library only, so that every lesson
// may import it without pulling in plots, gonum or the command.
package lesson

import (
	"context"
	"flag"
	"io"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
)

// A Lesson describes one lesson, as go/analysis's Analyzer describes an
// analyzer: every driver (the command line's `warplab run`, `warplab
// selftest`, the time model's check, lessontest) is generic over a list of
// these values, and a lesson's name, doc, flags, run, recorded run,
// kernels, self-test cases, time-check cases and figure check are its
// fields. A lesson package exports one constructor, Lesson(), that returns
// a fresh value (a function, not a package variable, so that no caller can
// change another's). Fields a lesson has no use for are nil.
type Lesson struct {
	// Name is the word after `warplab run` ("spmv").
	Name string
	// Doc is one line for `warplab help` and the lesson's usage.
	Doc string
	// Flags defines the lesson's own flags on fs, bound to a new Options,
	// and returns the Command that runs with them once fs has parsed the
	// command line. The shared flags are already defined; a lesson must
	// not define --backend, --model, --json, --svg or --recorded. env is
	// the environment's switches, read once at the edge (lab.FromEnv):
	// the lesson reads none itself.
	Flags func(fs *flag.FlagSet, env lab.Options) Command
	// Recorded returns the lesson's recorded GPU run (the one its package
	// embeds, or finds in evidence/) as the Result Run would have returned
	// on that GPU, and the label naming the GPU, driver and date it ran on
	// (MeasuredOn). It opens no device and ignores the lesson's flags: the
	// run is what it was. A lesson whose run cannot be found returns an
	// error saying where it looked.
	Recorded func() (res Result, on string, err error)
	// Module returns the lesson's kernels: its CUDA C and the PTX that a
	// GPU and the simulator both load (gpuext.Module), for selftest and for
	// a page that shows the source.
	Module func() *gpuext.Module
	// SelfTest, when set, checks the lesson's kernels for `warplab
	// selftest` and lessontest: each kernel on a small input against the
	// lesson's CPU reference, and on a GPU against the simulator running
	// the PTX the GPU loaded (devs.PTX). It returns one Check per kernel
	// and input, and lines saying which code each side ran.
	SelfTest func(ctx context.Context, devs Devices) (checks []Check, code []string, err error)
	// TimeCheck, when set, models the lesson's recorded GPU runs for the
	// time model's check (package timecheck).
	TimeCheck *TimeCheck
	// CheckFigure, when set, says whether a run on dev can draw the
	// lesson's figure (tiling's figures draw the simulator's counts, which
	// a GPU run does not record). The command calls it with the opened
	// device when --svg is given, before Run, so that --svg fails at once
	// and not after a run of minutes; its error is a usage error (exit
	// status 2). The figure itself is the Result's (WriteFigure).
	CheckFigure func(dev *gpuext.Device) error
}

// A Command is one run of a lesson with the options its flags set
// (Lesson.Flags). Validate is called once the flag set has parsed the
// command line, then Run once.
type Command interface {
	// Validate reports options that cannot run, before any device is
	// opened or any file read; its error is a usage error (exit status 2)
	// and names the flag, in the command line's terms (--rows, not
	// SeedRows): a value out of range names the range, two flags that
	// disagree name both. A folder the lesson writes to (libs' --dump) is
	// checked here (CheckOutputDir); the shared --json and --svg are the
	// command's to check.
	Validate() error
	// Run runs the lesson on dev. An error means the lesson could not run
	// (a device error, an unreadable input, ctx cancelled); a failed check
	// is not an error but a Result that is not OK. An input file's error
	// names the flag and the path ("--matrix m.mtx: ..."). A flag value
	// that is out of range only on dev (cg's --grid on the simulator) is
	// an error wrapping ErrUsage (Usagef), exit status 2 as for Validate.
	//
	// Once ctx is done Run returns, within a fraction of a second, an
	// error wrapping ctx's error: it looks at ctx between launches, runs
	// the simulator's launches under it, and looks at it in every CPU loop
	// that can take longer (a reference product, a CPU solve, generating
	// a problem).
	Run(ctx context.Context, dev *gpuext.Device, p Progress) (Result, error)
}

// Progress is how a running lesson talks to the command line. Both fields
// may be nil.
type Progress struct {
	// Stage is told each stage as it starts, with the stages done and
	// the total (0 when the lesson cannot count them in advance).
	Stage func(stage string, done, total int)
	// Early, if set, takes a part of the text the lesson wants shown
	// before the rest has run (spmv's prediction, which the seed prints
	// before any kernel runs, so that it is a prediction). A lesson that
	// calls it leaves that part out of Result.WriteText.
	Early func(write func(io.Writer) error) error
}

// StageFunc returns p.Stage, or a function that does nothing.
func (p Progress) StageFunc() func(stage string, done, total int) {
	if p.Stage == nil {
		return func(string, int, int) {}
	}
	return p.Stage
}

// A Result is what a lesson's Run returns.
type Result interface {
	// WriteText writes the lesson's tables for a terminal (stdout),
	// without the failed checks.
	WriteText(w io.Writer) error
	// WriteJSON writes the whole result as one JSON document.
	WriteJSON(w io.Writer) error
	// WriteFigure draws the lesson's figure to path, SVG or PNG by its
	// extension, written atomically (chart.WriteFile), at the size the
	// lesson chooses. A result that holds nothing to draw (tiling's
	// figures are the simulator's counts, which a GPU run lacks) returns an
	// error saying what would.
	WriteFigure(path string) error
	// OK reports whether every check passed.
	OK() bool
	// WriteFailures writes one line per failed check (stderr); nothing
	// when OK.
	WriteFailures(w io.Writer) error
}

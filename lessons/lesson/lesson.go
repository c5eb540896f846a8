// Package lesson is the contract between a lesson package and the warplab
// command: what a lesson implements so that `warplab run NAME` can parse its
// flags, check them, open the device, run it, and write its text, JSON,
// failures and (where it has one) its figure, the same way for every lesson.
//
// A lesson package (lessons/spmv, lessons/tiling, lessons/cg) provides a
// constructor returning a Lesson that holds its Options; cmd/warplab lists
// the constructors in one table. The command line's shared flags (--backend,
// --model, --json, --svg), signal handling (Ctrl-C cancels ctx), atomic
// writes and exit statuses live in cmd/warplab, once; a lesson registers only
// its own flags and never opens a device: it runs on the one it is given.
//
// This package imports gpuext only, so that every lesson may import it
// without pulling in plots or the command.
package lesson

import (
	"context"
	"flag"
	"io"

	"github.com/warplab/warplab/gpuext"
)

// A Lesson is one lesson as the command line runs it. Its methods are
// called in order: RegisterFlags, then (after the flag set parsed the
// command line into the lesson's Options) Validate, then Run once.
type Lesson interface {
	// Name is the word after `warplab run` ("spmv").
	Name() string
	// Summary is one line for `warplab help` and the lesson's usage.
	Summary() string
	// RegisterFlags defines the lesson's own flags on fs, bound to the
	// lesson's Options. The shared flags are already defined; a lesson
	// must not define --backend, --model, --json or --svg.
	RegisterFlags(fs *flag.FlagSet)
	// Validate reports options that cannot run, before any device is
	// opened or any file read; its error is a usage error (exit status 2)
	// and names the flag.
	Validate() error
	// Run runs the lesson on dev. An error means the lesson could not run
	// (a device error, an unreadable input, ctx cancelled); a failed check
	// is not an error but a Result that is not OK.
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
	// OK reports whether every check passed.
	OK() bool
	// WriteFailures writes one line per failed check (stderr); nothing
	// when OK.
	WriteFailures(w io.Writer) error
}

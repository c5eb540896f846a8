package spmv

import (
	"context"
	"flag"
	"fmt"
	"io"

	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/sparse/spmvref"
)

// Summary is the lesson's one line, in `warplab help` and its usage.
const Summary = `Day 37 — SpMV two ways: thread per row vs warp per row on two matrices with the same nonzeros`

// Lesson returns the lesson's descriptor (see package lesson): its flags
// bind to an Options whose zero value is the seed's run.
func Lesson() *lesson.Lesson {
	return &lesson.Lesson{
		Name: "spmv",
		Doc:  Summary,
		Flags: func(fs *flag.FlagSet, env lab.Options) lesson.Command {
			l := &cliLesson{opts: Options{Unroll: 4}}
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
type cliLesson struct{ opts Options }

func (l *cliLesson) RegisterFlags(fs *flag.FlagSet) {
	o := &l.opts
	fs.IntVar(&o.Rows, "rows", 0, "rows of the seed's two matrices, a multiple of 32, at least 448 (default 524288, the seed's)")
	fs.StringVar(&o.Matrix, "matrix", "", "a Matrix Market file to run the same kernels on instead of the seed's pair")
	fs.IntVar(&o.ProbeBlocks, "probe-blocks", 0, "the probe's grid (default 8 blocks per SM of the device; the seed's is 320)")
	fs.IntVar(&o.Unroll, "unroll", 4, "4: the kernels as nvcc unrolls them; 1: their #pragma unroll 1 variants")
}

// Validate checks the flags as the command line spells them.
func (l *cliLesson) Validate() error {
	o := l.opts
	switch {
	case o.Rows != 0 && o.Matrix != "":
		return fmt.Errorf("--rows sizes the seed's matrices and --matrix replaces them; give one")
	case o.Rows != 0 && seedRowsWant(o.Rows) != "":
		return fmt.Errorf("--rows %d: %s", o.Rows, seedRowsWant(o.Rows))
	case o.ProbeBlocks < 0:
		return fmt.Errorf("--probe-blocks %d: want a positive number of blocks", o.ProbeBlocks)
	case o.Unroll != 1 && o.Unroll != 4:
		return fmt.Errorf("--unroll %d: want 1 or 4", o.Unroll)
	}
	return o.Validate()
}

func (l *cliLesson) Run(ctx context.Context, dev *gpuext.Device, p lesson.Progress) (lesson.Result, error) {
	o := l.opts
	if err := lesson.CheckInputFile("--matrix", o.Matrix); err != nil {
		return nil, err
	}
	o.Progress = p.Stage
	res := &CLIResult{}
	var earlyErr error
	if p.Early != nil {
		o.Predicted = func(r *Result) {
			res.early = true
			earlyErr = p.Early(r.WritePrediction)
		}
	}
	r, err := Run(ctx, dev, o)
	if err != nil {
		return nil, MatrixFlagError("--matrix", []string{o.Matrix}, err)
	}
	if earlyErr != nil {
		return nil, earlyErr
	}
	res.Result = r
	return res, nil
}

// MatrixFlagError is spmvref.MatrixFlagError: err with the flag in front
// when it is a Matrix Market file's error ("--matrix m.mtx: line 4: ...").
func MatrixFlagError(flag string, paths []string, err error) error {
	return spmvref.MatrixFlagError(flag, paths, err)
}

// CLIResult is a Result as the command line writes it: the failed checks
// apart from the tables, and the prediction left out of WriteText when it
// was shown before the kernels ran.
type CLIResult struct {
	*Result
	early bool
}

// WriteText writes the tables the seed prints, without the failed checks.
func (r *CLIResult) WriteText(w io.Writer) error {
	if !r.early {
		if err := r.WritePrediction(w); err != nil {
			return err
		}
	}
	return r.WriteTimings(w)
}

// recordedResult returns the recorded GPU run (Recorded) as the command
// line writes it, labelled with its GPU, driver and date.
func recordedResult() (lesson.Result, string, error) {
	r, err := Recorded()
	if err != nil {
		return nil, "", err
	}
	return &CLIResult{Result: r}, MeasuredOn(r), nil
}

// WriteFigure draws Figure to path (SVG or PNG by its extension), 7 inches
// high for its two panels. A simulator run is drawn beside the recorded GPU
// run when one is embedded, labelled with its GPU, driver and date.
func (r *CLIResult) WriteFigure(path string) error {
	var recorded *Result
	if r.Backend == gpuext.Sim {
		if rec, err := Recorded(); err == nil {
			recorded = rec
		}
	}
	fig, err := Figure(r.Result, recorded)
	if err != nil {
		return err
	}
	return chart.WriteFile(path, fig, chart.DefaultWidth, 7*vg.Inch)
}

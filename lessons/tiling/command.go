package tiling

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
)

// Summary is the lesson's one line, in `warplab help` and its usage.
const Summary = "Lecture 4 — tiling, coalescing, bank conflicts: matmul, transposes and CSR on the simulator and the GPU"

// Lesson returns the lesson as `warplab run tiling` runs it (see package
// lesson), its flags bound to Options with the defaults spelled out.
func Lesson() lesson.Lesson {
	return &cliLesson{opts: Options{N: 256, Tile: 16, Coarse: 4, TransposeTile: 32}}
}

type cliLesson struct{ opts Options }

func (*cliLesson) Name() string    { return "tiling" }
func (*cliLesson) Summary() string { return Summary }

func (l *cliLesson) RegisterFlags(fs *flag.FlagSet) {
	o := &l.opts
	fs.IntVar(&o.N, "n", o.N, "matrix size N (N x N)")
	fs.IntVar(&o.Tile, "tile", o.Tile, "tile width TILE: 1, 2, 4, 8, 16 or 32")
	fs.IntVar(&o.Coarse, "coarse", o.Coarse, "coarsening factor COARSE: 1, 2, 4 or 8 (TILE*COARSE must divide N)")
	fs.IntVar(&o.SweepN, "sweep-n", 0, "matrix size of the TILE sweep of load counts (0: min(N, 128))")
	fs.IntVar(&o.TransposeTile, "transpose-tile", o.TransposeTile, "block width of the transposes (must divide N)")
	fs.BoolVar(&o.NoSweep, "no-sweep", false, "skip the TILE sweep")
	fs.BoolVar(&o.NoDemos, "no-demos", false, "skip the race and out-of-bounds demonstrations")
}

// Validate checks the options without a device. Options treat 0 as
// "default"; on the command line 0 is a mistake.
func (l *cliLesson) Validate() error {
	o := l.opts
	for _, f := range []struct {
		name string
		v    int
	}{{"--n", o.N}, {"--tile", o.Tile}, {"--coarse", o.Coarse}, {"--transpose-tile", o.TransposeTile}} {
		if f.v <= 0 {
			return fmt.Errorf("%s %d: must be positive", f.name, f.v)
		}
	}
	if o.SweepN < 0 {
		return fmt.Errorf("--sweep-n %d: must be positive (0: min(N, 128))", o.SweepN)
	}
	_, err := o.withDefaults()
	return err
}

func (l *cliLesson) Run(ctx context.Context, dev *gpuext.Device, p lesson.Progress) (lesson.Result, error) {
	o := l.opts
	stage := p.StageFunc()
	done := 0
	o.Progress = func(s string) {
		stage(s, done, 0)
		done++
	}
	r, err := Run(ctx, dev, o)
	if err != nil {
		return nil, err
	}
	return cliResult{r}, nil
}

// cliResult is a Result as the command line writes it: the failed checks
// apart from the tables.
type cliResult struct{ *Result }

func (r cliResult) WriteText(w io.Writer) error { return r.writeText(w, false) }

// OK reports whether every kernel's output matched the CPU reference.
func (r *Result) OK() bool { return len(r.Failures) == 0 }

// WriteFailures writes one line per failed check; nothing when OK.
func (r *Result) WriteFailures(w io.Writer) error {
	var b strings.Builder
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "FAILED: %s\n", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Recorded returns the recorded H200 run (Recorded) as the command line
// writes it, labelled with its GPU, driver and date.
func (*cliLesson) Recorded() (lesson.Result, string, error) {
	r, err := Recorded()
	if err != nil {
		return nil, "", err
	}
	return cliResult{r}, lesson.MeasuredOn(r.Device.Name, r.Driver, r.Date), nil
}

// Module returns the lesson's kernels (Module).
func (*cliLesson) Module() *gpuext.Module { return Module() }

// WriteFigure draws the lesson's figures, stacked in one picture: the
// rooflines (the recorded H200 run beside the simulator's on the H200's
// panel), the transposes' sectors and wavefronts, and the load sweep when
// the run has it. They draw the simulator's counts, so a GPU run, which
// records none, has no figure: the error says to run on the simulator.
func (r cliResult) WriteFigure(path string) error {
	if len(r.Roofline) == 0 {
		return errors.New("tiling: the figures draw the simulator's counts (loads, sectors, intensities), which a GPU run does not record; run with --backend sim (its roofline puts the recorded H200 run beside the model)")
	}
	var more []*Result
	if rec, err := Recorded(); err == nil {
		more = append(more, rec)
	}
	roof, err := RooflinesFigure(r.Result, more...)
	if err != nil {
		return err
	}
	tr, err := TransposesFigure(r.Result)
	if err != nil {
		return err
	}
	fig := &chart.Figure{Panels: append(tr.Panels, roof.Panels...)}
	if len(r.Loads) > 0 {
		loads, err := LoadsFigure(r.Result)
		if err != nil {
			return err
		}
		fig.Panels = append(loads.Panels, fig.Panels...)
	}
	return chart.WriteFile(path, fig, chart.DefaultWidth, chart.DefaultHeight*vg.Length(len(fig.Panels)))
}

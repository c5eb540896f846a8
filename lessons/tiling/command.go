package tiling

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
)

// Summary is the lesson's one line, in `warplab help` and its usage.
const Summary = "Lecture 4 — tiling, coalescing, bank conflicts: matmul, transposes and CSR on the simulator and the GPU"

// Lesson returns the lesson's descriptor (see package lesson), its flags
// bound to Options with the defaults spelled out.
func Lesson() *lesson.Lesson {
	return &lesson.Lesson{
		Name: "tiling",
		Doc:  Summary,
		Flags: func(fs *flag.FlagSet, env lab.Options) lesson.Command {
			l := &cliLesson{opts: Options{N: 256, Tile: 16, Coarse: 4, TransposeTile: 32}}
			l.RegisterFlags(fs)
			return l
		},
		Recorded:    recordedResult,
		Module:      Module,
		SelfTest:    selfTest,
		TimeCheck:   timeCheck(),
		CheckFigure: checkFigure,
	}
}

// cliLesson is one run of the lesson from the command line (lesson.Command).
type cliLesson struct{ opts Options }

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

// Validate checks the options without a device, each error naming its
// flag and the values it takes. Options treat 0 as "default"; on the
// command line 0 is a mistake (but --sweep-n 0 is its default).
func (l *cliLesson) Validate() error {
	o := l.opts
	switch {
	case o.N < 1 || o.N > MaxN:
		return fmt.Errorf("--n %d: want 1 to %d (and a multiple of --tile × --coarse and of --transpose-tile)", o.N, MaxN)
	case !slices.Contains(Tiles(), o.Tile):
		return fmt.Errorf("--tile %d: want one of %s (TILE = %d; a TILE x TILE block, at most 32 x 32 = 1024 threads)", o.Tile, list(Tiles()), o.Tile)
	case !slices.Contains(Coarsenings(), o.Coarse):
		return fmt.Errorf("--coarse %d: want one of %s (tiling.cu instantiates those)", o.Coarse, list(Coarsenings()))
	case o.N%(o.Tile*o.Coarse) != 0:
		return fmt.Errorf("--n %d: not a multiple of TILE*COARSE = --tile × --coarse = %d × %d = %d (the coarsened kernel has no bounds checks)",
			o.N, o.Tile, o.Coarse, o.Tile*o.Coarse)
	case !slices.Contains(Tiles(), o.TransposeTile):
		return fmt.Errorf("--transpose-tile %d: want one of %s", o.TransposeTile, list(Tiles()))
	case o.N%o.TransposeTile != 0:
		return fmt.Errorf("--transpose-tile %d: does not divide --n %d (the shared-memory transposes have no bounds checks)", o.TransposeTile, o.N)
	case o.SweepN < 0 || o.SweepN > MaxN:
		return fmt.Errorf("--sweep-n %d: want 0 (min(--n, 128)) or 1 to %d, a multiple of 32 and of --tile × --coarse", o.SweepN, MaxN)
	case o.SweepN%max(32, o.Tile*o.Coarse) != 0: // the sweep runs every TILE up to 32
		return fmt.Errorf("--sweep-n %d: want a multiple of %d (of 32, the widest swept TILE, and of --tile × --coarse = %d)", o.SweepN, max(32, o.Tile*o.Coarse), o.Tile*o.Coarse)
	}
	_, err := o.withDefaults() // what is left: nothing the flags can reach, as a backstop
	return err
}

// list spells the values a flag takes: "1, 2, 4, 8, 16 or 32".
func list(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
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

// recordedResult returns the recorded H200 run (Recorded) as the command
// line writes it, labelled with its GPU, driver and date.
func recordedResult() (lesson.Result, string, error) {
	r, err := Recorded()
	if err != nil {
		return nil, "", err
	}
	return cliResult{r}, lesson.MeasuredOn(r.Device.Name, r.Driver, r.Date), nil
}

// WriteFigure draws the lesson's figures, stacked in one picture: the
// rooflines (the recorded H200 run beside the simulator's on the H200's
// panel), the transposes' sectors and wavefronts, and the load sweep when
// the run has it. They draw the simulator's counts, so a GPU run, which
// records none, has no figure: the error says to run on the simulator.
// errFigureNeedsSim says why a GPU run has no figure.
var errFigureNeedsSim = errors.New("tiling: the figures draw the simulator's counts (loads, sectors, intensities), which a GPU run does not record; run with --backend sim (its roofline puts the recorded H200 run beside the model)")

// checkFigure refuses --svg on a GPU before the run (Lesson.CheckFigure).
func checkFigure(dev *gpuext.Device) error {
	if dev.Kind() != gpuext.Sim {
		return errFigureNeedsSim
	}
	return nil
}

func (r cliResult) WriteFigure(path string) error {
	if len(r.Roofline) == 0 {
		return errFigureNeedsSim
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

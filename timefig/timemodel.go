package timefig

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/timecheck"
)

// The time model's figure (issue 13): every recorded GPU run of a lesson,
// the simulator's modeled time against the measured one, log-log, with the
// ±25% band around equality. It is the honest picture of where the model
// stands, drawn from a `warplab timemodel check` report.

var timeModelColors = map[string]color.Color{
	"spmv":   color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"tiling": color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"cg":     color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

var timeModelShapes = map[string]draw.GlyphDrawer{
	"spmv":   draw.CircleGlyph{},
	"tiling": draw.SquareGlyph{},
	"cg":     draw.TriangleGlyph{},
}

// TimeModel draws modeled against measured for the runs of one lesson
// ("spmv", "tiling", "cg") or, with lesson "", of every lesson, each in its
// colour and shape. The title gives the share within ±25%; the dashed
// lines are the band, the solid one equality.
func TimeModel(rep *timecheck.Report, lesson string) (*plot.Plot, error) {
	if rep == nil {
		return nil, fmt.Errorf("timefig: TimeModel: no report")
	}
	var runs []timecheck.Run
	for _, r := range rep.Runs {
		if r.Half == "calibration" || r.Ratio() == 0 || (lesson != "" && r.Lesson != lesson) {
			continue
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("timefig: TimeModel: no modeled and measured run for lesson %q in the report", lesson)
	}
	s := timecheck.Summarize(runs)
	p := plot.New()
	chart.Style(p)
	who := "every lesson"
	if lesson != "" {
		who = lesson
	}
	p.Title.Text = fmt.Sprintf("Modeled against measured, %s on the %s: %d of %d within ±25%%",
		who, modelName(rep.Model), s.Within, s.Runs)
	p.X.Label.Text = "measured (µs per call, CUDA events)"
	p.Y.Label.Text = "modeled (µs per call, simulator)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = chart.NiceLogTicks{}, chart.NiceLogTicks{}
	lo, hi := math.Inf(1), 0.0
	for _, r := range runs {
		for _, v := range []float64{r.Measured, r.Modeled} {
			lo, hi = math.Min(lo, v*1e6), math.Max(hi, v*1e6)
		}
	}
	lo, hi = lo/1.5, hi*1.5
	for i, f := range []float64{1, 1 + timecheck.Within, 1 - timecheck.Within} {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * f}, {X: hi, Y: hi * f}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 0x55}
		if i > 0 {
			l.Color = color.Gray{Y: 0x99}
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		if i == 1 {
			p.Legend.Add("±25%", l)
		}
	}
	for _, name := range []string{"spmv", "tiling", "cg"} {
		var xy plotter.XYs
		for _, r := range runs {
			if r.Lesson == name {
				xy = append(xy, plotter.XY{X: r.Measured * 1e6, Y: r.Modeled * 1e6})
			}
		}
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = timeModelColors[name]
		sc.GlyphStyle.Shape = timeModelShapes[name]
		sc.GlyphStyle.Radius = vg.Points(3.5)
		p.Add(sc)
		p.Legend.Add(name, sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	chart.MoveLegendOutside(p, chart.LegendAbove)
	return p, nil
}

func modelName(key string) string {
	switch key {
	case "h200":
		return "H200"
	case "h100":
		return "H100"
	case "a100":
		return "A100"
	case "t4":
		return "T4"
	}
	return key
}

// TimeModelFigure is the figure for a lesson notebook (lesson "spmv",
// "tiling" or "cg") or the index page (""), from the check recorded with
// the repository (timecheck.Embedded): one call in a cell,
//
//	plots.Display(timefig.TimeModelFigure("spmv"))
//
// does not compile (two results), so a cell writes
//
//	p, err := timefig.TimeModelFigure("spmv")
//	if !plots.ShowError(err) { plots.Display(p) }
//
// or calls DisplayTimeModel.
func TimeModelFigure(lesson string) (*plot.Plot, error) {
	rep, err := timecheck.Embedded()
	if err != nil {
		return nil, err
	}
	return TimeModel(rep, lesson)
}

// DisplayTimeModel shows TimeModelFigure(lesson) in the notebook, or the
// error in its place.
func DisplayTimeModel(lesson string) {
	p, err := TimeModelFigure(lesson)
	if plots.ShowError(err) {
		return
	}
	plots.ShowError(plots.Display(p))
}

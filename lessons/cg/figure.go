package cg

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
)

// The lesson's two figures, drawn with plots/chart (the figure toolkit,
// which imports no lesson). Both
// take results, never a device, so a recorded GPU run draws the same way as
// a live one.

var (
	cgKernelColor   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	cgTransferColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	cgOverheadColor = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
)

// TimePlot is the stacked bar plot of where each stage's time goes: kernels,
// copies, and launch overhead (modeled) or the unexplained rest (measured).
// When every bar is of one kind the y-axis label says which; otherwise each
// tick does. The tick labels are slanted, because nine stage names side by
// side at a notebook's width run into each other, and each bar's total is
// printed above it, because the CPU stage's seconds flatten the GPU stages'
// milliseconds into slivers whose height cannot be read.
func TimePlot(rs []*StageResult) (*plot.Plot, error) {
	bars := TimeBars(rs)
	if len(bars) == 0 {
		return nil, fmt.Errorf("cg: TimePlot: no stages")
	}
	p := plot.New()
	chart.Style(p)
	p.Title.Text = "Where the time goes, stage by stage"
	kind := bars[0].Kind
	for _, b := range bars {
		if b.Kind != kind {
			kind = ""
		}
	}
	p.Y.Label.Text = "time (ms)"
	if kind != "" {
		p.Y.Label.Text = "time (ms, " + kind.String() + ")"
	}
	var k, t, o plotter.Values
	names := make([]string, len(bars))
	for i, b := range bars {
		k, t, o = append(k, b.KernelMs), append(t, b.TransferMs), append(o, b.OverheadMs)
		names[i] = b.Label
		if kind == "" {
			names[i] += " (" + b.Kind.String() + ")"
		}
	}
	w := vg.Points(28)
	kb, err := plotter.NewBarChart(k, w)
	if err != nil {
		return nil, err
	}
	tb, err := plotter.NewBarChart(t, w)
	if err != nil {
		return nil, err
	}
	ob, err := plotter.NewBarChart(o, w)
	if err != nil {
		return nil, err
	}
	kb.Color, tb.Color, ob.Color = cgKernelColor, cgTransferColor, cgOverheadColor
	kb.LineStyle.Width, tb.LineStyle.Width, ob.LineStyle.Width = 0, 0, 0
	tb.StackOn(kb)
	ob.StackOn(tb)
	p.Add(kb, tb, ob)
	p.Legend.Add("kernels", kb)
	p.Legend.Add("copies", tb)
	p.Legend.Add("launch overhead / rest", ob)
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	// The stacked bars' tops, labeled, with room above the tallest for its
	// label: the plotter's own range sees each layer on its own.
	top := 0.0
	tops := make(plotter.XYs, len(k))
	labels := make([]string, len(k))
	for i := range k {
		tops[i] = plotter.XY{X: float64(i), Y: k[i] + t[i] + o[i]}
		labels[i] = formatMs(tops[i].Y)
		top = max(top, tops[i].Y)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: tops, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(8.5)
		lb.TextStyle[i].XAlign = draw.XCenter
	}
	lb.Offset = vg.Point{Y: vg.Points(2)}
	p.Add(lb)
	p.Y.Min, p.Y.Max = 0, top*1.08
	p.Y.Tick.Marker = chart.PlainTicks{}
	chart.MoveLegendOutside(p, chart.LegendAbove)
	return p, nil
}

// formatMs prints a bar's total in milliseconds with three significant
// digits and no exponent: 7130, 46.2, 0.815.
func formatMs(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// ConvergencePlot draws log10 of the residual against the iteration, one
// line per stage. Stages 2–4 share their bits, so their lines coincide;
// stage 1 lies on stage 0's. A residual of exactly zero (tiny grids solve
// exactly) ends a line.
func ConvergencePlot(rs []*StageResult) (*plot.Plot, error) {
	series := Convergence(rs)
	if len(series) == 0 {
		return nil, fmt.Errorf("cg: ConvergencePlot: no stages")
	}
	p := plot.New()
	chart.Style(p)
	p.Title.Text = "Convergence: residual ‖r‖ per iteration"
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = "log10 residual"
	// Whole decades: "-50", not "-50.00".
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ts := plot.DefaultTicks{}.Ticks(lo, hi)
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = fmt.Sprintf("%.0f", ts[i].Value)
			}
		}
		return ts
	})
	p.Add(plotter.NewGrid())
	dashes := [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}
	for i, s := range series {
		var xys plotter.XYs
		for k, v := range s.Residuals {
			if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				break
			}
			xys = append(xys, plotter.XY{X: float64(k + 1), Y: math.Log10(v)})
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = cgStageColor(s.Stage)
		l.Width = vg.Points(1.5)
		l.Dashes = dashes[i%len(dashes)]
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	// The curves fall from the top left to the bottom right and, for a
	// tiny grid, end anywhere: no corner of the data area is free for
	// every run, so the legend stands to the right of it.
	chart.MoveLegendOutside(p, chart.LegendRight)
	return p, nil
}

func cgStageColor(s int) color.Color {
	palette := []color.RGBA{
		{R: 0x00, G: 0x00, B: 0x00, A: 0xff},
		{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	}
	return palette[((s%len(palette))+len(palette))%len(palette)]
}

// WriteFigure draws the report's two figures, the time per stage above the
// convergence, to path (SVG or PNG by its extension), their titles naming
// the grid and where the run ran.
func (rep *Report) WriteFigure(path string) error {
	tp, err := TimePlot(rep.Stages)
	if err != nil {
		return err
	}
	cp, err := ConvergencePlot(rep.Stages)
	if err != nil {
		return err
	}
	on := rep.Device
	switch {
	case rep.Backend == "sim":
		on = lesson.SimLabel(rep.Device) + ", modeled"
	case rep.Backend == "gpu" && len(rep.Date) >= 10:
		on += ", " + rep.Date[:10]
	}
	g := rep.Grid
	where := fmt.Sprintf(" (%dx%dx%d, %s)", g[0], g[1], g[2], on)
	tp.Title.Text += where
	cp.Title.Text += where
	fig := &chart.Figure{Panels: []*plot.Plot{tp, cp}}
	return chart.WriteFile(path, fig, chart.DefaultWidth, 2*chart.DefaultHeight)
}

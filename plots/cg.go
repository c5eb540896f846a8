package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/lessons/cg"
)

// The CG lesson's two figures. Both take results, never a device, so a
// recorded GPU run draws the same way as a live one.

var (
	cgKernelColor   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	cgTransferColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	cgOverheadColor = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
)

// CGTime is the CG lesson's stacked bar plot of where each stage's time goes: kernels,
// copies, and launch overhead (modeled) or the unexplained rest (measured).
// Each tick says whether its bar is measured or modeled.
func CGTime(rs []*cg.StageResult) (*plot.Plot, error) {
	bars := cg.TimeBars(rs)
	if len(bars) == 0 {
		return nil, fmt.Errorf("plots: CGTime: no stages")
	}
	p := plot.New()
	p.Title.Text = "Where the time goes, stage by stage"
	p.Y.Label.Text = "time (ms)"
	var k, t, o plotter.Values
	names := make([]string, len(bars))
	for i, b := range bars {
		k, t, o = append(k, b.KernelMs), append(t, b.TransferMs), append(o, b.OverheadMs)
		names[i] = fmt.Sprintf("%s\n(%s)", b.Label, b.Kind)
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
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(6)
	p.Legend.Padding = vg.Points(2)
	p.NominalX(names...)
	// The stacked bars' tops, with room above the tallest for the legend:
	// the plotter's own range sees each layer on its own.
	top := 0.0
	for i := range k {
		top = max(top, k[i]+t[i]+o[i])
	}
	p.Y.Min, p.Y.Max = 0, top*1.25
	return p, nil
}

// CGConvergence draws, for the CG lesson, log10 of the residual against the iteration, one
// line per stage. Stages 2–4 share their bits, so their lines coincide;
// stage 1 lies on stage 0's. A residual of exactly zero (tiny grids solve
// exactly) ends a line.
func CGConvergence(rs []*cg.StageResult) (*plot.Plot, error) {
	series := cg.Convergence(rs)
	if len(series) == 0 {
		return nil, fmt.Errorf("plots: CGConvergence: no stages")
	}
	p := plot.New()
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
	p.Legend.Top = true
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

package chart

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// gonum/plot draws a legend inside the data area, where it covers whatever
// data lies under it: a reference line at the top of a bar chart, the
// convergence curves. How much it covers depends on the font the viewer
// renders the SVG with, so a legend that clears the data in a PNG can cover
// it in a browser. The figures here therefore draw their legends outside the
// data area, in room the plot reserves for them, where no data can be.

// A LegendSide says where outside the data area a legend goes.
type LegendSide int

const (
	// LegendAbove puts the legend between the title and the data area,
	// left-aligned: a few entries, however long.
	LegendAbove LegendSide = iota
	// LegendRight puts it right of the data area, top-aligned: many short
	// entries (one per stage).
	LegendRight
)

// legendGap is the space between the data area and an outside legend: it
// clears the half of the top tick label that stands above the axis.
const legendGap = vg.Length(8) // points

// legendSlack widens the room reserved for a legend to the right, because a
// browser that lacks the Liberation fonts the SVG names falls back to a
// wider serif, and text must not run off the canvas.
const legendSlack = 1.15

// outsideLegend is a plotter that draws a legend beside the data area. It
// draws nothing inside the data area; its glyph box makes the plot shrink
// the data area so the legend fits (see MoveLegendOutside).
type outsideLegend struct {
	legend plot.Legend
	w, h   vg.Length // the legend's size, in the fonts gonum lays it out with
	side   LegendSide
}

// MoveLegendOutside moves p's legend, with every entry added so far, out of
// the data area to side. Entries added to p.Legend afterwards would be drawn
// inside, so call it last. It does nothing to a legend without entries.
func MoveLegendOutside(p *plot.Plot, side LegendSide) {
	l := p.Legend
	l.Padding = max(l.Padding, LegendPadding)
	r := l.Rectangle(draw.Canvas{})
	if r.Size().Y <= 0 {
		return
	}
	l.Top, l.Left = true, true
	l.XOffs, l.YOffs = 0, 0
	o := &outsideLegend{legend: l, w: r.Size().X, h: r.Size().Y, side: side}
	if side == LegendRight {
		o.w *= legendSlack
	}
	// An empty legend in the plot's own place: Plot.Draw draws nothing.
	empty := plot.NewLegend()
	empty.TextStyle = l.TextStyle
	p.Legend = empty
	p.Add(o)
}

// Plot implements plot.Plotter: c is the data area, the legend goes beside
// it.
func (o *outsideLegend) Plot(c draw.Canvas, _ *plot.Plot) {
	area := c
	switch o.side {
	case LegendRight:
		area.Min = vg.Point{X: c.Max.X + legendGap, Y: c.Max.Y - o.h}
		area.Max = vg.Point{X: c.Max.X + legendGap + o.w, Y: c.Max.Y}
	default:
		area.Min = vg.Point{X: c.Min.X, Y: c.Max.Y + legendGap}
		area.Max = vg.Point{X: c.Max.X, Y: c.Max.Y + legendGap + o.h}
	}
	o.legend.Draw(area)
}

// GlyphBoxes implements plot.GlyphBoxer. gonum pads the data area so that
// every glyph box fits on the canvas; one box the legend's size, anchored at
// the data area's top edge, reserves the legend's room.
func (o *outsideLegend) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	if o.side == LegendRight {
		return []plot.GlyphBox{{X: 1, Y: 1, Rectangle: vg.Rectangle{
			Min: vg.Point{X: legendGap, Y: -o.h},
			Max: vg.Point{X: legendGap + o.w, Y: 0},
		}}}
	}
	return []plot.GlyphBox{{X: 0, Y: 1, Rectangle: vg.Rectangle{
		Min: vg.Point{X: 0, Y: legendGap},
		Max: vg.Point{X: 0, Y: legendGap + o.h},
	}}}
}

// LegendPadding spaces legend rows so that they stay apart in a browser,
// whose font metrics can be taller than the ones the SVG was laid out with.
const LegendPadding vg.Length = 1.5 // points: vg.Length counts in points

package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Kind is the kind of number a figure shows; its Color is the one every
// figure gives it, from the Okabe–Ito palette (distinguishable with the
// common colour-vision deficiencies): blue for a prediction, orange for a
// simulator's modeled number, green for a GPU measurement, grey for a
// reference line (a limit, a baseline).
type Kind int

// The kinds of number.
const (
	Predicted Kind = iota
	Modeled
	Measured
	Reference
)

// Color returns k's colour.
func (k Kind) Color() color.Color {
	switch k {
	case Predicted:
		return color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}
	case Modeled:
		return color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}
	case Measured:
		return color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}
	}
	return color.Gray{Y: 0x60}
}

// Series is one legend entry of a grouped bar chart: a value per
// category, NaN where this series has no number for that category.
type Series struct {
	Name   string
	Values []float64
	Color  color.Color
}

// bars is a plotter for one series of a grouped bar chart. Unlike
// plotter.BarChart it draws bars from the bottom of the axis rather than
// from zero, so it works on a log axis, and it can print each bar's value
// above it.
type bars struct {
	values   []float64
	width    vg.Length
	offset   vg.Length
	color    color.Color
	line     draw.LineStyle
	label    func(v float64) string // nil: no value labels
	text     text.Style
	logScale bool
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i, v := range b.values {
		if math.IsNaN(v) || (b.logScale && v <= 0) {
			continue
		}
		x := trX(float64(i)) + b.offset
		if !c.ContainsX(x) {
			continue
		}
		bottom := c.Min.Y
		if !b.logScale {
			bottom = trY(0)
		}
		top := trY(v)
		pts := []vg.Point{{X: x - b.width/2, Y: bottom}, {X: x - b.width/2, Y: top}, {X: x + b.width/2, Y: top}, {X: x + b.width/2, Y: bottom}}
		c.FillPolygon(b.color, c.ClipPolygonY(pts))
		c.StrokeLines(b.line, c.ClipLinesY(append(pts, pts[0]))...)
		if b.label != nil {
			sty := b.text
			sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
			c.FillText(sty, vg.Point{X: x, Y: top + vg.Points(2)}, b.label(v))
		}
	}
}

// DataRange implements plot.DataRanger: half a category of room either side.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, v := range b.values {
		if math.IsNaN(v) || (b.logScale && v <= 0) {
			continue
		}
		ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
	}
	if !b.logScale {
		ymin = math.Min(ymin, 0)
	}
	return -0.5, float64(len(b.values)) - 0.5, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.color, c.ClipPolygonY(pts))
	c.StrokeLines(b.line, append(pts, pts[0]))
}

// AddGroupedBars draws series side by side within each category and adds
// each to the legend. plotWidth is the expected width of the plotting area,
// from which the bar width is chosen so a group fills 80% of its category.
func AddGroupedBars(p *plot.Plot, series []Series, plotWidth vg.Length, logScale bool, label func(float64) string) error {
	if len(series) == 0 {
		return fmt.Errorf("chart: no series to draw")
	}
	n := len(series[0].Values)
	if n == 0 {
		return fmt.Errorf("chart: no categories to draw")
	}
	for _, s := range series {
		if len(s.Values) != n {
			return fmt.Errorf("chart: series %q has %d values, want %d", s.Name, len(s.Values), n)
		}
	}
	w := plotWidth / vg.Length(n) * 0.8 / vg.Length(len(series))
	w = min(w, vg.Points(40))
	txt := p.Y.Tick.Label
	txt.Font.Size = vg.Points(8)
	for i, s := range series {
		b := &bars{
			values: s.Values, width: w, color: s.Color,
			offset:   w * (vg.Length(i) - vg.Length(len(series)-1)/2),
			line:     draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)},
			label:    label,
			text:     txt,
			logScale: logScale,
		}
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	return nil
}

// ReferenceLine draws a dashed horizontal line at y across the categories,
// with its legend entry, for limits such as "probe = 1" or "4 sectors".
func ReferenceLine(p *plot.Plot, y float64, n int, name string, dashes ...vg.Length) error {
	l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: y}, {X: float64(n) - 0.5, Y: y}})
	if err != nil {
		return err
	}
	l.Color = Reference.Color()
	l.Width = vg.Points(1)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	if len(dashes) > 0 {
		l.Dashes = dashes
	}
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// NiceLogTicks labels 1, 2 and 5 times each power of ten, which a reader can
// interpolate between; a plain LogTicks labels only the decades.
type NiceLogTicks struct{}

// Ticks implements plot.Ticker.
func (NiceLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return ticks
}

// PlainTicks are gonum's default linear ticks labeled without trailing
// zeros (2500, not 2500.00; 0.5, not 0.50).
type PlainTicks struct{}

// Ticks implements plot.Ticker.
func (PlainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

// LogRange returns a log axis range holding [lo, hi] with room above for
// the legend and value labels: from the 1-2-5 step at or below lo to the
// 1-2-5 step at or above headroom times hi.
func LogRange(lo, hi, headroom float64) (float64, float64) {
	down := math.Pow(10, math.Floor(math.Log10(lo)))
	for _, m := range []float64{5, 2} {
		if m*down <= lo {
			down *= m
			break
		}
	}
	top := hi * headroom
	up := math.Pow(10, math.Floor(math.Log10(top)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*up >= top {
			up *= m
			break
		}
	}
	return down, up
}

// Style sets font sizes readable at about 800 px: a 13 pt
// title, 11 pt axis labels, 10 pt ticks and legend.
func Style(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(11)
		a.Tick.Label.Font.Size = vg.Points(10)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(9.5)
	p.Legend.ThumbnailWidth = vg.Points(18)
}

// FormatTimes prints a ratio with two significant decimals for small values
// and one for large ones: 0.54×, 1.9×, 26.2×.
func FormatTimes(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64) + "×"
	default:
		return strconv.FormatFloat(v, 'f', 1, 64) + "×"
	}
}

// IntTicks labels exactly the given integer positions (TILE or COARSE
// values), which on a log axis reads better than decades.
func IntTicks(vals []int) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(vals))
	for i, v := range vals {
		t[i] = plot.Tick{Value: float64(v), Label: strconv.Itoa(v)}
	}
	return t
}

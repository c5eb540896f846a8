package chart

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pointLabels names points beside their markers, like plotter.Labels, but
// chooses each label's side when the plot is drawn: right of its point
// unless that would overlap a label already placed or another point, then
// right and lower, left, left and lower, above, below. A roofline's kernels
// sit close together at small sizes (two SpMV kernels a fifth of a decade
// apart), where labels that all go right print over each other.
type pointLabels struct {
	xys    plotter.XYs
	labels []string
	style  text.Style
	marker vg.Length // the markers' radius: labels keep clear of every marker
}

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	const gap = vg.Length(6) // points between a marker's centre and its label
	var taken []vg.Rectangle
	for _, xy := range l.xys {
		x, y := trX(xy.X), trY(xy.Y)
		r := l.marker
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: x - r, Y: y - r}, Max: vg.Point{X: x + r, Y: y + r}})
	}
	sty := l.style
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	for i, xy := range l.xys {
		x, y := trX(xy.X), trY(xy.Y)
		size := sty.Rectangle(l.labels[i]).Size()
		w, h := size.X, size.Y
		candidates := []vg.Point{ // bottom-left corners
			{X: x + gap, Y: y - h/3},
			{X: x + gap, Y: y - h - gap/2},
			{X: x - gap - w, Y: y - h/3},
			{X: x - gap - w, Y: y - h - gap/2},
			{X: x - w/2, Y: y + gap},
			{X: x - w/2, Y: y - gap - h},
		}
		best := candidates[0]
		for _, at := range candidates {
			box := vg.Rectangle{Min: at, Max: vg.Point{X: at.X + w, Y: at.Y + h}}
			if box.Min.X < c.Min.X || box.Max.X > c.Max.X || overlapsAny(box, taken) {
				continue
			}
			best = at
			break
		}
		taken = append(taken, vg.Rectangle{Min: best, Max: vg.Point{X: best.X + w, Y: best.Y + h}})
		c.FillText(sty, best, l.labels[i])
	}
}

// overlapsAny reports whether r overlaps any of rs.
func overlapsAny(r vg.Rectangle, rs []vg.Rectangle) bool {
	for _, q := range rs {
		if r.Min.X < q.Max.X && q.Min.X < r.Max.X && r.Min.Y < q.Max.Y && q.Min.Y < r.Max.Y {
			return true
		}
	}
	return false
}

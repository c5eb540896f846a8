package libs

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
)

// The method families of the libs figure, one bar each per matrix, from
// the Okabe–Ito palette beside the prediction/modeled/measured colours.
var libsFamilies = []struct {
	name  string
	color color.Color
	match func(method string) bool
}{
	{"CSR-vector, best width", color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF},
		func(m string) bool { return strings.HasPrefix(m, "vector") && !strings.HasSuffix(m, "_v4") }},
	{"CSR-vector float4, best width", color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF},
		func(m string) bool { return strings.HasPrefix(m, "vector") && strings.HasSuffix(m, "_v4") }},
	{"binned", color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF},
		func(m string) bool { return m == MethodBinned }},
	{"merge path", color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF},
		func(m string) bool { return m == MethodMerge }},
}

// libsData is what the figure draws, apart from the drawing.
type libsData struct {
	matrices []string
	families [][]float64 // [family][matrix] GB/s of the family's fastest correct run; NaN if none
	chosen   []int       // per matrix, the family index of the chooser's pick
	cusparse []float64   // per matrix, cuSPARSE's best GB/s over the same minimum bytes; NaN if none
	copyGBs  float64
	copyName string
	title    string
}

func libsDataOf(res *Result, peer []PeerRun) (libsData, error) {
	if res == nil || len(res.Matrices) == 0 {
		return libsData{}, fmt.Errorf("libs: Figure: no result to draw (run the lesson first)")
	}
	d := libsData{families: make([][]float64, len(libsFamilies))}
	for _, m := range res.Matrices {
		d.matrices = append(d.matrices, m.Key)
		ch := -1
		for f, fam := range libsFamilies {
			best := math.NaN()
			for _, r := range m.Runs {
				if fam.match(r.Method) && r.Correct && r.GBs > 0 && !(r.GBs <= best) {
					best = r.GBs
				}
			}
			d.families[f] = append(d.families[f], best)
			if fam.match(m.Choice.Method) {
				ch = f
			}
		}
		d.chosen = append(d.chosen, ch)
		cs := math.NaN()
		if p, ok := PeerBest(peer, m.Key); ok && p.MeanMs > 0 {
			cs = float64(m.MinBytes) / (p.MeanMs * 1e-3) / 1e9
		}
		d.cusparse = append(d.cusparse, cs)
	}
	d.copyGBs = res.CopyGBs()
	d.copyName = fmt.Sprintf("copy %.0f GB/s", d.copyGBs)
	if g := PeerCopyGBs(peer); g > d.copyGBs {
		d.copyGBs, d.copyName = g, fmt.Sprintf("cudaMemcpy copy %.0f GB/s", g)
	}
	if res.Backend == "gpu" {
		d.title = fmt.Sprintf("SpMV bandwidth, measured: %s", lesson.MeasuredOn(res.Device.Name, res.Driver, res.Date))
	} else {
		d.title = fmt.Sprintf("SpMV bandwidth, modeled (%s)", lesson.SimLabel(res.Device.Name))
	}
	return d, nil
}

// Figure draws the lesson's figure (with plots/chart: this package cannot
// import plots, which imports the lessons through internal/timecheck): per matrix, the GB/s (minimum bytes over
// time) of each method family's fastest correct run, the chooser's pick
// marked with a triangle, cuSPARSE's best as a black bar across the group when
// peer has it, and the copy bandwidth as a dashed line: the ceiling an SpMV
// that moves its minimum bytes can approach.
func Figure(res *Result, peer []PeerRun) (*chart.Figure, error) {
	d, err := libsDataOf(res, peer)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	chart.Style(p)
	p.Title.Text = d.title
	p.Y.Label.Text = "GB/s (minimum bytes / time, log scale)"
	// Log scale: the SuiteSparse matrices move a megabyte and the 2^23-row
	// pair a gigabyte; on a linear axis the small ones would not show.
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = chart.NiceLogTicks{}
	p.NominalX(d.matrices...)
	var series []chart.Series
	for f, fam := range libsFamilies {
		series = append(series, chart.Series{Name: fam.name, Values: d.families[f], Color: fam.color})
	}
	if err := chart.AddGroupedBars(p, series, 6.8*vg.Inch, true, nil); err != nil {
		return nil, err
	}
	// The chooser's pick: a triangle at the top of its bar.
	n := len(libsFamilies)
	w := 0.8 / float64(n)
	var stars plotter.XYs
	for i, f := range d.chosen {
		if f >= 0 && !math.IsNaN(d.families[f][i]) {
			stars = append(stars, plotter.XY{X: float64(i) + w*(float64(f)-float64(n-1)/2), Y: d.families[f][i]})
		}
	}
	if len(stars) > 0 {
		s, err := plotter.NewScatter(stars)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.PyramidGlyph{}
		s.GlyphStyle.Radius = vg.Points(5)
		s.GlyphStyle.Color = color.Black
		p.Add(s)
		p.Legend.Add("chosen", s)
	}
	var added bool
	for i, v := range d.cusparse {
		if math.IsNaN(v) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.45, Y: v}, {X: float64(i) + 0.45, Y: v}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = color.Black, vg.Points(2.5)
		p.Add(l)
		if !added {
			p.Legend.Add("cuSPARSE, best algorithm", l)
			added = true
		}
	}
	if d.copyGBs > 0 {
		if err := chart.ReferenceLine(p, d.copyGBs, len(d.matrices), d.copyName); err != nil {
			return nil, err
		}
	}
	// Room above the copy line for the legend, top right.
	lo, hi := math.Inf(1), d.copyGBs
	for _, vs := range append(slices.Clone(d.families), d.cusparse) {
		for _, v := range vs {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("libs: Figure: no positive bandwidth to draw")
	}
	p.Y.Min, p.Y.Max = lo/2, hi*4
	p.Legend.Top = true
	return &chart.Figure{Panels: []*plot.Plot{p}}, nil
}

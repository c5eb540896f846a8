package timefig

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/timecheck"
)

// The sweep's figure (issue 27, milestone 2): for one family of the
// recorded sweep, each kernel's time along the family's sizes, measured
// on the GPU (solid, filled marks) and modeled by the simulator (dashed,
// open marks) in the same colour. Where the two curves part is where the
// model stops predicting; a case the check could not model has a measured
// mark and no modeled one.

// sweepPalette colours a family's kernels in their order.
var sweepPalette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

// TimeModelSweep draws one family of a sweep report: sizes along x (log),
// µs per call along y (log), measured and modeled per kernel. The title
// gives the family's cases within ±25% of the modeled ones.
func TimeModelSweep(rep *timecheck.SweepReport, family string) (*plot.Plot, error) {
	if rep == nil {
		return nil, fmt.Errorf("timefig: TimeModelSweep: no report")
	}
	var cases []timecheck.SweepCase
	var kernels []string
	for _, c := range rep.Cases {
		if c.Family != family || c.Measured <= 0 || c.Size <= 0 {
			continue
		}
		cases = append(cases, c)
		if !containsSeries(kernels, c.Kernel) {
			kernels = append(kernels, c.Kernel)
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("timefig: TimeModelSweep: no measured case of family %q in the report", family)
	}
	p := plot.New()
	chart.Style(p)
	within, modeled := 0, 0
	for _, c := range cases {
		if c.Ratio() > 0 {
			modeled++
			if math.Abs(c.Ratio()-1) <= timecheck.Within+1e-12 {
				within++
			}
		}
	}
	p.Title.Text = fmt.Sprintf("%s: %d of %d modeled within ±25%% (%d measured)", family, within, modeled, len(cases))
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = cases[0].SizeUnit + "   (solid: GPU; dashed: model)"
	p.Y.Label.Text = "µs per call"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	st := sizeTicks{exponent: cases[0].SizeUnit == "rows" || cases[0].SizeUnit == "elements"}
	for _, c := range cases {
		if !containsSeries(st.sizes, float64(c.Size)) {
			st.sizes = append(st.sizes, float64(c.Size))
		}
	}
	sort.Float64s(st.sizes)
	p.X.Tick.Marker = st
	p.Y.Tick.Marker = chart.NiceLogTicks{}
	// A series is a kernel on one kind of input: the histogram family has
	// two inputs of each size (random values, one bin).
	type series struct{ kernel, variant string }
	var all []series
	for _, k := range kernels {
		for _, c := range cases {
			s := series{k, inputVariant(c.Input)}
			if c.Kernel == k && !containsSeries(all, s) {
				all = append(all, s)
			}
		}
	}
	for i, sr := range all {
		k := sr.kernel
		var meas, mod plotter.XYs
		for _, c := range cases {
			if c.Kernel != k || inputVariant(c.Input) != sr.variant {
				continue
			}
			meas = append(meas, plotter.XY{X: float64(c.Size), Y: c.Measured * 1e6})
			if c.Modeled > 0 {
				mod = append(mod, plotter.XY{X: float64(c.Size), Y: c.Modeled * 1e6})
			}
		}
		sort.Slice(meas, func(a, b int) bool { return meas[a].X < meas[b].X })
		sort.Slice(mod, func(a, b int) bool { return mod[a].X < mod[b].X })
		col := sweepPalette[i%len(sweepPalette)]
		ml, mp, err := plotter.NewLinePoints(meas)
		if err != nil {
			return nil, err
		}
		ml.Color, mp.Color = col, col
		mp.Shape, mp.Radius = draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(ml, mp)
		name := k
		if sr.variant != "" {
			name += " (" + sr.variant + ")"
		}
		p.Legend.Add(name, ml, mp)
		if len(mod) > 0 {
			dl, dp, err := plotter.NewLinePoints(mod)
			if err != nil {
				return nil, err
			}
			dl.Color, dp.Color = col, col
			dl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			dp.Shape, dp.Radius = draw.RingGlyph{}, vg.Points(3)
			p.Add(dl, dp)
		}
	}
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// inputVariant is what an input's name says besides its size: "random"
// of "random n=2^16", "" for "N=256" or "2^12 rows".
func inputVariant(input string) string {
	if i := strings.Index(input, " n="); i >= 0 {
		return input[:i]
	}
	return ""
}

func containsSeries[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// sizeTicks marks a family's sizes on its log axis, labeled 2^k
// (exponent, for powers of two) or as numbers; when more than six, every
// second is labeled.
type sizeTicks struct {
	sizes    []float64
	exponent bool
}

// Ticks implements plot.Ticker.
func (t sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for len(t.sizes)/step > 6 {
		step++
	}
	var out []plot.Tick
	for i, v := range t.sizes {
		if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
			continue
		}
		tk := plot.Tick{Value: v}
		if i%step == 0 {
			tk.Label = strconv.FormatFloat(v, 'f', -1, 64)
			if e := math.Log2(v); t.exponent && e == math.Trunc(e) {
				tk.Label = fmt.Sprintf("2^%d", int(e))
			}
		}
		out = append(out, tk)
	}
	return out
}

// SweepGrid is every family of a sweep report, one panel each, in
// columns: a Drawer for WriteFile and Display.
type SweepGrid struct {
	Panels []*plot.Plot
	Cols   int
}

// TimeModelSweepGrid draws every family of rep that has a measured case,
// in the report's family order, cols panels a row.
func TimeModelSweepGrid(rep *timecheck.SweepReport, cols int) (*SweepGrid, error) {
	if rep == nil {
		return nil, fmt.Errorf("timefig: TimeModelSweepGrid: no report")
	}
	if cols < 1 {
		return nil, fmt.Errorf("timefig: TimeModelSweepGrid: %d columns", cols)
	}
	g := &SweepGrid{Cols: cols}
	var fams []string
	for _, s := range rep.ByFamily {
		fams = append(fams, s.Name)
	}
	for _, c := range rep.Cases {
		if !containsSeries(fams, c.Family) {
			fams = append(fams, c.Family)
		}
	}
	for _, f := range fams {
		p, err := TimeModelSweep(rep, f)
		if err != nil {
			continue
		}
		g.Panels = append(g.Panels, p)
	}
	if len(g.Panels) == 0 {
		return nil, fmt.Errorf("timefig: TimeModelSweepGrid: no measured case in the report")
	}
	return g, nil
}

// Rows is the grid's number of rows.
func (g *SweepGrid) Rows() int { return (len(g.Panels) + g.Cols - 1) / g.Cols }

// Draw implements Drawer: the panels tiled row by row.
func (g *SweepGrid) Draw(c draw.Canvas) {
	rows := g.Rows()
	ps := make([][]*plot.Plot, rows)
	for r := range ps {
		ps[r] = make([]*plot.Plot, g.Cols)
		for col := range ps[r] {
			if i := r*g.Cols + col; i < len(g.Panels) {
				ps[r][col] = g.Panels[i]
			}
		}
	}
	t := draw.Tiles{Rows: rows, Cols: g.Cols, PadX: vg.Points(6), PadY: vg.Points(6),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	canvases := plot.Align(ps, t, c)
	for r := range ps {
		for col, p := range ps[r] {
			if p != nil {
				p.Draw(canvases[r][col])
			}
		}
	}
}

// Size is a good image size for the grid: 4 inches by 3.4 a panel.
func (g *SweepGrid) Size() (w, h vg.Length) {
	return vg.Length(g.Cols) * 4 * vg.Inch, vg.Length(g.Rows()) * 3.4 * vg.Inch
}

// TimeModelSweepFigure is one family's figure from the sweep check
// recorded with the repository (timecheck.EmbeddedSweep), for a notebook
// or a page; DisplayTimeModelSweep shows it.
func TimeModelSweepFigure(family string) (*plot.Plot, error) {
	rep, err := timecheck.EmbeddedSweep()
	if err != nil {
		return nil, err
	}
	return TimeModelSweep(rep, family)
}

// DisplayTimeModelSweep shows one family of the recorded sweep's check in
// the notebook, or every family (family "") as a grid of four columns, or
// the error in its place.
func DisplayTimeModelSweep(family string) {
	if family != "" {
		p, err := TimeModelSweepFigure(family)
		if plots.ShowError(err) {
			return
		}
		plots.ShowError(plots.Display(p))
		return
	}
	rep, err := timecheck.EmbeddedSweep()
	if plots.ShowError(err) {
		return
	}
	g, err := TimeModelSweepGrid(rep, 4)
	if plots.ShowError(err) {
		return
	}
	w, h := g.Size()
	plots.ShowError(plots.DisplaySize(g, w, h))
}

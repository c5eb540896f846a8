package plots

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/plots/chart"
)

// StrideSectors draws the first lesson's strided copy: 32-byte sectors per
// global-load request against the stride (log scale), between the two
// limits a warp can hit, 4 (32 neighbouring floats, 128 bytes: coalesced)
// and 32 (every lane in its own sector). device names the simulated GPU for
// the title ("simulated T4"); sectorsPerRequest[i] is the count at
// strides[i]. It lives here rather than in the notebook so that the figure
// has a golden-image test like every other.
func StrideSectors(device string, strides []int, sectorsPerRequest []float64) (*plot.Plot, error) {
	if len(strides) == 0 || len(strides) != len(sectorsPerRequest) {
		return nil, fmt.Errorf("plots: StrideSectors: %d strides and %d counts (want as many, at least one)", len(strides), len(sectorsPerRequest))
	}
	pts := make(plotter.XYs, len(strides))
	labels := make([]string, len(strides))
	for i, s := range strides {
		v := sectorsPerRequest[i]
		if s <= 0 || !(v > 0) || math.IsInf(v, 0) {
			return nil, errors.New("plots: StrideSectors: strides and counts must be positive (the stride axis is logarithmic)")
		}
		pts[i] = plotter.XY{X: float64(s), Y: v}
		labels[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	p := plot.New()
	chart.Style(p)
	p.Title.Text = "Strided copy: sectors per load request (" + device + ")"
	p.X.Label.Text = "stride (floats; log scale)"
	p.Y.Label.Text = "32-byte sectors per request"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = chart.IntTicks(strides)
	lo, hi := pts[0].X, pts[0].X
	for _, xy := range pts {
		lo, hi = math.Min(lo, xy.X), math.Max(hi, xy.X)
	}
	p.X.Min, p.X.Max = lo/1.25, hi*1.25 // room for the end markers
	p.Add(plotter.NewGrid())
	limit := func(y float64, name string, dashes []vg.Length) error {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = chart.Reference.Color(), vg.Points(1), dashes
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	if err := limit(4, "4: a warp's 32 floats are 128 contiguous bytes (coalesced)", []vg.Length{vg.Points(4), vg.Points(3)}); err != nil {
		return nil, err
	}
	if err := limit(32, "32: every lane in its own sector", []vg.Length{vg.Points(1), vg.Points(2)}); err != nil {
		return nil, err
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = chart.Modeled.Color(), vg.Points(2)
	points.Color, points.Shape, points.Radius = chart.Modeled.Color(), draw.CircleGlyph{}, vg.Points(3.5)
	p.Add(line, points)
	p.Legend.Add("simulator counts", line, points)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(8.5)
		lb.TextStyle[i].XAlign = draw.XCenter
	}
	lb.Offset = vg.Point{Y: vg.Points(6)}
	p.Add(lb)
	p.Y.Min, p.Y.Max = 0, 36
	p.Y.Tick.Marker = chart.PlainTicks{}
	chart.MoveLegendOutside(p, chart.LegendAbove)
	return p, nil
}

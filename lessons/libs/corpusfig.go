package libs

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
)

// CorpusFigure draws the corpus run: per matrix, GB/s by minimum bytes of
// our pick (by rules), our fastest method and cuSPARSE's best, with the
// copy bandwidth as a dashed line; one panel for the matrices of at least
// 2^20 rows (the goals) and one for the smaller ones, where every
// kernel sits at the launch floor.
func CorpusFigure(rec *Recorded, rules Rules) (*chart.Figure, error) {
	ls, err := CorpusLines(rec, rules)
	if err != nil {
		return nil, err
	}
	if len(ls) == 0 {
		return nil, fmt.Errorf("libs: CorpusFigure: no matrices")
	}
	var big, small []CorpusLine
	for _, l := range ls {
		if l.Rows >= 1<<20*9/10 {
			big = append(big, l)
		} else {
			small = append(small, l)
		}
	}
	copyGBs := rec.Ours.CopyGBs()
	on := lesson.MeasuredOn(rec.Ours.Device.Name, rec.Ours.Driver, rec.Ours.Date)
	fig := &chart.Figure{}
	for _, part := range []struct {
		title string
		ls    []CorpusLine
	}{
		{"at least 2^20 rows", big},
		{"2^14 and 2^17 rows, SuiteSparse (launch-bound)", small},
	} {
		if len(part.ls) == 0 {
			continue
		}
		p := plot.New()
		chart.Style(p)
		p.Title.Text = fmt.Sprintf("SpMV over the corpus, %s: %s", part.title, on)
		p.Y.Label.Text = "GB/s (minimum bytes / time, log scale)"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = chart.NiceLogTicks{}
		var names []string
		pick, best, peer := make([]float64, len(part.ls)), make([]float64, len(part.ls)), make([]float64, len(part.ls))
		lo, hi := math.Inf(1), copyGBs
		for i, l := range part.ls {
			names = append(names, l.Key)
			pick[i], best[i], peer[i] = l.PickGBs, l.BestGBs, math.NaN()
			if l.PeerGBs > 0 {
				peer[i] = l.PeerGBs
			}
			for _, v := range []float64{pick[i], best[i], peer[i]} {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = math.Pi / 2.5
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
		series := []chart.Series{
			{Name: "our pick", Values: pick, Color: color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}},
			{Name: "our fastest", Values: best, Color: color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}},
			{Name: "cuSPARSE, best algorithm", Values: peer, Color: color.RGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xFF}},
		}
		if err := chart.AddGroupedBars(p, series, 6.8*vg.Inch, true, nil); err != nil {
			return nil, err
		}
		if copyGBs > 0 {
			if err := chart.ReferenceLine(p, copyGBs, len(names), fmt.Sprintf("copy %.0f GB/s", copyGBs)); err != nil {
				return nil, err
			}
		}
		if math.IsInf(lo, 1) {
			return nil, fmt.Errorf("libs: CorpusFigure: no positive bandwidth to draw")
		}
		p.Y.Min, p.Y.Max = lo/2, hi*3
		p.Legend.Top = true
		fig.Panels = append(fig.Panels, p)
	}
	return fig, nil
}

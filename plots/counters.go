package plots

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/plots/chart"
)

// SimVsHardware renders rows as an HTML table: requests and sectors from the
// simulator beside the hardware's, and how far the sectors differ. source
// names where the hardware numbers came from ("ncu, H200, recorded
// (DESIGN.md)") and goes in the caption and the column heads, so a recorded
// number is never read as live. Negative counts are an error: they mean a
// row was filled in wrong.
func SimVsHardware(source string, rows []CounterRow) (string, error) {
	if source == "" {
		return "", fmt.Errorf("plots: SimVsHardware needs the hardware numbers' source (GPU, tool, when)")
	}
	header := []string{"matrix", "kernel", "requests (simulator, modeled)", "requests (" + source + ")",
		"sectors (simulator, modeled)", "sectors (" + source + ")", "sectors: simulator vs hardware", "note"}
	var out [][]string
	for _, r := range rows {
		if r.SimRequests < 0 || r.SimSectors < 0 || r.HWRequests < 0 || r.HWSectors < 0 {
			return "", fmt.Errorf("plots: %s %s: negative counter", r.Matrix, r.Kernel)
		}
		out = append(out, []string{
			r.Matrix, r.Kernel,
			Thousands(r.SimRequests), Thousands(r.HWRequests), Thousands(r.SimSectors), Thousands(r.HWSectors),
			Agreement(r.SimRequests, r.SimSectors, r.HWRequests, r.HWSectors), r.Note,
		})
	}
	return HTMLTableCaption("Global loads: simulator counters next to "+source, header, out), nil
}

// SimVsHardwarePlot draws sectors per request, simulator beside hardware,
// for each row: the picture of the table SimVsHardware prints.
func SimVsHardwarePlot(source string, rows []CounterRow) (*plot.Plot, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("plots: no counter rows to draw")
	}
	var cats []string
	simS, hwS := make([]float64, len(rows)), make([]float64, len(rows))
	for i, r := range rows {
		cats = append(cats, r.Matrix+"\n"+r.Kernel)
		simS[i], hwS[i] = ratio(r.SimSectors, r.SimRequests), ratio(r.HWSectors, r.HWRequests)
	}
	p := plot.New()
	chart.Style(p)
	p.Title.Text = "Sectors per request: simulator vs hardware"
	p.Y.Label.Text = "32-byte sectors per global-load request"
	p.NominalX(cats...)
	label := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	if err := chart.AddGroupedBars(p, []chart.Series{
		{Name: "simulator (modeled counters)", Values: simS, Color: chart.Modeled.Color()},
		{Name: source, Values: hwS, Color: chart.Measured.Color()},
	}, 6.8*vg.Inch, false, label); err != nil {
		return nil, err
	}
	hi := 4.0
	for i := range simS {
		hi = math.Max(hi, math.Max(nz(simS[i]), nz(hwS[i])))
	}
	// Room over the tallest bar for its value label; the legend stands
	// above the data area.
	p.Y.Min, p.Y.Max = 0, math.Ceil(hi*1.12)
	p.X.Min, p.X.Max = -0.5, float64(len(cats))-0.5
	chart.MoveLegendOutside(p, chart.LegendAbove)
	return p, nil
}

func ratio(a, b int64) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func nz(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

package plots

import (
	"github.com/warplab/warplab/plots/chart"

	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// CounterRow is one kernel on one matrix, with the simulator's global-load
// counters next to a hardware profiler's. It is how the simulator earns
// trust: where the counting rules hold, the two must agree to the sector.
type CounterRow struct {
	Matrix, Kernel          string
	SimRequests, SimSectors int64 // simulator counters (modeled)
	HWRequests, HWSectors   int64 // the profiler's, e.g. Nsight Compute's l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_ld.sum
	Note                    string
}

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
			r.Matrix, kernelLabel(r.Kernel),
			Thousands(r.SimRequests), Thousands(r.HWRequests), Thousands(r.SimSectors), Thousands(r.HWSectors),
			Agreement(r.SimRequests, r.SimSectors, r.HWRequests, r.HWSectors), r.Note,
		})
	}
	return HTMLTableCaption("Global loads: simulator counters next to "+source, header, out), nil
}

// Agreement says how the simulator's counts compare with the hardware's:
// "exact" when requests and sectors both match, else the sectors'
// difference relative to the hardware ("+6.8%"), with "requests differ"
// when they do.
func Agreement(simReq, simSec, hwReq, hwSec int64) string {
	if simReq == hwReq && simSec == hwSec {
		return "exact"
	}
	s := "n/a"
	if hwSec > 0 {
		s = strconv.FormatFloat(100*float64(simSec-hwSec)/float64(hwSec), 'f', 1, 64) + "%"
		if simSec >= hwSec {
			s = "+" + s
		}
	}
	if simReq != hwReq {
		s += ", requests differ"
	}
	return s
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
		cats = append(cats, r.Matrix+"\n"+kernelLabel(r.Kernel))
		simS[i], hwS[i] = ratio(r.SimSectors, r.SimRequests), ratio(r.HWSectors, r.HWRequests)
	}
	p := plot.New()
	styleForNotebook(p)
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
	moveLegendOutside(p, legendAbove)
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

// Thousands prints n with thousands separators (1,048,576), as the lesson
// tables print counts, so that a reader can compare them at a glance.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

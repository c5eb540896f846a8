package spmv

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/plots/chart"
)

// spmvRow is one matrix × kernel of the SpMV lesson, reduced to what the
// figure draws. Ratios are to the stream probe on the same matrix.
type spmvRow struct {
	matrix, kernel    string
	predicted         float64 // lane-slots per nonzero (1 / useful share); NaN for the probe
	modeled, measured float64 // kernel time / probe time; NaN when that source has none
	sectorsPerRequest float64 // global loads, simulator counters; NaN when none
}

// spmvData is everything the SpMV figure shows, with the labels that say
// where each number came from.
type spmvData struct {
	size                string // "2^16 rows", or the Matrix Market file's name
	rows                []spmvRow
	modeledLabel        string // e.g. "modeled time ÷ probe (simulated NVIDIA H200)"
	measuredLabel       string // e.g. "measured time ÷ probe (NVIDIA H200, driver 580.95, 2026-11-29)"
	counterLabel        string // e.g. "simulator (modeled counters, NVIDIA H200)"
	probeBlocks         int    // the probe's grid on the live run, 0 when unknown
	measuredProbeBlocks int    // the probe's grid on the measured run, 0 when unknown
}

// figureLabel is a kernel's name as the figure prints it (shorter than
// the tables' kernelLabel: the probe is the figure's reference line).
func figureLabel(k string) string {
	switch k {
	case "thread_per_row":
		return "thread per row"
	case "warp_per_row":
		return "warp per row"
	case "probe":
		return "stream probe"
	}
	return k
}

func (r spmvRow) category() string { return r.matrix + "\n" + figureLabel(r.kernel) }

// spmvFigure draws the two panels: prediction next to time (both relative
// to the probe, log scale), and sectors per request from the simulator.
func spmvFigure(d spmvData) (*chart.Figure, error) {
	var (
		cats                      []string
		pred, modeled, measured   []float64
		haveModeled, haveMeasured bool
	)
	for _, r := range d.rows {
		if r.kernel == "probe" {
			continue
		}
		if math.IsNaN(r.predicted) || r.predicted <= 0 {
			return nil, fmt.Errorf("spmv: %s %s has no lane-slot prediction", r.matrix, figureLabel(r.kernel))
		}
		cats = append(cats, r.category())
		pred = append(pred, r.predicted)
		modeled = append(modeled, r.modeled)
		measured = append(measured, r.measured)
		haveModeled = haveModeled || !math.IsNaN(r.modeled)
		haveMeasured = haveMeasured || !math.IsNaN(r.measured)
	}
	if len(cats) == 0 {
		return nil, fmt.Errorf("spmv: the result has no thread-per-row or warp-per-row runs to draw")
	}
	series := []chart.Series{{Name: "predicted: lane-slots ÷ nonzeros (host arithmetic; probe ≈ 1)", Values: pred, Color: chart.Predicted.Color()}}
	if haveModeled {
		series = append(series, chart.Series{Name: d.modeledLabel, Values: modeled, Color: chart.Modeled.Color()})
	}
	if haveMeasured {
		series = append(series, chart.Series{Name: d.measuredLabel, Values: measured, Color: chart.Measured.Color()})
	}
	lo, hi := 1.0, 1.0
	for _, s := range series {
		for _, v := range s.Values {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}

	p1 := plot.New()
	chart.Style(p1)
	p1.Title.Text = "SpMV (" + d.size + "): lane-slot prediction next to time, both relative to the stream probe"
	p1.Y.Label.Text = "× the probe (log scale)"
	p1.X.Label.Text = ""
	p1.Y.Scale = plot.LogScale{}
	p1.Y.Tick.Marker = chart.NiceLogTicks{}
	p1.NominalX(cats...)
	if err := chart.AddGroupedBars(p1, series, 6.8*vg.Inch, true, chart.FormatTimes); err != nil {
		return nil, err
	}
	probeName := "stream probe = 1"
	if d.probeBlocks > 0 {
		probeName = fmt.Sprintf("stream probe = 1 (%d blocks", d.probeBlocks)
		if d.measuredProbeBlocks > 0 && d.measuredProbeBlocks != d.probeBlocks && haveMeasured {
			probeName += fmt.Sprintf("; %d on the measured run", d.measuredProbeBlocks)
		}
		probeName += ")"
	}
	if err := chart.ReferenceLine(p1, 1, len(cats), probeName); err != nil {
		return nil, err
	}
	p1.Y.Min, p1.Y.Max = chart.LogRange(lo/1.5, hi, 1.8) // room below so a bar at 1× shows, above for the value labels
	p1.X.Min, p1.X.Max = -0.5, float64(len(cats))-0.5
	chart.MoveLegendOutside(p1, chart.LegendAbove)

	panels := []*plot.Plot{p1}

	// Panel 2: sectors per request, probe included (it is the coalesced
	// reference).
	var cats2 []string
	var spr []float64
	for _, r := range d.rows {
		if math.IsNaN(r.sectorsPerRequest) {
			continue
		}
		cats2 = append(cats2, r.category())
		spr = append(spr, r.sectorsPerRequest)
	}
	if len(spr) > 0 {
		p2 := plot.New()
		chart.Style(p2)
		p2.Title.Text = "Global loads: 32-byte sectors per request (" + d.counterLabel + ")"
		p2.Y.Label.Text = "sectors per request"
		p2.NominalX(cats2...)
		label := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
		if err := chart.AddGroupedBars(p2, []chart.Series{{Name: d.counterLabel, Values: spr, Color: chart.Modeled.Color()}}, 6.8*vg.Inch, false, label); err != nil {
			return nil, err
		}
		if err := chart.ReferenceLine(p2, 4, len(cats2), "4: a warp reads 128 contiguous bytes (coalesced)"); err != nil {
			return nil, err
		}
		if err := chart.ReferenceLine(p2, 32, len(cats2), "32: every lane in its own sector", vg.Points(1), vg.Points(2)); err != nil {
			return nil, err
		}
		p2.Y.Min, p2.Y.Max = 0, 36 // room for a value label over 32
		p2.X.Min, p2.X.Max = -0.5, float64(len(cats2))-0.5
		chart.MoveLegendOutside(p2, chart.LegendAbove)
		panels = append(panels, p2)
	}
	return &chart.Figure{Panels: panels, Heights: []float64{1.15, 1}}, nil
}

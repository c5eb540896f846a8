package spmv

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
)

// Figure draws the lesson's figure from its results (with plots/chart,
// the figure toolkit, which imports no lesson). Panel 1 puts,
// for each matrix × SpMV kernel, the lane-slot prediction (lane-slots ÷
// nonzeros: what the warp issues per nonzero it needs, so the probe, which
// gives every lane-slot a nonzero, is ≈ 1) next to the time relative to the
// stream probe on the same matrix (the seed's "x floor"), on a log scale,
// so prediction and outcome share one axis. Panel 2 shows 32-byte sectors
// per global-load request from the simulator's counters.
//
// res is the run to draw (its times are modeled on the simulator, measured
// on a GPU); recorded, optional, is a recorded GPU run (Recorded())
// whose measured times are drawn beside a simulator run's, labeled with its
// GPU, driver and date. The counters come from whichever of the two has
// them; without any, the figure has one panel.
func Figure(res *Result, recorded *Result) (*chart.Figure, error) {
	d, err := spmvDataOf(res, recorded)
	if err != nil {
		return nil, err
	}
	return spmvFigure(d)
}

func spmvDataOf(res, recorded *Result) (spmvData, error) {
	if res == nil {
		return spmvData{}, fmt.Errorf("spmv: Figure: no result to draw (nil)")
	}
	if len(res.Runs) == 0 {
		return spmvData{}, fmt.Errorf("spmv: Figure: the result has no kernel runs (run the lesson first; Predict only predicts)")
	}
	type key struct{ matrix, kernel string }
	pred := map[key]float64{}
	for _, p := range res.Predictions {
		if p.LaneSlots > 0 && p.Useful > 0 {
			pred[key{p.Matrix, p.Kernel}] = 1 / p.Useful
		}
	}
	xfloor := func(r *Result) map[key]float64 {
		m := map[key]float64{}
		if r == nil {
			return m
		}
		probe := map[string]float64{}
		for _, run := range r.Runs {
			if run.Kernel == ProbeRun {
				probe[run.Matrix] = run.TimeMs
			}
		}
		for _, run := range r.Runs {
			v := run.XFloor
			if p := probe[run.Matrix]; p > 0 && run.TimeMs > 0 {
				v = run.TimeMs / p
			}
			if v > 0 {
				m[key{run.Matrix, run.Kernel}] = v
			}
		}
		return m
	}
	counters := func(r *Result) map[key]float64 {
		m := map[key]float64{}
		if r == nil {
			return m
		}
		for _, run := range r.Runs {
			if run.Requests != nil && run.Sectors != nil && *run.Requests > 0 {
				m[key{run.Matrix, run.Kernel}] = float64(*run.Sectors) / float64(*run.Requests)
			}
		}
		return m
	}

	d := spmvData{size: sizeLabel(res), probeBlocks: res.ProbeBlocks}
	var modeled, measured map[key]float64
	switch res.Backend {
	case "gpu":
		measured = xfloor(res)
		d.measuredLabel = "measured time ÷ probe (" + MeasuredOn(res) + ", live)"
		d.measuredProbeBlocks = res.ProbeBlocks
	default:
		modeled = xfloor(res)
		d.modeledLabel = "modeled time ÷ probe (" + lesson.SimLabel(res.Device.Name) + ")"
		if recorded != nil {
			if recorded.Backend != gpuext.GPU {
				return spmvData{}, fmt.Errorf("spmv: Figure: the recorded run's backend is %q; want a GPU's measured run", recorded.Backend)
			}
			measured = xfloor(recorded)
			d.measuredLabel = "measured time ÷ probe (" + MeasuredOn(recorded) + ", recorded"
			if s := sizeLabel(recorded); s != d.size {
				d.measuredLabel += ", " + s
			}
			d.measuredLabel += ")"
			d.measuredProbeBlocks = recorded.ProbeBlocks
		}
	}
	spr := counters(res)
	d.counterLabel = "simulator, modeled"
	if len(spr) == 0 {
		spr = counters(recorded)
	}
	nan := math.NaN()
	get := func(m map[key]float64, k key) float64 {
		if v, ok := m[k]; ok {
			return v
		}
		return nan
	}
	for _, run := range res.Runs {
		k := key{run.Matrix, run.Kernel}
		r := spmvRow{matrix: run.Matrix, kernel: run.Kernel, predicted: nan,
			modeled: get(modeled, k), measured: get(measured, k), sectorsPerRequest: get(spr, k)}
		if run.Kernel != ProbeRun {
			r.predicted = get(pred, k)
		}
		d.rows = append(d.rows, r)
	}
	return d, nil
}

// sizeLabel names the input: "2^16 rows" for the seed pair, else the
// matrices' names.
func sizeLabel(r *Result) string {
	if len(r.Matrices) == 0 {
		return "no matrices"
	}
	if len(r.Matrices) == 2 && r.Matrices[0].Name == "even" && r.Matrices[1].Name == "skewed" {
		n := r.Matrices[0].Rows
		if n > 0 && bits.OnesCount(uint(n)) == 1 {
			return fmt.Sprintf("2^%d rows", bits.TrailingZeros(uint(n)))
		}
		return fmt.Sprintf("%d rows", n)
	}
	var names []string
	for _, m := range r.Matrices {
		names = append(names, fmt.Sprintf("%s, %d rows", m.Name, m.Rows))
	}
	return strings.Join(names, "; ")
}

// MeasuredOn names where and when a measured run ran, "NVIDIA H200, driver
// 580.95.05, 2026-11-29" (lesson.MeasuredOn), so that a GPU time is never
// shown without its GPU, driver and date.
func MeasuredOn(r *Result) string {
	if r == nil {
		return lesson.MeasuredOn("", "", "")
	}
	return lesson.MeasuredOn(r.Device.Name, r.Driver, r.Date)
}

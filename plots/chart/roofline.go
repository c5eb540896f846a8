package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/sim"
)

// RooflinePoint is one kernel placed on a roofline: how many flops it does
// per byte of DRAM traffic and how many it achieved per second.
type RooflinePoint struct {
	Label     string
	Intensity float64 // flop per DRAM byte
	Flops     float64 // achieved flop/s
	Kind      string  // "modeled" or "measured"; the legend groups points by it
}

// Roofline draws the device's roofline on log-log axes: the DRAM slope
// (bandwidth × intensity), the FP32 ceiling, the TF32 tensor-core ceiling
// when the device has one, and the points. It shows why a kernel below the
// slope is memory-bound and one below a flat roof compute-bound. Points
// with a non-positive intensity or rate are an error, since a log axis
// cannot place them. The legend stands above the data area.
func Roofline(device sim.Model, points []RooflinePoint) (*plot.Plot, error) {
	p, err := NewRoofline(device, points)
	if err != nil {
		return nil, err
	}
	MoveLegendOutside(p, LegendAbove)
	return p, nil
}

// NewRoofline is Roofline with its legend still in the data area, for
// callers that add entries to it (the tiling lesson names where its measured
// points came from) and then call MoveLegendOutside.
func NewRoofline(device sim.Model, points []RooflinePoint) (*plot.Plot, error) {
	if !(device.DRAMBandwidth > 0) || !(device.FP32Flops > 0) {
		return nil, fmt.Errorf("chart: roofline of %q needs its DRAM bandwidth and FP32 peak", device.Name)
	}
	lo, hi := 0.01, 1000.0
	yLo, yHi := device.DRAMBandwidth*lo, math.Max(device.FP32Flops, device.TF32Flops)
	for _, pt := range points {
		if !(pt.Intensity > 0) || !(pt.Flops > 0) || math.IsInf(pt.Intensity, 0) || math.IsInf(pt.Flops, 0) {
			return nil, fmt.Errorf("chart: roofline point %q: intensity %g flop/B and rate %g flop/s must both be positive", pt.Label, pt.Intensity, pt.Flops)
		}
		lo, hi = math.Min(lo, pt.Intensity/2), math.Max(hi, pt.Intensity*2)
		yLo = math.Min(yLo, pt.Flops/2)
	}
	const giga = 1e12 // the y axis is in TFLOP/s
	p := plot.New()
	Style(p)
	p.Title.Text = "Roofline: " + device.Name
	p.X.Label.Text = "arithmetic intensity (flop per DRAM byte, log scale)"
	p.Y.Label.Text = "TFLOP/s (log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decadeTicks{}, decadeTicks{}

	roof := func(peak float64, name string, c color.Color, dashes []vg.Length) error {
		knee := peak / device.DRAMBandwidth
		xy := plotter.XYs{{X: lo, Y: device.DRAMBandwidth * lo / giga}}
		if knee > lo && knee < hi {
			xy = append(xy, plotter.XY{X: knee, Y: peak / giga})
		}
		xy = append(xy, plotter.XY{X: hi, Y: math.Min(peak, device.DRAMBandwidth*hi) / giga})
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = c, vg.Points(2), dashes
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s: %.1f TFLOP/s, knee at %.1f flop/B", name, peak/1e12, knee), l)
		return nil
	}
	if err := roof(device.FP32Flops, "FP32 peak", color.Black, nil); err != nil {
		return nil, err
	}
	if device.TF32Flops > 0 {
		if err := roof(device.TF32Flops, "TF32 tensor-core peak", Reference.Color(), []vg.Length{vg.Points(5), vg.Points(3)}); err != nil {
			return nil, err
		}
	}
	top := math.Min(hi, math.Max(device.FP32Flops, device.TF32Flops)/device.DRAMBandwidth)
	slope, err := plotter.NewLine(plotter.XYs{{X: lo, Y: device.DRAMBandwidth * lo / giga}, {X: top, Y: device.DRAMBandwidth * top / giga}})
	if err != nil {
		return nil, err
	}
	slope.Color, slope.Width, slope.Dashes = Predicted.Color(), vg.Points(1), []vg.Length{vg.Points(1), vg.Points(3)}
	p.Add(slope)
	p.Legend.Add(fmt.Sprintf("DRAM: %.0f GB/s × intensity", device.DRAMBandwidth/1e9), slope)

	// Points, one scatter per kind so the legend says modeled vs measured.
	kinds := []string{}
	byKind := map[string]plotter.XYs{}
	var labels []string
	var labelXY plotter.XYs
	for _, pt := range points {
		if _, ok := byKind[pt.Kind]; !ok {
			kinds = append(kinds, pt.Kind)
		}
		byKind[pt.Kind] = append(byKind[pt.Kind], plotter.XY{X: pt.Intensity, Y: pt.Flops / giga})
		labels = append(labels, pt.Label)
		labelXY = append(labelXY, plotter.XY{X: pt.Intensity, Y: pt.Flops / giga})
	}
	for _, k := range kinds {
		s, err := plotter.NewScatter(byKind[k])
		if err != nil {
			return nil, err
		}
		s.Radius = vg.Points(4)
		s.Color = Modeled.Color()
		s.Shape = draw.CircleGlyph{}
		if k == "measured" {
			s.Color = Measured.Color()
			s.Shape = draw.BoxGlyph{}
		}
		p.Add(s)
		name := k
		if name == "" {
			name = "kernel"
		}
		p.Legend.Add(name, s)
	}
	if len(labels) > 0 {
		sty := p.Legend.TextStyle
		sty.Font.Size = vg.Points(9)
		p.Add(&pointLabels{xys: labelXY, labels: labels, style: sty, marker: vg.Points(4)})
	}
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = math.Pow(10, math.Floor(math.Log10(yLo/giga))), math.Pow(10, math.Ceil(math.Log10(yHi*2/giga)))
	return p, nil
}

// decadeTicks labels each power of ten in plain notation (0.01, 1, 1000),
// which reads better than gonum's 1e+03 on a notebook axis, with unlabeled
// minor ticks between.
type decadeTicks struct{}

// Ticks implements plot.Ticker.
func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi*(1+1e-9); e++ {
		d := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

package tiling

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/sim"
)

// LoadsFigure draws the lecture-4 load sweep: global element loads of A and
// B against TILE for the naive and tiled products (log-log), each counted
// point beside the formula it should equal (2N³ and 2N³/TILE, drawn as
// lines), and, in a second panel, the coarsened kernel's loads against
// COARSE at the lesson's TILE: A's fall as N³/(TILE·COARSE) while B's stay
// at N³/TILE. The figure exists so the reader sees that the counts are the
// formula, not near it. res must hold the sweep (a simulator run without
// NoSweep).
func LoadsFigure(res *Result) (*chart.Figure, error) {
	if res == nil {
		return nil, errors.New("tiling: LoadsFigure: no result to draw (nil)")
	}
	var naive, tiled, coarse []LoadRow
	for _, r := range res.Loads {
		switch {
		case r.Kernel == KMatmulNaive:
			naive = append(naive, r)
		case r.Kernel == KMatmulTiled:
			tiled = append(tiled, r)
		case strings.HasPrefix(r.Kernel, "matmulTiledCoarse"):
			coarse = append(coarse, r)
		}
	}
	if len(naive) == 0 || len(tiled) == 0 {
		return nil, errors.New("tiling: LoadsFigure: the result has no load sweep (it runs on the simulator only, without NoSweep)")
	}
	for _, rows := range [][]LoadRow{naive, tiled, coarse} {
		for _, r := range rows {
			if r.Counted <= 0 || r.ALoads <= 0 || r.BLoads <= 0 || r.Tile <= 0 || r.Coarse <= 0 {
				return nil, fmt.Errorf("tiling: LoadsFigure: %s at TILE=%d, COARSE=%d has non-positive loads or sizes", r.Kernel, r.Tile, r.Coarse)
			}
		}
	}
	n := tiled[0].N
	n3 := float64(n) * float64(n) * float64(n)

	p1 := plot.New()
	chart.Style(p1)
	p1.Title.Text = fmt.Sprintf("Global element loads of A and B vs TILE, N = %d (simulator counts; lines: formulas)", n)
	p1.X.Label.Text = "TILE (a block is TILE × TILE threads; log scale)"
	p1.Y.Label.Text = "element loads (log scale)"
	p1.X.Scale, p1.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p1.Y.Tick.Marker = compactLogTicks{}
	tiles := map[int]bool{}
	for _, r := range append(slices.Clone(naive), tiled...) {
		tiles[r.Tile] = true
	}
	var tickVals []int
	for t := range tiles {
		tickVals = append(tickVals, t)
	}
	slices.Sort(tickVals)
	p1.X.Tick.Marker = chart.IntTicks(tickVals)
	lo, hi := float64(tickVals[0]), float64(tickVals[len(tickVals)-1])

	if err := formulaLine(p1, lo, hi, func(x float64) float64 { return 2 * n3 }, "formula, naive: 2N³ = "+chart.Thousands(int64(2*n3)), nil); err != nil {
		return nil, err
	}
	if err := formulaLine(p1, lo, hi, func(x float64) float64 { return 2 * n3 / x }, "formula, tiled: 2N³/TILE", []vg.Length{vg.Points(6), vg.Points(3)}); err != nil {
		return nil, err
	}
	if err := countedPoints(p1, naive, func(r LoadRow) (float64, float64) { return float64(r.Tile), float64(r.Counted) },
		"counted, matmulNaive", draw.BoxGlyph{}, chart.Reference.Color(), false); err != nil {
		return nil, err
	}
	if err := countedPoints(p1, tiled, func(r LoadRow) (float64, float64) { return float64(r.Tile), float64(r.Counted) },
		"counted, matmulTiled (labels: the count)", draw.CircleGlyph{}, chart.Modeled.Color(), true); err != nil {
		return nil, err
	}
	p1.X.Min, p1.X.Max = lo/1.3, hi*2.2 // room for the value labels on the right
	p1.Y.Min, p1.Y.Max = chart.LogRange(2*n3/hi, 2*n3, 1.6)
	p1.Legend.Top, p1.Legend.Left = false, true
	p1.Legend.Padding = chart.LegendPadding
	p1.Legend.XOffs, p1.Legend.YOffs = vg.Points(4), vg.Points(4)
	panels := []*plot.Plot{p1}

	if len(coarse) > 0 {
		tile := coarse[0].Tile
		var cs []int
		for _, r := range coarse {
			if r.Tile != tile || r.N != coarse[0].N {
				return nil, fmt.Errorf("tiling: LoadsFigure: coarsened rows mix sizes (TILE %d and %d, N %d and %d)", tile, r.Tile, coarse[0].N, r.N)
			}
			cs = append(cs, r.Coarse)
		}
		cn := float64(coarse[0].N)
		cn3 := cn * cn * cn
		t := float64(tile)
		p2 := plot.New()
		chart.Style(p2)
		p2.Title.Text = fmt.Sprintf("Thread coarsening at TILE = %d, N = %d: A loads fall as 1/COARSE, B loads stay", tile, coarse[0].N)
		p2.X.Label.Text = "COARSE (output tiles per block; log scale)"
		p2.Y.Label.Text = "element loads (log scale)"
		p2.X.Scale, p2.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p2.Y.Tick.Marker = compactLogTicks{}
		p2.X.Tick.Marker = chart.IntTicks(cs)
		clo, chi := float64(slices.Min(cs)), float64(slices.Max(cs))
		if clo == chi {
			clo, chi = clo/2, chi*2
		}
		if err := formulaLine(p2, clo, chi, func(c float64) float64 { return cn3/(t*c) + cn3/t }, "formula, A + B: N³/(TILE·COARSE) + N³/TILE", nil); err != nil {
			return nil, err
		}
		if err := formulaLine(p2, clo, chi, func(c float64) float64 { return cn3 / t }, "formula, B: N³/TILE", []vg.Length{vg.Points(2), vg.Points(2)}); err != nil {
			return nil, err
		}
		if err := formulaLine(p2, clo, chi, func(c float64) float64 { return cn3 / (t * c) }, "formula, A: N³/(TILE·COARSE)", []vg.Length{vg.Points(6), vg.Points(3)}); err != nil {
			return nil, err
		}
		if err := countedPoints(p2, coarse, func(r LoadRow) (float64, float64) { return float64(r.Coarse), float64(r.Counted) },
			"counted, A + B", draw.CircleGlyph{}, chart.Modeled.Color(), true); err != nil {
			return nil, err
		}
		if err := countedPoints(p2, coarse, func(r LoadRow) (float64, float64) { return float64(r.Coarse), float64(r.BLoads) },
			"counted, B", draw.BoxGlyph{}, chart.Reference.Color(), false); err != nil {
			return nil, err
		}
		if err := countedPoints(p2, coarse, func(r LoadRow) (float64, float64) { return float64(r.Coarse), float64(r.ALoads) },
			"counted, A", draw.PyramidGlyph{}, chart.Modeled.Color(), true); err != nil {
			return nil, err
		}
		p2.X.Min, p2.X.Max = clo/1.3, chi*2.2
		p2.Y.Min, p2.Y.Max = chart.LogRange(cn3/(t*chi)/8, 2*cn3/t, 2)
		p2.Legend.Top, p2.Legend.Left = false, true
		p2.Legend.Padding = chart.LegendPadding
		p2.Legend.XOffs, p2.Legend.YOffs = vg.Points(4), vg.Points(4)
		panels = append(panels, p2)
	}
	return &chart.Figure{Panels: panels}, nil
}

// formulaLine draws f from x = lo to hi (sampled, so it is straight on log
// axes only where f is a power law, as the formulas here are) in the
// prediction colour.
func formulaLine(p *plot.Plot, lo, hi float64, f func(float64) float64, name string, dashes []vg.Length) error {
	const steps = 32
	xy := make(plotter.XYs, 0, steps+1)
	for i := 0; i <= steps; i++ {
		x := lo * math.Pow(hi/lo, float64(i)/steps)
		xy = append(xy, plotter.XY{X: x, Y: f(x)})
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("tiling: formula %q: %w", name, err)
	}
	l.Color, l.Width, l.Dashes = chart.Predicted.Color(), vg.Points(1.5), dashes
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// countedPoints draws the simulator's counts as markers, with each count
// printed beside its marker when label is set.
func countedPoints(p *plot.Plot, rows []LoadRow, xy func(LoadRow) (float64, float64), name string, shape draw.GlyphDrawer, c color.Color, label bool) error {
	pts := make(plotter.XYs, len(rows))
	labels := make([]string, len(rows))
	for i, r := range rows {
		pts[i].X, pts[i].Y = xy(r)
		labels[i] = chart.Thousands(int64(pts[i].Y))
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("tiling: %s: %w", name, err)
	}
	s.Shape, s.Color, s.Radius = shape, c, vg.Points(4)
	p.Add(s)
	p.Legend.Add(name, s)
	if label {
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font.Size = vg.Points(8.5)
		}
		lb.Offset = vg.Point{X: vg.Points(7), Y: vg.Points(1)}
		p.Add(lb)
	}
	return nil
}

// compactLogTicks labels 1, 2 and 5 times each power of ten with a K or M
// suffix (20K, 1M), so counts of loads in the millions fit a narrow axis.
type compactLogTicks struct{}

// Ticks implements plot.Ticker.
func (compactLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := chart.NiceLogTicks{}.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = compact(ticks[i].Value)
	}
	return ticks
}

func compact(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "K"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// TransposesFigure draws the transposes' memory behaviour from the
// simulator's counters: 32-byte sectors per global request, loads and
// stores, for the naive, shared and padded transposes (the naive one's
// column-wise stores take a sector per lane); and shared-memory wavefronts
// per request for the unpadded and padded tiles (a column of a 32 × 32 tile
// sits in one bank: 32 wavefronts, a 32-way conflict; a 32 × 33 tile spreads
// it over all 32 banks). res must come from the simulator: on a GPU the
// lesson records no counters.
func TransposesFigure(res *Result) (*chart.Figure, error) {
	if res == nil {
		return nil, errors.New("tiling: TransposesFigure: no result to draw (nil)")
	}
	names := []string{KTransposeNaive, KTransposeShared, KTransposeSharedPadded}
	runs := make([]KernelRun, len(names))
	for i, k := range names {
		j := slices.IndexFunc(res.Runs, func(r KernelRun) bool { return r.Kernel == k })
		if j < 0 {
			return nil, fmt.Errorf("tiling: TransposesFigure: the result has no %s run", k)
		}
		runs[i] = res.Runs[j]
		if runs[i].Stats == nil || runs[i].LoadRequests == nil || runs[i].StoreRequests == nil {
			return nil, fmt.Errorf("tiling: TransposesFigure: %s has no simulator counters (a GPU run, or a result read back from JSON); run the lesson on the simulator", k)
		}
	}
	T := runs[1].Tile
	cat := func(r KernelRun) string {
		switch r.Kernel {
		case KTransposeShared:
			return fmt.Sprintf("%s\n%d×%d shared tile", r.Kernel, r.Tile, r.Tile)
		case KTransposeSharedPadded:
			return fmt.Sprintf("%s\n%d×%d (one column of padding)", r.Kernel, r.Tile, r.Tile+1)
		}
		return r.Kernel + "\nno shared memory"
	}
	one := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	const src = "simulator counts"

	p1 := plot.New()
	chart.Style(p1)
	p1.Title.Text = fmt.Sprintf("Transpose, N = %d: 32-byte sectors per global request", runs[0].N)
	p1.Y.Label.Text = "sectors per request (" + src + ")"
	var cats []string
	ld, st := make([]float64, 3), make([]float64, 3)
	for i, r := range runs {
		cats = append(cats, cat(r))
		ld[i], st[i] = perRequest(*r.LoadSectors, *r.LoadRequests), perRequest(*r.StoreSectors, *r.StoreRequests)
	}
	p1.NominalX(cats...)
	if err := chart.AddGroupedBars(p1, []chart.Series{
		{Name: "global loads (read a row of the input)", Values: ld, Color: chart.Predicted.Color()},
		{Name: "global stores", Values: st, Color: chart.Modeled.Color()},
	}, 6.8*vg.Inch, false, one); err != nil {
		return nil, err
	}
	if err := chart.ReferenceLine(p1, 4, 3, "4: a warp's 32 floats are 128 contiguous bytes (coalesced)"); err != nil {
		return nil, err
	}
	if err := chart.ReferenceLine(p1, 32, 3, "32: every lane in its own sector", vg.Points(1), vg.Points(2)); err != nil {
		return nil, err
	}
	// 36: room for the value label over a 32-sector bar; the legend stands
	// above the data area, clear of the 32-sector line.
	p1.Y.Min, p1.Y.Max = 0, 36
	p1.X.Min, p1.X.Max = -0.5, 2.5
	chart.MoveLegendOutside(p1, chart.LegendAbove)

	p2 := plot.New()
	chart.Style(p2)
	p2.Title.Text = fmt.Sprintf("Shared memory: wavefronts per request, %d×%d vs %d×%d tile", T, T, T, T+1)
	p2.Y.Label.Text = "wavefronts per request (" + src + ")"
	sst, sld := make([]float64, 2), make([]float64, 2)
	var cats2 []string
	for i, r := range runs[1:] {
		cats2 = append(cats2, cat(r))
		sst[i] = perRequest(r.Stats.SharedStore.Wavefronts, r.Stats.SharedStore.Requests)
		sld[i] = perRequest(r.Stats.SharedLoad.Wavefronts, r.Stats.SharedLoad.Requests)
	}
	p2.NominalX(cats2...)
	if err := chart.AddGroupedBars(p2, []chart.Series{
		{Name: "shared loads, smem[ty][tx] (a row of the tile)", Values: sld, Color: chart.Predicted.Color()},
		{Name: "shared stores, smem[tx][ty] (a column of the tile)", Values: sst, Color: chart.Modeled.Color()},
	}, 6.8*vg.Inch, false, one); err != nil {
		return nil, err
	}
	if err := chart.ReferenceLine(p2, 1, 2, "1: conflict-free, the 32 lanes hit 32 banks"); err != nil {
		return nil, err
	}
	if err := chart.ReferenceLine(p2, 32, 2, "32: a 32-way bank conflict, served one word at a time", vg.Points(1), vg.Points(2)); err != nil {
		return nil, err
	}
	p2.Y.Min, p2.Y.Max = 0, 36
	p2.X.Min, p2.X.Max = -0.5, 1.5
	chart.MoveLegendOutside(p2, chart.LegendAbove)
	return &chart.Figure{Panels: []*plot.Plot{p1, p2}}, nil
}

// RooflinesFigure draws one roofline per device model the simulator knows
// (T4, A100, H100, H200), in the lecture's accounting: each kernel that
// does arithmetic sits at its flops per byte its global loads request,
// counted by the simulator (naive matmul 0.25, tiled 0.25·TILE), against
// the model's FP32 (and TF32) peak and DRAM slope. The slope is what the
// kernel could reach if every byte its loads request came from DRAM; a
// point above it got most of its bytes from L1, L2 or shared memory, which
// is the whole point of tiling, and a point far below any roof is held back
// by latency, launch overhead or too little parallelism.
//
// res supplies the intensities and must come from the simulator (its
// Roofline rows). res and each of more put points on the panel of the model
// they ran on: a simulator run its modeled rates (orange), a GPU run its
// measured rates (green), at the intensities of res (N-independent for the
// matmul variants); the panel's title names each run's size, and a legend
// line names a GPU run's GPU, with its driver and date when the result has
// them (Recorded). A model with no run shows where each kernel's
// intensity meets that model's roof, in the legend as "attainable (no run on
// this model)" and in the title as "no run": a bound, not a result.
func RooflinesFigure(res *Result, more ...*Result) (*chart.Figure, error) {
	if res == nil {
		return nil, errors.New("tiling: RooflinesFigure: no result to draw (nil)")
	}
	if len(res.Roofline) == 0 {
		return nil, errors.New("tiling: RooflinesFigure: the result has no roofline rows; intensities come from the simulator's counters, so pass a simulator run first")
	}
	type kernelAI struct {
		kernel string
		ai     float64
	}
	var ais []kernelAI
	for _, r := range res.Roofline {
		if !slices.ContainsFunc(ais, func(k kernelAI) bool { return k.kernel == r.Kernel }) {
			ais = append(ais, kernelAI{r.Kernel, r.IntensityLoads})
		}
	}
	aiOf := func(k string) (float64, bool) {
		i := slices.IndexFunc(ais, func(x kernelAI) bool { return x.kernel == k })
		if i < 0 {
			return 0, false
		}
		return ais[i].ai, true
	}
	type run struct {
		r    *Result
		kind string
	}
	byModel := map[string][]run{}
	for _, r := range append([]*Result{res}, more...) {
		if r == nil {
			continue
		}
		kind := "modeled"
		if r.Backend == gpuext.GPU {
			kind = "measured"
		}
		byModel[r.Device.Model] = append(byModel[r.Device.Model], run{r, kind})
	}
	var panels []*plot.Plot
	for _, m := range sim.Models() {
		var pts []chart.RooflinePoint
		var notes, legend []string
		for _, rr := range byModel[m.Key] {
			for _, k := range rr.r.Runs {
				ai, ok := aiOf(k.Kernel)
				if !ok || k.Flops == 0 || !(k.TimeMs > 0) {
					continue
				}
				pts = append(pts, chart.RooflinePoint{Label: shortKernel(k.Kernel), Intensity: ai, Flops: float64(k.Flops) / (k.TimeMs * 1e-3), Kind: rr.kind})
			}
			n := 0
			if len(rr.r.Runs) > 0 {
				n = rr.r.Runs[0].N
			}
			notes = append(notes, fmt.Sprintf("%s at N = %d", rr.kind, n))
			if l := measuredNote(rr.r, n); l != "" {
				legend = append(legend, l)
			}
		}
		if len(pts) == 0 {
			for _, k := range ais {
				pts = append(pts, chart.RooflinePoint{Label: shortKernel(k.kernel), Intensity: k.ai,
					Flops: math.Min(m.FP32Flops, k.ai*m.DRAMBandwidth), Kind: "attainable (no run on this model)"})
			}
			notes = append(notes, "no run: attainable rates")
		}
		p, err := chart.NewRoofline(m, mergeLabels(pts))
		if err != nil {
			return nil, err
		}
		p.Title.Text = fmt.Sprintf("Roofline: %s (%s)", m.Name, strings.Join(notes, "; "))
		p.X.Label.Text = "flop per byte requested by global loads (simulator counts; log scale)"
		for _, l := range legend {
			p.Legend.Add(l)
		}
		chart.MoveLegendOutside(p, chart.LegendAbove)
		panels = append(panels, p)
	}
	return &chart.Figure{Panels: panels}, nil
}

// measuredNote says where a GPU run's points were measured, for a line of
// the legend (a panel's title has no room for it): the GPU, with the driver
// and date when the result carries them (a recorded run), and the size, so a
// measured point is never shown without saying where it came from. It is ""
// for a simulator run.
func measuredNote(r *Result, n int) string {
	if r.Backend != gpuext.GPU {
		return ""
	}
	label := "measured on " + r.Device.Name
	if r.Driver != "" {
		label += ", driver " + r.Driver
	}
	if r.Date != "" {
		label += ", " + r.Date
	}
	return fmt.Sprintf("%s, N = %d", label, n)
}

// mergeLabels joins the labels of points of one kind that land on the same
// spot (the two warp-per-row SpMV kernels have the same intensity and,
// often, the same rate), so their labels do not print over each other.
func mergeLabels(pts []chart.RooflinePoint) []chart.RooflinePoint {
	var out []chart.RooflinePoint
	for _, p := range pts {
		i := slices.IndexFunc(out, func(q chart.RooflinePoint) bool {
			return q.Kind == p.Kind && math.Abs(math.Log(q.Intensity/p.Intensity)) < 0.05 && math.Abs(math.Log(q.Flops/p.Flops)) < 0.1
		})
		if i >= 0 {
			out[i].Label += ", " + p.Label
			continue
		}
		out = append(out, p)
	}
	return out
}

// shortKernel names a lesson kernel briefly for a point label.
func shortKernel(k string) string {
	switch k {
	case KMatmulNaive:
		return "naive"
	case KMatmulTiled:
		return "tiled"
	case KSpMVThread:
		return "spmv thread/row"
	case KSpMVWarp:
		return "spmv warp/row"
	case KSpMVWarpShfl:
		return "spmv shfl"
	}
	if c, ok := strings.CutPrefix(k, "matmulTiledCoarse"); ok {
		return "coarse×" + c
	}
	return k
}

// perRequest is a/b, NaN when there were no requests (the bar is left out).
func perRequest(a, b int64) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

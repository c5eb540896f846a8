package plots

import (
	"fmt"
	"image/color"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/sim"
)

// The access map is the picture students draw on paper when they learn
// coalescing: the 32 lanes of one warp down the side, and across, the
// 32-byte sectors one global memory instruction touched, or the 32 banks
// of shared memory; a filled cell is a lane touching that sector or bank.
// Coalesced floats fill a staircase four sectors wide; a stride of 8
// floats fills a diagonal 32 sectors wide; a transpose's column read
// fills one bank with all 32 lanes. The data is a sim.MemEvent from a
// traced launch (gpuext.Config.Trace), so the picture shows what
// the simulator executed, not a sketch.

// maxSpan is the widest run of sectors drawn as it lies in memory; an
// access spread wider is drawn with only its touched sectors, in address
// order, and the axis says so.
const maxSpan = 64

// accessColumns returns the x columns of ev and, for each lane access,
// the columns it touched: sectors (global) or banks (shared). gapless
// reports whether the columns are consecutive sectors (or all banks).
func accessColumns(ev *sim.MemEvent) (labels []string, cols [][]int, gapless bool) {
	if ev.Space == sim.SpaceShared {
		for b := range 32 {
			labels = append(labels, strconv.Itoa(b))
		}
		for _, la := range ev.Lanes {
			cols = append(cols, ev.Banks(la))
		}
		return labels, cols, true
	}
	// Sectors, numbered within the first lane's buffer when every lane
	// hit it (buffers start on a sector boundary), else by address.
	base, oneBuf := uint64(0), true
	if len(ev.Lanes) > 0 {
		base = ev.Lanes[0].Addr - ev.Lanes[0].Offset
	}
	for _, la := range ev.Lanes {
		oneBuf = oneBuf && la.Buffer == ev.Lanes[0].Buffer
	}
	if !oneBuf {
		base = 0
	}
	seen := map[uint64]bool{}
	for _, la := range ev.Lanes {
		for _, s := range ev.Sectors(la) {
			seen[s] = true
		}
	}
	var secs []uint64
	for s := range seen {
		secs = append(secs, s)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
	if len(secs) == 0 {
		return nil, nil, true
	}
	lo, hi := secs[0], secs[len(secs)-1]
	gapless = hi-lo < maxSpan
	if gapless {
		secs = secs[:0]
		for s := lo; s <= hi; s++ {
			secs = append(secs, s)
		}
	}
	index := map[uint64]int{}
	for i, s := range secs {
		index[s] = i
		labels = append(labels, strconv.FormatUint(s-base/sim.SectorSize, 10))
	}
	for _, la := range ev.Lanes {
		var c []int
		for _, s := range ev.Sectors(la) {
			c = append(c, index[s])
		}
		cols = append(cols, c)
	}
	return labels, cols, gapless
}

// cells is a plotter of filled grid cells: lane rows, access columns.
type cells struct {
	ncol  int
	lanes []int   // row of each access (lane number)
	cols  [][]int // columns of each access
	color color.Color
}

// Plot implements plot.Plotter. Lane 0 is the top row.
func (g *cells) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	grid := draw.LineStyle{Color: color.Gray{Y: 0xDD}, Width: vg.Points(0.5)}
	for x := 0; x <= g.ncol; x++ {
		px := trX(float64(x) - 0.5)
		c.StrokeLine2(grid, px, trY(-0.5), px, trY(31.5))
	}
	for y := 0; y <= 32; y++ {
		py := trY(float64(y) - 0.5)
		c.StrokeLine2(grid, trX(-0.5), py, trX(float64(g.ncol)-0.5), py)
	}
	for i, lane := range g.lanes {
		for _, col := range g.cols[i] {
			x0, x1 := trX(float64(col)-0.45), trX(float64(col)+0.45)
			y0, y1 := trY(float64(lane)-0.42), trY(float64(lane)+0.42)
			c.FillPolygon(g.color, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		}
	}
}

// DataRange implements plot.DataRanger.
func (g *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(g.ncol) - 0.5, -0.5, 31.5
}

// laneAxis puts lane 0 at the top, as a warp is usually drawn.
type laneAxis struct{}

// Normalize implements plot.Normalizer: the lane axis runs downwards.
func (laneAxis) Normalize(min, max, x float64) float64 { return (max - x) / (max - min) }

// columnTicks labels every column when there are few, else every k-th.
type columnTicks []string

// Ticks implements plot.Ticker.
func (t columnTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for len(t)/step > 16 {
		step *= 2
	}
	var ts []plot.Tick
	for i, l := range t {
		if i%step == 0 {
			ts = append(ts, plot.Tick{Value: float64(i), Label: l})
		} else {
			ts = append(ts, plot.Tick{Value: float64(i)})
		}
	}
	return ts
}

// laneTicks labels lanes 0, 8, 16, 24 and 31.
type laneTicks struct{}

// Ticks implements plot.Ticker.
func (laneTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for l := 0; l < 32; l++ {
		t := plot.Tick{Value: float64(l)}
		if l%8 == 0 || l == 31 {
			t.Label = strconv.Itoa(l)
		}
		ts = append(ts, t)
	}
	return ts
}

// AccessSummary is the one-line verdict under an access map: lanes, and
// distinct sectors (global) or wavefronts (shared, the bank rule).
func AccessSummary(ev sim.MemEvent) string {
	if ev.Space == sim.SpaceShared {
		wf := ev.Wavefronts()
		s := fmt.Sprintf("%d lanes → %d wavefront%s", len(ev.Lanes), wf, plural(wf))
		if wf > 1 {
			return s + fmt.Sprintf(" (%d-way bank conflict)", wf)
		}
		return s + " (no bank conflict)"
	}
	n := ev.DistinctSectors()
	return fmt.Sprintf("%d lanes → %d sector%s: %d B moved, %d B used",
		len(ev.Lanes), n, plural(n), n*sim.SectorSize, len(ev.Lanes)*ev.Width)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// AccessMap draws one warp-level memory instruction of a traced warp:
// lanes against the 32-byte sectors it touched (global) or the 32
// shared-memory banks (shared). title names the case ("stride 8"); the
// plot's title adds the instruction (ld/st, space, warp) and
// AccessSummary. Sectors are numbered from the start of the lanes'
// buffer; an access spread over more than 64 sectors shows only the
// sectors it touched.
func AccessMap(title string, ev sim.MemEvent) (*plot.Plot, error) {
	if len(ev.Lanes) == 0 {
		return nil, fmt.Errorf("plots: AccessMap %q: the instruction had no active lanes", title)
	}
	if ev.Space != sim.SpaceGlobal && ev.Space != sim.SpaceShared {
		return nil, fmt.Errorf("plots: AccessMap %q: space %q (want global or shared)", title, ev.Space)
	}
	labels, cols, gapless := accessColumns(&ev)
	g := &cells{ncol: len(labels), cols: cols, color: chart.Modeled.Color()}
	for _, la := range ev.Lanes {
		if la.Lane < 0 || la.Lane > 31 {
			return nil, fmt.Errorf("plots: AccessMap %q: lane %d", title, la.Lane)
		}
		g.lanes = append(g.lanes, la.Lane)
	}
	p := plot.New()
	chart.Style(p)
	what := map[sim.Op]string{sim.OpLoad: "load", sim.OpStore: "store", sim.OpAtom: "atomic"}[ev.Op]
	p.Title.Text = fmt.Sprintf("%s: %s %s, %v\n%s", title, ev.Space, what, ev.Warp, AccessSummary(ev))
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Y.Label.Text = "lane"
	p.Y.Scale = laneAxis{}
	p.Y.Tick.Marker = laneTicks{}
	p.X.Tick.Marker = columnTicks(labels)
	switch {
	case ev.Space == sim.SpaceShared:
		p.X.Label.Text = "shared-memory bank (4-byte word mod 32)"
	case gapless:
		p.X.Label.Text = "32-byte sector of " + bufferName(ev) + " (byte offset ÷ 32)"
	default:
		p.X.Label.Text = "32-byte sectors of " + bufferName(ev) + " touched (byte offset ÷ 32; untouched ones left out)"
	}
	p.Add(g)
	return p, nil
}

func bufferName(ev sim.MemEvent) string {
	name := ev.Lanes[0].Buffer
	for _, la := range ev.Lanes {
		if la.Buffer != name {
			return "several buffers (numbered by device address)"
		}
	}
	return strings.TrimSpace(name)
}

// Row is plots side by side, left to right, each given an equal share of
// the width: two access maps compared at a glance.
type Row struct {
	Panels []*plot.Plot
}

// Draw implements Drawer.
func (r *Row) Draw(c draw.Canvas) {
	n := len(r.Panels)
	if n == 0 {
		return
	}
	w := (c.Max.X - c.Min.X) / vg.Length(n)
	for i, p := range r.Panels {
		sub := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Min.X + w*vg.Length(i), Y: c.Min.Y},
			Max: vg.Point{X: c.Min.X + w*vg.Length(i+1), Y: c.Max.Y},
		}}
		if i > 0 {
			sub.Min.X += vg.Points(8)
		}
		p.Draw(sub)
	}
}

// AccessMaps is a Row of AccessMap panels, one per event, titled by
// titles[i].
func AccessMaps(titles []string, evs []sim.MemEvent) (*Row, error) {
	if len(titles) != len(evs) || len(evs) == 0 {
		return nil, fmt.Errorf("plots: AccessMaps: %d titles for %d events (want as many, at least one)", len(titles), len(evs))
	}
	r := &Row{}
	for i, ev := range evs {
		p, err := AccessMap(titles[i], ev)
		if err != nil {
			return nil, err
		}
		r.Panels = append(r.Panels, p)
	}
	return r, nil
}

// FindAccess returns the first event of warp w in tr whose space and op
// match ("global", "ld"), so a notebook can pick "the load" without
// counting instructions.
func FindAccess(tr *sim.Trace, w sim.WarpRef, space sim.Space, op sim.Op) (sim.MemEvent, error) {
	if tr == nil {
		return sim.MemEvent{}, fmt.Errorf("plots: FindAccess: no trace (launch with gpuext.Config.Trace: ...} on the simulator)")
	}
	for _, ev := range tr.Events {
		if ev.Warp == w && ev.Space == space && ev.Op == op {
			return ev, nil
		}
	}
	return sim.MemEvent{}, fmt.Errorf("plots: FindAccess: %v has no %s %s in the trace (%d events)", w, space, op, len(tr.Events))
}

package plots

import (
	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/plots/chart"
)

// The figure toolkit lives in plots/chart, so that the lessons can draw
// their own figures (see that package's doc). These names keep the notebooks'
// and the command line's plots.Display(fig), plots.WriteFile(...) working,
// and plots' own figures short.

// Drawer is anything that draws itself onto a canvas (chart.Drawer): a
// *plot.Plot or a *Figure.
type Drawer = chart.Drawer

// Figure is several plots stacked in one image (chart.Figure).
type Figure = chart.Figure

// Default sizes (see chart.DefaultWidth).
const (
	DefaultWidth  = chart.DefaultWidth
	DefaultHeight = chart.DefaultHeight
	DefaultDPI    = chart.DefaultDPI
)

// SVG renders d as an SVG document w wide and h high (chart.SVG).
func SVG(d Drawer, w, h vg.Length) ([]byte, error) { return chart.SVG(d, w, h) }

// PNG renders d as a PNG image (chart.PNG).
func PNG(d Drawer, w, h vg.Length, dpi int) ([]byte, error) { return chart.PNG(d, w, h, dpi) }

// WriteFile renders d to path, SVG or PNG by its extension, atomically
// (chart.WriteFile).
func WriteFile(path string, d Drawer, w, h vg.Length) error { return chart.WriteFile(path, d, w, h) }

// CounterRow is one kernel's simulator counters beside a profiler's
// (chart.CounterRow: a lesson builds the rows, this package draws them).
type CounterRow = chart.CounterRow

// Agreement says how the simulator's counts compare with the hardware's
// (chart.Agreement).
func Agreement(simReq, simSec, hwReq, hwSec int64) string {
	return chart.Agreement(simReq, simSec, hwReq, hwSec)
}

// Thousands prints n with thousands separators, 1,048,576
// (chart.Thousands).
func Thousands(n int64) string { return chart.Thousands(n) }

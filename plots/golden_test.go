package plots_test

import (
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/cmpimg"
)

// Every figure is compared, as a picture, with testdata/NAME_golden.png at
// cmpimg's default tolerance (CheckPlot: every decoded pixel equal), the way
// gonum/plot tests its own plotters. A figure that changes on purpose gets
// new goldens from
//
//	go test ./plots -run Golden -regen
//
// and a person looks at them before they are committed. The examples draw
// from fixed inputs (testdata JSON, recorded GPU runs, typed-in counts),
// never from a live simulator run, so a golden moves only when a figure
// does.

// TestGoldenFont checks the premise of the goldens: text is drawn with the
// Liberation fonts gonum/plot embeds, not with whatever the machine has, so
// CI renders the same pixels as the machine that made the goldens.
func TestGoldenFont(t *testing.T) {
	if got := plot.DefaultFont.Typeface; got != "Liberation" {
		t.Fatalf("plot.DefaultFont is %q; the goldens were drawn with gonum's embedded Liberation fonts", got)
	}
}

func TestGoldenSimVsHardwarePlot(t *testing.T) {
	cmpimg.CheckPlot(ExampleSimVsHardwarePlot, t, "sim_vs_hardware.png")
}

func TestGoldenStrideSectors(t *testing.T) {
	cmpimg.CheckPlot(ExampleStrideSectors, t, "stride_sectors.png")
}

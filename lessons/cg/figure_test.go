package cg

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/plots/chart"
)

// The CG figures' pictures are held by their golden tests
// (ExampleTimePlot, ExampleConvergencePlot); these check what a picture test
// cannot name: which words say where the times came from.

func TestTimePlotKinds(t *testing.T) {
	rs, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	svgOf := func() string {
		t.Helper()
		p, err := TimePlot(rs)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := chart.SVG(p, chart.DefaultWidth, chart.DefaultHeight)
		if err != nil {
			t.Fatal(err)
		}
		return string(svg)
	}
	// One kind: the axis says it once, the ticks do not repeat it.
	s := svgOf()
	if !strings.Contains(s, "time (ms, measured)") || strings.Contains(s, "(measured)<") {
		t.Errorf("all-measured run: want the kind on the axis only")
	}
	// Mixed kinds: every tick says its own.
	rs[1].TimeKind = gpuext.Modeled
	s = svgOf()
	for _, want := range []string{"1 " + rs[1].Name + " (modeled)", "0 " + rs[0].Name + " (measured)", ">time (ms)<"} {
		if !strings.Contains(s, want) {
			t.Errorf("mixed run: SVG lacks %q", want)
		}
	}
}

func TestConvergencePlotLegend(t *testing.T) {
	rs, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ConvergencePlot(rs)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := chart.SVG(p, chart.DefaultWidth, chart.DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if want := r.Name; !strings.Contains(string(svg), want) {
			t.Errorf("legend lacks stage %d %q", r.Stage, want)
		}
	}
}

func TestFigureErrors(t *testing.T) {
	if _, err := TimePlot(nil); err == nil {
		t.Errorf("TimePlot(nil) gave no error")
	}
	if _, err := ConvergencePlot(nil); err == nil {
		t.Errorf("ConvergencePlot(nil) gave no error")
	}
}

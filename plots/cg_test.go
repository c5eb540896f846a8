package plots

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/lessons/cg"
)

// The CG figures' pictures are held by their golden tests
// (ExampleCGTime, ExampleCGConvergence); these check what a picture test
// cannot name: which words say where the times came from.

func TestCGTimeKinds(t *testing.T) {
	rs, err := cg.Recorded()
	if err != nil {
		t.Fatal(err)
	}
	svgOf := func() string {
		t.Helper()
		p, err := CGTime(rs)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := SVG(p, DefaultWidth, DefaultHeight)
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
	rs[1].TimeKind = cg.TimeModeled
	s = svgOf()
	for _, want := range []string{"1 " + rs[1].Name + " (modeled)", "0 " + rs[0].Name + " (measured)", ">time (ms)<"} {
		if !strings.Contains(s, want) {
			t.Errorf("mixed run: SVG lacks %q", want)
		}
	}
}

func TestCGConvergenceLegend(t *testing.T) {
	rs, err := cg.Recorded()
	if err != nil {
		t.Fatal(err)
	}
	p, err := CGConvergence(rs)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(p, DefaultWidth, DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if want := r.Name; !strings.Contains(string(svg), want) {
			t.Errorf("legend lacks stage %d %q", r.Stage, want)
		}
	}
}

func TestCGFigureErrors(t *testing.T) {
	if _, err := CGTime(nil); err == nil {
		t.Errorf("CGTime(nil) gave no error")
	}
	if _, err := CGConvergence(nil); err == nil {
		t.Errorf("CGConvergence(nil) gave no error")
	}
}

package plots

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/cg"
)

func TestCGFigures(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	p, err := cg.Generate(cg.Grid{NX: 4, NY: 5, NZ: 6}, cg.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rs []*cg.StageResult
	for s := range cg.Stages {
		r, err := cg.RunStage(dev, p, s, cg.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	for i, mk := range []func([]*cg.StageResult) (*plot.Plot, error){CGTime, CGConvergence} {
		fig, err := mk(rs)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := SVG(fig, DefaultWidth, DefaultHeight)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(svg), "<?xml") || !strings.Contains(string(svg), "<svg") || len(svg) < 2000 {
			t.Errorf("plot %d: %d bytes of SVG", i, len(svg))
		}
	}
	if _, err := CGTime(nil); err == nil {
		t.Errorf("CGTime(nil) gave no error")
	}
	if _, err := CGConvergence(nil); err == nil {
		t.Errorf("CGConvergence(nil) gave no error")
	}
}

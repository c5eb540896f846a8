package main

import (
	"fmt"

	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/plots"
	"gonum.org/v1/plot/vg"
)

// writeSpMVFigure draws the spmv lesson's figure to path (SVG or PNG by its
// extension). A simulator run is drawn beside the recorded GPU run when one
// is embedded, labeled with its GPU, driver and date. It lives here, not in
// lessons/spmv, because the figure code (plots, gonum) may import lessons
// but not the other way round.
func writeSpMVFigure(path string, r lesson.Result) error {
	cr, ok := r.(*spmv.CLIResult)
	if !ok {
		return fmt.Errorf("the spmv figure needs an spmv result, got %T", r)
	}
	res := cr.Result
	var recorded *spmv.Result
	if res.Backend == "sim" {
		if rec, err := spmv.Recorded(); err == nil {
			recorded = rec
		}
	}
	fig, err := spmv.Figure(res, recorded)
	if err != nil {
		return err
	}
	return plots.WriteFile(path, fig, plots.DefaultWidth, 7*vg.Inch)
}

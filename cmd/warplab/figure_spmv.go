package main

import (
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/plots"
	"gonum.org/v1/plot/vg"
)

// writeSpMVFigure draws the lesson's figure to path (SVG or PNG by its
// extension). A simulator run is drawn beside the recorded GPU run when one
// is embedded, labeled with its GPU, driver and date.
func writeSpMVFigure(path string, res *spmv.Result) error {
	var recorded *spmv.Result
	if res.Backend == "sim" {
		if rec, err := spmv.Recorded(); err == nil {
			recorded = rec
		}
	}
	fig, err := plots.SpMV(res, recorded)
	if err != nil {
		return err
	}
	return plots.WriteFile(path, fig, plots.DefaultWidth, 7*vg.Inch)
}

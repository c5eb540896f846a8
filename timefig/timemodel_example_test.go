package timefig_test

import (
	"log"
	"os"

	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/timecheck"
	"github.com/warplab/warplab/timefig"
)

// TimeModel draws a `warplab timemodel check` report: here a fixed copy
// (testdata/timemodel_check.json, the H200 check of 2026-12-01), so the
// golden moves only when the figure code does.
func ExampleTimeModel() {
	f, err := os.Open("testdata/timemodel_check.json")
	if err != nil {
		log.Panic(err)
	}
	defer f.Close()
	rep, err := timecheck.ReadReport(f)
	if err != nil {
		log.Panic(err)
	}
	p, err := timefig.TimeModel(rep, "")
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/timemodel.png", p, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

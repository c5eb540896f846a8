package spmv_test

import (
	"encoding/json"
	"log"
	"os"

	"testing"

	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/plots/chart"
	"gonum.org/v1/plot/cmpimg"
)

// Figure draws a simulator run beside the recorded GPU run. The simulator run
// is testdata/sim-2p19-h200.json (`warplab run spmv --backend sim
// --json`, 2^19 rows on the modeled H200), read back rather than run, so
// the picture does not move when the simulator's timing model does.
func ExampleFigure() {
	data, err := os.ReadFile("testdata/sim-2p19-h200.json")
	if err != nil {
		log.Panic(err)
	}
	var sim spmv.Result
	if err := json.Unmarshal(data, &sim); err != nil {
		log.Panic(err)
	}
	gpu, err := spmv.Recorded()
	if err != nil {
		log.Panic(err)
	}
	fig, err := spmv.Figure(&sim, gpu)
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/figure.png", fig, chart.DefaultWidth, 2*chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// The figure is compared, as a picture, with testdata/figure_golden.png at
// cmpimg's default tolerance (every decoded pixel equal). A figure that
// changes on purpose gets a new golden from
//
//	go test ./lessons/spmv -run Golden -regen
//
// and a person looks at it before it is committed.
func TestGoldenFigure(t *testing.T) { cmpimg.CheckPlot(ExampleFigure, t, "figure.png") }

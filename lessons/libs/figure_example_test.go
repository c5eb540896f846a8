package libs_test

import (
	"encoding/json"
	"log"
	"os"
	"testing"

	"gonum.org/v1/plot/cmpimg"

	"github.com/warplab/warplab/lessons/libs"
	"github.com/warplab/warplab/plots/chart"
)

// Figure draws a simulator run of the libs lesson read back from
// testdata/sim.json (`warplab run libs --backend sim --rows 131072
// --matrix` the four SuiteSparse matrices `--json`), so the picture does not
// move when the simulator's time model does. No peer: cuSPARSE's numbers
// exist only from a GPU run.
func ExampleFigure() {
	data, err := os.ReadFile("testdata/sim.json")
	if err != nil {
		log.Panic(err)
	}
	var res libs.Result
	if err := json.Unmarshal(data, &res); err != nil {
		log.Panic(err)
	}
	fig, err := libs.Figure(&res, nil)
	if err != nil {
		log.Panic(err)
	}
	if err := chart.WriteFile("testdata/figure.png", fig, chart.DefaultWidth, chart.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// The figure is compared, as a picture, with testdata/figure_golden.png at
// cmpimg's default tolerance (every decoded pixel equal); after a deliberate
// change, `go test ./lessons/libs -run Golden -regen` redraws it, and a
// person looks at it before it is committed.
func TestGoldenFigure(t *testing.T) { cmpimg.CheckPlot(ExampleFigure, t, "figure.png") }

func TestFigureErrors(t *testing.T) {
	if _, err := libs.Figure(nil, nil); err == nil {
		t.Error("Figure(nil): no error")
	}
	if _, err := libs.Figure(&libs.Result{}, nil); err == nil {
		t.Error("Figure(empty result): no error")
	}
}

package plots_test

import (
	"encoding/json"
	"log"
	"os"
	"testing"

	"gonum.org/v1/plot/cmpimg"

	"github.com/warplab/warplab/lessons/libs"
	"github.com/warplab/warplab/plots"
)

// Libs draws a simulator run of the libs lesson read back from
// testdata/libs-sim.json (`warplab run libs --backend sim --rows 131072
// --matrix` the four SuiteSparse matrices `--json`), so the picture does not
// move when the simulator's time model does. No peer: cuSPARSE's numbers
// exist only from a GPU run.
func ExampleLibs() {
	data, err := os.ReadFile("testdata/libs-sim.json")
	if err != nil {
		log.Panic(err)
	}
	var res libs.Result
	if err := json.Unmarshal(data, &res); err != nil {
		log.Panic(err)
	}
	fig, err := plots.Libs(&res, nil)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/libs.png", fig, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

func TestGoldenLibs(t *testing.T) { cmpimg.CheckPlot(ExampleLibs, t, "libs.png") }

func TestLibsErrors(t *testing.T) {
	if _, err := plots.Libs(nil, nil); err == nil {
		t.Error("Libs(nil): no error")
	}
	if _, err := plots.Libs(&libs.Result{}, nil); err == nil {
		t.Error("Libs(empty result): no error")
	}
}

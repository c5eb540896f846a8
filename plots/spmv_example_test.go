package plots_test

import (
	"encoding/json"
	"log"
	"os"

	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/plots"
)

// SpMV draws a simulator run beside the recorded GPU run. The simulator run
// is testdata/spmv-sim-2p19-h200.json (`warplab run spmv --backend sim
// --json`, 2^19 rows on the modeled H200), read back rather than run, so
// the picture does not move when the simulator's timing model does.
func ExampleSpMV() {
	data, err := os.ReadFile("testdata/spmv-sim-2p19-h200.json")
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
	fig, err := plots.SpMV(&sim, gpu)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/spmv.png", fig, plots.DefaultWidth, 2*plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

package plots_test

import (
	"encoding/json"
	"log"
	"os"

	"github.com/warplab/warplab/lessons/tiling"
	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/sim"
)

// simTiling is the lecture-4 lesson run on the simulated H200 at N = 64
// (`warplab run tiling --backend sim --n 64 --no-demos --json`), kept in
// testdata and read back, so the figures drawn from it do not move when the
// simulator's internals do.
func simTiling() *tiling.Result {
	data, err := os.ReadFile("testdata/tiling-sim-64-h200.json")
	if err != nil {
		log.Panic(err)
	}
	var r tiling.Result
	if err := json.Unmarshal(data, &r); err != nil {
		log.Panic(err)
	}
	return &r
}

// TilingLoads draws the load sweep's counts on the lecture's formulas.
func ExampleTilingLoads() {
	fig, err := plots.TilingLoads(simTiling())
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/tiling_loads.png", fig, plots.DefaultWidth, 2*plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// TilingTransposes needs the simulator's shared-memory counters, which a
// result read back from JSON has lost; here they are put back as the
// simulator counted them at N = 64 (128 warp requests each way; the
// unpadded tile's column stores take 32 wavefronts each).
func ExampleTilingTransposes() {
	res := simTiling()
	shared := map[string]sim.Stats{
		tiling.KTransposeNaive: {},
		tiling.KTransposeShared: {
			SharedStore: sim.Banked{Requests: 128, Wavefronts: 4096, Ideal: 128, Conflicts: 3968},
			SharedLoad:  sim.Banked{Requests: 128, Wavefronts: 128, Ideal: 128},
		},
		tiling.KTransposeSharedPadded: {
			SharedStore: sim.Banked{Requests: 128, Wavefronts: 128, Ideal: 128},
			SharedLoad:  sim.Banked{Requests: 128, Wavefronts: 128, Ideal: 128},
		},
	}
	for i, r := range res.Runs {
		if st, ok := shared[r.Kernel]; ok {
			res.Runs[i].Stats = &st
		}
	}
	fig, err := plots.TilingTransposes(res)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/tiling_transposes.png", fig, plots.DefaultWidth, 2*plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// TilingRooflines puts the simulator run's modeled rates on the H200 panel
// beside the recorded H200 run's measured ones; the other models, with no
// run, show attainable rates.
func ExampleTilingRooflines() {
	rec, err := tiling.Recorded()
	if err != nil {
		log.Panic(err)
	}
	fig, err := plots.TilingRooflines(simTiling(), rec)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/tiling_rooflines.png", fig, plots.DefaultWidth, 4*plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

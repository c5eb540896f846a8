package plots_test

import (
	"log"

	"github.com/warplab/warplab/plots"
)

// SimVsHardwarePlot sets the simulator's sectors per request beside a
// profiler's. The rows are the Day-37 seed kernels at 2^19 rows: the
// simulator's counts and Nsight Compute's on an H200 (2026-11-29), which
// agree to the sector.
func ExampleSimVsHardwarePlot() {
	rows := []plots.CounterRow{
		{Matrix: "even", Kernel: "thread per row", SimRequests: 819_200, SimSectors: 18_202_594, HWRequests: 819_200, HWSectors: 18_202_594},
		{Matrix: "even", Kernel: "warp per row", SimRequests: 2_621_440, SimSectors: 4_653_042, HWRequests: 2_621_440, HWSectors: 4_653_042},
		{Matrix: "skewed", Kernel: "thread per row", SimRequests: 20_627_456, SimSectors: 22_003_736, HWRequests: 20_627_456, HWSectors: 22_003_736},
		{Matrix: "skewed", Kernel: "warp per row", SimRequests: 3_260_416, SimSectors: 5_816_137, HWRequests: 3_260_416, HWSectors: 5_816_137},
	}
	p, err := plots.SimVsHardwarePlot("ncu, NVIDIA H200, 2026-11-29 (recorded)", rows)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/sim_vs_hardware.png", p, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

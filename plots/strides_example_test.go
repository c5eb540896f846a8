package plots_test

import (
	"log"

	"github.com/warplab/warplab/plots"
)

// StrideSectors draws the first lesson's strided copy. The counts are what
// the simulator counts on any model for 32 lanes reading every stride-th
// float: 4 sectors per request at stride 1, doubling with the stride until
// every lane has its own sector at stride 8.
func ExampleStrideSectors() {
	p, err := plots.StrideSectors("simulated T4", []int{1, 2, 4, 8, 16, 32}, []float64{4, 8, 16, 32, 32, 32})
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/stride_sectors.png", p, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

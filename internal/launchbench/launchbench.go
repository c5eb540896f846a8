// Package launchbench measures what a kernel launch costs from Go through
// gpuext, so the course can show that the Go path adds nothing a student
// would notice to kernel time. The same loop in C (scripts/evidence/
// launchloop.cu) runs beside it on the GPU host.
package launchbench

import (
	_ "embed"
	"fmt"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

//go:embed empty.cu
var cudaSource string

//go:embed empty.ptx
var ptx string

// Module is the empty kernel: its CUDA C for a GPU and its PTX, which both
// a GPU and the simulator run.
func Module() *gpuext.Module {
	return &gpuext.Module{Name: "launchbench", CUDA: cudaSource, PTX: ptx}
}

// Result is the host time per launch, in microseconds, for n launches of
// one block of 32 threads: back to back with one synchronisation at the end
// (what a lesson's timing loop does), and each followed by a
// synchronisation (the round trip).
type Result struct {
	Launches        int     `json:"launches"`
	AsyncMicros     float64 `json:"async_us_per_launch"`
	RoundTripMicros float64 `json:"sync_us_per_launch"`
	Kind            string  `json:"kind"` // "measured" (host clock)
}

// Measure launches the empty kernel n times each way on dev.
func Measure(dev *gpuext.Device, n int) (Result, error) {
	if n < 1 {
		return Result{}, fmt.Errorf("launchbench: %d launches; need at least 1", n)
	}
	m := Module()
	launch := func() error {
		_, err := dev.Launch(m, "emptyKernel", sim.Dim1(1), sim.Dim1(32), 0)
		return err
	}
	for i := 0; i < 100; i++ { // load the module, warm the driver
		if err := launch(); err != nil {
			return Result{}, err
		}
	}
	if err := dev.Synchronize(); err != nil {
		return Result{}, err
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if err := launch(); err != nil {
			return Result{}, err
		}
	}
	if err := dev.Synchronize(); err != nil {
		return Result{}, err
	}
	async := time.Since(t0)
	t0 = time.Now()
	for i := 0; i < n; i++ {
		if err := launch(); err != nil {
			return Result{}, err
		}
		if err := dev.Synchronize(); err != nil {
			return Result{}, err
		}
	}
	round := time.Since(t0)
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	return Result{Launches: n, AsyncMicros: per(async), RoundTripMicros: per(round), Kind: "measured"}, nil
}

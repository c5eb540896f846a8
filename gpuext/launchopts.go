package gpuext

import (
	"context"
	"os"
	"os/signal"

	"github.com/warplab/warplab/sim"
)

// LaunchOptions are LaunchWith's optional settings. Both act on the
// simulator's PTX path (a kernel run from its PTX: CUDA C from
// CompileCUDA, or any module with Options.SimPTX); a GPU ignores them.
type LaunchOptions struct {
	// Trace chooses warps (at most sim.MaxTraceWarps) whose global and
	// shared memory instructions Launch.Trace records: for each, which
	// lane touched which address, so plots.AccessMap can draw lanes
	// against 32-byte sectors or shared-memory banks.
	Trace []sim.WarpRef
	// TraceEvents bounds the memory instructions kept per traced warp;
	// 0 means sim.DefaultTraceEvents.
	TraceEvents int
	// MaxInstructions bounds each warp's issued instructions; a warp past
	// it stops the launch with a *sim.Fault of Kind "runaway warp" (a loop
	// that never ends). 0 keeps the simulator's limit, 2^31 per warp.
	MaxInstructions int64
}

// InterruptContext returns a context that is cancelled when the program
// receives an interrupt (SIGINT), and the function that stops listening.
// A notebook cell's program gets SIGINT when the student presses
// JupyterLab's stop button (GoNB sends it, and kills the program if it has
// not ended soon after), so a kernel launched with LaunchContext or
// LaunchWith under this context stops on the simulator with a "cancelled"
// fault naming the thread and line it was at, instead of the cell dying
// without a word:
//
//	ctx, stop := gpuext.InterruptContext()
//	defer stop()
//	_, err := dev.LaunchContext(ctx, m, "spin", grid, block, 0, args...)
func InterruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

package gpuext

import (
	"context"
	"os"
	"os/signal"
)

// InterruptContext returns a context that is cancelled when the program
// receives an interrupt (SIGINT), and the function that stops listening.
// A notebook cell's program gets SIGINT when the student presses
// JupyterLab's stop button (GoNB sends it, and kills the program if it has
// not ended soon after), so a kernel launched under this context stops on
// the simulator with a "cancelled" fault naming the thread and line it was
// at, instead of the cell dying without a word:
//
//	ctx, stop := gpuext.InterruptContext()
//	defer stop()
//	_, err := dev.Launch(ctx, spin, gpuext.Config{Grid: 1, Block: 32}, flag)
func InterruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

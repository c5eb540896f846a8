package gpuext

import (
	"errors"
	"fmt"

	"github.com/warplab/warplab/sim"
)

// A kernel that faults on a GPU (an illegal address, a __trap(), a failed
// assert) leaves its CUDA context unusable: every later call in it returns
// the same error. The GPU backend tries to recreate the context
// (cuDevicePrimaryCtxReset, then a fresh retain) when a call reports such a
// fault, and returns a *ContextLostError naming the kernel. NVIDIA documents
// these faults as needing a new process, and on the H200 (driver 580) the
// retain after the reset fails with the same fault
// (evidence/own-kernel-h200-2026-12-01): then the device stays dead for the
// rest of the program and every call returns the same *ContextLostError at
// once. A notebook is not stuck by it: GoNB runs each cell as a new
// process, so the next cell's first launch gets a fresh context. Modules are reloaded on the next
// launch; buffers cannot be, since their memory went with the context, so
// each says so when used (ErrDiedWithContext). The simulator has no such
// state: the error points the student there to find the faulting line.

// ErrDiedWithContext is wrapped by every use of a buffer allocated in a GPU
// context that a kernel fault destroyed.
var ErrDiedWithContext = errors.New("the buffer died with the old GPU context")

// ContextLostError is a kernel fault on a GPU that destroyed the CUDA
// context, reported by the call that noticed it (launches are
// asynchronous: often the next Download or Synchronize). The context has
// been recreated unless RecreateErr says otherwise.
type ContextLostError struct {
	Device string
	// The last kernel launched before the fault was noticed: the one that
	// faulted, unless another was queued after it.
	Module, Kernel string
	Grid, Block    sim.Dim3
	Shared         int
	Call           string // the driver call that reported the fault
	Err            error  // the CUDA error
	// RecreateErr is why the context could not be recreated; nil when it
	// was, and the next launch runs.
	RecreateErr error
}

func (e *ContextLostError) Error() string {
	what := "a kernel"
	sim := `open the simulator (gpuext.Open("sim")) and launch the kernel there with the same grid, block and arguments`
	if e.Kernel != "" {
		what = fmt.Sprintf("kernel %s.%s<<<grid %v, block %v, shared %d B>>>", e.Module, e.Kernel, e.Grid, e.Block, e.Shared)
		sim = fmt.Sprintf(`open the simulator (gpuext.Open("sim")) and run the same launch there: Launch(ctx, kernel %s.%s, Config{Grid: %v, Block: %v, Shared: %d}, the same arguments)`,
			e.Module, e.Kernel, e.Grid, e.Block, e.Shared)
	}
	s := fmt.Sprintf("%s faulted on %s (%v). The fault left the CUDA context unusable", what, e.Device, e.Err)
	if e.RecreateErr != nil {
		s += fmt.Sprintf(", and the driver would not give this process a new one (%v): CUDA keeps such a fault for the rest of the process, "+
			"so every GPU call of this program now fails; run it again (in a notebook, run the cell again: each GoNB cell is a new process, with a fresh context)", e.RecreateErr)
	} else {
		s += ", so it was recreated: buffers allocated before it are gone (allocate and upload them again), modules are reloaded, and the next launch runs"
	}
	return s + ". To see which line, thread and block went wrong, " + sim + ": its fault names them"
}

// Unwrap returns the CUDA error.
func (e *ContextLostError) Unwrap() error { return e.Err }

package sim

import "fmt"

// Fault is a kernel error the simulator caught: the kind of error
// compute-sanitizer reports on hardware (an out-of-bounds access, a shared
// memory race, a barrier not every thread reached, a shuffle that reads an
// exited lane, a read of a register or of shared memory nothing wrote) or
// a Go panic inside the kernel body. It names the kernel,
// block, thread, site, buffer, index and length, so a student can find the
// line. Launch returns the fault of the lowest-numbered block, and within a
// block the first in execution order, so the same bug gives the same error
// on every run and every core count.
type Fault struct {
	Kernel string
	Kind   FaultKind // FaultOutOfBounds, FaultSharedRace, FaultDivergentBarrier, ... (kinds.go)
	Block  Dim3
	Thread Dim3
	Site   string // site label, "" when not an access
	Buffer string // buffer or shared array name
	Index  int
	Len    int
	Detail string
	// cause is what stopped a cancelled launch: its context's error, so
	// errors.Is(err, context.Canceled) holds for a fault of Kind
	// FaultCancelled as for any other cancelled call.
	cause error
}

// Unwrap returns the context's error of a cancelled launch, nil otherwise.
func (f *Fault) Unwrap() error { return f.cause }

// Error describes the fault in one line.
func (f *Fault) Error() string {
	s := fmt.Sprintf("sim: kernel %s: %s in block %v thread %v", f.Kernel, f.Kind, f.Block, f.Thread)
	if f.Buffer != "" {
		s += fmt.Sprintf(": %s[%d] (length %d)", f.Buffer, f.Index, f.Len)
	}
	if f.Site != "" {
		s += fmt.Sprintf(" at site %q", f.Site)
	}
	if f.Detail != "" {
		s += ": " + f.Detail
	}
	return s
}

// stopThread is the panic value that unwinds a faulting thread's body. It is
// always recovered by the simulator; it never reaches the caller.
type stopThread struct{}

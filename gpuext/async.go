package gpuext

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/warplab/warplab/sim"
)

// asyncRead is the GPU backend's side of a Pending: a copy queued into
// pinned host memory and an event recorded after it.
type asyncRead interface {
	// wait blocks until the copy is done and copies its bytes to dst.
	wait(dst unsafe.Pointer) error
}

// Pending is a copy of a few elements of a Buffer to the host that was
// queued by ReadAsync and may not have happened yet. Wait returns the
// values. A Pending is safe for use by several goroutines; it belongs to the
// Device of its buffer and cannot be waited on after that Device's Close.
type Pending[T sim.Elem] struct {
	st   *bufState
	n    int
	call string

	mu   sync.Mutex
	done bool
	vals []T
	err  error
	rd   asyncRead // the backend's queued copy; nil once waited
}

// ReadAsync queues a copy of the buffer's first n elements to host memory
// after all the work queued so far on the device, and returns at once
// without waiting for that work. Wait on the returned Pending gives the
// values.
//
// Why: a solver that needs one scalar per iteration on the host (a
// residual norm, say) would otherwise stop queuing kernels while Download
// waits, and the GPU would idle until the host queued more. With ReadAsync
// the host can queue the next kernels first and wait later.
//
// On a GPU the copy is a cuMemcpyDtoHAsync into pinned host memory on the
// default stream, the stream Launch uses, so it is ordered after every
// kernel launched before it and before every kernel launched after it; an
// event recorded after the copy tells Wait when it is done. The pinned
// memory is reused by later calls and freed by Close. On the simulator,
// whose launches finish before Launch returns, the copy is made at once.
func (b *Buffer[T]) ReadAsync(n int) (*Pending[T], error) {
	if err := b.use("ReadAsync"); err != nil {
		return nil, err
	}
	if err := b.st.dev.notRecording("ReadAsync " + b.st.String()); err != nil {
		return nil, err
	}
	call := fmt.Sprintf("ReadAsync %s", b.st)
	if n < 0 || n > b.n {
		return nil, fmt.Errorf("gpuext: %s: cannot read %d elements; pass 0 to %d", call, n, b.n)
	}
	p := &Pending[T]{st: b.st, n: n, call: call}
	if n == 0 {
		p.vals, p.done = []T{}, true
		return p, nil
	}
	r, err := b.st.mem.readAsync(int64(n) * elemSize[T]())
	if err != nil {
		return nil, fmt.Errorf("gpuext: %s: %w", call, err)
	}
	p.rd = r
	return p, nil
}

// Wait blocks until the copy queued by ReadAsync is done and returns the
// values: a fresh slice of n elements that the caller owns. A second Wait
// returns the same slice (and the same error). On a GPU, an error of a
// kernel queued before the copy is reported here, as Download reports it.
// Waiting after the Device was closed is an error on both backends, even
// for a Pending already waited on: on a GPU, Close frees the pinned memory
// the copy went to.
func (p *Pending[T]) Wait() ([]T, error) {
	if p == nil || p.st == nil {
		return nil, fmt.Errorf("gpuext: Wait on a nil Pending (did ReadAsync fail?)")
	}
	if err := p.st.dev.check("Wait"); err != nil {
		return nil, fmt.Errorf("%w (waiting for %s)", err, p.call)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return p.vals, p.err
	}
	vals := make([]T, p.n)
	if err := p.rd.wait(unsafe.Pointer(&vals[0])); err != nil {
		p.err = fmt.Errorf("gpuext: Wait for %s: %w", p.call, err)
	} else {
		p.vals = vals
	}
	p.done = true
	p.rd = nil
	return p.vals, p.err
}

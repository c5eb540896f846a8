package gpuext

import (
	"fmt"
	"unsafe"

	"github.com/warplab/warplab/sim"
)

// Buffer is a typed array in device memory: a sim.Global[T] on the
// simulator, a cuMemAlloc allocation on a GPU. Pass it to Launch where the
// kernel takes a T* parameter. A Buffer belongs to the Device that made it
// and dies with that Device's Close.
type Buffer[T sim.Elem] struct {
	st *bufState
	n  int
}

// bufState is the untyped part of a buffer that its Device tracks, so that
// Close can free buffers of every element type.
type bufState struct {
	dev   *Device
	name  string
	typ   string
	n     int
	bytes int64
	freed bool // guarded by dev.mu
	mem   mem  // the backend's memory
}

func (st *bufState) String() string { return fmt.Sprintf("%s (%s[%d])", st.name, st.typ, st.n) }

// release frees the memory of a buffer already marked freed.
func (st *bufState) release() error {
	st.dev.mu.Lock()
	st.freed = true
	m := st.mem
	st.dev.mu.Unlock()
	if err := m.free(); err != nil {
		return fmt.Errorf("free %s: %w", st, err)
	}
	return nil
}

func elemSize[T sim.Elem]() int64 { var v T; return int64(unsafe.Sizeof(v)) }

func typeName[T sim.Elem]() string { var v T; return fmt.Sprintf("%T", v) }

// Alloc allocates n zeroed elements of T named name (the name appears in
// errors and in the simulator's counters).
func Alloc[T sim.Elem](d *Device, name string, n int) (*Buffer[T], error) {
	call := fmt.Sprintf("Alloc %s (%s[%d])", name, typeName[T](), n)
	if err := d.check(call); err != nil {
		return nil, err
	}
	if err := d.notRecording(call); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("gpuext: %s: a buffer cannot have a negative length", call)
	}
	bytes := int64(n) * elemSize[T]()
	m, err := d.be.alloc(name, bytes, newSimAlloc[T](name, n))
	if err != nil {
		return nil, fmt.Errorf("gpuext: %s: %w", call, err)
	}
	b := &Buffer[T]{n: n, st: &bufState{dev: d, name: name, typ: typeName[T](), n: n, bytes: bytes, mem: m}}
	if err := d.track(b.st); err != nil {
		_ = b.st.release()
		return nil, fmt.Errorf("gpuext: %s: %w", call, err)
	}
	return b, nil
}

// Upload allocates a buffer named name holding a copy of src.
func Upload[T sim.Elem](d *Device, name string, src []T) (*Buffer[T], error) {
	b, err := Alloc[T](d, name, len(src))
	if err != nil {
		return nil, err
	}
	if err := b.CopyFrom(src); err != nil {
		_ = b.Free()
		return nil, err
	}
	return b, nil
}

// track records a live buffer so that Close frees it.
func (d *Device) track(st *bufState) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("device %s was closed meanwhile", d.name)
	}
	d.live[st] = struct{}{}
	return nil
}

// use fails when the buffer or its device can no longer be used.
func (b *Buffer[T]) use(call string) error {
	if b == nil || b.st == nil {
		return fmt.Errorf("gpuext: %s on a nil buffer (did Alloc or Upload fail?)", call)
	}
	d := b.st.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("gpuext: %s %s: its device %s is closed (Close frees every buffer)", call, b.st, d.name)
	}
	if b.st.freed {
		return fmt.Errorf("gpuext: %s %s: the buffer was freed", call, b.st)
	}
	if err := b.st.mem.alive(); err != nil {
		return fmt.Errorf("gpuext: %s %s: %w", call, b.st, err)
	}
	return nil
}

// Len is the number of elements.
func (b *Buffer[T]) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Name is the name the buffer was allocated with.
func (b *Buffer[T]) Name() string {
	if b == nil || b.st == nil {
		return ""
	}
	return b.st.name
}

// Download copies the whole buffer into dst, which must have length Len().
// On a GPU it waits for the kernels launched before it.
func (b *Buffer[T]) Download(dst []T) error {
	if err := b.use("Download"); err != nil {
		return err
	}
	if err := b.st.dev.notRecording("Download " + b.st.String()); err != nil {
		return err
	}
	if len(dst) != b.n {
		return fmt.Errorf("gpuext: Download %s: destination holds %d elements, the buffer %d; pass a slice of length %d",
			b.st, len(dst), b.n, b.n)
	}
	if b.n == 0 {
		return nil
	}
	if err := b.st.mem.read(unsafe.Pointer(&dst[0]), b.st.bytes); err != nil {
		return fmt.Errorf("gpuext: Download %s: %w", b.st, err)
	}
	return nil
}

// CopyFrom overwrites the whole buffer with src, which must have length Len().
func (b *Buffer[T]) CopyFrom(src []T) error {
	if err := b.use("CopyFrom"); err != nil {
		return err
	}
	if err := b.st.dev.notRecording("CopyFrom " + b.st.String()); err != nil {
		return err
	}
	if len(src) != b.n {
		return fmt.Errorf("gpuext: CopyFrom %s: source holds %d elements, the buffer %d; pass a slice of length %d",
			b.st, len(src), b.n, b.n)
	}
	if b.n == 0 {
		return nil
	}
	if err := b.st.mem.write(0, unsafe.Pointer(&src[0]), b.st.bytes); err != nil {
		return fmt.Errorf("gpuext: CopyFrom %s: %w", b.st, err)
	}
	return nil
}

// CopyFromBuffer overwrites the whole buffer with the contents of src, a
// buffer of the same length on the same device, without a round trip
// through the host: cuMemcpyDtoD on a GPU, a plain copy on the simulator.
// On a GPU the copy is queued on the default stream, after the kernels
// launched before it and before those launched after it, and returns
// without waiting for it (the driver does not synchronize the host for a
// device-to-device copy); Download, Synchronize and Time see it done. A
// copy of a buffer onto itself does nothing.
func (b *Buffer[T]) CopyFromBuffer(src *Buffer[T]) error {
	if err := b.use("CopyFromBuffer"); err != nil {
		return err
	}
	if err := src.use("CopyFromBuffer (source)"); err != nil {
		return err
	}
	d := b.st.dev
	if src.st.dev != d {
		return fmt.Errorf("gpuext: CopyFromBuffer %s from %s: the buffers belong to different devices (%s and %s); download and upload instead",
			b.st, src.st, d.name, src.st.dev.name)
	}
	if src.n != b.n {
		return fmt.Errorf("gpuext: CopyFromBuffer %s from %s: source holds %d elements, the buffer %d; copy between buffers of the same length",
			b.st, src.st, src.n, b.n)
	}
	if b.n == 0 || src.st == b.st {
		return nil
	}
	if rec := d.recording(); rec != nil {
		what := fmt.Sprintf("CopyFromBuffer %s from %s", b.st, src.st)
		rec.append(d, graphOp{kind: opCopy, what: what, dst: b.st.mem, src: src.st.mem, bytes: b.st.bytes,
			touches: []*bufState{b.st, src.st}})
		return nil
	}
	if err := b.st.mem.copyFrom(src.st.mem, b.st.bytes); err != nil {
		return fmt.Errorf("gpuext: CopyFromBuffer %s from %s: %w", b.st, src.st, err)
	}
	return nil
}

// fillChunk bounds the host staging slice of an 8-byte Fill on a GPU.
const fillChunk = 1 << 20

// Fill sets every element to v.
func (b *Buffer[T]) Fill(v T) error {
	if err := b.use("Fill"); err != nil {
		return err
	}
	d := b.st.dev
	if rec := d.recording(); rec != nil {
		return b.recordFill(rec, v)
	}
	if b.n == 0 {
		return nil
	}
	m := b.st.mem
	var err error
	switch elemSize[T]() {
	case 4:
		err = m.fill32(*(*uint32)(unsafe.Pointer(&v)), int64(b.n))
	case 8:
		words := (*[2]uint32)(unsafe.Pointer(&v))
		if words[0] == words[1] { // 0, -1, and every value whose halves agree
			err = m.fill32(words[0], 2*int64(b.n))
			break
		}
		// Written from a host chunk: cuMemset has no 64-bit form.
		chunk := make([]T, min(b.n, fillChunk))
		for i := range chunk {
			chunk[i] = v
		}
		for off := 0; off < b.n && err == nil; off += len(chunk) {
			n := min(len(chunk), b.n-off)
			err = m.write(int64(off)*8, unsafe.Pointer(&chunk[0]), int64(n)*8)
		}
	default:
		err = fmt.Errorf("element size %d is not 4 or 8", elemSize[T]())
	}
	if err != nil {
		return fmt.Errorf("gpuext: Fill %s: %w", b.st, err)
	}
	return nil
}

// recordFill records Fill(v) inside Device.Record. A graph fills with one
// 32-bit memset node on a GPU, so an 8-byte value whose two halves differ
// (most doubles; 0 and -1 are fine) is refused on both backends, which
// therefore record the same graphs: fill such a buffer with a kernel.
func (b *Buffer[T]) recordFill(rec *recorder, v T) error {
	d := b.st.dev
	what := fmt.Sprintf("Fill %s with %v", b.st, v)
	var word uint32
	var words int64
	switch elemSize[T]() {
	case 4:
		word, words = *(*uint32)(unsafe.Pointer(&v)), int64(b.n)
	case 8:
		halves := (*[2]uint32)(unsafe.Pointer(&v))
		if halves[0] != halves[1] {
			err := fmt.Errorf("gpuext: %s inside Device.Record: a recorded fill is a 32-bit memset, and the two halves of %v's 8 bytes differ; "+
				"fill the buffer with a kernel (or before Record)", what, v)
			rec.refuse(d, err)
			return err
		}
		word, words = halves[0], 2*int64(b.n)
	default:
		err := fmt.Errorf("gpuext: %s: element size %d is not 4 or 8", what, elemSize[T]())
		rec.refuse(d, err)
		return err
	}
	if b.n == 0 {
		return nil
	}
	rec.append(d, graphOp{kind: opFill, what: what, dst: b.st.mem, word: word, words: words, touches: []*bufState{b.st}})
	return nil
}

// Free releases the buffer's device memory now rather than at Close. Using
// the buffer afterwards is an error; so is freeing it twice.
func (b *Buffer[T]) Free() error {
	if err := b.use("Free"); err != nil {
		return err
	}
	if err := b.st.dev.notRecording("Free " + b.st.String()); err != nil {
		return err
	}
	d := b.st.dev
	d.mu.Lock()
	if d.closed || b.st.freed { // lost a race with Close or another Free
		d.mu.Unlock()
		return fmt.Errorf("gpuext: Free %s: the buffer was freed", b.st)
	}
	b.st.freed = true
	delete(d.live, b.st)
	d.mu.Unlock()
	if err := b.st.release(); err != nil {
		return fmt.Errorf("gpuext: Free: %w", err)
	}
	return nil
}

// Sim returns the simulator's global-memory buffer behind b, for tests
// that read it directly; nil on a GPU and once freed.
func (b *Buffer[T]) Sim() *sim.Global[T] {
	if b == nil || b.st == nil {
		return nil
	}
	g, _ := b.st.mem.arg().(*sim.Global[T])
	return g
}

// bufferArg is how Launch sees a *Buffer[T] of any T without reflection.
type bufferArg interface {
	state() *bufState
	use(call string) error
}

func (b *Buffer[T]) state() *bufState { return b.st }

// human formats a byte count for error messages.
func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

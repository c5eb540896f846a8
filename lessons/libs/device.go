package libs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// devMatrix is one matrix in device memory, with the preparations made so
// far (bins, merge-path partitions and carries), kept for every launch.
type devMatrix struct {
	rows, cols, nnz int
	csrRowPtr       []int32
	rowPtr, colIdx  *gpuext.Buffer[int32]
	val, x, y       *gpuext.Buffer[float32]

	bins     []Bin
	binBufs  []*gpuext.Buffer[int32]
	tileRow  *gpuext.Buffer[int32]
	tileNz   *gpuext.Buffer[int32]
	carryRow *gpuext.Buffer[int32]
	carryVal *gpuext.Buffer[float32]
	mergeBlk int
}

func upload(dev *gpuext.Device, in Input) (*devMatrix, error) {
	c := in.CSR
	d := &devMatrix{rows: c.Rows, cols: c.Cols, nnz: c.NNZ(), csrRowPtr: c.RowPtr}
	var err error
	if d.rowPtr, err = gpuext.Upload(dev, "rowPtr", c.RowPtr); err != nil {
		return nil, err
	}
	if d.colIdx, err = gpuext.Upload(dev, "colIdx", padded(c.ColIdx)); err != nil {
		d.free()
		return nil, err
	}
	if d.val, err = gpuext.Upload(dev, "val", padded(c.Val)); err != nil {
		d.free()
		return nil, err
	}
	if d.x, err = gpuext.Upload(dev, "x", in.X); err != nil {
		d.free()
		return nil, err
	}
	if d.y, err = gpuext.Alloc[float32](dev, "y", c.Rows); err != nil {
		d.free()
		return nil, err
	}
	return d, nil
}

// padded returns s with at least one element, so that a matrix without
// nonzeros still has a buffer to pass.
func padded[T int32 | float32](s []T) []T {
	if len(s) == 0 {
		return make([]T, 1)
	}
	return s
}

func (d *devMatrix) free() error {
	var err error
	for _, b := range append(d.binBufs, d.rowPtr, d.colIdx, d.tileRow, d.tileNz, d.carryRow) {
		if b != nil {
			err = errors.Join(err, b.Free())
		}
	}
	for _, b := range []*gpuext.Buffer[float32]{d.val, d.x, d.y, d.carryVal} {
		if b != nil {
			err = errors.Join(err, b.Free())
		}
	}
	return err
}

// prepare makes method's one-time preparation, once per matrix, and times
// it on the host's wall clock (building and uploading); nil for methods
// that need none.
func (d *devMatrix) prepare(dev *gpuext.Device, method string) (*Prep, error) {
	switch method {
	case MethodBinned:
		if d.bins != nil {
			return nil, nil
		}
		start := time.Now()
		bins := Bins(d.csrRowPtr)
		var bytes int64
		for _, b := range bins {
			buf, err := gpuext.Upload(dev, "bin", b.Rows)
			if err != nil {
				return nil, err
			}
			d.binBufs = append(d.binBufs, buf)
			bytes += int64(len(b.Rows)) * 4
		}
		if err := dev.Synchronize(); err != nil {
			return nil, err
		}
		d.bins = bins
		return &Prep{Method: method, HostMs: ms(time.Since(start)), Bytes: bytes,
			Note: "row lengths counted and rows listed per bin on the host, lists uploaded"}, nil
	case MethodMerge:
		if d.tileRow != nil {
			return nil, nil
		}
		start := time.Now()
		tr, tz := MergePartitions(d.csrRowPtr)
		d.mergeBlk = len(tr) - 1
		var err error
		if d.tileRow, err = gpuext.Upload(dev, "tileRow", tr); err != nil {
			return nil, err
		}
		if d.tileNz, err = gpuext.Upload(dev, "tileNz", tz); err != nil {
			return nil, err
		}
		n := d.mergeBlk
		if d.carryRow, err = gpuext.Alloc[int32](dev, "carryRow", n); err != nil {
			return nil, err
		}
		if d.carryVal, err = gpuext.Alloc[float32](dev, "carryVal", n); err != nil {
			return nil, err
		}
		if err := dev.Synchronize(); err != nil {
			return nil, err
		}
		return &Prep{Method: method, HostMs: ms(time.Since(start)), Bytes: int64(len(tr)+len(tz))*4 + int64(n)*8,
			Note: "one merge-path search per block on the host, uploaded; carry arrays allocated"}, nil
	}
	return nil, nil
}

func ms(t time.Duration) float64 { return float64(t.Nanoseconds()) / 1e6 }

func blocksFor(threads int) int { return max(1, (threads+ThreadsPerBlock-1)/ThreadsPerBlock) }

// launch runs one SpMV by method: the launches and the CUDA kernel names,
// in order. The preparation must have been made (prepare).
func (d *devMatrix) launch(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, method string) ([]*gpuext.Launch, []string, error) {
	block := sim.Dim1(ThreadsPerBlock)
	var ls []*gpuext.Launch
	var names []string
	add := func(name string, blocks int, args ...any) error {
		l, err := dev.LaunchContext(ctx, mod, name, sim.Dim1(blocks), block, 0, args...)
		if err != nil {
			return err
		}
		ls, names = append(ls, l), append(names, name)
		return nil
	}
	if w, v4, ok := parseVector(method); ok {
		err := add(VectorKernel(w, v4), blocksFor(d.rows*w), d.rowPtr, d.colIdx, d.val, d.x, d.y, uint64(d.rows))
		return ls, names, err
	}
	switch method {
	case MethodBinned:
		if d.bins == nil {
			return nil, nil, errors.New("binned: not prepared")
		}
		for i, b := range d.bins {
			var err error
			if b.Width == 0 {
				err = add(KernelBinBlock, b.Count, d.rowPtr, d.colIdx, d.val, d.x, d.y, d.binBufs[i], int32(b.Count))
			} else {
				err = add(BinKernel(b.Width), blocksFor(b.Count*b.Width), d.rowPtr, d.colIdx, d.val, d.x, d.y, d.binBufs[i], int32(b.Count))
			}
			if err != nil {
				return ls, names, err
			}
		}
		return ls, names, nil
	case MethodMerge:
		if d.tileRow == nil {
			return nil, nil, errors.New("merge path: not prepared")
		}
		if err := add(KernelMergePath, d.mergeBlk, d.rowPtr, d.colIdx, d.val, d.x, d.y, d.tileRow, d.tileNz,
			d.carryRow, d.carryVal, int32(d.rows), int32(d.nnz)); err != nil {
			return ls, names, err
		}
		n := d.mergeBlk
		err := add(KernelMergeFixup, blocksFor(n), d.carryRow, d.carryVal, d.y, int32(n), int32(d.rows))
		return ls, names, err
	}
	return nil, nil, errors.New("libs: unknown method " + method)
}

// simCopyBytes sizes the simulator's copy reference like the largest seed
// matrix: a copy that reads and writes as many bytes as that SpMV's minimum,
// so the two sit in the same regime of the model (a bigger copy spills the
// modeled L2 and reads slower per byte than the SpMV it is set beside).
// 1 MiB at least, 4 MiB without seed matrices.
func simCopyBytes(seedRows []int) int64 {
	b := int64(0)
	for _, r := range seedRows {
		b = max(b, MinBytes(r, r, r*16)/2)
	}
	if b == 0 {
		return 4 << 20
	}
	return max(b, 1<<20)
}

// runCopy measures the bandwidth reference: on a GPU the driver's
// device-to-device copy and the copyFloat4 kernel, on the simulator the
// kernel alone (its copies have no modeled time).
func runCopy(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, o Options) ([]CopyRun, error) {
	bytes := o.CopyBytes
	if bytes < 0 {
		return nil, nil
	}
	if bytes == 0 {
		bytes = 256 << 20
		if dev.Kind() != "gpu" {
			bytes = simCopyBytes(o.SeedRows)
		}
	}
	n := int(bytes / 16 * 4) // whole float4s
	src, err := gpuext.Alloc[float32](dev, "copySrc", n)
	if err != nil {
		return nil, err
	}
	defer src.Free()
	dst, err := gpuext.Alloc[float32](dev, "copyDst", n)
	if err != nil {
		return nil, err
	}
	defer dst.Free()
	if err := src.Fill(1); err != nil {
		return nil, err
	}
	b := int64(n) * 4
	grid := copyBlocksPerSM * dev.SMs()
	kernel := func() error {
		_, err := dev.LaunchContext(ctx, mod, KernelCopy, sim.Dim1(grid), sim.Dim1(ThreadsPerBlock), 0, src, dst, uint64(n/4))
		return err
	}
	var out []CopyRun
	if dev.Kind() == "gpu" {
		t, err := dev.Time(func() error { return dst.CopyFromBuffer(src) }, o.Warmups, o.Runs)
		if err != nil {
			return nil, err
		}
		out = append(out, CopyRun{What: "cuMemcpyDtoD", Bytes: b, TimeMs: t.MeanMs, GBs: 2 * float64(b) / (t.MeanMs * 1e-3) / 1e9, TimeKind: t.Kind})
	}
	t, err := dev.Time(kernel, o.Warmups, o.Runs)
	if err != nil {
		return nil, err
	}
	// The copy is checked like every kernel: all of dst must be src's ones.
	got := make([]float32, n)
	if err := dst.Download(got); err != nil {
		return nil, err
	}
	for i, v := range got {
		if v != 1 {
			return nil, fmt.Errorf("libs: copy reference wrong at element %d: %v, want 1", i, v)
		}
	}
	return append(out, CopyRun{What: "copyFloat4 kernel", Bytes: b, TimeMs: t.MeanMs, GBs: 2 * float64(b) / (t.MeanMs * 1e-3) / 1e9, TimeKind: t.Kind}), nil
}

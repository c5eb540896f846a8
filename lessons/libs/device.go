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
// far (bins, merge-path partitions and carries, split's and the tiles'), kept for every launch.
type devMatrix struct {
	rows, cols, nnz int
	csrRowPtr       []int32
	rowPtr, colIdx  *gpuext.Buffer[int32]
	val, x, y       *gpuext.Buffer[float32]

	bins     *binPrep
	tileRow  *gpuext.Buffer[int32]
	tileNz   *gpuext.Buffer[int32]
	carryRow *gpuext.Buffer[int32]
	carryVal *gpuext.Buffer[float32]
	mergeBlk int

	split map[int]*splitPrep // by width
	tile  *tilePrep
}

// binPrep is the binned method's preparation, made on the device by
// spmvBinCount, spmvBinScan and spmvBinScatter: every row listed once in
// rows, bin after bin, ascending inside a bin (Bins' lists, concatenated),
// and the non-empty bins' places in it.
type binPrep struct {
	bins                []devBin
	rows, counts, start *gpuext.Buffer[int32]
}

// devBin is one non-empty bin: Width lanes a row (0: a block), its rows at
// rows[First : First+Count].
type devBin struct{ Width, First, Count int }

// recorded is the bins as a result records them: width and rows, no lists.
func (p *binPrep) recorded() []Bin {
	out := make([]Bin, len(p.bins))
	for i, b := range p.bins {
		out[i] = Bin{Width: b.Width, Count: b.Count}
	}
	return out
}

func (p *binPrep) free() error {
	var err error
	for _, b := range []*gpuext.Buffer[int32]{p.rows, p.counts, p.start} {
		if b != nil {
			err = errors.Join(err, b.Free())
		}
	}
	return err
}

// tilePrep is the nonzero tiles' preparation (spmvTilePrep): each tile's
// first row, the tiles' done-counts and the pieces' slots (2 a tile, each
// a 64-bit word: a piece's sum and its written flag, so the kernel needs
// no fence; held here as 4 float32 a tile).
type tilePrep struct {
	nTiles   int
	tileRow  *gpuext.Buffer[int32]
	tileDone *gpuext.Buffer[int32]
	partial  *gpuext.Buffer[float32]
}

func (p *tilePrep) free() error {
	var err error
	for _, b := range []*gpuext.Buffer[int32]{p.tileRow, p.tileDone} {
		if b != nil {
			err = errors.Join(err, b.Free())
		}
	}
	if p.partial != nil {
		err = errors.Join(err, p.partial.Free())
	}
	return err
}

// TileCount is how many tiles spmvTile takes for nnz nonzeros:
// nnz / TileNZ + 1, so that a row starting at nnz (an empty last row)
// still lies in a tile.
func TileCount(nnz int) int { return nnz/TileNZ + 1 }

// splitPrep is split<W>'s preparation on one matrix, made on the device by
// spmvSplitPrep: the long rows (over SplitLongMin(W) nonzeros) and their
// chunks of SplitChunk, the chunks' partial sums and the rows' done-counts.
type splitPrep struct {
	longMin, nLong, nChunks int
	counts                  *gpuext.Buffer[int32] // nLong, nChunks
	longRow, longFirst      *gpuext.Buffer[int32]
	longChunks, longDone    *gpuext.Buffer[int32]
	chunkLong               *gpuext.Buffer[int32]
	partial                 *gpuext.Buffer[float32]
}

func (p *splitPrep) free() error {
	var err error
	for _, b := range []*gpuext.Buffer[int32]{p.counts, p.longRow, p.longFirst, p.longChunks, p.longDone, p.chunkLong} {
		if b != nil {
			err = errors.Join(err, b.Free())
		}
	}
	if p.partial != nil {
		err = errors.Join(err, p.partial.Free())
	}
	return err
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
	for _, b := range []*gpuext.Buffer[int32]{d.rowPtr, d.colIdx, d.tileRow, d.tileNz, d.carryRow} {
		if b != nil {
			err = errors.Join(err, b.Free())
		}
	}
	for _, b := range []*gpuext.Buffer[float32]{d.val, d.x, d.y, d.carryVal} {
		if b != nil {
			err = errors.Join(err, b.Free())
		}
	}
	for _, p := range d.split {
		err = errors.Join(err, p.free())
	}
	if d.tile != nil {
		err = errors.Join(err, d.tile.free())
	}
	if d.bins != nil {
		err = errors.Join(err, d.bins.free())
	}
	return err
}

// prepare makes method's one-time preparation, once per matrix: its
// device kernels timed like an SpMV (Prep.DeviceMs) and the whole on the
// host's wall clock (allocating, the timed runs, reading sizes back); nil
// for methods that need none.
func (d *devMatrix) prepare(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, o Options, method string) (*Prep, error) {
	switch method {
	case MethodBinned:
		if d.bins != nil {
			return nil, nil
		}
		return d.prepareBins(ctx, dev, mod, o)
	case MethodMerge:
		if d.tileRow != nil {
			return nil, nil
		}
		start := time.Now()
		total := d.rows + d.nnz
		d.mergeBlk = max(1, (total+MergeTile-1)/MergeTile)
		n := d.mergeBlk
		var err error
		if d.tileRow, err = gpuext.Alloc[int32](dev, "tileRow", n+1); err != nil {
			return nil, err
		}
		if d.tileNz, err = gpuext.Alloc[int32](dev, "tileNz", n+1); err != nil {
			return nil, err
		}
		if d.carryRow, err = gpuext.Alloc[int32](dev, "carryRow", n); err != nil {
			return nil, err
		}
		if d.carryVal, err = gpuext.Alloc[float32](dev, "carryVal", n); err != nil {
			return nil, err
		}
		part := func() error {
			_, err := dev.Launch(ctx, mod.MustKernel(KernelMergePart), gpuext.Config{Grid: blocksFor(n + 1), Block: ThreadsPerBlock}, d.rowPtr, int32(d.rows), int32(d.nnz), int32(n), d.tileRow, d.tileNz)
			return err
		}
		t, err := dev.Time(part, o.Warmups, o.Runs)
		if err != nil {
			return nil, fmt.Errorf("merge-path partitions: %w", err)
		}
		if err := dev.Synchronize(); err != nil {
			return nil, err
		}
		return &Prep{Method: method, HostMs: ms(time.Since(start)), DeviceMs: t.MeanMs, TimeKind: t.Kind,
			Bytes: int64(2*(n+1))*4 + int64(n)*8,
			Note:  "spmvMergePartition: one merge-path search a tile on the device; carry arrays allocated"}, nil
	}
	if method == MethodTile || method == MethodTileV4 {
		if d.tile != nil {
			return nil, nil
		}
		return d.prepareTile(ctx, dev, mod, o, method)
	}
	if w, _, ok := parseSplit(method); ok {
		if d.split[w] != nil {
			return nil, nil
		}
		return d.prepareSplit(ctx, dev, mod, o, method, w)
	}
	return nil, nil
}

// prepareBins makes the binned method's row lists on the device, a stable
// counting sort in three launches (spmvBinCount: each block's rows per
// bin; spmvBinScan: one scan of those counts; spmvBinScatter: each row to
// its place), timed together like an SpMV (DeviceMs), then reads the
// bins' 8 boundaries back once to size the launches.
func (d *devMatrix) prepareBins(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, o Options) (*Prep, error) {
	start := time.Now()
	nBlocks := max(1, (d.rows+BinRows-1)/BinRows)
	nCounts := len(binOrder) * nBlocks
	p := &binPrep{}
	fail := func(err error) (*Prep, error) { p.free(); return nil, err }
	var err error
	if p.rows, err = gpuext.Alloc[int32](dev, "binRows", max(1, d.rows)); err != nil {
		return fail(err)
	}
	if p.counts, err = gpuext.Alloc[int32](dev, "binBlockCounts", nCounts); err != nil {
		return fail(err)
	}
	if p.start, err = gpuext.Alloc[int32](dev, "binStart", len(binOrder)+1); err != nil {
		return fail(err)
	}
	cfg := gpuext.Config{Grid: nBlocks, Block: ThreadsPerBlock}
	run := func() error {
		if _, err := dev.Launch(ctx, mod.MustKernel(KernelBinCount), cfg, d.rowPtr, int32(d.rows), int32(nBlocks), p.counts); err != nil {
			return err
		}
		if _, err := dev.Launch(ctx, mod.MustKernel(KernelBinScan), gpuext.Config{Grid: 1, Block: ThreadsPerBlock}, p.counts, int32(nCounts), int32(nBlocks), p.start); err != nil {
			return err
		}
		_, err := dev.Launch(ctx, mod.MustKernel(KernelBinScatter), cfg, d.rowPtr, int32(d.rows), int32(nBlocks), p.counts, p.rows)
		return err
	}
	t, err := dev.Time(run, o.Warmups, o.Runs)
	if err != nil {
		return fail(fmt.Errorf("binned preparation: %w", err))
	}
	bounds := make([]int32, len(binOrder)+1)
	if err := p.start.Download(bounds); err != nil {
		return fail(err)
	}
	if bounds[0] != 0 || int(bounds[len(binOrder)]) != d.rows {
		return fail(fmt.Errorf("binned preparation: bins span %d..%d, want 0..%d", bounds[0], bounds[len(binOrder)], d.rows))
	}
	for i, w := range binOrder {
		n := int(bounds[i+1] - bounds[i])
		if n < 0 {
			return fail(fmt.Errorf("binned preparation: bin %d has %d rows", i, n))
		}
		if n > 0 {
			p.bins = append(p.bins, devBin{Width: w, First: int(bounds[i]), Count: n})
		}
	}
	d.bins = p
	return &Prep{Method: MethodBinned, HostMs: ms(time.Since(start)), DeviceMs: t.MeanMs, TimeKind: t.Kind,
		Bytes: int64(max(1, d.rows)+nCounts+len(binOrder)+1) * 4,
		Note:  fmt.Sprintf("spmvBinCount, spmvBinScan, spmvBinScatter on the device: %d rows into %d bins, a counting sort over %d blocks of %d rows", d.rows, len(p.bins), nBlocks, BinRows)}, nil
}

// prepareSplit makes split<w>'s long-row list on the device (one
// spmvSplitPrep launch after zeroing two counters), timed like an SpMV
// (DeviceMs), then reads the two counts back once to size the launch. The
// lists are allocated at the host's bound, from nnz alone: at most
// nnz / (longMin+1) long rows, nnz / SplitChunk + that many chunks.
func (d *devMatrix) prepareSplit(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, o Options, method string, w int) (*Prep, error) {
	start := time.Now()
	p := &splitPrep{longMin: SplitLongMin(w)}
	maxLong := max(1, d.nnz/(p.longMin+1))
	maxChunks := max(1, d.nnz/SplitChunk+maxLong)
	alloc := func(name string, n int) (*gpuext.Buffer[int32], error) { return gpuext.Alloc[int32](dev, name, n) }
	var err error
	fail := func(err error) (*Prep, error) { p.free(); return nil, err }
	if p.counts, err = alloc("splitCounts", 2); err != nil {
		return fail(err)
	}
	for _, b := range []struct {
		dst **gpuext.Buffer[int32]
		n   int
		nm  string
	}{{&p.longRow, maxLong, "longRow"}, {&p.longFirst, maxLong, "longFirst"}, {&p.longChunks, maxLong, "longChunks"},
		{&p.longDone, maxLong, "longDone"}, {&p.chunkLong, maxChunks, "chunkLong"}} {
		if *b.dst, err = alloc(b.nm, b.n); err != nil {
			return fail(err)
		}
	}
	if p.partial, err = gpuext.Alloc[float32](dev, "partial", maxChunks); err != nil {
		return fail(err)
	}
	run := func() error {
		if err := p.counts.Fill(0); err != nil {
			return err
		}
		_, err := dev.Launch(ctx, mod.MustKernel(KernelSplitPrep), gpuext.Config{Grid: blocksFor(d.rows), Block: ThreadsPerBlock}, d.rowPtr, int32(d.rows), int32(p.longMin), p.counts, p.longRow, p.longFirst, p.longChunks, p.chunkLong, p.longDone, int32(maxLong), int32(maxChunks))
		return err
	}
	t, err := dev.Time(run, o.Warmups, o.Runs)
	if err != nil {
		return fail(fmt.Errorf("%s preparation: %w", method, err))
	}
	counts := make([]int32, 2)
	if err := p.counts.Download(counts); err != nil {
		return fail(err)
	}
	p.nLong, p.nChunks = int(counts[0]), int(counts[1])
	if p.nLong > maxLong || p.nChunks > maxChunks || p.nLong < 0 || p.nChunks < 0 {
		return fail(fmt.Errorf("%s preparation: %d long rows and %d chunks, over the bound of %d and %d", method, p.nLong, p.nChunks, maxLong, maxChunks))
	}
	if d.split == nil {
		d.split = map[int]*splitPrep{}
	}
	d.split[w] = p
	return &Prep{Method: method, HostMs: ms(time.Since(start)), DeviceMs: t.MeanMs, TimeKind: t.Kind,
		Bytes: int64(8+5*4*maxLong) + int64(maxChunks)*8,
		Note:  fmt.Sprintf("spmvSplitPrep on the device: %d rows over %d nonzeros, %d chunks of %d", p.nLong, p.longMin, p.nChunks, SplitChunk)}, nil
}

// prepareTile makes the nonzero tiles' preparation on the device (one
// spmvTilePrep launch: a search a tile), timed like an SpMV (DeviceMs).
// Both tile methods share it.
func (d *devMatrix) prepareTile(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, o Options, method string) (*Prep, error) {
	start := time.Now()
	p := &tilePrep{nTiles: TileCount(d.nnz)}
	fail := func(err error) (*Prep, error) { p.free(); return nil, err }
	var err error
	if p.tileRow, err = gpuext.Alloc[int32](dev, "tileRow", p.nTiles+1); err != nil {
		return fail(err)
	}
	if p.tileDone, err = gpuext.Alloc[int32](dev, "tileDone", p.nTiles); err != nil {
		return fail(err)
	}
	if p.partial, err = gpuext.Alloc[float32](dev, "tileSlot", 4*p.nTiles); err != nil {
		return fail(err)
	}
	run := func() error {
		_, err := dev.Launch(ctx, mod.MustKernel(KernelTilePrep), gpuext.Config{Grid: blocksFor(p.nTiles + 1), Block: ThreadsPerBlock},
			d.rowPtr, int32(d.rows), int32(p.nTiles), p.tileRow, p.tileDone, p.partial)
		return err
	}
	t, err := dev.Time(run, o.Warmups, o.Runs)
	if err != nil {
		return fail(fmt.Errorf("%s preparation: %w", method, err))
	}
	if err := dev.Synchronize(); err != nil {
		return fail(err)
	}
	d.tile = p
	return &Prep{Method: method, HostMs: ms(time.Since(start)), DeviceMs: t.MeanMs, TimeKind: t.Kind,
		Bytes: int64(p.nTiles+1)*4 + int64(p.nTiles)*20,
		Note:  fmt.Sprintf("spmvTilePrep on the device: the first row of each of %d tiles of %d nonzeros, done-counts and piece slots zeroed", p.nTiles, TileNZ)}, nil
}

func ms(t time.Duration) float64 { return float64(t.Nanoseconds()) / 1e6 }

func blocksFor(threads int) int { return max(1, (threads+ThreadsPerBlock-1)/ThreadsPerBlock) }

// launchStep is one kernel launch of an SpMV method, resolved: the
// kernel's handle and name, its grid and block, and its arguments.
type launchStep struct {
	k    *gpuext.Kernel
	name string
	cfg  gpuext.Config
	args []any
}

// plan resolves one SpMV by method (prepared) into its launches, in order,
// once: the method's name parsed, its kernels' names formatted and looked
// up, its grids and arguments set. A timed loop then only launches
// (runPlan): resolving a method in the loop put Go's string formatting
// between the GPU's launches, 0.8–2.3 µs of the 8–10 µs a call the lesson
// timed at 2^14 rows on the H100 (BenchmarkLaunchPath,
// evidence/libs-launchpath-h100-2026-12-07), which neither cuSPARSE's peer
// nor the model's launch floor pays.
func (d *devMatrix) plan(mod *gpuext.Module, method string) ([]launchStep, error) {
	block := sim.Dim1(ThreadsPerBlock)
	var steps []launchStep
	add := func(name string, blocks int, args ...any) error {
		k, err := mod.Kernel(name)
		if err != nil {
			return err
		}
		steps = append(steps, launchStep{k: k, name: name, cfg: gpuext.Config{Grid: blocks, Block: block}, args: args})
		return nil
	}
	if method == MethodTile || method == MethodTileV4 {
		p := d.tile
		if p == nil {
			return nil, errors.New(method + ": not prepared")
		}
		name := KernelTile
		if method == MethodTileV4 {
			name = KernelTileV4
		}
		tpb := TileThreads / WarpSize
		block = sim.Dim1(TileThreads)
		err := add(name, (p.nTiles+tpb-1)/tpb, d.rowPtr, d.colIdx, d.val, d.x, d.y, int32(d.nnz), int32(p.nTiles), p.tileRow, p.partial, p.tileDone)
		return steps, err
	}
	if w, v4, ok := parseSplit(method); ok {
		p := d.split[w]
		if p == nil {
			return nil, errors.New(method + ": not prepared")
		}
		vec := blocksFor(d.rows * w)
		chunkBlocks := (p.nChunks + ThreadsPerBlock/WarpSize - 1) / (ThreadsPerBlock / WarpSize)
		err := add(SplitKernel(w, v4), vec+chunkBlocks, d.rowPtr, d.colIdx, d.val, d.x, d.y, int32(d.rows), int32(vec),
			p.chunkLong, p.longRow, p.longFirst, p.longChunks, p.partial, p.longDone, int32(p.nChunks))
		return steps, err
	}
	if w, v4, ok := parseVector(method); ok {
		err := add(VectorKernel(w, v4), blocksFor(d.rows*w), d.rowPtr, d.colIdx, d.val, d.x, d.y, uint64(d.rows))
		return steps, err
	}
	switch method {
	case MethodBinned:
		if d.bins == nil {
			return nil, errors.New("binned: not prepared")
		}
		for _, b := range d.bins.bins {
			var err error
			if b.Width == 0 {
				err = add(KernelBinBlock, b.Count, d.rowPtr, d.colIdx, d.val, d.x, d.y, d.bins.rows, int32(b.First), int32(b.Count))
			} else {
				err = add(BinKernel(b.Width), blocksFor(b.Count*b.Width), d.rowPtr, d.colIdx, d.val, d.x, d.y, d.bins.rows, int32(b.First), int32(b.Count))
			}
			if err != nil {
				return nil, err
			}
		}
		return steps, nil
	case MethodMerge:
		if d.tileRow == nil {
			return nil, errors.New("merge path: not prepared")
		}
		if err := add(KernelMergePath, d.mergeBlk, d.rowPtr, d.colIdx, d.val, d.x, d.y, d.tileRow, d.tileNz,
			d.carryRow, d.carryVal, int32(d.rows), int32(d.nnz)); err != nil {
			return nil, err
		}
		n := d.mergeBlk
		err := add(KernelMergeFixup, blocksFor(n), d.carryRow, d.carryVal, d.y, int32(n), int32(d.rows))
		return steps, err
	}
	return nil, errors.New("libs: unknown method " + method)
}

// runPlan launches steps in order: the launches and their kernels' names.
// A launch that fails stops it, with the launches before it.
func runPlan(ctx context.Context, dev *gpuext.Device, steps []launchStep) ([]*gpuext.Launch, []string, error) {
	ls := make([]*gpuext.Launch, 0, len(steps))
	names := make([]string, 0, len(steps))
	for _, s := range steps {
		l, err := dev.Launch(ctx, s.k, s.cfg, s.args...)
		if err != nil {
			return ls, names, err
		}
		ls, names = append(ls, l), append(names, s.name)
	}
	return ls, names, nil
}

// launch runs one SpMV by method: the launches and the CUDA kernel names,
// in order. The preparation must have been made (prepare).
func (d *devMatrix) launch(ctx context.Context, dev *gpuext.Device, mod *gpuext.Module, method string) ([]*gpuext.Launch, []string, error) {
	steps, err := d.plan(mod, method)
	if err != nil {
		return nil, nil, err
	}
	return runPlan(ctx, dev, steps)
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
		if dev.Kind() != gpuext.GPU {
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
		_, err := dev.Launch(ctx, mod.MustKernel(KernelCopy), gpuext.Config{Grid: grid, Block: ThreadsPerBlock}, src, dst, uint64(n/4))
		return err
	}
	var out []CopyRun
	if dev.Kind() == gpuext.GPU {
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

package tiling

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// Options choose the sizes the lesson runs at. The zero value runs the
// defaults.
type Options struct {
	N      int `json:"n"`      // matrix size of the main runs; default 256
	Tile   int `json:"tile"`   // tile width of the main runs: 1, 2, 4, 8, 16 or 32; default 16
	Coarse int `json:"coarse"` // coarsening factor: 1, 2, 4 or 8; default 4; TILE*COARSE must divide N

	// Tiles is the TILE sweep of the load counts; default 1, 2, 4, 8, 16, 32.
	Tiles []int `json:"tiles"`
	// SweepN is the matrix size of the sweep; default min(N, 128), rounded
	// down to a multiple of every swept TILE. The formulas are exact at any
	// size; a small one keeps TILE = 1 (N^2 one-thread blocks) quick.
	SweepN int `json:"sweep_n"`
	// TransposeTile is the transposes' block width; default 32 (the bank
	// conflict case); it must divide N.
	TransposeTile int `json:"transpose_tile"`
	// Density is the share of nonzeros of the SpMV matrix (N x N); default 1/8.
	Density float64 `json:"density"`
	// NoSweep and NoDemos skip the sweep and the bug demonstrations.
	NoSweep bool `json:"no_sweep"`
	NoDemos bool `json:"no_demos"`
	// Warmups and Runs are the GPU timing repetitions; defaults 3 and 10.
	Warmups int `json:"warmups"`
	Runs    int `json:"runs"`
	// Seed makes the inputs reproducible; 0 means 1.
	Seed uint64 `json:"seed"`
	// Progress, if set, is told each stage as it starts.
	Progress func(stage string) `json:"-"`
}

// MaxN is the largest matrix size Options takes, N and SweepN alike: int32
// indices hold it, and the simulator takes hours at it already.
const MaxN = 8192

// Tiles returns the tile widths the kernels support: TILE x TILE threads in
// a block (at most 1024) and a tile row per warp at most.
func Tiles() []int { return []int{1, 2, 4, 8, 16, 32} }

// withDefaults fills zero fields and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.N == 0 {
		o.N = 256
	}
	if o.Tile == 0 {
		o.Tile = 16
	}
	if o.Coarse == 0 {
		o.Coarse = 4
	}
	if len(o.Tiles) == 0 {
		o.Tiles = Tiles()
	}
	if o.TransposeTile == 0 {
		o.TransposeTile = 32
	}
	if o.Density == 0 {
		o.Density = 1.0 / 8
	}
	if o.Warmups == 0 {
		o.Warmups = 3
	}
	if o.Runs == 0 {
		o.Runs = 10
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.N <= 0 {
		return o, fmt.Errorf("tiling: N = %d; the matrix size must be positive", o.N)
	}
	if o.N > MaxN {
		return o, fmt.Errorf("tiling: N = %d is more than this lesson's limit of %d (int32 indices, and the simulator would take hours)", o.N, MaxN)
	}
	if o.SweepN < 0 || o.SweepN > MaxN {
		return o, fmt.Errorf("tiling: sweep N = %d: want 0 (min(N, 128)) or up to this lesson's limit of %d", o.SweepN, MaxN)
	}
	if !slices.Contains(Tiles(), o.Tile) {
		return o, fmt.Errorf("tiling: TILE = %d; it must be one of %v (a TILE x TILE block, at most 32 x 32 = 1024 threads)", o.Tile, Tiles())
	}
	for _, t := range o.Tiles {
		if !slices.Contains(Tiles(), t) {
			return o, fmt.Errorf("tiling: sweep TILE = %d; it must be one of %v", t, Tiles())
		}
	}
	if !slices.Contains(Coarsenings(), o.Coarse) {
		return o, fmt.Errorf("tiling: COARSE = %d; tiling.cu instantiates %v", o.Coarse, Coarsenings())
	}
	if o.N%(o.Tile*o.Coarse) != 0 {
		return o, fmt.Errorf("tiling: N = %d is not a multiple of TILE*COARSE = %d*%d = %d; the coarsened kernel has no bounds checks",
			o.N, o.Tile, o.Coarse, o.Tile*o.Coarse)
	}
	if !slices.Contains(Tiles(), o.TransposeTile) || o.N%o.TransposeTile != 0 {
		return o, fmt.Errorf("tiling: transpose tile %d must be one of %v and divide N = %d (the shared-memory transposes have no bounds checks)",
			o.TransposeTile, Tiles(), o.N)
	}
	if o.Density < 0 || o.Density > 1 || math.IsNaN(o.Density) {
		return o, fmt.Errorf("tiling: density %v is not in [0, 1]", o.Density)
	}
	if o.Warmups < 0 || o.Runs < 1 {
		return o, fmt.Errorf("tiling: warmups %d and runs %d: need warmups >= 0 and runs >= 1", o.Warmups, o.Runs)
	}
	lcm := 1
	for _, t := range o.Tiles {
		lcm = max(lcm, t) // the tiles are powers of two
	}
	lcm = max(lcm, o.Tile*o.Coarse)
	if o.SweepN == 0 {
		o.SweepN = max(lcm, min(o.N, 128)/lcm*lcm)
	}
	if o.SweepN <= 0 || o.SweepN%lcm != 0 {
		return o, fmt.Errorf("tiling: sweep N = %d must be a positive multiple of %d (every swept TILE and TILE*COARSE)", o.SweepN, lcm)
	}
	return o, nil
}

// Run runs the lesson on dev: every matmul variant, transpose, dense->CSR
// conversion and SpMV kernel at N, each output checked against a CPU
// reference; on the simulator also the load sweep, the roofline data and the
// race and out-of-bounds demonstrations (those always run on a simulator,
// since on a GPU a race gives no error and an out-of-bounds read may give
// none either). ctx is checked between launches, inside the simulator's
// launches, and before every row of the CPU reference of the product; once
// it is done Run returns an error wrapping ctx's.
func Run(ctx context.Context, dev *gpuext.Device, opts Options) (*Result, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, errors.New("tiling: Run: nil device")
	}
	major, minor := dev.ComputeCapability()
	res := &Result{Lesson: "tiling", Backend: dev.Kind(), Options: o,
		Device: Device{Name: dev.Name(), Kind: dev.Kind(), Model: dev.Model().Key, SMs: dev.SMs(), CC: fmt.Sprintf("%d.%d", major, minor)}}
	r := &runner{ctx: ctx, dev: dev, m: Module(), o: o, res: res}
	steps := []struct {
		name string
		f    func() error
	}{
		{"matmul", r.matmul},
		{"transpose", r.transposes},
		{"sparse", r.sparse},
	}
	if !o.NoSweep && dev.Kind() == gpuext.Sim {
		steps = append(steps, struct {
			name string
			f    func() error
		}{"load sweep", r.sweep})
	}
	if !o.NoDemos {
		steps = append(steps, struct {
			name string
			f    func() error
		}{"bug demonstrations", r.demos})
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.Progress != nil {
			o.Progress(s.name)
		}
		if err := s.f(); err != nil {
			return nil, err
		}
	}
	res.Roofline = roofline(res.Runs)
	return res, nil
}

// runner holds one Run's state.
type runner struct {
	ctx context.Context
	dev *gpuext.Device
	m   *gpuext.Module
	o   Options
	res *Result
}

// launch runs one kernel and records it. f is the launch; out, when not nil,
// downloads the output and reports (correct, bit-identical).
func (r *runner) launch(run KernelRun, f func() (*gpuext.Launch, error), check func() (bool, bool, error)) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	l, err := f()
	if err != nil {
		if cerr := r.ctx.Err(); cerr != nil {
			// The simulator stopped the launch (a "cancelled" fault):
			// the error is ctx's, so the caller sees an interrupt.
			return fmt.Errorf("tiling: %s: %w", run.Kernel, cerr)
		}
		return fmt.Errorf("tiling: %s: %w", run.Kernel, err)
	}
	if check != nil {
		ok, bits, err := check()
		if err != nil {
			return fmt.Errorf("tiling: %s: %w", run.Kernel, err)
		}
		run.Correct, run.BitIdentical = ok, bits
		if !ok {
			r.res.Failures = append(r.res.Failures, fmt.Sprintf("%s (N=%d, TILE=%d, COARSE=%d): output differs from the CPU reference", run.Kernel, run.N, run.Tile, run.Coarse))
		}
	}
	if l.Stats != nil {
		fillCounters(&run, l.Stats)
		run.TimeMs = l.Stats.Time.Seconds * 1e3
		run.TimeKind = gpuext.TimeKind(l.Stats.Time.Kind)
		run.Bound = l.Stats.Time.Bound
	} else {
		t, err := r.dev.Time(func() error { _, err := f(); return err }, r.o.Warmups, r.o.Runs)
		if err != nil {
			return fmt.Errorf("tiling: timing %s: %w", run.Kernel, err)
		}
		run.TimeMs, run.TimeKind = t.MeanMs, t.Kind
	}
	if run.TimeMs > 0 {
		run.GFlops = float64(run.Flops) / (run.TimeMs * 1e-3) / 1e9
		run.GBps = float64(run.Bytes) / (run.TimeMs * 1e-3) / 1e9
	}
	r.res.Runs = append(r.res.Runs, run)
	return nil
}

// fillCounters copies the simulator's counters into run.
func fillCounters(run *KernelRun, s *sim.Stats) {
	p := func(v int64) *int64 { return &v }
	run.Stats = s
	run.Requests = p(s.GlobalLoad.Requests + s.GlobalStore.Requests + s.GlobalAtomic.Requests)
	run.Sectors = p(s.GlobalLoad.Sectors + s.GlobalStore.Sectors + s.GlobalAtomic.Sectors)
	run.LoadRequests, run.LoadSectors = p(s.GlobalLoad.Requests), p(s.GlobalLoad.Sectors)
	run.StoreRequests, run.StoreSectors = p(s.GlobalStore.Requests), p(s.GlobalStore.Sectors)
	run.SharedWavefronts = p(s.SharedLoad.Wavefronts + s.SharedStore.Wavefronts)
	run.BankConflicts = p(s.SharedLoad.Conflicts + s.SharedStore.Conflicts)
	run.DRAMBytes = p(s.DRAMReadBytes + s.DRAMWriteBytes)
	run.WarpInstructions = p(s.WarpInstructions)
	var loads int64
	for _, site := range s.Sites {
		if site.Space == sim.SpaceGlobal && site.Op == sim.OpLoad {
			loads += site.ActiveLanes
		}
	}
	run.ElementLoads = p(loads)
}

// equal compares a kernel's output with its reference bit for bit.
func equal(got, want []float32) (bool, int) {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return false, i
		}
	}
	return len(got) == len(want), -1
}

// matmulGrid is the launch shape of a matmul kernel at tile and coarse.
func matmulGrid(n, tile, coarse int) (grid, block sim.Dim3, shared int) {
	return sim.Dim2((n+tile*coarse-1)/(tile*coarse), (n+tile-1)/tile), sim.Dim2(tile, tile), 2 * tile * tile * 4
}

// matmulBuffers uploads A and B and allocates C.
type matmulBuffers struct {
	A, B, C *gpuext.Buffer[float32]
	ref     []float32
}

func (r *runner) newMatmul(n int) (*matmulBuffers, error) {
	a, err := randomMatrixContext(r.ctx, n*n, r.o.Seed)
	if err != nil {
		return nil, fmt.Errorf("tiling: the inputs of the %dx%d product: %w", n, n, err)
	}
	b, err := randomMatrixContext(r.ctx, n*n, r.o.Seed+1)
	if err != nil {
		return nil, fmt.Errorf("tiling: the inputs of the %dx%d product: %w", n, n, err)
	}
	ref, err := refMatmul(r.ctx, a, b, n)
	if err != nil {
		return nil, fmt.Errorf("tiling: the CPU reference of the %dx%d product: %w", n, n, err)
	}
	mb := &matmulBuffers{ref: ref}
	if mb.A, err = gpuext.Upload(r.dev, "A", a); err != nil {
		return nil, err
	}
	if mb.B, err = gpuext.Upload(r.dev, "B", b); err != nil {
		return nil, err
	}
	if mb.C, err = gpuext.Alloc[float32](r.dev, "C", n*n); err != nil {
		return nil, err
	}
	return mb, nil
}

func (mb *matmulBuffers) free() {
	for _, b := range []*gpuext.Buffer[float32]{mb.A, mb.B, mb.C} {
		if b != nil {
			_ = b.Free()
		}
	}
}

// check downloads C and compares it with the reference; C is then cleared so
// a kernel that writes nothing cannot pass on its predecessor's output.
func (mb *matmulBuffers) check() (bool, bool, error) {
	got := make([]float32, len(mb.ref))
	if err := mb.C.Download(got); err != nil {
		return false, false, err
	}
	ok, _ := equal(got, mb.ref)
	if err := mb.C.Fill(float32(math.NaN())); err != nil {
		return false, false, err
	}
	return ok, ok, nil
}

// matmul runs the naive, tiled and coarsened products at N.
func (r *runner) matmul() error {
	n, tile, coarse := r.o.N, r.o.Tile, r.o.Coarse
	mb, err := r.newMatmul(n)
	if err != nil {
		return err
	}
	defer mb.free()
	if err := mb.C.Fill(float32(math.NaN())); err != nil {
		return err
	}
	flops := 2 * int64(n) * int64(n) * int64(n)
	bytes := 3 * int64(n) * int64(n) * 4
	type variant struct {
		name   string
		tile   int
		coarse int
	}
	// The slide version (matmulTiledNoBounds) makes the same accesses as
	// matmulTiled when TILE divides N; it runs in the sweep, at SweepN, so the
	// simulator does not spend a second full-size tiled product on it.
	vs := []variant{{KMatmulNaive, tile, 1}, {KMatmulTiled, tile, 1}, {CoarseKernel(coarse), tile, coarse}}
	for _, v := range vs {
		grid, block, shared := matmulGrid(n, v.tile, v.coarse)
		if v.name == KMatmulNaive {
			shared = 0
		}
		run := KernelRun{Kernel: v.name, N: n, Tile: v.tile, Coarse: v.coarse, Flops: flops, Bytes: bytes}
		if err := r.launch(run, func() (*gpuext.Launch, error) {
			return r.dev.Launch(r.ctx, r.m.MustKernel(v.name), gpuext.Config{Grid: grid, Block: block, Shared: shared}, mb.A, mb.B, mb.C, int32(n))
		}, mb.check); err != nil {
			return err
		}
	}
	return nil
}

// transposes runs the three transposes at N.
func (r *runner) transposes() error {
	n, T := r.o.N, r.o.TransposeTile
	a, err := randomMatrixContext(r.ctx, n*n, r.o.Seed+2)
	if err != nil {
		return fmt.Errorf("tiling: the input of the transposes: %w", err)
	}
	want := refTranspose(a, n)
	da, err := gpuext.Upload(r.dev, "a", a)
	if err != nil {
		return err
	}
	defer da.Free()
	dc, err := gpuext.Alloc[float32](r.dev, "c", n*n)
	if err != nil {
		return err
	}
	defer dc.Free()
	check := func() (bool, bool, error) {
		got := make([]float32, n*n)
		if err := dc.Download(got); err != nil {
			return false, false, err
		}
		ok, _ := equal(got, want)
		return ok, ok, dc.Fill(float32(math.NaN()))
	}
	grid, block := sim.Dim2(n/T, n/T), sim.Dim2(T, T)
	for _, v := range []struct {
		name   string
		shared int
	}{{KTransposeNaive, 0}, {KTransposeShared, T * T * 4}, {KTransposeSharedPadded, T * (T + 1) * 4}} {
		run := KernelRun{Kernel: v.name, N: n, Tile: T, Coarse: 1, Bytes: 2 * int64(n) * int64(n) * 4}
		if err := r.launch(run, func() (*gpuext.Launch, error) {
			return r.dev.Launch(r.ctx, r.m.MustKernel(v.name), gpuext.Config{Grid: grid, Block: block, Shared: v.shared}, da, dc, int32(n))
		}, check); err != nil {
			return err
		}
	}
	return nil
}

// sparse converts a random sparse N x N matrix to CSR on the device, checks
// the conversion, and runs the three SpMV kernels on it.
func (r *runner) sparse() error {
	n := r.o.N
	M, err := randomSparseContext(r.ctx, n, n, r.o.Density, r.o.Seed+3)
	if err != nil {
		return fmt.Errorf("tiling: the sparse matrix: %w", err)
	}
	want := refDenseToCSR(M, n, n)
	nnz := len(want.Val)
	x := randomMatrix(n, r.o.Seed+4)

	dM, err := gpuext.Upload(r.dev, "M", M)
	if err != nil {
		return err
	}
	defer dM.Free()
	counts, err := gpuext.Alloc[int32](r.dev, "counts", n)
	if err != nil {
		return err
	}
	defer counts.Free()
	grid1, block1 := sim.Dim1((n+255)/256), sim.Dim1(256)
	got := make([]int32, n)
	if err := r.launch(KernelRun{Kernel: KDenseRowCount, N: n, Coarse: 1, Bytes: int64(n)*int64(n)*4 + int64(n)*4},
		func() (*gpuext.Launch, error) {
			return r.dev.Launch(r.ctx, r.m.MustKernel(KDenseRowCount), gpuext.Config{Grid: grid1, Block: block1}, dM, int32(n), int32(n), counts)
		},
		func() (bool, bool, error) {
			if err := counts.Download(got); err != nil {
				return false, false, err
			}
			for i := range got {
				if got[i] != want.RowPtr[i+1]-want.RowPtr[i] {
					return false, false, nil
				}
			}
			return true, true, nil
		}); err != nil {
		return err
	}
	// The host scan: rowPtr[r+1] = rowPtr[r] + counts[r].
	rowPtr := make([]int32, n+1)
	for i, c := range got {
		rowPtr[i+1] = rowPtr[i] + c
	}
	total := int(rowPtr[n])
	dRowPtr, err := gpuext.Upload(r.dev, "rowPtr", rowPtr)
	if err != nil {
		return err
	}
	defer dRowPtr.Free()
	dCol, err := gpuext.Alloc[int32](r.dev, "colIndex", max(total, 1))
	if err != nil {
		return err
	}
	defer dCol.Free()
	dData, err := gpuext.Alloc[float32](r.dev, "data", max(total, 1))
	if err != nil {
		return err
	}
	defer dData.Free()
	if err := r.launch(KernelRun{Kernel: KDenseToCSR, N: n, Coarse: 1, Bytes: int64(n)*int64(n)*4 + int64(nnz)*8},
		func() (*gpuext.Launch, error) {
			return r.dev.Launch(r.ctx, r.m.MustKernel(KDenseToCSR), gpuext.Config{Grid: grid1, Block: block1}, dM, int32(n), int32(n), dRowPtr, dCol, dData)
		},
		func() (bool, bool, error) {
			cols := make([]int32, max(total, 1))
			vals := make([]float32, max(total, 1))
			if err := dCol.Download(cols); err != nil {
				return false, false, err
			}
			if err := dData.Download(vals); err != nil {
				return false, false, err
			}
			ok := total == nnz && slices.Equal(rowPtr, want.RowPtr) && slices.Equal(cols[:total], want.ColIdx) &&
				slices.Equal(vals[:total], want.Val)
			return ok, ok, nil
		}); err != nil {
		return err
	}

	dx, err := gpuext.Upload(r.dev, "x", x)
	if err != nil {
		return err
	}
	defer dx.Free()
	dy, err := gpuext.Alloc[float32](r.dev, "y", n)
	if err != nil {
		return err
	}
	defer dy.Free()
	refRow, refWarp := refSpMVRow(want, x), refSpMVWarp(want, x)
	for _, v := range []struct {
		name   string
		grid   sim.Dim3
		shared int
		ref    []float32
	}{
		{KSpMVThread, sim.Dim1((n + 255) / 256), 0, refRow},
		{KSpMVWarp, sim.Dim1((n + 7) / 8), 256 * 4, refWarp},
		{KSpMVWarpShfl, sim.Dim1((n + 7) / 8), 0, refWarp},
	} {
		if err := dy.Fill(0); err != nil {
			return err
		}
		run := KernelRun{Kernel: v.name, N: n, Coarse: 1, Flops: 2 * int64(nnz), Bytes: int64(nnz)*8 + int64(n+1)*4 + int64(n)*12}
		if err := r.launch(run, func() (*gpuext.Launch, error) {
			return r.dev.Launch(r.ctx, r.m.MustKernel(v.name), gpuext.Config{Grid: v.grid, Block: 256, Shared: v.shared}, dData, dCol, dRowPtr, dx, dy, int32(n))
		}, func() (bool, bool, error) {
			y := make([]float32, n)
			if err := dy.Download(y); err != nil {
				return false, false, err
			}
			bits, _ := equal(y, v.ref)
			return closeTo(y, refRow), bits, nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// closeTo accepts y within a few float32 roundings of want.
func closeTo(y, want []float32) bool {
	for i := range want {
		if math.Abs(float64(y[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
			return false
		}
	}
	return len(y) == len(want)
}

package cg

import (
	"context"
	"fmt"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// KernelDivide names the scalar kernel cgDivide in StageResult.Kernels
// (stages 3–5 compute alpha and beta on the device). HPCCG counts no flops
// for it.
const KernelDivide = "divide"

// Values of KernelStat.Where.
const (
	WhereCPU = "cpu"
	WhereGPU = "gpu"
	WhereSim = "sim"
)

// engine runs the lines of cgLoop where the stage puts them and accounts for
// every launch and copy. The first error stops all later work (the loop
// checks e.err once per iteration), so the loop reads like HPCCG's, without
// an error check on every line. ctx stops it the same way: every
// operation looks at it first, and every launch runs under it (the
// simulator stops a launch in flight), so the first error is then ctx's.
type engine struct {
	ctx       context.Context
	itersDone time.Time // GPU: when result() found every iteration done (before x's download)
	dev       *gpuext.Device
	mod       *gpuext.Module
	p         *Problem
	opt       RunOptions
	stage     int
	isSim     bool
	model     sim.Model
	err       error

	// Placement, from the stage (see RunStage).
	devVector  bool // waxpby and ddot on the device (stages 2–5)
	devScalars bool // alpha, beta on the device, r·r fetched (stages 3–5)
	swap       bool // keep r·r by swapping buffers (stages 4–6)
	fused      bool // fused kernels (stages 6, 7)
	pipelined  bool // two buffer sets, iteration k+1 queued before normr_k is read (stages 7, 8)
	matrixFree bool // the stencil SpMV, no matrix on the device (stages 8, 10)
	deviceLoop bool // the convergence check and the history on the device (stages 9, 10)
	rrReady    bool // dPartial holds the partials of r·r (stage 6, after updateXRDot)
	spmvKernel string

	host [nVecs][]float64
	hs   [nScalars]float64

	dRowPtr, dCols *gpuext.Buffer[int32]
	dVals          *gpuext.Buffer[float64]
	dv             [nVecs]*gpuext.Buffer[float64]
	ds             [nScalars]*gpuext.Buffer[float64]
	dPartial       *gpuext.Buffer[float64]
	// dv2, ds2 are stage 7's second set: x, r, p and the scalars (Ap and b
	// are shared, as dv[vAp] and dv[vB]).
	dv2  [nVecs]*gpuext.Buffer[float64]
	ds2  [nScalars]*gpuext.Buffer[float64]
	pend [2]*gpuext.Pending[float64] // stage 7: the r·r reads in flight, by iteration parity
	// Stages 9 and 10: the loop state (stLen doubles, cg.cu's CG_ST_*),
	// the residual history and the SpMV's partials of p·Ap.
	dSt, dHist, dPAp *gpuext.Buffer[float64]
	loop             *DeviceLoop
	graphs           []*recordedGraph // the recorded batches (none with PlainLaunches)
	// recording is set while cgLoopDevice records its iteration as a
	// graph: launches are then collected in graphOps, not counted.
	recording bool
	graphOps  []graphKernel
	// graphHostModelSec is, on the simulator, the modeled host time of
	// graph replays beyond their kernels' GPU time (a replay of fast
	// kernels waits for the host's next graph launch).
	graphHostModelSec float64
	spec              Speculation
	one               [1]float64 // staging for scalar downloads

	n, grid, spmvGrid, dotGrid int
	vecGrid                    int // stages 9 and 10: cgBetaUpdateP's grid

	xfer         Transfers
	xferHostSec  float64
	xferModelSec float64
	d2dCopies    int // device-to-device copies of r·r (stage 3), gpuext's CopyFromBuffer
	launches     int
	ops          map[string]*opStat
	kernels      map[string]*kernelRec
	spmvStats    *sim.Stats // the last SpMV launch's counters (simulator)
	bytesMoved   int64      // the minimum device-memory bytes of every launch (see launchBytes)
}

// opStat accumulates one of HPCCG's operations.
type opStat struct {
	where    string
	calls    int
	hostSec  float64
	modelSec float64
	gpuSec   float64        // modeled GPU time under modelSec: without the host's launch floor
	launches map[string]int // kernel name -> launches made by this operation
}

// kernelRec remembers a CUDA kernel's launches, for the event replay.
type kernelRec struct {
	launches    int
	modelSec    float64
	grid, block sim.Dim3
	args        []any
}

func newEngine(ctx context.Context, dev *gpuext.Device, p *Problem, s int, opt RunOptions) (*engine, error) {
	e := &engine{
		ctx: ctx, dev: dev, mod: Module(), p: p, opt: opt, stage: s,
		isSim: dev.Kind() == gpuext.Sim, model: dev.Model(),
		devVector: s >= 2, devScalars: s >= 3, swap: s >= 4, fused: s >= 6,
		pipelined: s == 7 || s == 8, matrixFree: s == 8 || s == 10, deviceLoop: s >= 9,
		spmvKernel: kSpMVThreadPerRow,
		ops:        map[string]*opStat{},
		kernels:    map[string]*kernelRec{},
		n:          p.A.Rows,
	}
	if opt.Unroll1 {
		e.spmvKernel = kSpMVThreadPerRowUnroll1
	}
	if s >= 5 {
		e.spmvKernel = kSpMVSubwarp
	}
	if e.matrixFree {
		e.spmvKernel = kSpMVStencil27
	}
	b := opt.BlockSize
	e.grid = (e.n + b - 1) / b
	e.spmvGrid = e.grid
	if s >= 5 && !e.matrixFree {
		e.spmvGrid = (e.n*opt.ThreadsPerRow + b - 1) / b
	}
	e.dotGrid = dotGrid(e.n)
	if e.deviceLoop {
		e.spmvKernel = csrVectorKernel(opt.ThreadsPerRow)
		e.spmvGrid = spmvBlocks(e.n, opt.ThreadsPerRow)
		if e.matrixFree {
			e.spmvKernel = kSpMVStencil27Dot
			e.spmvGrid = spmvBlocks(e.n, 1)
		}
		e.vecGrid = spmvBlocks(e.n, 1)
	}
	for _, g := range []int{e.grid, e.spmvGrid} {
		if g > 1<<31-1 {
			return nil, fmt.Errorf("cg: grid %v needs %d blocks, more than a launch allows", p.Grid, g)
		}
	}
	// Load the module before anything is timed: on a GPU host with nvcc
	// the first load compiles a cubin (about half a second), which the H200
	// run once charged to the first stage's wall time.
	if _, err := dev.Load(e.mod); err != nil {
		return nil, fmt.Errorf("cg: loading the kernels: %w", err)
	}
	return e, nil
}

// dotThreads is CG_DOT_THREADS in cg.cu: the block size of both ddot passes
// (and of the fused kernels that end in the same tree) and the size of their
// shared tree. It is part of the result, because the tree's shape is the
// order of the additions; the kernels assume it, so every launch uses it.
const dotThreads = 256

// dotBlocks is the largest grid of ddotPartial. It is a constant, not a
// multiple of the GPU's SM count, so that a dot product has the same bits on
// every GPU and on the simulator; 256 blocks × 256 threads cover 65,536
// elements per grid-stride step, enough to fill an H200 (132 SMs × 2048
// threads = 270,336 is reached by four steps of the stride loop at 100³).
// ddotFinal then adds exactly one partial per thread.
const dotBlocks = 256

// dotGrid is ddotPartial's gridDim.x: enough blocks for one element per
// thread, at most dotBlocks. It depends on n only, never on the GPU, so a
// dot product has the same bits on every GPU and on the simulator; capping
// it keeps ddotFinal at one partial per thread, and on small grids it saves
// launching (and simulating) blocks that would only add zeros.
func dotGrid(n int) int { return max(1, min(dotBlocks, (n+dotThreads-1)/dotThreads)) }

// setup allocates the device buffers and uploads the matrix (and, for the
// resident stages, b and x0). Its copies are counted in e.xfer, which
// RunStage then moves to StageResult.Setup. Stage 8 computes the matrix
// from the grid and uploads none of it.
func (e *engine) setup() error {
	var err error
	if !e.matrixFree {
		if err = e.uploadMatrix(); err != nil {
			return err
		}
	}
	for v := range nVecs {
		if e.dv[v], err = gpuext.Alloc[float64](e.dev, vecNames[v], e.n); err != nil {
			return err
		}
	}
	for s := range nScalars {
		if e.ds[s], err = gpuext.Alloc[float64](e.dev, scalarNames[s], 1); err != nil {
			return err
		}
	}
	if e.dPartial, err = gpuext.Alloc[float64](e.dev, "partial", e.dotGrid); err != nil {
		return err
	}
	if e.deviceLoop {
		if err := e.setupDeviceLoop(); err != nil {
			return err
		}
	}
	if e.pipelined {
		for _, v := range []vec{vX, vR, vP} {
			if e.dv2[v], err = gpuext.Alloc[float64](e.dev, vecNames[v]+"'", e.n); err != nil {
				return err
			}
		}
		for s := range nScalars {
			if e.ds2[s], err = gpuext.Alloc[float64](e.dev, scalarNames[s]+"'", 1); err != nil {
				return err
			}
		}
	}
	e.host[vX] = make([]float64, e.n) // x0 = 0
	e.host[vB] = e.p.B                // read only
	if !e.devScalars {
		e.host[vR] = make([]float64, e.n)
		e.host[vP] = make([]float64, e.n)
		e.host[vAp] = make([]float64, e.n)
		return nil
	}
	e.h2d(vB)
	e.h2d(vX)
	return e.err
}

// uploadMatrix uploads the CSR arrays: rowPtr, cols and vals.
func (e *engine) uploadMatrix() error {
	a := e.p.A
	var err error
	if e.dRowPtr, err = e.uploadI32("rowPtr", a.RowPtr); err != nil {
		return err
	}
	if e.dCols, err = e.uploadI32("cols", a.ColIdx); err != nil {
		return err
	}
	if e.dVals, err = gpuext.Upload(e.dev, "vals", a.Val); err != nil {
		return err
	}
	e.countH2D(int64(8*len(a.Val)), 0)
	return nil
}

func (e *engine) uploadI32(name string, src []int32) (*gpuext.Buffer[int32], error) {
	b, err := gpuext.Upload(e.dev, name, src)
	if err == nil {
		e.countH2D(int64(4*len(src)), 0)
	}
	return b, err
}

// free releases the device buffers; Close of the device would too.
func (e *engine) free() {
	bufs := []interface{ Free() error }{}
	for _, b := range []*gpuext.Buffer[int32]{e.dRowPtr, e.dCols} {
		if b != nil {
			bufs = append(bufs, b)
		}
	}
	f64 := append(append([]*gpuext.Buffer[float64]{e.dVals, e.dPartial, e.dSt, e.dHist, e.dPAp}, e.dv[:]...), e.ds[:]...)
	if e.pipelined {
		f64 = append(append(f64, e.dv2[vX], e.dv2[vR], e.dv2[vP]), e.ds2[:]...)
	}
	for _, b := range f64 {
		if b != nil {
			bufs = append(bufs, b)
		}
	}
	for _, b := range bufs {
		_ = b.Free()
	}
}

// ctxOr returns ctx's error when ctx is done (a launch the simulator
// stopped fails with a "cancelled" fault, which does not say why), else err.
func (e *engine) ctxOr(err error) error {
	if cerr := e.ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

func (e *engine) fail(err error) {
	if e.err == nil && err != nil {
		e.err = err
	}
}

// op runs one of HPCCG's operations under a host timer, as HPCCG's
// TICK/TOCK do.
func (e *engine) op(name, where string, f func()) {
	if e.err != nil {
		return
	}
	if err := e.ctx.Err(); err != nil {
		e.fail(err)
		return
	}
	if e.recording { // recorded once, counted by replay each time it runs
		f()
		return
	}
	st := e.opStat(name, where)
	t0 := time.Now()
	f()
	st.hostSec += time.Since(t0).Seconds()
	st.calls++
}

// opStat returns operation name's statistics, made on first use.
func (e *engine) opStat(name, where string) *opStat {
	st := e.ops[name]
	if st == nil {
		st = &opStat{where: where, launches: map[string]int{}}
		e.ops[name] = st
	}
	return st
}

func (e *engine) where() string {
	if e.isSim {
		return WhereSim
	}
	return WhereGPU
}

// launch runs one kernel for operation op (op "" is a D2D copy). While
// cgLoopDevice records its graph it records the kernel instead, and
// replay counts it each time the graph runs.
func (e *engine) launch(op, kernel string, grid, block int, args ...any) {
	if e.err != nil {
		return
	}
	l, err := e.dev.Launch(e.ctx, e.mod.MustKernel(kernel), gpuext.Config{Grid: grid, Block: block}, args...)
	if err != nil {
		e.fail(e.ctxOr(err))
		return
	}
	if e.recording {
		e.graphOps = append(e.graphOps, graphKernel{op: op, kernel: kernel, grid: grid, block: block, args: args})
		return
	}
	e.count(op, kernel, grid, block, args, l.Stats, false)
}

// count books one kernel that ran: its launch, its bytes and, on the
// simulator, its modeled time (st, nil on a GPU). A kernel inside a graph
// replay is booked at its GPU time, without the host's launch cost.
func (e *engine) count(op, kernel string, grid, block int, args []any, st *sim.Stats, inGraph bool) {
	rec := e.kernels[kernel]
	if rec == nil {
		rec = &kernelRec{}
		e.kernels[kernel] = rec
	}
	rec.launches++
	rec.grid, rec.block, rec.args = sim.Dim1(grid), sim.Dim1(block), args
	e.bytesMoved += launchBytes(kernel, args)
	var sec, gpu float64
	if st != nil {
		sec, gpu = st.Time.Seconds, st.Time.GPUSeconds
		if inGraph {
			sec = gpu
		}
		rec.modelSec += sec
	}
	e.launches++
	o := e.opStat(op, e.where())
	o.launches[kernel]++
	o.modelSec += sec
	o.gpuSec += gpu
	if op == KernelSpMV && st != nil {
		e.spmvStats = st
	}
}

func (e *engine) countH2D(bytes int64, sec float64) {
	e.xfer.H2DCalls++
	e.xfer.H2DBytes += bytes
	e.xferHostSec += sec
	e.xferModelSec += e.model.PCIeLatency + float64(bytes)/e.model.PCIeBandwidth
}

func (e *engine) countD2H(bytes int64, sec float64) {
	e.xfer.D2HCalls++
	e.xfer.D2HBytes += bytes
	e.xferHostSec += sec
	e.xferModelSec += e.model.PCIeLatency + float64(bytes)/e.model.PCIeBandwidth
}

// h2d copies host vector v to its device buffer.
func (e *engine) h2d(v vec) {
	if e.err != nil {
		return
	}
	t0 := time.Now()
	e.fail(e.dv[v].CopyFrom(e.host[v]))
	e.countH2D(int64(8*e.n), time.Since(t0).Seconds())
}

// d2h copies device vector v to its host slice.
func (e *engine) d2h(v vec) {
	if e.err != nil {
		return
	}
	t0 := time.Now()
	e.fail(e.dv[v].Download(e.host[v]))
	e.countD2H(int64(8*e.n), time.Since(t0).Seconds())
}

// d2hScalar brings device scalar s to e.hs[s].
func (e *engine) d2hScalar(s scalar) {
	if e.err != nil {
		return
	}
	t0 := time.Now()
	e.fail(e.ds[s].Download(e.one[:]))
	e.countD2H(8, time.Since(t0).Seconds())
	e.hs[s] = e.one[0]
}

// upInputs uploads the distinct input vectors of a naive wrapper (stage 2).
func (e *engine) upInputs(in ...vec) {
	for i, v := range in {
		dup := false
		for _, u := range in[:i] {
			dup = dup || u == v
		}
		if !dup {
			e.h2d(v)
		}
	}
}

// spmv is Ap = A·p: on the device in every GPU stage; stages 1 and 2 copy
// p up and Ap down around it, as the article's first port does.
func (e *engine) spmv(x, y vec) {
	e.op(KernelSpMV, e.where(), func() {
		if !e.devScalars {
			e.h2d(x)
		}
		e.launchSpMV(e.dv[x], e.dv[y])
		if !e.devScalars {
			e.d2h(y)
		}
	})
}

// launchSpMV launches the stage's SpMV kernel, y = A·x, inside an op.
func (e *engine) launchSpMV(x, y *gpuext.Buffer[float64]) {
	a := e.p.A
	switch {
	case e.spmvKernel == kSpMVStencil27:
		g := e.p.Grid
		e.launch(KernelSpMV, kSpMVStencil27, e.spmvGrid, e.opt.BlockSize, int32(g.NX), int32(g.NY), int32(g.NZ), x, y)
		return
	case e.spmvKernel == kSpMVStencil27Dot:
		g := e.p.Grid
		e.launch(KernelSpMV, kSpMVStencil27Dot, e.spmvGrid, dotThreads, int32(g.NX), int32(g.NY), int32(g.NZ), x, y, e.dSt, e.dPAp)
		return
	case e.deviceLoop:
		e.launch(KernelSpMV, e.spmvKernel, e.spmvGrid, dotThreads, int32(a.Rows), e.dRowPtr, e.dCols, e.dVals, x, y, e.dSt, e.dPAp)
		return
	}
	if e.spmvKernel == kSpMVSubwarp {
		e.launch(KernelSpMV, kSpMVSubwarp, e.spmvGrid, e.opt.BlockSize, int32(a.Rows), int32(e.opt.ThreadsPerRow),
			e.dRowPtr, e.dCols, e.dVals, x, y)
	} else {
		e.launch(KernelSpMV, e.spmvKernel, e.spmvGrid, e.opt.BlockSize, int32(a.Rows), e.dRowPtr, e.dCols, e.dVals, x, y)
	}
}

// waxpby is w = alpha·x + beta·y with host scalars.
func (e *engine) waxpby(alpha float64, x vec, beta float64, y, w vec) {
	if !e.devVector {
		e.op(KernelWaxpby, WhereCPU, func() { waxpby(alpha, e.host[x], beta, e.host[y], e.host[w]) })
		return
	}
	e.op(KernelWaxpby, e.where(), func() {
		if !e.devScalars {
			e.upInputs(x, y)
		}
		e.launch(KernelWaxpby, kWaxpby, e.grid, e.opt.BlockSize, int32(e.n), alpha, e.dv[x], beta, e.dv[y], e.dv[w])
		if !e.devScalars {
			e.d2h(w)
		}
	})
}

// waxpbyScalar is w = x + (sign·s)·y. With host scalars it is HPCCG's
// waxpby(1, x, ±s, y, w) (sign·s is exact, so the bits are HPCCG's); on the
// resident stages s stays on the device and waxpbyDeviceScalar reads it.
func (e *engine) waxpbyScalar(x vec, s scalar, sign float64, y, w vec) {
	if !e.devScalars {
		e.waxpby(1.0, x, sign*e.hs[s], y, w)
		return
	}
	e.op(KernelWaxpby, e.where(), func() {
		e.launch(KernelWaxpby, kWaxpbyDeviceScalar, e.grid, e.opt.BlockSize, int32(e.n), e.dv[x], e.ds[s], sign, e.dv[y], e.dv[w])
	})
}

// dot is out = x·y: sequential on the CPU (stage 1), or the two-pass tree
// on the device, whose result stage 2 downloads at once and stages 3–5
// leave on the device.
func (e *engine) dot(x, y vec, out scalar) {
	if !e.devVector {
		e.op(KernelDdot, WhereCPU, func() { e.hs[out] = ddot(e.host[x], e.host[y]) })
		return
	}
	e.op(KernelDdot, e.where(), func() {
		if !e.devScalars {
			e.upInputs(x, y)
		}
		e.launch(KernelDdot, kDdotPartial, e.dotGrid, dotThreads, int32(e.n), e.dv[x], e.dv[y], e.dPartial)
		e.launch(KernelDdot, kDdotFinal, 1, dotThreads, int32(e.dotGrid), e.dPartial, e.ds[out])
		if !e.devScalars {
			e.d2hScalar(out)
		}
	})
}

// dotDivide is sum = x·y followed by out = sum/other (sumIsNumerator) or
// out = other/sum: the two lines of cgLoop that compute beta and alpha. Up
// to stage 5 it is dot and divide; stage 6 launches ddotPartial (skipped for
// r·r, whose partials updateXRDot already wrote) and ddotFinalDivide, one
// call of ddot with no divide launch.
func (e *engine) dotDivide(x, y vec, sum, other, out scalar, sumIsNumerator bool) {
	if !e.fused {
		e.dot(x, y, sum)
		if sumIsNumerator {
			e.divide(sum, other, out)
		} else {
			e.divide(other, sum, out)
		}
		return
	}
	e.op(KernelDdot, e.where(), func() {
		if !(x == vR && y == vR && e.rrReady) {
			e.launch(KernelDdot, kDdotPartial, e.dotGrid, dotThreads, int32(e.n), e.dv[x], e.dv[y], e.dPartial)
		}
		e.rrReady = false
		num := int32(0)
		if sumIsNumerator {
			num = 1
		}
		e.launch(KernelDdot, kDdotFinalDivide, 1, dotThreads, int32(e.dotGrid), e.dPartial, e.ds[sum], e.ds[other], num, e.ds[out])
	})
}

// updateXR is x = x + alpha·p and r = r − alpha·Ap: two waxpbys up to
// stage 5; in stage 6 one updateXRDot, counted as one waxpby call, which
// also leaves the partials of the next r·r in dPartial.
func (e *engine) updateXR(alpha scalar) {
	if !e.fused {
		e.waxpbyScalar(vX, alpha, 1, vP, vX)
		e.waxpbyScalar(vR, alpha, -1, vAp, vR)
		return
	}
	e.op(KernelWaxpby, e.where(), func() {
		e.launch(KernelWaxpby, kUpdateXRDot, e.dotGrid, dotThreads, int32(e.n), e.ds[alpha], e.dv[vP], e.dv[vAp], e.dv[vX], e.dv[vR], e.dPartial)
		e.rrReady = true
	})
}

// divide is out = num/den (0 when den is 0, as cgDivide and stage 0 do):
// on the host in stages 1 and 2, a one-thread kernel in stages 3–5.
func (e *engine) divide(num, den, out scalar) {
	if !e.devScalars {
		v := 0.0
		if d := e.hs[den]; d != 0 {
			v = e.hs[num] / d
		}
		e.hs[out] = v
		return
	}
	e.op(KernelDivide, e.where(), func() {
		e.launch(KernelDivide, kCgDivide, 1, 1, e.ds[num], e.ds[den], e.ds[out])
	})
}

// keepRtrans is oldrtrans = rtrans: a host assignment (stages 1, 2), a
// device-to-device copy of one double (stage 3) or a swap of the two
// buffers, which moves no data (stages 4, 5).
func (e *engine) keepRtrans() {
	switch {
	case e.err != nil:
	case !e.devScalars:
		e.hs[sOldRtrans] = e.hs[sRtrans]
	case e.swap:
		e.ds[sRtrans], e.ds[sOldRtrans] = e.ds[sOldRtrans], e.ds[sRtrans]
	default:
		e.fail(e.ds[sOldRtrans].CopyFromBuffer(e.ds[sRtrans]))
		e.d2dCopies++
		e.xfer.D2DCalls++
		e.xfer.D2DBytes += 8
		e.bytesMoved += 2 * 8 // read once, written once
		// On a GPU the copy is queued and the host does not wait for it, so
		// its time is the device's, measured with events in finish. On the
		// simulator it is modeled as what the driver does for it: a command
		// on the stream (one launch overhead) that reads and writes the
		// bytes at DRAM bandwidth.
		e.xferModelSec += d2dModelSeconds(e.model, 8)
	}
}

// d2dModelSeconds is the modeled time of a device-to-device copy of bytes:
// one launch overhead plus reading and writing them at DRAM bandwidth.
func d2dModelSeconds(m sim.Model, bytes int64) float64 {
	return m.LaunchOverhead + 2*float64(bytes)/m.DRAMBandwidth
}

// fetch returns scalar s on the host: free where scalars live there,
// one 8-byte copy where they live on the device.
func (e *engine) fetch(s scalar) float64 {
	if e.devScalars {
		e.d2hScalar(s)
	}
	return e.hs[s]
}

// result returns the final x, downloading it on the resident stages.
func (e *engine) result() []float64 {
	if e.err == nil && !e.isSim {
		// Every iteration's work done: the host clock's mark between the
		// solve's iterations and the download of x (StageResult.XDownloadSeconds).
		e.fail(e.dev.Synchronize())
		e.itersDone = time.Now()
	}
	if e.devScalars {
		e.d2h(vX)
	}
	if e.err == nil && !e.isSim {
		e.fail(e.dev.Synchronize())
	}
	return e.host[vX]
}

// opOrder is the order of StageResult.Kernels: the article's profile table,
// then the scalar kernel.
var opOrder = []string{KernelSpMV, KernelWaxpby, KernelDdot, KernelDivide}

// finish fills res's times, kernels, transfers and counters. On a GPU it
// first replays every kernel the stage launched to time it with events.
func (e *engine) finish(res *StageResult, hostWall time.Duration) error {
	eventSec := map[string]float64{} // kernel -> mean seconds per launch
	var d2dSec float64               // mean seconds per device-to-device copy (GPU)
	if !e.isSim {
		if e.d2dCopies > 0 {
			t, err := e.dev.Time(func() error { return e.ds[sOldRtrans].CopyFromBuffer(e.ds[sRtrans]) },
				e.opt.EventWarmups, e.opt.EventRuns)
			if err != nil {
				return fmt.Errorf("timing the device-to-device copy with events: %w", err)
			}
			d2dSec = t.MeanMs / 1e3
		}
		for name, rec := range e.kernels {
			if err := e.resetStateForReplay(name); err != nil {
				return fmt.Errorf("timing %s with events: %w", name, err)
			}
			t, err := e.dev.Time(func() error {
				_, err := e.dev.Launch(e.ctx, e.mod.MustKernel(name), gpuext.Config{Grid: rec.grid, Block: rec.block}, rec.args...)
				return err
			}, e.opt.EventWarmups, e.opt.EventRuns)
			if err != nil {
				return fmt.Errorf("timing %s with events: %w", name, err)
			}
			eventSec[name] = t.MeanMs / 1e3
			if res.Date == "" {
				res.Date = t.Date.UTC().Format(time.RFC3339)
				res.Device = fmt.Sprintf("%s, %s", t.Device, t.Driver)
			}
		}
	}
	var devKernelSec, cpuSec float64
	for _, name := range opOrder {
		st := e.ops[name]
		if st == nil {
			continue
		}
		k := KernelStat{Name: name, Calls: st.calls, HostSeconds: st.hostSec, Where: st.where}
		for _, c := range st.launches {
			k.Launches += c
		}
		switch st.where {
		case WhereCPU:
			k.Seconds, k.Timer, k.TimeKind = st.hostSec, TimerHost, gpuext.Measured
			cpuSec += st.hostSec
		case WhereSim:
			k.Seconds, k.GPUSeconds, k.Timer, k.TimeKind = st.modelSec, st.gpuSec, TimerModel, gpuext.Modeled
			devKernelSec += st.modelSec
		default:
			for kn, c := range st.launches {
				k.Seconds += float64(c) * eventSec[kn]
			}
			k.Timer, k.TimeKind = TimerEvent, gpuext.Measured
			devKernelSec += k.Seconds
		}
		res.Kernels = append(res.Kernels, k)
	}
	res.Launches = e.launches
	res.Transfers = e.xfer
	if e.isSim {
		res.Transfers.Seconds, res.Transfers.TimeKind = e.xferModelSec, gpuext.Modeled
		res.LaunchOverheadSeconds = float64(e.launches) * e.model.LaunchOverhead
		res.WallSeconds = devKernelSec + e.xferModelSec + cpuSec + e.graphHostModelSec
		res.TimeKind = gpuext.Modeled
		res.SimSeconds = hostWall.Seconds()
		if cpuSec > 0 {
			res.Notes = append(res.Notes, "modeled wall time = modeled kernels and PCIe copies + the measured host time of the operations this stage runs on the CPU")
		}
	} else {
		res.Transfers.Seconds = e.xferHostSec + float64(e.d2dCopies)*d2dSec
		res.Transfers.TimeKind = gpuext.Measured
		res.WallSeconds = hostWall.Seconds()
		res.TimeKind = gpuext.Measured
	}
	if e.d2dCopies > 0 {
		how := "cuMemcpyDtoD, timed with events"
		if e.isSim {
			how = "modeled as one launch overhead plus 16 bytes at DRAM bandwidth each"
		}
		res.Notes = append(res.Notes, fmt.Sprintf("the %d device-to-device copies of r·r are gpuext's CopyFromBuffer (%s); they are counted as copies, not launches", e.d2dCopies, how))
	}
	if e.stage <= 2 {
		res.Notes = append(res.Notes, "host times of device operations include the copies around them, as HPCCG's timers around the ported calls do")
	}
	if e.spmvStats != nil {
		c := spmvCounters(e.spmvStats)
		res.SpMV = &c
	}
	return nil
}

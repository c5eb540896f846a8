package cg

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/warplab/warplab/gpuext"
)

// Stages is the number of stages, 0 to Stages−1 (see the package comment).
const Stages = 11

// StageNames are the short names StageResult.Name takes, by stage.
var stageNames = [Stages]string{"cpu-serial", "spmv-on-gpu", "naive-port", "gpu-resident", "scalar-swap", "coalesced-spmv", "fused", "pipelined", "matrix-free", "device-loop", "device-loop-matrix-free"}

// StageName returns the short name of stage s, or "" when there is no such
// stage.
func StageName(s int) string {
	if s < 0 || s >= Stages {
		return ""
	}
	return stageNames[s]
}

// StageTitle says in a few words what stage s changes.
func StageTitle(s int) string {
	switch s {
	case 0:
		return "CPU baseline (HPCCG serial)"
	case 1:
		return "SpMV on the GPU, p up and Ap down every iteration"
	case 2:
		return "all kernels on the GPU, vectors copied back and forth"
	case 3:
		return "GPU-resident, scalars on the device, one scalar back per iteration"
	case 4:
		return "swap the two r·r buffers instead of copying"
	case 5:
		return "coalesced SpMV (several threads per row)"
	case 6:
		return "fused kernels: ddot's final pass with the divide, both updates with the next r·r"
	case 7:
		return "pipelined: iteration k+1 queued before the host waits for iteration k's residual"
	case 8:
		return "matrix-free SpMV: the 27-point stencil computed from the grid, no matrix read"
	case 9:
		return "host out of the loop: convergence check on the device, iterations replayed as CUDA graphs (CSR)"
	case 10:
		return "host out of the loop, matrix-free: stage 9 with the stencil SpMV"
	}
	return ""
}

// Defaults of RunOptions.
const (
	DefaultBlockSize     = 256
	DefaultThreadsPerRow = 8
	// DefaultCheckEvery is how many iterations stages 9 and 10 queue
	// between two looks at the device's state (see cgLoopDevice).
	DefaultCheckEvery = 16
)

// RunOptions configures RunStage.
type RunOptions struct {
	// MaxIter and Tolerance are HPCCG's max_iter and tolerance (zero
	// MaxIter means DefaultMaxIter).
	MaxIter   int
	Tolerance float64
	// Workers is stage 0's goroutine count (SolveOptions.Workers).
	Workers int
	// BlockSize is the threads per block of the SpMV and waxpby launches;
	// zero means DefaultBlockSize. The ddot kernels always use 256 (the
	// tree's size is compiled in).
	BlockSize int
	// ThreadsPerRow is stage 5's group size for spmvCsrSubwarp (stages
	// 6 and 7 inherit it) and stage 9's for spmvCsrVector<W>, a power of
	// two from 1 to 32; zero means DefaultThreadsPerRow.
	ThreadsPerRow int
	// CheckEvery is, in stages 9 and 10, the iterations queued between
	// two reads of the device's loop state; zero means DefaultCheckEvery.
	CheckEvery int
	// PlainLaunches makes stages 9 and 10 launch each iteration's three
	// kernels one by one instead of replaying them as a graph: the same
	// kernels in the same order (the same bits), for comparing the two.
	PlainLaunches bool
	// Unroll1 uses spmvCsrThreadPerRowUnroll1 instead of
	// spmvCsrThreadPerRow in stages 1–4 (same bits; on the simulator its
	// counters are the ones ncu reproduces exactly).
	Unroll1 bool
	// WarmupSolves is how many times Run solves a GPU stage untimed right
	// before the solve it reports (zero: none, the article's protocol):
	// the first solve of a stage pays what a warm GPU does not (modules
	// loaded on first launch, clocks rising from idle, caches cold).
	// RunStage itself always solves once; the simulator ignores it.
	WarmupSolves int
	// EventWarmups and EventRuns are the GPU's replay protocol for the
	// per-kernel event times (see RunStage); zero means gpuext's defaults
	// (3 and 10).
	EventWarmups, EventRuns int
}

func (o RunOptions) withDefaults() (RunOptions, error) {
	if o.MaxIter == 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.ThreadsPerRow == 0 {
		o.ThreadsPerRow = DefaultThreadsPerRow
	}
	if o.CheckEvery == 0 {
		o.CheckEvery = DefaultCheckEvery
	}
	switch {
	case o.MaxIter < 0:
		return o, fmt.Errorf("cg: MaxIter %d is negative", o.MaxIter)
	case o.MaxIter > MaxIterLimit:
		return o, fmt.Errorf("cg: MaxIter %d: want at most %d (MaxIterLimit)", o.MaxIter, MaxIterLimit)
	case o.WarmupSolves < 0 || o.WarmupSolves > 10:
		return o, fmt.Errorf("cg: WarmupSolves %d: want 0 to 10", o.WarmupSolves)
	case math.IsNaN(o.Tolerance) || o.Tolerance < 0:
		return o, fmt.Errorf("cg: Tolerance %v must be a number ≥ 0", o.Tolerance)
	case o.Workers < 0:
		return o, fmt.Errorf("cg: Workers %d is negative", o.Workers)
	case o.BlockSize < 32 || o.BlockSize > 1024 || o.BlockSize%32 != 0:
		return o, fmt.Errorf("cg: BlockSize %d must be a multiple of 32 from 32 to 1024", o.BlockSize)
	case o.ThreadsPerRow < 1 || o.ThreadsPerRow > 32 || o.ThreadsPerRow&(o.ThreadsPerRow-1) != 0:
		return o, fmt.Errorf("cg: ThreadsPerRow %d must be a power of two from 1 to 32", o.ThreadsPerRow)
	case o.CheckEvery < 0:
		return o, fmt.Errorf("cg: CheckEvery %d is negative", o.CheckEvery)
	case o.EventWarmups < 0 || o.EventRuns < 0:
		return o, fmt.Errorf("cg: EventWarmups %d and EventRuns %d must be ≥ 0", o.EventWarmups, o.EventRuns)
	}
	if o.EventWarmups == 0 {
		o.EventWarmups = gpuext.DefaultWarmups
	}
	if o.EventRuns == 0 {
		o.EventRuns = gpuext.DefaultRuns
	}
	return o, nil
}

// RunStage runs stage s of the lesson on p and reports it. Stage 0 runs on
// the CPU (SolveCPU) and ignores dev, which may then be nil; stages 1–5 run
// on dev, a GPU or the simulator, and need it.
//
// All GPU stages run the same loop, HPCCG's (cgLoop below); the stage only
// decides where each of its lines runs and where the data lives:
//
//	stage  SpMV    waxpby, ddot   alpha, beta   r·r kept by       vectors
//	1      device  CPU            CPU           host assignment   host; p up, Ap down per SpMV
//	2      device  device         CPU           host assignment   host; every kernel copies its inputs up, its output down
//	3      device  device         device        device copy       device; r·r down once per iteration
//	4      device  device         device        pointer swap      device; r·r down once per iteration
//	5      as 4 with spmvCsrSubwarp (ThreadsPerRow lanes per row)
//	6      as 5 with fused kernels: ddotFinalDivide (ddot's second pass and
//	       the divide) and updateXRDot (x += alpha·p, r −= alpha·Ap and the
//	       next r·r's partials in one pass); 6 launches per iteration
//	       instead of 10, the same arithmetic in the same order, so stage
//	       5's residual history bit for bit
//	7      as 6, pipelined (cgLoopPipelined): x, r, p and the scalars live in
//	       two buffer sets, every update writes the other set, and
//	       iteration k+1 is queued before the host waits (ReadAsync, Wait)
//	       for iteration k's r·r; when that residual ends the loop, the
//	       queued iteration is discarded. Stage 6's bits
//	8      as 7 with spmvStencil27 instead of the CSR SpMV: each row's
//	       entries computed from the grid in the matrix's stored order, so
//	       Ap is the thread-per-row CSR SpMV's bit for bit and the residual
//	       history stage 7's with ThreadsPerRow 1; no matrix is uploaded
//	9      the host out of the loop (cgLoopDevice, deviceloop.go): three
//	       kernels an iteration (cgBetaUpdateP, spmvCsrVector<W> with the
//	       partials of p·Ap, cgAlphaUpdateXR), the convergence check and
//	       the residual history on the device; a batch of CheckEvery
//	       iterations is recorded once as a graph and replayed, and the
//	       host reads the loop's state after every batch, one batch
//	       behind, and the history once at the end. Ap is stage 7's bit for bit (same W);
//	       p·Ap is summed in another order, so the history is within
//	       tolerance, not identical
//	10     as 9 with spmvStencil27Dot: Ap is stage 8's bit for bit, and
//	       the residual history stage 9's with ThreadsPerRow 1
//
// What is timed (WallSeconds) is HPCCG's: from p = x to the end of the loop,
// plus, for the resident stages, downloading x. The matrix (and for stages
// 3–5, b and x0) is uploaded before, as setup, and counted in
// StageResult.Setup, not in Transfers.
//
// Times. Each kernel's HostSeconds is a host timer around the call as HPCCG
// times it (for stages 1 and 2 that includes the call's copies; for the
// resident stages, only the asynchronous launch). Seconds is, on a GPU, CUDA
// events: after the solve every kernel the stage used is replayed on the
// stage's buffers with dev.Time (EventWarmups, EventRuns) and its mean time
// times its launches is its share; on the simulator, the sum of the modeled
// times of its launches (launch overhead included). Copies are timed on the
// host on a GPU (each copy is synchronous) and modeled on the simulator from
// the model's PCIe bandwidth and latency. Ops the stage runs on the CPU are
// host-timed in either case.
func RunStage(dev *gpuext.Device, p *Problem, s int, opt RunOptions) (*StageResult, error) {
	return RunStageContext(context.Background(), dev, p, s, opt)
}

// RunStageContext is RunStage that stops when ctx is done: stage 0 before
// each CG iteration, the device stages before each operation of the loop
// and inside the simulator's launches (a kernel already queued on a GPU runs
// to its end). The error then wraps ctx's.
func RunStageContext(ctx context.Context, dev *gpuext.Device, p *Problem, s int, opt RunOptions) (*StageResult, error) {
	if s < 0 || s >= Stages {
		return nil, fmt.Errorf("cg: stage %d: want 0 to %d", s, Stages-1)
	}
	if err := checkProblem(p); err != nil {
		return nil, err
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if s == 0 {
		return SolveCPUContext(ctx, p, SolveOptions{MaxIter: opt.MaxIter, Tolerance: opt.Tolerance, Workers: opt.Workers})
	}
	if dev == nil {
		return nil, fmt.Errorf("cg: stage %d needs a device (gpuext.Open(\"sim\") or \"gpu\")", s)
	}
	if need := deviceBytes(p, s, opt.MaxIter); need > dev.MemoryBytes() {
		return nil, fmt.Errorf("cg: grid %v needs %d bytes of device memory, %s has %d", p.Grid, need, dev.Name(), dev.MemoryBytes())
	}
	e, err := newEngine(ctx, dev, p, s, opt)
	if err != nil {
		return nil, err
	}
	defer e.free()
	res := &StageResult{
		Stage: s, Name: StageName(s), Backend: dev.Kind().String(), Device: dev.Name(),
		Grid: p.Grid.Dims(), Rows: p.A.Rows, NNZ: p.A.NNZ(),
	}
	if err := e.setup(); err != nil {
		return nil, err
	}
	res.Setup = e.xfer
	res.Setup.Seconds, res.Setup.TimeKind = e.xferHostSec, gpuext.Measured
	if e.isSim {
		res.Setup.Seconds, res.Setup.TimeKind = e.xferModelSec, gpuext.Modeled
	}
	e.xfer, e.xferHostSec, e.xferModelSec = Transfers{}, 0, 0
	if e.deviceLoop {
		if err := e.prepareDeviceLoop(opt.MaxIter, opt.Tolerance); err != nil {
			return nil, fmt.Errorf("cg: stage %d on %s: %w", s, dev.Name(), err)
		}
		defer e.closeGraphs()
	}

	loop := cgLoop
	switch {
	case e.deviceLoop:
		loop = cgLoopDevice
	case e.pipelined:
		loop = cgLoopPipelined
	}
	simStart := time.Now()
	var x []float64
	if e.isSim {
		x, err = loop(e, opt.MaxIter, opt.Tolerance, res)
	} else {
		// The GPU's span of the same solve, between two events on the
		// stream, beside the host's clock.
		var span gpuext.Timing
		span, err = dev.TimeOnce(func() error {
			var lerr error
			x, lerr = loop(e, opt.MaxIter, opt.Tolerance, res)
			return lerr
		})
		if err == nil {
			res.GPUSpanSeconds = span.MeanMs / 1e3
		}
	}
	hostWall := time.Since(simStart)
	if !e.isSim && !e.itersDone.IsZero() {
		res.XDownloadSeconds = simStart.Add(hostWall).Sub(e.itersDone).Seconds()
	}
	if err != nil {
		return nil, fmt.Errorf("cg: stage %d on %s: %w", s, dev.Name(), e.ctxOr(err))
	}
	if err := e.finish(res, hostWall); err != nil {
		return nil, fmt.Errorf("cg: stage %d on %s: %w", s, dev.Name(), e.ctxOr(err))
	}
	if err := e.account(res); err != nil {
		return nil, fmt.Errorf("cg: stage %d on %s: %w", s, dev.Name(), e.ctxOr(err))
	}
	if res.SpMVBefore, err = e.spmvBefore(); err != nil {
		return nil, fmt.Errorf("cg: stage %d on %s: thread-per-row counters: %w", s, dev.Name(), e.ctxOr(err))
	}
	n := p.A.Rows
	fs, fw, fd := HPCCGFlops(n, res.Iterations)
	flops := map[string]float64{KernelSpMV: fs, KernelWaxpby: fw, KernelDdot: fd}
	if e.deviceLoop {
		// The loop's dot products live inside the update kernels (see
		// cgLoopDevice): their flops go with them, and ddot's one launch
		// before the loop gets none.
		flops = map[string]float64{KernelSpMV: fs, KernelWaxpby: fw + fd}
	}
	res.TotalFlops = fs + fw + fd
	for i := range res.Kernels {
		k := &res.Kernels[i]
		k.Flops = flops[k.Name]
		k.MFLOPS = mflops(k.Flops, k.Seconds)
	}
	res.TotalMFLOPS = mflops(res.TotalFlops, res.WallSeconds)
	res.TrueResidual, res.MaxErr = checkSolution(p, x)
	res.X = x
	return res, nil
}

// deviceBytes is what GPU stage s allocates on the device at most: the
// matrix (none in stages 8 and 10), five vectors, the ddot partials and five
// scalars; stages 7 and 8 (pipelined) hold a second x, r and p and five
// more scalars; stages 9 and 10 the SpMV's partials, the loop state and the
// residual history instead.
func deviceBytes(p *Problem, s int, maxIter int) int64 {
	n, nnz := int64(p.A.Rows), int64(p.A.NNZ())
	matrix := 4*(n+1) + 12*nnz
	if s == 8 || s == 10 {
		matrix = 0
	}
	if s >= 9 {
		return matrix + 5*8*n + 8*dotBlocks + 8*spmvMaxBlocks + 8*stLen + 8*int64(max(maxIter-1, 1))
	}
	return matrix + 8*8*n + 8*dotBlocks + 10*8
}

// Vectors and scalars of the CG loop, as the engine names them.
type vec int

const (
	vX vec = iota
	vR
	vP
	vAp
	vB
	nVecs
)

var vecNames = [nVecs]string{"x", "r", "p", "Ap", "b"}

type scalar int

const (
	sRtrans scalar = iota
	sOldRtrans
	sPAp
	sAlpha
	sBeta
	nScalars
)

var scalarNames = [nScalars]string{"rtrans", "oldrtrans", "pAp", "alpha", "beta"}

// cgLoop is HPCCG's HPCCG(), line by line, for every GPU stage: the
// engine decides where each line runs. Scalars are named, not held: on the
// resident stages they live on the device and only rtrans comes back, once
// per iteration, for the convergence check. It fills the residual fields of
// res and returns the final x.
func cgLoop(e *engine, maxIter int, tol float64, res *StageResult) ([]float64, error) {
	e.waxpby(1.0, vX, 0.0, vX, vP) // p = x
	e.spmv(vP, vAp)                // Ap = A·p
	e.waxpby(1.0, vB, -1.0, vAp, vR)
	e.dot(vR, vR, sRtrans)
	rtrans := e.fetch(sRtrans)
	normr := math.Sqrt(rtrans)
	res.InitialResidual = normr
	res.Residuals = make([]float64, 0, max(maxIter-1, 0))

	iters := 0
	for k := 1; k < maxIter && normr > tol && e.err == nil; k++ {
		if k == 1 {
			e.waxpby(1.0, vR, 0.0, vR, vP) // p = r
		} else {
			e.keepRtrans()                                        // oldrtrans = rtrans
			e.dotDivide(vR, vR, sRtrans, sOldRtrans, sBeta, true) // rtrans = r·r; beta = rtrans / oldrtrans
			e.waxpbyScalar(vR, sBeta, 1, vP, vP)                  // p = r + beta·p
			rtrans = e.fetch(sRtrans)                             // the convergence check needs it on the host
		}
		normr = math.Sqrt(rtrans)
		res.Residuals = append(res.Residuals, normr)

		e.spmv(vP, vAp)                                    // Ap = A·p
		e.dotDivide(vP, vAp, sPAp, sRtrans, sAlpha, false) // p·Ap; alpha = rtrans / p·Ap
		e.updateXR(sAlpha)                                 // x = x + alpha·p; r = r − alpha·Ap
		iters = k
	}
	x := e.result()
	if e.err != nil {
		return nil, e.err
	}
	res.Iterations = iters
	res.FinalResidual = normr
	return x, nil
}

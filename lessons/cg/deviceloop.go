package cg

import (
	"fmt"
	"math"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// Stages 9 and 10: the host out of the loop.
//
// Stage 7 still reads r·r on the host every iteration and queues at most one
// iteration ahead of it, so the GPU idles whenever the host falls behind
// (stage 7: about 11 of 34 ms at 100³ on the H200; stage 8: 9.6 of 17.5 ms).
// Stages 9 and 10 move the convergence check, HPCCG's
// `k < max_iter && normr > tol`, onto the device: cgBetaUpdateP decides
// whether iteration k runs from a small state vector in device memory and,
// if it does not, tells the rest of the loop to do nothing (cg.cu, "stage
// 9"). The host can then queue iterations without looking: it records a
// batch of CheckEvery iterations (three kernels each) as one graph, replays
// it until max_iter − 1 iterations are queued (the last, shorter batch is a
// graph of its own), reads the loop's state after every batch, one behind (so
// the GPU always has a batch queued while the host waits) to stop queuing
// once the device has ended the loop, and reads the residual history,
// written by the device one entry per iteration, once at the end.
//
// One iteration is three kernels instead of stage 7's six: the one-block
// ddotFinalDivide launches are folded into the kernels that use their
// result (every block sums the partials itself, in ddotFinal's tree, so
// every block has the same bits), and the SpMV writes the block partials
// of p·Ap as it goes. On the simulator a replay runs the graph's kernels in
// order, and its modeled time is their GPU time without the host's
// per-launch cost (gpuext.Graph.Launch). A graph of a whole batch, not of
// one iteration, also leaves the GPU one graph launch's gap per batch
// instead of one per iteration.

// Sizes shared with cg.cu.
const (
	// stLen is CG_ST_LEN, the doubles of the loop state; stIter, stRun,
	// stInit are CG_ST_ITER, CG_ST_RUN, CG_ST_INIT.
	stLen  = 6
	stIter = 0
	stRun  = 1
	stInit = 5
	// spmvMaxBlocks caps the grid of stage 9's SpMVs, whose groups stride
	// over the rows. The grid is part of the result (it orders the
	// partials of p·Ap), so it depends on n and W only, never on the GPU;
	// 1024 blocks of 256 threads is one full wave on an H200 (132 SMs × 8
	// blocks at 32 registers a thread), and cgAlphaUpdateXR's blocks sum
	// at most 1024 partials, four a thread.
	spmvMaxBlocks = 1024
)

// spmvBlocks is the grid of stage 9's SpMV with w lanes a row on n rows:
// one group per row up to spmvMaxBlocks blocks, then the groups stride.
func spmvBlocks(n, w int) int {
	return max(1, min(spmvMaxBlocks, (n*w+dotThreads-1)/dotThreads))
}

// DeviceLoop, for stages 9 and 10, says how the host drove the loop.
type DeviceLoop struct {
	// Graph is true when the iteration was replayed as a graph, false with
	// RunOptions.PlainLaunches.
	Graph bool `json:"graph"`
	// KernelsPerIteration are the launches one replay makes (3).
	KernelsPerIteration int `json:"kernels_per_iteration"`
	// Replays are the iterations queued: at least one (it records the
	// initial residual), at most max_iter − 1. IdleReplays of them were
	// queued after the device had ended the loop and did no work.
	Replays     int `json:"replays"`
	IdleReplays int `json:"idle_replays"`
	// IterationsPerGraph is the size of a batch, recorded as one graph
	// (CheckEvery, or max_iter − 1 when smaller; the last batch, when
	// shorter, is a second graph); GraphLaunches counts the replays of
	// both. Zero with plain launches.
	IterationsPerGraph int `json:"iterations_per_graph,omitempty"`
	GraphLaunches      int `json:"graph_launches,omitempty"`
	// CheckEvery and Checks: the host read the loop's state after every
	// CheckEvery replays (Checks times), one batch behind.
	CheckEvery int `json:"check_every"`
	Checks     int `json:"checks"`
	// HostSeconds is the host clock around the replays (the graph
	// launches or the plain launches): the host's cost of queuing the
	// loop, not the GPU's time running it.
	HostSeconds float64 `json:"host_seconds"`
	// RecordSeconds is the host clock around recording the graph (on a
	// GPU with its instantiation), done once before the timed solve, as
	// the matrix upload is: preparation, not part of WallSeconds.
	RecordSeconds float64 `json:"record_seconds,omitempty"`
}

// graphKernel is one kernel recorded into stage 9's graph, for counting
// each replay.
type graphKernel struct {
	op, kernel  string
	grid, block int
	args        []any
}

// setupDeviceLoop allocates stage 9's state, history and SpMV partials and
// uploads the starting state (counted as a setup copy): no iteration done,
// RUN set so the SpMV before the loop runs.
func (e *engine) setupDeviceLoop() error {
	var err error
	if e.dSt, err = gpuext.Alloc[float64](e.dev, "state", stLen); err != nil {
		return err
	}
	if e.dHist, err = gpuext.Alloc[float64](e.dev, "history", max(e.opt.MaxIter-1, 1)); err != nil {
		return err
	}
	if e.dPAp, err = gpuext.Alloc[float64](e.dev, "partial-pAp", e.spmvGrid); err != nil {
		return err
	}
	return e.uploadState(0)
}

// uploadState writes a running state with done iterations done: RUN = 1,
// NEXT = done + 1, r·r and its predecessor 1 (any positive number: the
// event replays of finish use it to keep every kernel doing its work).
func (e *engine) uploadState(done int) error {
	st := make([]float64, stLen)
	st[stIter], st[stRun], st[2] = float64(done), 1, float64(done+1)
	if done > 0 {
		st[3], st[4], st[stInit] = 1, 1, 1
	}
	t0 := time.Now()
	if err := e.dSt.CopyFrom(st); err != nil {
		return err
	}
	e.countH2D(8*stLen, time.Since(t0).Seconds())
	return nil
}

// resetStateForReplay prepares the state before finish replays kernel
// name alone for CUDA events: a loop one iteration in and running, so the
// gated kernels of stages 9 and 10 do their full work in every replay
// (cgBetaUpdateP leaves ITER alone, cgAlphaUpdateXR sets it to NEXT, which
// cgBetaUpdateP wrote, so repeated replays of one kernel stay in one
// iteration). The copy is not part of the stage.
func (e *engine) resetStateForReplay(name string) error {
	if !e.deviceLoop {
		return nil
	}
	switch name {
	case kCgBetaUpdateP, kCgAlphaUpdateXR, e.spmvKernel:
	default:
		return nil
	}
	xfer, host, model := e.xfer, e.xferHostSec, e.xferModelSec
	err := e.uploadState(1)
	e.xfer, e.xferHostSec, e.xferModelSec = xfer, host, model
	return err
}

// queueIterationDevice launches one iteration of stages 9 and 10 (or, while
// recording, records it): cgBetaUpdateP (the check, beta, p), the SpMV with
// the partials of p·Ap, cgAlphaUpdateXR (alpha, x, r, the partials of the
// next r·r). Every argument is the same on every iteration: the state in
// device memory says which iteration it is.
func (e *engine) queueIterationDevice(maxIter int, tol float64) {
	n := int32(e.n)
	e.op(KernelWaxpby, e.where(), func() {
		e.launch(KernelWaxpby, kCgBetaUpdateP, e.vecGrid, dotThreads, n, int32(e.dotGrid), e.dPartial,
			e.dSt, e.dHist, int32(maxIter), tol, e.dv[vR], e.dv[vP])
	})
	e.op(KernelSpMV, e.where(), func() { e.launchSpMV(e.dv[vP], e.dv[vAp]) })
	e.op(KernelWaxpby, e.where(), func() {
		e.launch(KernelWaxpby, kCgAlphaUpdateXR, e.dotGrid, dotThreads, n, int32(e.spmvGrid), e.dPAp,
			e.dSt, e.dv[vP], e.dv[vAp], e.dv[vX], e.dv[vR], e.dPartial)
	})
}

// recordedGraph is a graph of stage 9 with the kernels recorded into it,
// in order, for booking each replay.
type recordedGraph struct {
	g          *gpuext.Graph
	ops        []graphKernel
	iterations int
}

// prepareDeviceLoop records stage 9's batches as graphs (unless
// PlainLaunches), before the timed solve: one of CheckEvery iterations and,
// when max_iter − 1 is not a multiple of it, one of the remainder. The
// caller closes them (closeGraphs).
func (e *engine) prepareDeviceLoop(maxIter int, tol float64) error {
	e.loop = &DeviceLoop{Graph: !e.opt.PlainLaunches, CheckEvery: e.opt.CheckEvery}
	if !e.loop.Graph {
		return nil
	}
	replays := max(maxIter-1, 1)
	t0 := time.Now()
	sizes := []int{min(e.opt.CheckEvery, replays)}
	if r := replays % sizes[0]; r != 0 && replays > sizes[0] {
		sizes = append(sizes, r)
	}
	for _, it := range sizes {
		rg, err := e.record(it, maxIter, tol)
		if err != nil {
			return fmt.Errorf("recording %d iterations as a graph: %w", it, err)
		}
		e.graphs = append(e.graphs, rg)
	}
	e.loop.RecordSeconds = time.Since(t0).Seconds()
	e.loop.IterationsPerGraph = sizes[0]
	e.loop.KernelsPerIteration = len(e.graphs[0].ops) / sizes[0]
	return nil
}

// closeGraphs frees the graphs prepareDeviceLoop recorded.
func (e *engine) closeGraphs() {
	for _, rg := range e.graphs {
		_ = rg.g.Close()
	}
	e.graphs = nil
}

// graphFor returns the recorded graph of it iterations.
func (e *engine) graphFor(it int) *recordedGraph {
	for _, rg := range e.graphs {
		if rg.iterations == it {
			return rg
		}
	}
	return nil
}

// record records it iterations as one graph.
func (e *engine) record(it, maxIter int, tol float64) (*recordedGraph, error) {
	e.recording, e.graphOps = true, nil
	g, err := e.dev.Record(func() error {
		for range it {
			e.queueIterationDevice(maxIter, tol)
		}
		return e.err
	})
	e.recording = false
	if err != nil {
		return nil, err
	}
	if g.Kernels() != len(e.graphOps) {
		_ = g.Close()
		return nil, fmt.Errorf("cg: the graph holds %d kernels, %d were recorded", g.Kernels(), len(e.graphOps))
	}
	return &recordedGraph{g: g, ops: e.graphOps, iterations: it}, nil
}

// replay runs a recorded graph once and books its kernels as launches of
// their operations; on the simulator at their GPU time
// (GraphLaunch.Kernels), plus whatever of the host's graph launch the
// kernels did not cover.
func (e *engine) replay(rg *recordedGraph) {
	if e.err != nil {
		return
	}
	gl, err := rg.g.Launch(e.ctx)
	if err != nil {
		e.fail(e.ctxOr(err))
		return
	}
	if e.isSim && len(gl.Kernels) != len(rg.ops) {
		e.fail(fmt.Errorf("cg: a graph replay ran %d kernels, %d were recorded", len(gl.Kernels), len(rg.ops)))
		return
	}
	for i, k := range rg.ops {
		var st *sim.Stats
		if e.isSim {
			st = gl.Kernels[i].Stats
		}
		e.opStat(k.op, e.where()).calls++
		e.count(k.op, k.kernel, k.grid, k.block, k.args, st, true)
	}
	e.graphHostModelSec += max(0, gl.HostSeconds-gl.GPUSeconds)
	e.loop.GraphLaunches++
}

// readState queues a read of the first two words of the state (ITER, RUN),
// counted as one download.
func (e *engine) readState() *gpuext.Pending[float64] {
	if e.err != nil {
		return nil
	}
	t0 := time.Now()
	p, err := e.dSt.ReadAsync(stRun + 1)
	e.fail(err)
	e.countD2H(8*(stRun+1), time.Since(t0).Seconds())
	return p
}

// waitState waits for a read of readState and reports whether the device
// has ended the loop.
func (e *engine) waitState(p *gpuext.Pending[float64]) (ended bool) {
	if e.err != nil || p == nil {
		return false
	}
	t0 := time.Now()
	v, err := p.Wait()
	e.xferHostSec += time.Since(t0).Seconds()
	if err != nil {
		e.fail(err)
		return false
	}
	return v[stRun] == 0
}

// cgLoopDevice is cgLoop for stages 9 and 10: HPCCG's iterations, with the
// check and the residual history on the device (see the comment at the top
// of this file). It reports the same fields as cgLoop: Residuals[k−1] =
// normr_k, FinalResidual the last of them (or the initial residual when no
// iteration ran).
func cgLoopDevice(e *engine, maxIter int, tol float64, res *StageResult) ([]float64, error) {
	e.waxpby(1.0, vX, 0.0, vX, vP) // p = x
	e.spmv(vP, vAp)                // Ap = A·p (its partials of p·Ap are not used)
	e.waxpby(1.0, vB, -1.0, vAp, vR)
	e.op(KernelDdot, e.where(), func() { // the partials of r·r, which iteration 1 sums
		e.launch(KernelDdot, kDdotPartial, e.dotGrid, dotThreads, int32(e.n), e.dv[vR], e.dv[vR], e.dPartial)
	})
	loop := e.loop
	replays := max(maxIter-1, 1)
	var pend *gpuext.Pending[float64]
	ended := false
	for loop.Replays < replays && !ended && e.err == nil {
		b := min(loop.CheckEvery, replays-loop.Replays)
		t0 := time.Now()
		if loop.Graph {
			rg := e.graphFor(b)
			if rg == nil {
				return nil, fmt.Errorf("cg: no graph of %d iterations recorded", b)
			}
			e.replay(rg)
		} else {
			for range b {
				before := e.launches
				e.queueIterationDevice(maxIter, tol)
				loop.KernelsPerIteration = e.launches - before
			}
		}
		loop.HostSeconds += time.Since(t0).Seconds()
		loop.Replays += b
		if loop.Replays == replays {
			break
		}
		// Look at the state after this batch only once the next batch is
		// queued: the read waits for the batch before it.
		next := e.readState()
		loop.Checks++
		if pend != nil {
			ended = e.waitState(pend)
		}
		pend = next
	}
	if pend != nil {
		e.waitState(pend) // done by now; returns its pinned block to gpuext's pool
	}
	st := make([]float64, stLen)
	hist := make([]float64, e.dHist.Len())
	if e.err == nil {
		t0 := time.Now()
		e.fail(e.dSt.Download(st))
		e.countD2H(8*stLen, time.Since(t0).Seconds())
	}
	if e.err == nil {
		t0 := time.Now()
		e.fail(e.dHist.Download(hist))
		e.countD2H(8*int64(len(hist)), time.Since(t0).Seconds())
	}
	x := e.result()
	if e.err != nil {
		return nil, e.err
	}
	iters := int(st[stIter])
	if iters < 0 || iters > len(hist) || iters > max(maxIter-1, 0) {
		return nil, fmt.Errorf("cg: the device reports %d iterations, want 0 to %d", iters, max(maxIter-1, 0))
	}
	res.InitialResidual = st[stInit]
	res.Residuals = append(make([]float64, 0, iters), hist[:iters]...)
	res.Iterations = iters
	res.FinalResidual = res.InitialResidual
	if iters > 0 {
		res.FinalResidual = hist[iters-1]
	}
	loop.IdleReplays = loop.Replays - iters
	res.DeviceLoop = loop
	how := fmt.Sprintf("batches of %d iterations (%d kernels each) recorded once as graphs, %d graph launches for %d iterations",
		loop.IterationsPerGraph, loop.IterationsPerGraph*loop.KernelsPerIteration, loop.GraphLaunches, loop.Replays)
	if !loop.Graph {
		how = fmt.Sprintf("one iteration's %d kernels launched one by one, %d times (PlainLaunches)", loop.KernelsPerIteration, loop.Replays)
	}
	res.Notes = append(res.Notes, fmt.Sprintf(
		"host out of the loop: %s; the convergence check and the residual history on the device; the host read the loop state %d times (every %d iterations, one batch behind) and the history once at the end",
		how, loop.Checks, loop.CheckEvery))
	if loop.IdleReplays > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d replays were queued after the device had ended the loop: their kernels returned at once (counted in launches)", loop.IdleReplays))
	}
	res.Notes = append(res.Notes, "the dot products run inside the update kernels and the SpMV (partials of r·r in cgAlphaUpdateXR, of p·Ap in the SpMV, their sums in every block of the kernel that needs them): their flops and time are waxpby's and spmv's; ddot is the one ddotPartial before the loop")
	if math.IsNaN(res.FinalResidual) {
		res.Notes = append(res.Notes, "the residual became NaN and the device ended the loop, as HPCCG's check does")
	}
	return x, nil
}

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
// 9"). The host can then queue iterations without looking: it records one
// iteration (three kernels) as a graph, replays it up to max_iter − 1 times,
// reads the loop's state every CheckEvery iterations one batch behind (so
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
// per-launch cost (gpuext.Graph.Launch).

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

// prepareDeviceLoop records stage 9's iteration as a graph (unless
// PlainLaunches), before the timed solve; the caller closes e.graph.
func (e *engine) prepareDeviceLoop(maxIter int, tol float64) error {
	e.loop = &DeviceLoop{Graph: !e.opt.PlainLaunches, CheckEvery: e.opt.CheckEvery}
	if !e.loop.Graph {
		return nil
	}
	t0 := time.Now()
	g, err := e.record(maxIter, tol)
	if err != nil {
		return fmt.Errorf("recording one iteration as a graph: %w", err)
	}
	e.loop.RecordSeconds = time.Since(t0).Seconds()
	e.graph, e.loop.KernelsPerIteration = g, g.Kernels()
	return nil
}

// record records one iteration as a graph.
func (e *engine) record(maxIter int, tol float64) (*gpuext.Graph, error) {
	e.recording, e.graphOps = true, nil
	g, err := e.dev.Record(func() error {
		e.queueIterationDevice(maxIter, tol)
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
	return g, nil
}

// replay runs the graph once and books its kernels as launches of their
// operations; on the simulator at their GPU time (GraphLaunch.Kernels),
// plus whatever of the host's graph launch the kernels did not cover.
func (e *engine) replay(g *gpuext.Graph) {
	if e.err != nil {
		return
	}
	gl, err := g.Launch()
	if err != nil {
		e.fail(err)
		return
	}
	if e.isSim && len(gl.Kernels) != len(e.graphOps) {
		e.fail(fmt.Errorf("cg: a graph replay ran %d kernels, %d were recorded", len(gl.Kernels), len(e.graphOps)))
		return
	}
	for i, k := range e.graphOps {
		var st *sim.Stats
		if e.isSim {
			st = gl.Kernels[i].Stats
		}
		e.opStat(k.op, e.where()).calls++
		e.count(k.op, k.kernel, k.grid, k.block, k.args, st, true)
	}
	e.graphHostModelSec += max(0, gl.HostSeconds-gl.GPUSeconds)
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
	g := e.graph
	replays := max(maxIter-1, 1)
	var pend *gpuext.Pending[float64]
	ended := false
	for loop.Replays < replays && !ended && e.err == nil {
		b := min(loop.CheckEvery, replays-loop.Replays)
		t0 := time.Now()
		for range b {
			if g != nil {
				e.replay(g)
			} else {
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
	how := fmt.Sprintf("one iteration (%d kernels) recorded once as a graph and replayed %d times", loop.KernelsPerIteration, loop.Replays)
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

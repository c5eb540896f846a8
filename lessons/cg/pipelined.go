package cg

import (
	"fmt"
	"math"
	"time"

	"github.com/warplab/warplab/gpuext"
)

// Stage 7: the convergence check one iteration behind.
//
// In stage 6 the host downloads rtrans (Download, a synchronous
// cuMemcpyDtoH) in the middle of every iteration and queues nothing until
// it has the value, so once the GPU has finished the kernels before the
// copy it idles until the host has queued the next ones: 149 times per
// solve. Stage 7 reads rtrans with gpuext's ReadAsync and, before it waits
// for iteration k's value, queues iteration k+1. The check "k+1 < max_iter
// and normr_k > tol" still decides whether iteration k+1 counts; when it
// says no, iteration k+1 has already been queued and is discarded.
//
// Discarding must leave iteration k's results intact, so x, r, p and the
// five scalars live in two buffer sets and iteration k writes set k%2 from
// set (k−1)%2: p' = r + beta·p (waxpbyDeviceScalar, out of place), then
// x' = x + alpha·p', r' = r − alpha·Ap (updateXRDotTo, updateXRDot out of
// place). The old r·r is the other set's rtrans, so no swap is needed. Ap and
// the ddot partials are shared: each is written and consumed within one
// iteration, in stream order, and no iteration after a discarded one reads
// them. The r·r that iteration 1 reports is the initial residual's; it is
// written to set 1, iteration 1's set, so that iteration 2's beta divides
// set 0's rtrans by set 1's.
//
// The kernels, their arguments' values and their order on the device are
// stage 6's, so the residual history and x are stage 6's bit for bit; only
// the host's order of queuing and waiting changes (and one more iteration
// may run, unseen).

// set returns buffer set i of stage 7: 0 is e.dv, e.ds; 1 is e.dv2, e.ds2
// with the shared Ap and b.
func (e *engine) set(i int) (v [nVecs]*gpuext.Buffer[float64], s [nScalars]*gpuext.Buffer[float64]) {
	if i%2 == 0 {
		return e.dv, e.ds
	}
	v, s = e.dv2, e.ds2
	v[vAp], v[vB] = e.dv[vAp], e.dv[vB]
	return v, s
}

// readAsync queues a read of device scalar b and counts it as one 8-byte
// download, host-timed around the call (the wait is timed in wait).
func (e *engine) readAsync(b *gpuext.Buffer[float64]) *gpuext.Pending[float64] {
	if e.err != nil {
		return nil
	}
	t0 := time.Now()
	p, err := b.ReadAsync(1)
	e.fail(err)
	e.countD2H(8, time.Since(t0).Seconds())
	return p
}

// wait returns the value of a read queued by readAsync, adding the host's
// wait to the copies' measured time.
func (e *engine) wait(p *gpuext.Pending[float64]) float64 {
	if e.err != nil || p == nil {
		return 0
	}
	t0 := time.Now()
	v, err := p.Wait()
	e.xferHostSec += time.Since(t0).Seconds()
	if err != nil {
		e.fail(err)
		return 0
	}
	return v[0]
}

// queueIteration queues iteration k of stage 7 (k ≥ 1) without waiting for
// anything, reading set (k−1)%2 and writing set k%2, and returns the number
// of launches it made. For k ≥ 2 it also queues the read of its r·r into
// e.pend[k%2].
//
// The launches are stage 6's iteration, in stage 6's order on the device:
//
//	k = 1:  waxpby                       p' = r (+ 0·r)
//	k ≥ 2:  ddotFinalDivide              rtrans' = Σ partials (r·r); beta' = rtrans' / rtrans
//	        (ReadAsync rtrans')
//	        waxpbyDeviceScalar           p' = r + beta'·p
//	        spmvCsrSubwarp               Ap = A·p'
//	        ddotPartial, ddotFinalDivide pAp' = p'·Ap; alpha' = rtrans' / pAp'
//	        updateXRDotTo                x' = x + alpha'·p', r' = r − alpha'·Ap, partials of r'·r'
func (e *engine) queueIteration(k int) int {
	before := e.launches
	cv, cs := e.set(k - 1)
	nv, ns := e.set(k)
	n := int32(e.n)
	if k == 1 {
		e.op(KernelWaxpby, e.where(), func() {
			e.launch(KernelWaxpby, kWaxpby, e.grid, e.opt.BlockSize, n, 1.0, cv[vR], 0.0, cv[vR], nv[vP])
		})
	} else {
		e.op(KernelDdot, e.where(), func() {
			e.launch(KernelDdot, kDdotFinalDivide, 1, dotThreads, int32(e.dotGrid), e.dPartial, ns[sRtrans], cs[sRtrans], int32(1), ns[sBeta])
		})
		e.pend[k%2] = e.readAsync(ns[sRtrans])
		e.op(KernelWaxpby, e.where(), func() {
			e.launch(KernelWaxpby, kWaxpbyDeviceScalar, e.grid, e.opt.BlockSize, n, cv[vR], ns[sBeta], 1.0, cv[vP], nv[vP])
		})
	}
	e.op(KernelSpMV, e.where(), func() { e.launchSpMV(nv[vP], nv[vAp]) })
	e.op(KernelDdot, e.where(), func() {
		e.launch(KernelDdot, kDdotPartial, e.dotGrid, dotThreads, n, nv[vP], nv[vAp], e.dPartial)
		e.launch(KernelDdot, kDdotFinalDivide, 1, dotThreads, int32(e.dotGrid), e.dPartial, ns[sPAp], ns[sRtrans], int32(0), ns[sAlpha])
	})
	e.op(KernelWaxpby, e.where(), func() {
		e.launch(KernelWaxpby, kUpdateXRDotTo, e.dotGrid, dotThreads, n, ns[sAlpha], nv[vP], nv[vAp],
			cv[vX], cv[vR], nv[vX], nv[vR], e.dPartial)
	})
	return e.launches - before
}

// cgLoopPipelined is cgLoop for stage 7: the same iterations and the same
// reported residuals (Residuals[k−1] = normr_k, FinalResidual = the last
// one, HPCCG's), with the host one iteration ahead of its check.
func cgLoopPipelined(e *engine, maxIter int, tol float64, res *StageResult) ([]float64, error) {
	_, s1 := e.set(1)
	e.waxpby(1.0, vX, 0.0, vX, vP) // p = x            (set 0)
	e.spmv(vP, vAp)                // Ap = A·p
	e.waxpby(1.0, vB, -1.0, vAp, vR)
	e.op(KernelDdot, e.where(), func() { // rtrans = r·r, iteration 1's, into set 1
		e.launch(KernelDdot, kDdotPartial, e.dotGrid, dotThreads, int32(e.n), e.dv[vR], e.dv[vR], e.dPartial)
		e.launch(KernelDdot, kDdotFinal, 1, dotThreads, int32(e.dotGrid), e.dPartial, s1[sRtrans])
	})
	e.pend[1] = e.readAsync(s1[sRtrans])
	res.Residuals = make([]float64, 0, max(maxIter-1, 0))

	ahead, aheadLaunches := 0, 0 // the iteration queued before its check, 0 when none
	if 1 < maxIter {
		ahead, aheadLaunches = 1, e.queueIteration(1)
	}
	normr := math.Sqrt(e.wait(e.pend[1]))
	res.InitialResidual = normr

	iters := 0
	// Invariant: iterations 1..iters count, normr is normr_iters (the
	// initial residual for 0 and 1), and iteration ahead (iters+1) may be
	// queued already. HPCCG runs iteration iters+1 when iters+1 < max_iter
	// and normr > tol; the first is known before queuing, the second only
	// after the wait.
	for e.err == nil && ahead != 0 && normr > tol {
		iters, ahead = ahead, 0 // it counts
		if iters+1 < maxIter {
			ahead, aheadLaunches = iters+1, e.queueIteration(iters+1)
		}
		if iters >= 2 {
			normr = math.Sqrt(e.wait(e.pend[iters%2]))
		}
		res.Residuals = append(res.Residuals, normr)
	}
	if ahead != 0 && e.err == nil { // queued, then ruled out by its check
		e.spec = Speculation{Iteration: ahead, Launches: aheadLaunches}
		if ahead >= 2 {
			e.spec.D2HCalls = 1
		}
	}
	// Iteration iters's results are in set iters%2: make it set 0 for
	// result (the download of x) and for the event replay's buffers.
	if iters%2 == 1 {
		e.dv[vX], e.dv2[vX] = e.dv2[vX], e.dv[vX]
		e.dv[vR], e.dv2[vR] = e.dv2[vR], e.dv[vR]
		e.dv[vP], e.dv2[vP] = e.dv2[vP], e.dv[vP]
		e.ds, e.ds2 = e.ds2, e.ds
	}
	x := e.result()
	if e.spec.D2HCalls > 0 {
		e.wait(e.pend[e.spec.Iteration%2]) // done by now; returns its pinned block to gpuext's pool
	}
	if e.err != nil {
		return nil, e.err
	}
	if e.spec.Iteration > 0 {
		res.Speculative = &e.spec
		res.Notes = append(res.Notes, fmt.Sprintf(
			"iteration %d was queued before normr_%d was known and discarded (speculative): its %d launches and %d read of r·r are counted in launches and copies",
			e.spec.Iteration, iters, e.spec.Launches, e.spec.D2HCalls))
	}
	res.Iterations = iters
	res.FinalResidual = normr
	return x, nil
}

package cg

import "sync"

// kernels is where one CG loop's three operations run. The serial and the
// parallel CPU versions implement it; the loop in solve.go times each call.
type kernels interface {
	spmv(a *CSR, x, y []float64)
	dot(x, y []float64) float64
	waxpby(alpha float64, x []float64, beta float64, y, w []float64)
}

// serialKernels is stage 0 as HPCCG runs it on one core.
type serialKernels struct{}

func (serialKernels) spmv(a *CSR, x, y []float64) { spmv(a, x, y) }
func (serialKernels) dot(x, y []float64) float64  { return ddot(x, y) }
func (serialKernels) waxpby(alpha float64, x []float64, beta float64, y, w []float64) {
	waxpby(alpha, x, beta, y, w)
}

// parallelKernels splits every vector into the same fixed chunks, chunk c
// covering [c·n/C, (c+1)·n/C), and gives each chunk a goroutine.
//
// SpMV and waxpby compute each element exactly as the serial kernels do, so
// they are bit-identical to serial. ddot is not: each chunk sums its range
// sequentially from 0.0 and the C partial sums are then added in chunk order
// from 0.0, which is a different association of the same products. The
// result depends on C (the Workers option) and on nothing else — not on
// GOMAXPROCS, not on scheduling — so a run is reproducible for a fixed C.
// With C = 1 it is the serial sum exactly.
type parallelKernels struct {
	chunks int
}

func (k parallelKernels) bounds(n, c int) (lo, hi int) {
	return c * n / k.chunks, (c + 1) * n / k.chunks
}

// each runs f over the chunks of n, one goroutine per chunk but the last,
// which runs on the caller's goroutine, and waits for all of them.
func (k parallelKernels) each(n int, f func(c, lo, hi int)) {
	var wg sync.WaitGroup
	for c := 0; c < k.chunks-1; c++ {
		lo, hi := k.bounds(n, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(c, lo, hi)
		}()
	}
	lo, hi := k.bounds(n, k.chunks-1)
	f(k.chunks-1, lo, hi)
	wg.Wait()
}

func (k parallelKernels) spmv(a *CSR, x, y []float64) {
	k.each(a.Rows, func(_, lo, hi int) { spmvRows(a, x, y, lo, hi) })
}

func (k parallelKernels) dot(x, y []float64) float64 {
	partial := make([]float64, k.chunks)
	k.each(len(x), func(c, lo, hi int) { partial[c] = ddot(x[lo:hi], y[lo:hi]) })
	sum := 0.0
	for _, p := range partial {
		sum += p
	}
	return sum
}

func (k parallelKernels) waxpby(alpha float64, x []float64, beta float64, y, w []float64) {
	k.each(len(w), func(_, lo, hi int) { waxpbyRange(alpha, x, beta, y, w, lo, hi) })
}

package cg

// The three HPCCG kernels on the CPU, in HPCCG's operation order.
//
// Every product is written float64(a*b): the Go spec lets a compiler fuse
// x*y + z into one fused multiply-add (one rounding instead of two), and the
// gc compiler does so on arm64, ppc64le, s390x, riscv64 and, with
// GOAMD64=v3 or higher, on amd64. An explicit conversion rounds the product
// and forbids the fusion on every architecture, so these kernels compute what
// HPCCG's serial C++ (g++ -O3 for baseline x86-64, which has no FMA)
// computes, whatever GOARCH and GOAMD64 say. fma_test.go checks both facts.

// spmvRows computes y[i] = Σ_j A[i,j]·x[j] for rows lo..hi−1, as
// HPC_sparsemv does: each row's sum starts from 0.0 and adds the products in
// stored (ascending column) order.
func spmvRows(a *CSR, x, y []float64, lo, hi int) {
	rp, cols, vals := a.RowPtr, a.ColIdx, a.Val
	for i := lo; i < hi; i++ {
		cs := cols[rp[i]:rp[i+1]]
		vs := vals[rp[i]:rp[i+1]]
		vs = vs[:len(cs)]
		sum := 0.0
		for j, c := range cs {
			sum += float64(vs[j] * x[c])
		}
		y[i] = sum
	}
}

// spmv computes y = A·x over all rows, serially.
func spmv(a *CSR, x, y []float64) { spmvRows(a, x, y, 0, a.Rows) }

// ddot returns x·y summed sequentially from 0.0, as HPCCG's ddot does (it
// has a separate x == y branch computing x[i]*x[i], which gives the same
// bits).
func ddot(x, y []float64) float64 {
	y = y[:len(x)]
	sum := 0.0
	for i, xi := range x {
		sum += float64(xi * y[i])
	}
	return sum
}

// waxpby computes w = alpha·x + beta·y with HPCCG's three branches: when
// alpha is 1 the product alpha·x is skipped (w = x + beta·y), when beta is 1
// beta·y is skipped, else both products are rounded and added. The branches
// matter for the bits only through FMA, which the conversions rule out, but
// they are HPCCG's operations and the CUDA kernel in cg.cu keeps them too.
// w may alias x or y (HPCCG calls waxpby(n, 1, x, alpha, p, x)).
func waxpby(alpha float64, x []float64, beta float64, y, w []float64) {
	waxpbyRange(alpha, x, beta, y, w, 0, len(w))
}

func waxpbyRange(alpha float64, x []float64, beta float64, y, w []float64, lo, hi int) {
	x, y, w = x[lo:hi], y[lo:hi], w[lo:hi]
	switch {
	case alpha == 1.0:
		for i := range w {
			w[i] = x[i] + float64(beta*y[i])
		}
	case beta == 1.0:
		for i := range w {
			w[i] = float64(alpha*x[i]) + y[i]
		}
	default:
		for i := range w {
			w[i] = float64(alpha*x[i]) + float64(beta*y[i])
		}
	}
}

package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// Tolerances of the CPU checks: float32 sums in any order against a
// float64 reference, relative to the sum of the terms' magnitudes.
const relTol = 1e-4

// SampledEntries is how many entries a check compares where computing all
// of the reference would take the CPU minutes (products of N >= 1024).
const SampledEntries = 512

// closeTo reports whether got is within relTol of want, relative to scale
// (the sum of the magnitudes that made want).
func closeTo(got float32, want, scale float64) bool {
	return math.Abs(float64(got)-want) <= relTol*scale+1e-6
}

// closeToSum is closeTo for a float32 sum of n terms in some order: the
// tolerance is relTol or recursive summation's error bound, (n-1)·u
// relative to the sum of the magnitudes (Higham, Accuracy and Stability
// of Numerical Algorithms, §4.2; u = 2^-24 for float32), whichever is
// larger. A thread that sums a row of 2^23 entries one by one is 4e-4 off
// its float64 reference on the H200 and still right.
func closeToSum(got float32, want, scale float64, n int) bool {
	tol := max(relTol, float64(n-1)*0x1p-24)
	return math.Abs(float64(got)-want) <= tol*scale+1e-6
}

// download returns buffer b's contents.
func download[T sim.Elem](b *gpuext.Buffer[T]) ([]T, error) {
	out := make([]T, b.Len())
	if err := b.Download(out); err != nil {
		return nil, err
	}
	return out, nil
}

// randFloats returns n values in [lo, hi) from seed.
func randFloats(n int, seed uint64, lo, hi float32) []float32 {
	r := rand.New(rand.NewPCG(seed, 0x5357_4545_50))
	v := make([]float32, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float32()
	}
	return v
}

// sampleIdx returns k indices in [0, n) from seed (all of them when n <= k).
func sampleIdx(n, k int, seed uint64) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	r := rand.New(rand.NewPCG(seed, 0x6964_78))
	out := make([]int, k)
	for i := range out {
		out[i] = r.IntN(n)
	}
	return out
}

// checkProduct compares C = A B (n x n, row-major) at sampled entries, or
// all when n*n is at most SampledEntries·64.
func checkProduct(a, b, c []float32, n int) (string, error) {
	k := SampledEntries
	if n*n <= SampledEntries*64 {
		k = n * n
	}
	idx := sampleIdx(n*n, k, uint64(n))
	for _, e := range idx {
		i, j := e/n, e%n
		var want, scale float64
		for t := 0; t < n; t++ {
			p := float64(a[i*n+t]) * float64(b[t*n+j])
			want += p
			scale += math.Abs(p)
		}
		if !closeToSum(c[e], want, scale, n) {
			return "", fmt.Errorf("C[%d][%d] = %g, CPU reference %g", i, j, c[e], want)
		}
	}
	if k == n*n {
		return fmt.Sprintf("all %d entries within max(%.0e, (N-1)·2^-24) of the CPU reference", k, relTol), nil
	}
	return fmt.Sprintf("%d sampled entries within max(%.0e, (N-1)·2^-24) of the CPU reference", k, relTol), nil
}

package tiling

import (
	"context"
	"math/rand/v2"

	"github.com/warplab/warplab/sparse"
)

// CPU references. Each computes what its kernel computes, in the kernel's
// order of operations, so that a result can be compared bit for bit; every
// product is rounded to float32 before it is added (float32(a*b)), which
// keeps the Go compiler from fusing it into an FMA.

// refMatmul is C = A*B for N x N row-major matrices, each element summed
// from 0 over k = 0..N-1: the order of every matmul kernel in tiling.cu.
// It is N^3 multiply-adds on one core (about 11 minutes at N = 4096), so it
// looks at ctx every 16 elements of C (at most 16·8192 multiply-adds
// apart: about a millisecond, each a strided read of B that misses the
// caches, so on a loaded machine still well under a second) and returns
// ctx's error once it is done: Ctrl-C stops the check, not only the
// kernels.
func refMatmul(ctx context.Context, A, B []float32, N int) ([]float32, error) {
	C := make([]float32, N*N)
	for r := 0; r < N; r++ {
		for c := 0; c < N; c++ {
			if c%16 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			var acc float32
			for k := 0; k < N; k++ {
				acc += float32(A[r*N+k] * B[k*N+c])
			}
			C[r*N+c] = acc
		}
	}
	return C, nil
}

// refTranspose is a^T for an m x m matrix.
func refTranspose(a []float32, m int) []float32 {
	c := make([]float32, m*m)
	for r := 0; r < m; r++ {
		for k := 0; k < m; k++ {
			c[k*m+r] = a[r*m+k]
		}
	}
	return c
}

// CSR is the lessons' one CSR type (sparse.CSROf), float32 here; the
// device kernels' output is compared with it array by array.
type CSR = sparse.CSR

// refDenseToCSR converts a dense rows x cols matrix, keeping entries != 0.
func refDenseToCSR(M []float32, rows, cols int) CSR {
	c := CSR{Rows: rows, Cols: cols, RowPtr: make([]int32, rows+1)}
	for r := 0; r < rows; r++ {
		for j := 0; j < cols; j++ {
			if v := M[r*cols+j]; v != 0 {
				c.ColIdx = append(c.ColIdx, int32(j))
				c.Val = append(c.Val, v)
			}
		}
		c.RowPtr[r+1] = int32(len(c.Val))
	}
	return c
}

// refSpMVRow is y = A x with each row summed in order, as spmvCsrThread does.
func refSpMVRow(a CSR, x []float32) []float32 {
	y := make([]float32, a.Rows)
	for r := 0; r < a.Rows; r++ {
		var dot float32
		for e := a.RowPtr[r]; e < a.RowPtr[r+1]; e++ {
			dot += float32(x[a.ColIdx[e]] * a.Val[e])
		}
		y[r] = 0 + dot
	}
	return y
}

// refSpMVWarp is y = A x in the order of the warp-per-row kernels: lane L
// sums nonzeros L, L+32, ... of the row, then lane L adds lane L+s's partial
// for s = 16, 8, 4, 2, 1.
func refSpMVWarp(a CSR, x []float32) []float32 {
	y := make([]float32, a.Rows)
	for r := 0; r < a.Rows; r++ {
		var part [32]float32
		for lane := range part {
			for e := int(a.RowPtr[r]) + lane; e < int(a.RowPtr[r+1]); e += 32 {
				part[lane] += float32(x[a.ColIdx[e]] * a.Val[e])
			}
		}
		for s := 16; s > 0; s /= 2 {
			for lane := 0; lane < s; lane++ {
				part[lane] = part[lane] + part[lane+s]
			}
		}
		y[r] = 0 + part[0]
	}
	return y
}

// randomMatrix returns n values uniform in [-1, 1), reproducible from seed.
func randomMatrix(n int, seed uint64) []float32 {
	v, _ := randomMatrixContext(context.Background(), n, seed)
	return v
}

// randomMatrixContext is randomMatrix looking at ctx every 2^16 values (a
// 8192² matrix is most of a second of PCG), returning ctx's error once it
// is done.
func randomMatrixContext(ctx context.Context, n int, seed uint64) ([]float32, error) {
	rng := rand.New(rand.NewPCG(seed, 0x7469_6c69_6e67))
	v := make([]float32, n)
	for i := range v {
		if i%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v[i] = 2*rng.Float32() - 1
	}
	return v, nil
}

// randomSparse returns a rows x cols dense matrix whose entries are nonzero
// with probability density, with row r's density scaled by 1 + r%4 / 2 so
// rows differ in length.
func randomSparse(rows, cols int, density float64, seed uint64) []float32 {
	M, _ := randomSparseContext(context.Background(), rows, cols, density, seed)
	return M
}

// randomSparseContext is randomSparse looking at ctx before every row.
func randomSparseContext(ctx context.Context, rows, cols int, density float64, seed uint64) ([]float32, error) {
	rng := rand.New(rand.NewPCG(seed, 0x7370_6d76))
	M := make([]float32, rows*cols)
	for r := 0; r < rows; r++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := density * (1 + float64(r%4)/2)
		for j := 0; j < cols; j++ {
			if rng.Float64() < p {
				M[r*cols+j] = 2*rng.Float32() - 1
				if M[r*cols+j] == 0 {
					M[r*cols+j] = 0.5
				}
			}
		}
	}
	return M, nil
}

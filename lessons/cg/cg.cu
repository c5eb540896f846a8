// SPDX-License-Identifier: MIT
//
// The kernels of the CG lesson: HPCCG's three operations, SpMV, waxpby and
// ddot, plus the one scalar kernel the GPU-resident stages need.
//
// The Go driver loads these by name from PTX (nvcc 11.8, -arch=compute_75,
// so the PTX loads on every driver since CUDA 11.8), which is why every
// kernel is extern "C": no C++ name mangling. Every value is double: CG
// needs it, and it matches the CPU stage bit for bit where the operation
// order allows.
//
// Bits. nvcc contracts a*b + c into a fused multiply-add by default
// (-fmad=true), which rounds once instead of twice and so differs in the
// last bit from HPCCG's serial C++ and from the Go stage 0. SpMV
// thread-per-row and waxpby below spell every product and sum with
// __dmul_rn and __dadd_rn, which the compiler never fuses: those kernels
// then produce exactly the CPU's bits, so stage 1 (SpMV on the GPU, the rest
// on the CPU) reproduces HPCCG's residual history bit for bit. A reduction
// adds in a different order from a sequential loop, so ddot and the
// several-threads-per-row SpMV cannot match the CPU bits; they are
// deterministic instead: the same launch gives the same bits on every run and
// every GPU.
//
// Matrix: CSR with int rowPtr (n + 1 offsets) and int cols, double vals,
// columns ascending within a row, at most 27 nonzeros per row (the 27-point
// stencil). int caps the matrix at 2^31 - 1 nonzeros; the Go generator
// refuses bigger grids.
//
// Build the PTX: nvcc -ptx -arch=compute_75 -o cg.ptx cg.cu

#include <cstddef>

// 32 on every GPU this course targets. The built-in warpSize is a runtime
// value, so it cannot size an array.
#define CG_WARP_SIZE 32

// Threads per block of both ddot passes. Fixed at compile time because it
// sizes the shared array of the tree, and part of the result: the tree's
// shape decides the order of the additions.
#define CG_DOT_THREADS 256

// ---------------------------------------------------------------- SpMV ----

// y = A * x, one thread per row: HPC_sparsemv's loop, one row per thread.
//
// One thread sums its row from 0.0 in stored order, rounding every product
// and every sum separately (__dmul_rn, __dadd_rn: never fused), which is
// exactly what the CPU does, so y is bit-identical to the CPU's.
//
// One warp: 32 lanes hold 32 consecutive rows. At step k, lane L reads
// vals[rowPtr[r0 + L] + k]; neighbouring rows of the stencil are 27 entries
// apart (fewer on the boundary), so the 32 lanes touch 32 different 216-byte
// stretches of vals and 108-byte stretches of cols: one request costs about
// 32 sectors for 8 useful bytes each. The gather x[cols[j]] is better,
// because neighbouring rows read neighbouring x. This is the kernel the
// article's Nsight Compute run flags with ~72% excessive sectors. Rows of one
// warp have 8 to 27 entries, so the warp issues until its longest row is done
// (only boundary warps mix lengths).
//
// Launch assumption: gridDim.x * blockDim.x >= n. No barrier and no shuffle,
// so the guard on the row is the whole bounds check.
// snippet: spmv-thread-per-row
extern "C" __global__ void spmvCsrThreadPerRow(int n,
                                               const int* __restrict__ rowPtr,
                                               const int* __restrict__ cols,
                                               const double* __restrict__ vals,
                                               const double* __restrict__ x,
                                               double* __restrict__ y) {
    const size_t row = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (row < static_cast<size_t>(n)) {
        double sum = 0.0;
        const int end = rowPtr[row + 1];
        for (int j = rowPtr[row]; j < end; ++j) {
            sum = __dadd_rn(sum, __dmul_rn(vals[j], x[cols[j]]));
        }
        y[row] = sum;
    }
}
// end snippet

// The same kernel with the row loop kept rolled.
//
// The trip count varies by lane on boundary warps. nvcc unrolls such a loop
// and runs the remainder iterations first, which changes which lanes' loads
// pair up in one request (DESIGN.md, "Simulator semantics"). With
// `#pragma unroll 1` every load instruction is lane k's step k for all
// lanes, and the simulator's request and sector counts match Nsight
// Compute's exactly. Same result bits as spmvCsrThreadPerRow.
//
// One warp and launch assumption: as spmvCsrThreadPerRow.
// snippet: spmv-thread-per-row-unroll1
extern "C" __global__ void spmvCsrThreadPerRowUnroll1(int n,
                                                      const int* __restrict__ rowPtr,
                                                      const int* __restrict__ cols,
                                                      const double* __restrict__ vals,
                                                      const double* __restrict__ x,
                                                      double* __restrict__ y) {
    const size_t row = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (row < static_cast<size_t>(n)) {
        double sum = 0.0;
        const int end = rowPtr[row + 1];
#pragma unroll 1
        for (int j = rowPtr[row]; j < end; ++j) {
            sum = __dadd_rn(sum, __dmul_rn(vals[j], x[cols[j]]));
        }
        y[row] = sum;
    }
}
// end snippet

// y = A * x, threadsPerRow consecutive threads per row (stage 5).
//
// A group of threadsPerRow lanes owns one row. Lane g of the group sums
// entries begin + g, begin + g + threadsPerRow, ... sequentially from 0.0;
// then the group adds its partial sums with a shuffle tree of width
// threadsPerRow, and the group's first lane writes y. For the stencil's rows
// of up to 27 entries, 4 or 8 threads per row keep most lanes busy (a whole
// warp per row would leave 5 of 32 lanes idle on every row and 24 of 32 idle
// in the second pass).
//
// One warp, threadsPerRow = 8: four rows at once. At step k, the eight lanes
// of a group read eight consecutive vals (64 bytes, two sectors) and eight
// consecutive cols, and the four groups read four neighbouring rows, which
// are adjacent in memory, so one request touches about 8 sectors instead of
// thread-per-row's 32. The loads coalesce because neighbouring lanes now
// read neighbouring entries of the same row.
//
// Bits: the sum is re-associated (strided partials, then a fixed tree), so y
// differs from the CPU's in the last bits; for a fixed threadsPerRow it is
// the same on every run and GPU. The loop is kept rolled (unroll 1) for the
// simulator, as in spmvCsrThreadPerRowUnroll1.
//
// Launch assumptions: threadsPerRow is a power of two from 1 to 32;
// blockDim.x is a multiple of 32; gridDim.x * blockDim.x >= n *
// threadsPerRow. Every lane of the warp must reach the shuffle named by the
// full mask, so a lane past the last row does not return early: it runs an
// empty loop, takes part in the shuffle, and only its write is guarded.
// snippet: spmv-subwarp
extern "C" __global__ void spmvCsrSubwarp(int n, int threadsPerRow,
                                          const int* __restrict__ rowPtr,
                                          const int* __restrict__ cols,
                                          const double* __restrict__ vals,
                                          const double* __restrict__ x,
                                          double* __restrict__ y) {
    const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    const size_t row = t / threadsPerRow;
    const int g = static_cast<int>(t % threadsPerRow);
    int begin = 0;
    int end = 0;
    if (row < static_cast<size_t>(n)) {
        begin = rowPtr[row];
        end = rowPtr[row + 1];
    }
    double sum = 0.0;
#pragma unroll 1
    for (int j = begin + g; j < end; j += threadsPerRow) {
        sum = __dadd_rn(sum, __dmul_rn(vals[j], x[cols[j]]));
    }
    // A fixed tree inside each group of threadsPerRow lanes: width keeps the
    // shuffle from reading across groups.
    for (int offset = threadsPerRow / 2; offset > 0; offset /= 2) {
        sum = __dadd_rn(sum, __shfl_down_sync(0xffffffffu, sum, offset, threadsPerRow));
    }
    if (g == 0 && row < static_cast<size_t>(n)) {
        y[row] = sum;
    }
}
// end snippet

// Ap = A * p without A (stage 8, "matrix-free"): HPCCG's matrix is the
// 27-point stencil, so every entry of row (ix, iy, iz) is known from the grid
// and need not be read. The thread walks the row's neighbours exactly as
// generate_matrix stores them: sz = -1..1 (outer), sy = -1..1, sx = -1..1
// (inner), skipping a neighbour outside the grid (0 <= ix+sx < nx,
// 0 <= iy+sy < ny, 0 <= iz+sz < nz, which for an in-range x and y is
// generate_matrix's 0 <= column < n), with 27.0 on the diagonal and -1.0 off
// it. So it adds the same products in the same order, from 0.0, rounding
// each with __dmul_rn and __dadd_rn: Ap is bit-identical to
// spmvCsrThreadPerRow's (and to the CPU's HPC_sparsemv) on HPCCG's matrix,
// and to spmvCsrSubwarp's with threadsPerRow = 1. What it gives up: it
// computes that one matrix and no other sparse matrix.
//
// One warp: 32 lanes own 32 consecutive rows, which lie along x (a warp
// that crosses the end of an x-line continues on the next line). The three
// loops have constant trip counts, so nvcc unrolls them into 27 loads of p;
// at each of them lane L reads p[row0 + L + offset] with one offset for the
// whole warp: 32 consecutive doubles, 256 bytes, fully coalesced (a lane
// whose neighbour is off the grid is predicated off). The 27 loads of a
// warp overlap 27-fold in L1/L2, so from DRAM the kernel reads p about once
// and writes Ap once: 16 bytes per row, against the CSR kernels' 16 + 12 ×
// 27 (vals, cols) + 4 (rowPtr). No row pointers, no column indices, no
// values.
//
// Launch assumption: gridDim.x * blockDim.x >= nx * ny * nz, and
// nx * ny * nz < 2^31 (the generator's int32 limit). No barrier and no
// shuffle, so the guard on the row is the whole bounds check.
// snippet: spmv-stencil27
extern "C" __global__ void spmvStencil27(int nx, int ny, int nz,
                                         const double* __restrict__ p,
                                         double* __restrict__ Ap) {
    const int nxy = nx * ny;
    const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (t < static_cast<size_t>(nxy) * nz) {
        const int row = static_cast<int>(t);
        const int ix = row % nx;
        const int iy = (row / nx) % ny;
        const int iz = row / nxy;
        double sum = 0.0;
#pragma unroll
        for (int sz = -1; sz <= 1; ++sz) {
#pragma unroll
            for (int sy = -1; sy <= 1; ++sy) {
#pragma unroll
                for (int sx = -1; sx <= 1; ++sx) {
                    if (iz + sz >= 0 && iz + sz < nz && iy + sy >= 0 && iy + sy < ny &&
                        ix + sx >= 0 && ix + sx < nx) {
                        const double v = (sz == 0 && sy == 0 && sx == 0) ? 27.0 : -1.0;
                        sum = __dadd_rn(sum, __dmul_rn(v, p[row + sz * nxy + sy * nx + sx]));
                    }
                }
            }
        }
        Ap[row] = sum;
    }
}
// end snippet

// -------------------------------------------------------------- waxpby ----

// w = alpha * x + beta * y, with HPCCG's three branches: alpha == 1 skips
// alpha * x, beta == 1 skips beta * y. The branch depends only on kernel
// arguments, so it is uniform across the grid and costs no divergence.
//
// One thread owns one element. One warp: 32 lanes read 32 consecutive
// doubles of x and of y (256 bytes, eight sectors each) and write 32 to w:
// perfectly coalesced, three streams, 24 bytes and 2 flops (HPCCG counts 2)
// per element, so the kernel runs at memory bandwidth.
//
// Bits: __dmul_rn and __dadd_rn, never fused, so w is the CPU's w exactly.
// w may alias x or y (HPCCG writes x = x + alpha * p in place): each element
// is read and written by the same thread, so that is safe, and the pointers
// are not __restrict__ for that reason.
//
// Launch assumption: gridDim.x * blockDim.x >= n.
// snippet: waxpby
extern "C" __global__ void waxpby(int n, double alpha, const double* x,
                                  double beta, const double* y, double* w) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < static_cast<size_t>(n)) {
        if (alpha == 1.0) {
            w[i] = __dadd_rn(x[i], __dmul_rn(beta, y[i]));
        } else if (beta == 1.0) {
            w[i] = __dadd_rn(__dmul_rn(alpha, x[i]), y[i]);
        } else {
            w[i] = __dadd_rn(__dmul_rn(alpha, x[i]), __dmul_rn(beta, y[i]));
        }
    }
}
// end snippet

// w = x + (sign * scale[0]) * y, with the scale read from device memory
// (stages 3-5, where alpha and beta never leave the GPU).
//
// The three updates of a resident CG iteration are this kernel:
// p = r + beta * p (sign +1, scale = beta), x = x + alpha * p (+1, alpha),
// r = r - alpha * Ap (-1, alpha). sign is +1 or -1, so sign * scale[0] is
// exact, and the result is bit-identical to waxpby(n, 1, x, +-alpha, y, w).
//
// One thread owns one element. One warp: as waxpby, plus one load of
// scale[0] that all 32 lanes share (one request, one sector, an L1 hit after
// the first warp of the SM).
//
// Launch assumption: gridDim.x * blockDim.x >= n; scale points at a double
// the previous kernel in the same stream wrote, so stream order makes it
// visible without a copy to the host.
// snippet: waxpby-device-scalar
extern "C" __global__ void waxpbyDeviceScalar(int n, const double* x,
                                              const double* __restrict__ scale,
                                              double sign, const double* y,
                                              double* w) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < static_cast<size_t>(n)) {
        const double beta = sign * scale[0];
        w[i] = __dadd_rn(x[i], __dmul_rn(beta, y[i]));
    }
}
// end snippet

// ---------------------------------------------------------------- ddot ----
//
// x . y in two passes with a fixed tree, no atomics.
//
// Why not atomicAdd: a one-pass reduction where each block atomically adds
// its partial sum into one double adds the partials in the order the blocks
// happen to finish, which changes from run to run. Floating-point addition
// is not associative, so (a + b) + c and (a + c) + b can differ in the last
// bit, and then the residual history of CG, which amplifies last-bit
// differences once the residual is down at rounding level, changes between
// two runs of the same program on the same GPU. Two passes with a fixed
// grid and a fixed tree add in one order, always.
//
// The order is fixed by gridDim.x of the first pass and CG_DOT_THREADS; the
// host picks gridDim.x as a constant, not from the GPU's SM count, so the
// bits are the same on every GPU too. They differ from the CPU's sequential
// sum, which no parallel reduction reproduces.

// Every thread of the block hands in v; when it returns, sh[0] holds
// their sum, added in a fixed binary tree (thread t adds t + s for
// s = 128, 64, ..., 1), so the bits never depend on timing. The ddot
// passes, their fused variants and the updates that carry the next dot
// product all reduce with it.
//
// Launch assumptions: blockDim.x == CG_DOT_THREADS, sh holds
// CG_DOT_THREADS doubles, and every thread of the block calls it (it holds
// barriers). One warp: each step, the lanes below s add their partner's
// value s doubles away; from s = 16 down, only warp 0 works.
__device__ void blockTreeSum(double* sh, double v) {
    const unsigned int tid = threadIdx.x;
    sh[tid] = v;
    __syncthreads();
    for (unsigned int s = CG_DOT_THREADS / 2; s > 0; s /= 2) {
        if (tid < s) {
            sh[tid] = __dadd_rn(sh[tid], sh[tid + s]);
        }
        __syncthreads();
    }
}

// Pass 1: one partial sum per block.
//
// Thread t of the grid (G threads in all) sums x[i] * y[i] for i = t, t + G,
// t + 2G, ... sequentially from 0.0, then the block adds its 256 sums in a
// shared-memory tree (128 pairs, 64, ..., 1) and thread 0 writes
// partial[blockIdx.x].
//
// One warp: in the grid-stride loop the 32 lanes read 32 consecutive
// doubles of x and of y (eight sectors each), coalesced. In the tree, the
// steps with stride 32 or more keep whole warps busy or idle; the last five
// steps run in warp 0 alone with 16, 8, 4, 2, 1 active lanes. The shared
// reads sh[tid] and sh[tid + s] are consecutive 8-byte words: 32 lanes
// read 256 contiguous bytes, two wavefronts, the minimum for 8-byte words,
// so the tree has no bank conflicts.
//
// Launch assumptions: blockDim.x == CG_DOT_THREADS (a power of two; it sizes
// sh); partial has gridDim.x entries. Every thread reaches every
// __syncthreads: the loop bound and the tree steps are block-uniform.
// snippet: ddot-partial
extern "C" __global__ void ddotPartial(int n, const double* __restrict__ x,
                                       const double* __restrict__ y,
                                       double* __restrict__ partial) {
    __shared__ double sh[CG_DOT_THREADS];
    const unsigned int tid = threadIdx.x;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    double sum = 0.0;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + tid;
         i < static_cast<size_t>(n); i += stride) {
        sum = __dadd_rn(sum, __dmul_rn(x[i], y[i]));
    }
    blockTreeSum(sh, sum);
    if (tid == 0) {
        partial[blockIdx.x] = sh[0];
    }
}
// end snippet

// Pass 2: the partial sums to one double, in device memory.
//
// One block. Thread t sums partial[t], partial[t + 256], ... sequentially
// from 0.0 (with 256 partials, exactly one each), then the same tree as pass
// 1, and thread 0 writes result[0]. The result stays on the device: stage 3
// feeds it straight to cgDivide, and copies only rtrans back for the
// convergence check.
//
// One warp: one coalesced load of 32 partials, then the tree as in pass 1.
//
// Launch assumptions: gridDim.x == 1, blockDim.x == CG_DOT_THREADS.
// snippet: ddot-final
extern "C" __global__ void ddotFinal(int nPartials,
                                     const double* __restrict__ partial,
                                     double* __restrict__ result) {
    __shared__ double sh[CG_DOT_THREADS];
    const unsigned int tid = threadIdx.x;
    double sum = 0.0;
    for (int i = static_cast<int>(tid); i < nPartials; i += CG_DOT_THREADS) {
        sum = __dadd_rn(sum, partial[i]);
    }
    blockTreeSum(sh, sum);
    if (tid == 0) {
        result[0] = sh[0];
    }
}
// end snippet

// -------------------------------------------------------------- scalar ----

// out[0] = num[0] / den[0], or 0 when den[0] is 0, on the device (stages
// 3-5).
//
// Both CG scalars are such a quotient: beta = rtrans / oldrtrans and
// alpha = rtrans / (p . Ap). Computing them here keeps them off the PCIe
// bus; the waxpby that needs one reads it with waxpbyDeviceScalar. The
// division is IEEE round-to-nearest (nvcc's default -prec-div=true), so the
// scalar equals the one the host would compute from the same two doubles.
//
// The zero guard is the lesson's one departure from HPCCG, the same as the
// Go stage 0's: on tiny grids CG solves exactly, r and p become zero and
// HPCCG divides 0/0, after which its x is NaN. With alpha = 0 the updates
// leave x and r unchanged and the host's next check sees normr = 0. A
// nonzero denominator gives HPCCG's bits.
//
// One thread does all the work; the other 31 lanes of its warp are not
// launched. It is a launch for one division, and its cost is the launch:
// that is stage 3's lesson about latency, not bandwidth.
//
// Launch assumption: <<<1, 1>>>; out may alias num or den (the one thread
// reads both before it writes).
// snippet: cg-divide
extern "C" __global__ void cgDivide(const double* num, const double* den,
                                    double* out) {
    const double d = den[0];
    out[0] = d != 0.0 ? num[0] / d : 0.0;
}
// end snippet

// dst[0] = src[0], one thread: the smallest kernel there is, which the
// lesson launches to measure what one launch costs the host.
//
// It once stood in for stage 3's device-to-device copy of r.r (the
// article's cudaMemcpy(d_oldrtrans, d_rtrans, ..., DeviceToDevice), which
// stage 4 replaces by swapping the two pointers on the host); that copy is
// now gpuext's Buffer.CopyFromBuffer, cuMemcpyDtoD on a GPU, counted as a
// copy, not as a kernel launch.
//
// Launch assumption: <<<1, 1>>>; src and dst are different doubles.
// snippet: copy-scalar
extern "C" __global__ void copyScalar(const double* __restrict__ src,
                                      double* __restrict__ dst) {
    dst[0] = src[0];
}
// end snippet

// ------------------------------------------------------- stage 6: fused ----

// The fused kernels of stage 6. Stage 5 launches ten kernels per iteration,
// three of them one-block or one-thread kernels whose cost is the launch,
// and reads r twice (in r = r - alpha * Ap and again in the next r . r).
// Stage 6 launches six: the same arithmetic in the same order, so its
// residual history is stage 5's bit for bit.

// ddotFinal and cgDivide in one launch: result[0] = the sum of the partials
// (the same loop and tree as ddotFinal, so the same bits), then thread 0
// computes out[0] = sum / other[0] (sumIsNumerator != 0, beta = r.r /
// oldrtrans) or other[0] / sum (sumIsNumerator == 0, alpha = rtrans /
// p.Ap), with cgDivide's zero guard and IEEE division, so out is the double
// cgDivide would write.
//
// One warp: as ddotFinal; the division is one more instruction of thread 0.
//
// Launch assumptions: gridDim.x == 1, blockDim.x == CG_DOT_THREADS; result,
// other and out are three different doubles.
// snippet: ddot-final-divide
extern "C" __global__ void ddotFinalDivide(int nPartials,
                                           const double* __restrict__ partial,
                                           double* __restrict__ result,
                                           const double* __restrict__ other,
                                           int sumIsNumerator,
                                           double* __restrict__ out) {
    __shared__ double sh[CG_DOT_THREADS];
    const unsigned int tid = threadIdx.x;
    double sum = 0.0;
    for (int i = static_cast<int>(tid); i < nPartials; i += CG_DOT_THREADS) {
        sum = __dadd_rn(sum, partial[i]);
    }
    blockTreeSum(sh, sum);
    if (tid == 0) {
        const double v = sh[0];
        result[0] = v;
        const double num = sumIsNumerator ? v : other[0];
        const double den = sumIsNumerator ? other[0] : v;
        out[0] = den != 0.0 ? num / den : 0.0;
    }
}
// end snippet

// The body of updateXRDot and updateXRDotTo: x = xIn + alpha * p,
// r = rIn - alpha * Ap, and the block's partial of the new r . r. xIn may be
// x and rIn may be r (each element is read before it is written, by the
// same thread), so the pointers carry no __restrict__.
__device__ __forceinline__ void updateXRDotInto(int n, const double* alpha,
                                                const double* p, const double* Ap,
                                                const double* xIn, const double* rIn,
                                                double* x, double* r,
                                                double* partial) {
    __shared__ double sh[CG_DOT_THREADS];
    const unsigned int tid = threadIdx.x;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    const double a = alpha[0];
    const double na = -1.0 * a;
    double sum = 0.0;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + tid;
         i < static_cast<size_t>(n); i += stride) {
        x[i] = __dadd_rn(xIn[i], __dmul_rn(a, p[i]));
        const double ri = __dadd_rn(rIn[i], __dmul_rn(na, Ap[i]));
        r[i] = ri;
        sum = __dadd_rn(sum, __dmul_rn(ri, ri));
    }
    blockTreeSum(sh, sum);
    if (tid == 0) {
        partial[blockIdx.x] = sh[0];
    }
}

// x = x + alpha * p and r = r - alpha * Ap in one pass, and the partial sums
// of the new r . r (ddotPartial's first pass) on the way.
//
// Thread t of the grid (G threads) handles i = t, t + G, ...: it updates
// x[i] and r[i] exactly as waxpbyDeviceScalar does (sign +1 and -1, so the
// same bits) and adds r[i] * r[i] to its running sum in ddotPartial's
// order; the block's tree is ddotPartial's. Launched with ddotPartial's grid
// (the host's fixed dotGrid), the partials are the ones ddotPartial(r, r)
// would write after the two updates, so the next r . r is stage 5's to the
// bit. Bytes: p, Ap, x and r read, x and r written, 48 per element instead
// of the 56 of two waxpbys and a ddot of r with itself.
//
// One warp: at each step of the grid-stride loop, 32 consecutive doubles of
// each of the four vectors (eight sectors per request, coalesced) and two
// coalesced stores; the tree as ddotPartial.
//
// Launch assumptions: blockDim.x == CG_DOT_THREADS, gridDim.x is the dot
// grid, partial has gridDim.x entries; alpha is a double the previous
// kernel in the stream wrote. Every thread reaches every __syncthreads.
// snippet: update-xr-dot
extern "C" __global__ void updateXRDot(int n, const double* __restrict__ alpha,
                                       const double* __restrict__ p,
                                       const double* __restrict__ Ap,
                                       double* __restrict__ x,
                                       double* __restrict__ r,
                                       double* __restrict__ partial) {
    updateXRDotInto(n, alpha, p, Ap, x, r, x, r, partial);
}
// end snippet

// ------------------------------------------------ stage 7: pipelined ----

// updateXRDot out of place, for stage 7: x = xIn + alpha * p and
// r = rIn - alpha * Ap, and the partials of the new r . r. Stage 7 queues
// iteration k+1 before it knows whether iteration k was the last; if it was,
// iteration k+1 must leave iteration k's x intact, so every update writes
// into the other of two buffer sets. Both kernels run updateXRDotInto, so
// the arithmetic, its order and the tree, and the bits, are stage 6's.
//
// One warp: as updateXRDot (four coalesced loads of 32 doubles, two
// coalesced stores per grid-stride step; the tree as ddotPartial).
//
// Launch assumptions: as updateXRDot; xIn and x, rIn and r are different
// buffers (the __restrict__ promises it).
// snippet: update-xr-dot-to
extern "C" __global__ void updateXRDotTo(int n, const double* __restrict__ alpha,
                                         const double* __restrict__ p,
                                         const double* __restrict__ Ap,
                                         const double* __restrict__ xIn,
                                         const double* __restrict__ rIn,
                                         double* __restrict__ x,
                                         double* __restrict__ r,
                                         double* __restrict__ partial) {
    updateXRDotInto(n, alpha, p, Ap, xIn, rIn, x, r, partial);
}
// end snippet

// ------------------------------------------------- copy bandwidth probe ----

// y = x, one double per thread: the device's copy bandwidth, measured in
// the same run as the solve, is the yardstick for the solver's bytes per
// second (issue 7: "a fraction of the copy bandwidth").
//
// One warp: 32 consecutive doubles read (eight sectors), 32 written; every
// byte moved is a byte the result needs, so the kernel runs at the memory
// system's streaming rate.
//
// Launch assumption: gridDim.x * blockDim.x >= n; x and y do not overlap.
// snippet: copy-vector
extern "C" __global__ void copyVector(int n, const double* __restrict__ x,
                                      double* __restrict__ y) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < static_cast<size_t>(n)) {
        y[i] = x[i];
    }
}
// end snippet

// ------------------------------------ stage 9: the host out of the loop ----

// Stages 3 to 8 bring r.r to the host once per iteration for the
// convergence check, and the host queues the next iteration only around
// that read: the GPU idles while the host catches up (about 8 to 11 of
// stage 7's and 8's milliseconds at 100^3 on the H200). Stage 9 moves the
// check onto the device. Every kernel of the loop reads a small state
// vector and does nothing once the state says the loop has ended, so the
// host may queue iterations blindly: it replays one iteration, recorded
// once as a CUDA graph, up to max_iter - 1 times, and looks at the state
// only every few iterations, one batch behind. The residual history is
// written to a device array and read once at the end.
//
// One iteration is three kernels instead of stage 7's six:
//
//   cgBetaUpdateP    rtrans = r.r from the partials the previous update left;
//                    the check; beta = rtrans / oldrtrans; p = r + beta * p
//   spmvCsrVector<W> Ap = A * p (or spmvStencil27Dot, matrix-free), and the
//   (spmvStencil27Dot) block partials of p . Ap on the way
//   cgAlphaUpdateXR  alpha = rtrans / p.Ap; x += alpha * p; r -= alpha * Ap;
//                    the partials of the next r.r
//
// ddotFinalDivide's one-block launches are gone: every block of the kernel
// that needs a scalar sums the (few hundred to two thousand) partials
// itself, in the same fixed tree, so every block gets the same bits, the
// ones ddotFinalDivide would have written. That costs each block one
// coalesced read of the partials from L2 and a tree: less than a launch.
//
// The state (double st[CG_ST_LEN], in device memory):
//   CG_ST_ITER   iterations done (k - 1 while iteration k runs)
//   CG_ST_RUN    1 while the current iteration runs, 0 once the loop ended
//   CG_ST_NEXT   the iteration count after the current one
//   CG_ST_RTRANS r.r of the current iteration
//   CG_ST_OLD    r.r of the previous iteration (HPCCG's oldrtrans)
//   CG_ST_INIT   the initial residual ||b - A x0||
// Doubles only, so the host reads it with the same buffer type as the
// history. A word one kernel writes is never read by another block of the
// same kernel: cgBetaUpdateP reads ITER and OLD and writes RUN, NEXT,
// RTRANS; cgAlphaUpdateXR reads RUN and RTRANS and writes ITER and OLD; the
// SpMV reads RUN. Stream (and graph) order makes each write visible to the
// next kernel.
#define CG_ST_ITER 0
#define CG_ST_RUN 1
#define CG_ST_NEXT 2
#define CG_ST_RTRANS 3
#define CG_ST_OLD 4
#define CG_ST_INIT 5
#define CG_ST_LEN 6

// The sum of nPartials partials in ddotFinal's order (thread t adds
// partial[t], partial[t + 256], ... from 0.0, then the block tree), handed
// to every thread of the block. sh is reused afterwards, so the last
// barrier keeps thread 0 from overwriting sh[0] before everyone has read it.
__device__ __forceinline__ double blockSumPartials(double* sh, int nPartials,
                                                   const double* __restrict__ partial) {
    double sum = 0.0;
    for (int i = static_cast<int>(threadIdx.x); i < nPartials; i += CG_DOT_THREADS) {
        sum = __dadd_rn(sum, partial[i]);
    }
    blockTreeSum(sh, sum);
    const double v = sh[0];
    __syncthreads();
    return v;
}

// Iteration k's first kernel: the convergence check, beta and the new p.
//
// Every block sums the partials of r.r that the previous cgAlphaUpdateXR
// (or, before iteration 1, ddotPartial) left, so every block holds rtrans,
// bit for bit ddotFinalDivide's. Then HPCCG's loop condition, on the device:
// iteration k = ITER + 1 runs when k < maxIter and normr_(k-1) > tol, where
// normr_0 is the initial residual (this rtrans, when ITER is 0) and
// normr_(k-1) = sqrt(OLD) otherwise. sqrt is IEEE round-to-nearest (nvcc's
// default -prec-sqrt=true), as the host's math.Sqrt. NaN compares false, so
// a NaN residual ends the loop as it ends HPCCG's.
//
// If k runs: beta = rtrans / OLD (0 when OLD is 0, cgDivide's guard) and
// p = r + beta * p (waxpbyDeviceScalar's bits); for k = 1, p = r. Block 0
// records the residual: hist[k - 1] = normr_k = sqrt(rtrans), RTRANS, NEXT = k
// and RUN = 1. If not, block 0 sets RUN = 0 and nothing else changes, so
// every later launch of this kernel decides the same and the SpMV and the
// update skip their work.
//
// One warp: the partial sums as ddotFinal; then a grid-stride loop over the
// vectors, 32 consecutive doubles of r and of p read and 32 of p written per
// step, coalesced.
//
// Launch assumptions: blockDim.x == CG_DOT_THREADS, any gridDim.x (the
// vector loop strides the grid); partial holds nPartials entries; every
// thread reaches every barrier (the decision is block-uniform).
// snippet: cg-beta-update-p
extern "C" __global__ void cgBetaUpdateP(int n, int nPartials,
                                         const double* __restrict__ partial,
                                         double* __restrict__ st,
                                         double* __restrict__ hist,
                                         int maxIter, double tol,
                                         const double* __restrict__ r,
                                         double* __restrict__ p) {
    __shared__ double sh[CG_DOT_THREADS];
    const int done = static_cast<int>(st[CG_ST_ITER]);
    const double old = st[CG_ST_OLD];
    const double rtrans = blockSumPartials(sh, nPartials, partial);
    const bool first = done == 0;
    const double prevNorm = first ? sqrt(rtrans) : sqrt(old);
    const bool run = done + 1 < maxIter && prevNorm > tol;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    if (leader && first) {
        st[CG_ST_INIT] = prevNorm;
    }
    if (!run) {
        if (leader) {
            st[CG_ST_RUN] = 0.0;
        }
        return;
    }
    if (leader) {
        st[CG_ST_RTRANS] = rtrans;
        st[CG_ST_NEXT] = static_cast<double>(done + 1);
        st[CG_ST_RUN] = 1.0;
        hist[done] = sqrt(rtrans);
    }
    const double beta = old != 0.0 ? rtrans / old : 0.0;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
#pragma unroll 4
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
         i < static_cast<size_t>(n); i += stride) {
        p[i] = first ? r[i] : __dadd_rn(r[i], __dmul_rn(beta, p[i]));
    }
}
// end snippet

// Iteration k's last kernel: alpha, both updates and the next r.r's
// partials, in one pass.
//
// Every block sums the partials of p . Ap that the SpMV left (nPartials of
// them) in ddotFinal's order, so every block holds the same pAp, and
// computes alpha = rtrans / pAp (0 when pAp is 0), ddotFinalDivide's bits.
// Then updateXRDot's loop and tree: x = x + alpha * p, r = r - alpha * Ap in
// place, and partial[blockIdx.x] = this block's part of the new r . r (the
// partials ddotPartial(r, r) would write with this grid). Block 0 ends the
// iteration in the state: OLD = rtrans, ITER = NEXT. When RUN is 0 it
// returns at once.
//
// One warp: as updateXRDot, after one coalesced read of the partials.
//
// Launch assumptions: blockDim.x == CG_DOT_THREADS, gridDim.x == the dot
// grid the next cgBetaUpdateP is told (its nPartials); pApPartial holds
// nPartials entries; every thread reaches every barrier.
// snippet: cg-alpha-update-xr
extern "C" __global__ void cgAlphaUpdateXR(int n, int nPartials,
                                           const double* __restrict__ pApPartial,
                                           double* __restrict__ st,
                                           const double* __restrict__ p,
                                           const double* __restrict__ Ap,
                                           double* __restrict__ x,
                                           double* __restrict__ r,
                                           double* __restrict__ rrPartial) {
    __shared__ double sh[CG_DOT_THREADS];
    if (st[CG_ST_RUN] == 0.0) {
        return;
    }
    const double rtrans = st[CG_ST_RTRANS];
    const double pAp = blockSumPartials(sh, nPartials, pApPartial);
    const double a = pAp != 0.0 ? rtrans / pAp : 0.0;
    const double na = -1.0 * a;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    double sum = 0.0;
#pragma unroll 4
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
         i < static_cast<size_t>(n); i += stride) {
        x[i] = __dadd_rn(x[i], __dmul_rn(a, p[i]));
        const double ri = __dadd_rn(r[i], __dmul_rn(na, Ap[i]));
        r[i] = ri;
        sum = __dadd_rn(sum, __dmul_rn(ri, ri));
    }
    blockTreeSum(sh, sum);
    if (threadIdx.x == 0) {
        rrPartial[blockIdx.x] = sh[0];
        if (blockIdx.x == 0) {
            st[CG_ST_OLD] = rtrans;
            st[CG_ST_ITER] = st[CG_ST_NEXT];
        }
    }
}
// end snippet

// CSR-vector SpMV with the group width W fixed at compile time, and the
// partials of p . Ap on the way (stage 9's CSR SpMV).
//
// The row's arithmetic is spmvCsrSubwarp's with threadsPerRow = W: lane g
// of a group sums entries begin + g, begin + g + W, ... from 0.0 in order,
// then the group's shuffle tree, so for one W, Ap is stage 5-7's bit for
// bit. What changes is what the compiler can do with a constant W:
//   * the row index is a shift, not stage 5's 64-bit division by a runtime
//     value, in every thread;
//   * the row loop runs four steps a pass, unrolled (the order of the
//     additions stays, only the loads of four steps are issued before the
//     first add waits), so each lane has up to four vals and four cols
//     loads in flight instead of one. A row of the stencil has at most 27
//     entries: W = 8 lanes take it in at most four steps, one pass.
// The loads of rowPtr, cols, vals and x are read-only for the kernel's
// lifetime (const __restrict__), so nvcc may use the non-coherent
// read-only path (ld.global.nc) for them.
//
// The groups stride the grid (grid-stride over rows), so the grid is a
// constant the host picks from n and W alone (spmvBlocks in the Go
// engine), never from the GPU: each group's first lane adds p[row] * Ap[row]
// of its rows to a running sum in row order, and the block's tree writes
// dot[blockIdx.x]. The partials' order is fixed by the grid, so p . Ap has
// the same bits on every GPU and on the simulator; cgAlphaUpdateXR sums
// them. With W = 1 this is thread per row, and its Ap and partials are
// spmvStencil27Dot's bit for bit on HPCCG's matrix.
//
// One warp, W = 8: four rows at once, as spmvCsrSubwarp; the unrolled pass
// issues the eight loads (four of vals, four of cols) of a lane before the
// gathers of x.
//
// Launch assumptions: blockDim.x == CG_DOT_THREADS; W divides 32. Every
// lane of a warp must reach the shuffles, so a group past the last row
// runs an empty row and only its writes are guarded. When st[CG_ST_RUN] is
// 0 the whole grid returns before any shuffle (the value is the same for
// every thread). st may be a state whose RUN is 1 (the solve's first SpMV).
template <int W>
__device__ __forceinline__ void csrVectorDot(int n, const int* __restrict__ rowPtr,
                                             const int* __restrict__ cols,
                                             const double* __restrict__ vals,
                                             const double* __restrict__ x,
                                             double* __restrict__ y,
                                             const double* __restrict__ st,
                                             double* __restrict__ dot) {
    __shared__ double sh[CG_DOT_THREADS];
    if (st[CG_ST_RUN] == 0.0) {
        return;
    }
    const int g = static_cast<int>(threadIdx.x) % W;
    const size_t groups = static_cast<size_t>(gridDim.x) * (blockDim.x / W);
    const size_t nRows = static_cast<size_t>(n);
    // Every thread of the grid runs the same number of passes, so the
    // shuffles below always see the full warp.
    const size_t first = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) / W;
    const size_t passes = (nRows + groups - 1) / groups;
    double pAp = 0.0;
    for (size_t pass = 0; pass < passes; ++pass) {
        const size_t row = first + pass * groups;
        int begin = 0;
        int end = 0;
        if (row < nRows) {
            begin = rowPtr[row];
            end = rowPtr[row + 1];
        }
        // The group's lanes step through the row together, four steps a
        // pass: the pass count is the same for the group's W lanes (and,
        // with W = 8, one pass for every row of up to 32 entries, so a warp
        // never splits), and a lane past the row's end is predicated off
        // instead of leaving the loop early. A plain `j < end` loop,
        // unrolled, splits a warp whose rows differ in length between the
        // unrolled body and the remainder and issues each load twice with
        // part of the lanes. The terms are added in the same order as
        // spmvCsrSubwarp's: steps k = 0, 1, ... of lane g.
        const int steps = (end - begin + W - 1) / W;
        double sum = 0.0;
#pragma unroll 1
        for (int k0 = 0; k0 < steps; k0 += 4) {
            // Issue the pass's loads first (cols, then vals and the
            // gathers of x), then add in order: the loads of four steps
            // are in flight together.
            int c[4];
            double v[4], xv[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const int j = begin + g + (k0 + u) * W;
                c[u] = j < end ? cols[j] : 0;
            }
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const int j = begin + g + (k0 + u) * W;
                v[u] = j < end ? vals[j] : 0.0;
                xv[u] = j < end ? x[c[u]] : 0.0;
            }
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                if (begin + g + (k0 + u) * W < end) {
                    sum = __dadd_rn(sum, __dmul_rn(v[u], xv[u]));
                }
            }
        }
#pragma unroll
        for (int offset = W / 2; offset > 0; offset /= 2) {
            sum = __dadd_rn(sum, __shfl_down_sync(0xffffffffu, sum, offset, W));
        }
        if (g == 0 && row < nRows) {
            y[row] = sum;
            pAp = __dadd_rn(pAp, __dmul_rn(x[row], sum));
        }
    }
    blockTreeSum(sh, pAp);
    if (threadIdx.x == 0) {
        dot[blockIdx.x] = sh[0];
    }
}

// One extern "C" kernel per width (a template itself cannot have C
// linkage): spmvCsrVector1 ... spmvCsrVector32. Written out, not made by a
// macro, so that each has its source for the lesson's tools.

extern "C" __global__ void spmvCsrVector1(int n, const int* __restrict__ rowPtr,
                                        const int* __restrict__ cols,
                                        const double* __restrict__ vals,
                                        const double* __restrict__ x,
                                        double* __restrict__ y,
                                        const double* __restrict__ st,
                                        double* __restrict__ dot) {
    csrVectorDot<1>(n, rowPtr, cols, vals, x, y, st, dot);
}

extern "C" __global__ void spmvCsrVector2(int n, const int* __restrict__ rowPtr,
                                        const int* __restrict__ cols,
                                        const double* __restrict__ vals,
                                        const double* __restrict__ x,
                                        double* __restrict__ y,
                                        const double* __restrict__ st,
                                        double* __restrict__ dot) {
    csrVectorDot<2>(n, rowPtr, cols, vals, x, y, st, dot);
}

extern "C" __global__ void spmvCsrVector4(int n, const int* __restrict__ rowPtr,
                                        const int* __restrict__ cols,
                                        const double* __restrict__ vals,
                                        const double* __restrict__ x,
                                        double* __restrict__ y,
                                        const double* __restrict__ st,
                                        double* __restrict__ dot) {
    csrVectorDot<4>(n, rowPtr, cols, vals, x, y, st, dot);
}

extern "C" __global__ void spmvCsrVector8(int n, const int* __restrict__ rowPtr,
                                        const int* __restrict__ cols,
                                        const double* __restrict__ vals,
                                        const double* __restrict__ x,
                                        double* __restrict__ y,
                                        const double* __restrict__ st,
                                        double* __restrict__ dot) {
    csrVectorDot<8>(n, rowPtr, cols, vals, x, y, st, dot);
}

extern "C" __global__ void spmvCsrVector16(int n, const int* __restrict__ rowPtr,
                                        const int* __restrict__ cols,
                                        const double* __restrict__ vals,
                                        const double* __restrict__ x,
                                        double* __restrict__ y,
                                        const double* __restrict__ st,
                                        double* __restrict__ dot) {
    csrVectorDot<16>(n, rowPtr, cols, vals, x, y, st, dot);
}

extern "C" __global__ void spmvCsrVector32(int n, const int* __restrict__ rowPtr,
                                        const int* __restrict__ cols,
                                        const double* __restrict__ vals,
                                        const double* __restrict__ x,
                                        double* __restrict__ y,
                                        const double* __restrict__ st,
                                        double* __restrict__ dot) {
    csrVectorDot<32>(n, rowPtr, cols, vals, x, y, st, dot);
}

// spmvStencil27 with the partials of p . Ap on the way, gated by the state
// (stage 9, matrix-free).
//
// Each thread computes rows t, t + T, t + 2T, ... (T threads in the grid)
// exactly as spmvStencil27 computes one row (the same 27 terms in the same
// order from 0.0), so Ap is stage 8's bit for bit, and adds p[row] * Ap[row]
// of its rows to a running sum; the block tree writes dot[blockIdx.x], in
// the order spmvCsrVector1 uses on the same grid.
//
// One warp: as spmvStencil27 for each of its rows; p[row] for the dot
// product is the diagonal term's load, already in a register.
//
// Launch assumptions: blockDim.x == CG_DOT_THREADS; gridDim.x is the host's
// spmvBlocks(n, 1); nx * ny * nz < 2^31. When st[CG_ST_RUN] is 0 the grid
// returns at once.
// snippet: spmv-stencil27-dot
extern "C" __global__ void __launch_bounds__(CG_DOT_THREADS, 8) spmvStencil27Dot(int nx, int ny, int nz,
                                            const double* __restrict__ p,
                                            double* __restrict__ Ap,
                                            const double* __restrict__ st,
                                            double* __restrict__ dot) {
    __shared__ double sh[CG_DOT_THREADS];
    if (st[CG_ST_RUN] == 0.0) {
        return;
    }
    const int nxy = nx * ny;
    const size_t n = static_cast<size_t>(nxy) * nz;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    double pAp = 0.0;
    for (size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; t < n; t += stride) {
        const int row = static_cast<int>(t);
        const int ix = row % nx;
        const int iy = (row / nx) % ny;
        const int iz = row / nxy;
        double sum = 0.0;
#pragma unroll
        for (int sz = -1; sz <= 1; ++sz) {
#pragma unroll
            for (int sy = -1; sy <= 1; ++sy) {
#pragma unroll
                for (int sx = -1; sx <= 1; ++sx) {
                    if (iz + sz >= 0 && iz + sz < nz && iy + sy >= 0 && iy + sy < ny &&
                        ix + sx >= 0 && ix + sx < nx) {
                        const double v = (sz == 0 && sy == 0 && sx == 0) ? 27.0 : -1.0;
                        sum = __dadd_rn(sum, __dmul_rn(v, p[row + sz * nxy + sy * nx + sx]));
                    }
                }
            }
        }
        Ap[row] = sum;
        pAp = __dadd_rn(pAp, __dmul_rn(p[row], sum));
    }
    blockTreeSum(sh, pAp);
    if (threadIdx.x == 0) {
        dot[blockIdx.x] = sh[0];
    }
}
// end snippet

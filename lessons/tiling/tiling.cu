// SPDX-License-Identifier: MIT
//
// Lecture 4 kernels: matrix multiplication (naive, tiled in shared memory,
// tiled with thread coarsening), three matrix transposes (naive, through
// shared memory, through padded shared memory), dense -> CSR conversion and
// CSR sparse matrix-vector products (a thread per row, a warp per row with a
// shared-memory tree, a warp per row with shuffles).
//
// Conventions. Matrices are row-major float32; matmul and transpose matrices
// are square, N x N. Thread x runs along columns, thread y along rows, so the
// 32 lanes of a warp hold consecutive columns of one row (or of two, four...
// rows when the block is narrower than 32).
//
// Tile size. Every tiled kernel takes its tile width from blockDim.x
// (blockDim = TILE x TILE) and its tiles from dynamic shared memory sized at
// launch, so one kernel serves the whole sweep TILE = 1, 2, 4, 8, 16, 32 that
// the lesson counts. The price is that nvcc cannot fully unroll the k loop
// over a tile as it would for a compile-time TILE; the loads and their
// addresses are the same either way, which is what this lesson measures.
// The coarsening factor, in contrast, is a template parameter (wrappers for
// 1, 2, 4 and 8 below): the COARSE accumulators must be registers, and only
// a compile-time array indexed by unrolled loops stays in registers.
//
// Bits. nvcc fuses a*b + c into one fma by default, which rounds once; the
// Go reference rounds the product and then the sum. Every dot product is
// written with __fmul_rn and __fadd_rn, which nvcc never contracts, so a GPU
// computes exactly the bits the simulator and the Go reference compute, and
// because every matmul variant adds its products in the same order
// (k = 0, 1, ..., N-1 from 0.0f), tiled and coarsened results equal the
// naive result bit for bit. (The zeros a bounds-checked tile pads with add
// +0.0f, which changes no sum.)
//
// Build the PTX: scripts/cuda/gen-ptx.sh (nvcc 11.8, -ptx -arch=compute_75 -O3).

// ---------------------------------------------------------------------------
// Matrix multiplication, C = A * B.
// ---------------------------------------------------------------------------

// One thread computes one element of C, reading a row of A and a column of B
// straight from global memory: 2N loads for 2N flops, so every flop costs a
// 4-byte load.
//
// One warp (blockDim.x = 32): 32 lanes own 32 consecutive columns of one
// row. At step k they all load the same A[row*N + k] (one sector, broadcast)
// and 32 consecutive B[k*N + col] (four sectors). With a narrower block the
// warp spans 32/blockDim.x rows and touches that many A words and B rows.
//
// Launch assumption: any 2-D block; grid covers N x N (ceil division). The
// guard is the whole bounds check because there is no barrier.
extern "C" __global__ void matmulNaive(const float* __restrict__ A,
                                       const float* __restrict__ B,
                                       float* __restrict__ C, int N) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N || col >= N) {
        return;
    }
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) {
        acc = __fadd_rn(acc, __fmul_rn(A[row * N + k], B[k * N + col]));
    }
    C[row * N + col] = acc;
}

// The tiled product. A block owns one TILE x TILE tile of C. The strip of A
// to its left and the strip of B above it are walked one TILE x TILE pair at
// a time (a phase): each thread copies one element of each into shared
// memory, the block waits, each thread does TILE multiply-adds out of shared
// memory, the block waits again. Every element fetched from global memory is
// used TILE times, so global loads fall from 2N^3 to 2N^3 / TILE.
//
// Why both barriers: the first keeps a thread from reading As/Bs words its
// neighbours have not written yet (read-after-write); the second keeps a fast
// thread from overwriting As/Bs with the next phase while slower threads
// still read this one (write-after-read). The NoSync variants drop one each.
//
// BOUNDS true: ceil(N/TILE) phases; elements outside the matrix are loaded as
// 0.0f and the store is guarded, so any N works. BOUNDS false is the slide
// version: N/TILE phases (integer division) and no checks at all, correct
// only when TILE divides N; otherwise the last block row reads past A.
//
// One warp (TILE = 32): the 32 lanes are one row ty of the tile. Loading, they
// read 32 consecutive floats of A and 32 of B (four sectors each) and store
// them to 32 consecutive shared words (no bank conflict). Computing, at step
// k they all read As[ty][k] (one word, broadcast) and Bs[k][0..31] (32 banks).
// With TILE = 16 a warp is two tile rows, 2 x 16 floats per load.
//
// Launch assumption: blockDim = (TILE, TILE, 1), TILE <= 32, grid =
// (ceil(N/TILE), ceil(N/TILE)), dynamic shared memory 2*TILE*TILE floats.
template <bool BOUNDS, bool SYNC1, bool SYNC2>
__device__ void matmulTiledBody(const float* __restrict__ A, const float* __restrict__ B,
                                float* __restrict__ C, int N) {
    extern __shared__ float smem[];
    const int TILE = blockDim.x;
    float* As = smem;                // As[ty][tx] = As[ty * TILE + tx]
    float* Bs = smem + TILE * TILE;  // Bs[ty][tx]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    const int phases = BOUNDS ? (N + TILE - 1) / TILE : N / TILE;
    for (int ph = 0; ph < phases; ++ph) {
        const int ka = ph * TILE + tx;  // column of A this thread copies
        const int kb = ph * TILE + ty;  // row of B this thread copies
        if (BOUNDS) {
            As[ty * TILE + tx] = (row < N && ka < N) ? A[row * N + ka] : 0.0f;
            Bs[ty * TILE + tx] = (kb < N && col < N) ? B[kb * N + col] : 0.0f;
        } else {
            As[ty * TILE + tx] = A[row * N + ka];
            Bs[ty * TILE + tx] = B[kb * N + col];
        }
        if (SYNC1) {
            __syncthreads();
        }
        for (int k = 0; k < TILE; ++k) {
            acc = __fadd_rn(acc, __fmul_rn(As[ty * TILE + k], Bs[k * TILE + tx]));
        }
        if (SYNC2) {
            __syncthreads();
        }
    }
    if (!BOUNDS || (row < N && col < N)) {
        C[row * N + col] = acc;
    }
}

// Bounds-checked tiled product: any N.
extern "C" __global__ void matmulTiled(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int N) {
    matmulTiledBody<true, true, true>(A, B, C, N);
}

// The slide version: N / TILE phases, no checks. Needs TILE | N.
extern "C" __global__ void matmulTiledNoBounds(const float* __restrict__ A, const float* __restrict__ B,
                                               float* __restrict__ C, int N) {
    matmulTiledBody<false, true, true>(A, B, C, N);
}

// Race demo: no barrier between filling the tiles and reading them.
extern "C" __global__ void matmulTiledNoSync1(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int N) {
    matmulTiledBody<true, false, true>(A, B, C, N);
}

// Race demo: no barrier between reading this phase's tiles and overwriting
// them with the next phase's (needs at least two phases to go wrong).
extern "C" __global__ void matmulTiledNoSync2(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int N) {
    matmulTiledBody<true, true, false>(A, B, C, N);
}

// Thread coarsening. Horizontally adjacent blocks of matmulTiled load the same
// strip of A, each on its own. Here one block computes COARSE horizontally
// adjacent output tiles: per phase it loads the A tile once and reuses it
// against COARSE B tiles, so A's global loads fall by another factor COARSE
// (B's stay at N^3/TILE). Each thread keeps COARSE accumulators in registers,
// and there are COARSE times fewer blocks: less parallelism for less traffic.
//
// One warp (TILE = 32): as in matmulTiled, but per phase the lanes load one A
// row segment and then, COARSE times, one B row segment.
//
// Launch assumption: blockDim = (TILE, TILE, 1), TILE * COARSE divides N (no
// bounds checks), grid = (N / (TILE*COARSE), N / TILE), dynamic shared
// memory 2*TILE*TILE floats.
template <int COARSE>
__device__ void matmulTiledCoarseBody(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int N) {
    extern __shared__ float smem[];
    const int TILE = blockDim.x;
    float* As = smem;
    float* Bs = smem + TILE * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col0 = blockIdx.x * TILE * COARSE + tx;
    float acc[COARSE];
#pragma unroll
    for (int c = 0; c < COARSE; ++c) {
        acc[c] = 0.0f;
    }
    for (int ph = 0; ph < N / TILE; ++ph) {
        As[ty * TILE + tx] = A[row * N + ph * TILE + tx];  // once per phase
#pragma unroll
        for (int c = 0; c < COARSE; ++c) {
            const int col = col0 + c * TILE;
            Bs[ty * TILE + tx] = B[(ph * TILE + ty) * N + col];
            __syncthreads();
            for (int k = 0; k < TILE; ++k) {
                acc[c] = __fadd_rn(acc[c], __fmul_rn(As[ty * TILE + k], Bs[k * TILE + tx]));
            }
            __syncthreads();
        }
    }
#pragma unroll
    for (int c = 0; c < COARSE; ++c) {
        C[row * N + col0 + c * TILE] = acc[c];
    }
}

extern "C" __global__ void matmulTiledCoarse1(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int N) {
    matmulTiledCoarseBody<1>(A, B, C, N);
}
extern "C" __global__ void matmulTiledCoarse2(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int N) {
    matmulTiledCoarseBody<2>(A, B, C, N);
}
extern "C" __global__ void matmulTiledCoarse4(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int N) {
    matmulTiledCoarseBody<4>(A, B, C, N);
}
extern "C" __global__ void matmulTiledCoarse8(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int N) {
    matmulTiledCoarseBody<8>(A, B, C, N);
}

// ---------------------------------------------------------------------------
// Transpose, c = a^T, m x m.
// ---------------------------------------------------------------------------

// One thread moves one element: c[col][row] = a[row][col].
//
// One warp (blockDim.x = 32): 32 lanes read 32 consecutive floats of one row
// of a (four sectors, coalesced) and write them down one column of c, 4m
// bytes apart: 32 sectors for 128 useful bytes.
//
// Launch assumption: any 2-D block, grid covering m x m; the guard is the
// bounds check.
extern "C" __global__ void transposeNaive(const float* __restrict__ a, float* __restrict__ c, int m) {
    const int myCol = blockDim.x * blockIdx.x + threadIdx.x;
    const int myRow = blockDim.y * blockIdx.y + threadIdx.y;
    if (myRow < m && myCol < m) {
        c[myCol * m + myRow] = a[myRow * m + myCol];
    }
}

// Through shared memory: a block reads its tile row by row (coalesced),
// stores it transposed in shared memory, waits, and writes the transposed
// tile out row by row (coalesced). Global traffic is now four sectors per
// request both ways; the cost moved into shared memory.
//
// PAD = 0 (transposeShared): the tile is smem[T][T]. Lane tx of a warp stores
// smem[tx][ty], word tx*T + ty: with T = 32 all 32 lanes hit the same bank,
// 32 wavefronts for one request (a 32-way bank conflict). The read
// smem[ty][tx] is conflict-free.
// PAD = 1 (transposeSharedPadded): smem[T][T+1]. Word tx*(T+1) + ty lands in
// bank (tx + ty) mod 32 for T = 32: 32 lanes, 32 banks, one wavefront.
//
// Launch assumption: blockDim = (T, T, 1) with T <= 32, T divides m (no bounds
// checks), grid = (m/T, m/T), dynamic shared memory T*(T+PAD) floats.
template <int PAD>
__device__ void transposeSharedBody(const float* __restrict__ a, float* __restrict__ c, int m) {
    extern __shared__ float smem[];
    const int T = blockDim.x;
    const int tileCol = T * blockIdx.x;
    const int tileRow = T * blockIdx.y;
    const int tx = threadIdx.x, ty = threadIdx.y;
    smem[tx * (T + PAD) + ty] = a[(tileRow + ty) * m + tileCol + tx];
    __syncthreads();
    c[(tileCol + ty) * m + tileRow + tx] = smem[ty * (T + PAD) + tx];
}

extern "C" __global__ void transposeShared(const float* __restrict__ a, float* __restrict__ c, int m) {
    transposeSharedBody<0>(a, c, m);
}

extern "C" __global__ void transposeSharedPadded(const float* __restrict__ a, float* __restrict__ c, int m) {
    transposeSharedBody<1>(a, c, m);
}

// ---------------------------------------------------------------------------
// Dense -> CSR, in two kernels around a host scan.
// ---------------------------------------------------------------------------

// Step 1: counts[r] = nonzeros in row r. One thread scans one row.
//
// One warp: 32 lanes scan 32 consecutive rows, so at step j they read
// M[r*cols + j] for 32 rows: 32 sectors per request, the uncoalesced pattern
// this lecture warns about. It is kept because its output order is trivial
// and the conversion runs once; the host then turns counts into rowPtr with
// an exclusive scan (n + 1 ints; a device scan is a lecture of its own).
//
// Launch assumption: 1-D, gridDim.x * blockDim.x >= rows.
extern "C" __global__ void denseRowCount(const float* __restrict__ M, int rows, int cols,
                                         int* __restrict__ counts) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    int n = 0;
    for (int j = 0; j < cols; ++j) {
        if (M[r * cols + j] != 0.0f) {
            ++n;
        }
    }
    counts[r] = n;
}

// Step 2: each thread walks its row again and writes its nonzeros, in
// ascending column order, from rowPtr[r] on.
//
// Launch assumption: as denseRowCount; rowPtr is the exclusive scan of counts.
extern "C" __global__ void denseToCSR(const float* __restrict__ M, int rows, int cols,
                                      const int* __restrict__ rowPtr, int* __restrict__ colIndex,
                                      float* __restrict__ data) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    int out = rowPtr[r];
    for (int j = 0; j < cols; ++j) {
        const float v = M[r * cols + j];
        if (v != 0.0f) {
            colIndex[out] = j;
            data[out] = v;
            ++out;
        }
    }
}

// ---------------------------------------------------------------------------
// CSR SpMV, y += A x.
// ---------------------------------------------------------------------------

// The lecture's SpMVCSRKernel: one thread per row.
//
// One warp: 32 lanes own 32 consecutive rows. At step k lane L reads the k-th
// nonzero of its own row, a whole row's worth of nonzeros away from lane
// L+1's: up to 32 sectors per request. Rows of different lengths leave lanes
// idle until the longest row of the warp is done.
//
// Launch assumption: 1-D, gridDim.x * blockDim.x >= numRows.
extern "C" __global__ void spmvCsrThread(const float* __restrict__ data, const int* __restrict__ colIndex,
                                         const int* __restrict__ rowPtr, const float* __restrict__ x,
                                         float* __restrict__ y, int numRows) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < numRows) {
        float dot = 0.0f;
        const int start = rowPtr[row];
        const int end = rowPtr[row + 1];
        for (int elem = start; elem < end; ++elem) {
            dot = __fadd_rn(dot, __fmul_rn(x[colIndex[elem]], data[elem]));
        }
        y[row] = y[row] + dot;
    }
}

// One warp per row ("vector CSR"). Lane L adds nonzeros L, L+32, L+64, ... of
// the warp's row, so at each step the warp reads 32 consecutive data and
// colIndex entries (coalesced). The 32 partial sums are then added in shared
// memory by a tree: stride 16, 8, 4, 2, 1, a barrier after each step, and
// lane 0 adds the total to y[row].
//
// One warp: a row of 3 nonzeros still occupies 32 lanes for a whole pass;
// this kernel pays off when rows are long.
//
// Launch assumption: 1-D, blockDim.x a multiple of 32, gridDim.x *
// (blockDim.x / 32) >= numRows, dynamic shared memory blockDim.x floats.
// Every thread reaches every barrier: the row guard covers only the loads.
extern "C" __global__ void spmvCsrWarp(const float* __restrict__ data, const int* __restrict__ colIndex,
                                       const int* __restrict__ rowPtr, const float* __restrict__ x,
                                       float* __restrict__ y, int numRows) {
    extern __shared__ float part[];
    const int lane = threadIdx.x % 32;
    const int warpInBlock = threadIdx.x / 32;
    const int row = blockIdx.x * (blockDim.x / 32) + warpInBlock;
    float dot = 0.0f;
    if (row < numRows) {
        const int end = rowPtr[row + 1];
        for (int elem = rowPtr[row] + lane; elem < end; elem += 32) {
            dot = __fadd_rn(dot, __fmul_rn(x[colIndex[elem]], data[elem]));
        }
    }
    part[threadIdx.x] = dot;
    __syncthreads();
    for (int s = 16; s > 0; s /= 2) {
        if (lane < s) {
            part[threadIdx.x] = part[threadIdx.x] + part[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (lane == 0 && row < numRows) {
        y[row] = y[row] + part[threadIdx.x];
    }
}

// The same warp per row with the tree done in registers: __shfl_down_sync
// hands lane L the value of lane L+s, the same pairs as the shared-memory
// tree (so the same bits), with no shared memory and no block barriers.
//
// Launch assumption: 1-D, blockDim.x a multiple of 32, gridDim.x *
// (blockDim.x / 32) >= numRows. row is warp-uniform, so the early return
// leaves whole warps and every lane in the shuffle mask reaches the shuffle.
extern "C" __global__ void spmvCsrWarpShfl(const float* __restrict__ data, const int* __restrict__ colIndex,
                                           const int* __restrict__ rowPtr, const float* __restrict__ x,
                                           float* __restrict__ y, int numRows) {
    const int lane = threadIdx.x % 32;
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (row >= numRows) {
        return;
    }
    float dot = 0.0f;
    const int end = rowPtr[row + 1];
    for (int elem = rowPtr[row] + lane; elem < end; elem += 32) {
        dot = __fadd_rn(dot, __fmul_rn(x[colIndex[elem]], data[elem]));
    }
    for (int s = 16; s > 0; s /= 2) {
        dot = __fadd_rn(dot, __shfl_down_sync(0xffffffffu, dot, s));
    }
    if (lane == 0) {
        y[row] = y[row] + dot;
    }
}

// kernels.cu — the time model's own kernels (issue 27): patterns a course
// teaches after the lessons, none of them a lesson kernel, so the model is
// judged on code it was not built against. They come in pairs and triples
// that differ in one mechanism (coalescing, divergence, bank conflicts,
// atomics in shared or global memory), so the check can ask the model to
// order them as the GPU does.
//
// Every kernel takes its sizes as parameters and uses 256-thread blocks
// (the 2D ones 32x32 or 32x8); none depends on a compile-time size but the
// block width.

#define BLOCK 256
#define RADIUS 3
#define TILE 32

// ---------------------------------------------------------------- streams

// copyKernel: one coalesced load and store per thread, the DRAM roofline.
extern "C" __global__ void copyKernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// copyStrided: thread i reads element i*stride mod n (n a power of two):
// each warp's load touches 32 sectors instead of 4.
extern "C" __global__ void copyStrided(const float* __restrict__ in, float* __restrict__ out, int n, int stride) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)n) out[i] = in[(i * (unsigned)stride) & (unsigned)(n - 1)];
}

// saxpy: two loads and a store per thread.
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// ---------------------------------------------------------------- reductions
// Harris's reductions: one partial sum per block.

// reduceInterleaved: tid % (2k) == 0 leaves most lanes of a warp idle
// (divergence).
extern "C" __global__ void reduceInterleaved(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = 1; k < BLOCK; k *= 2) {
        if (t % (2 * k) == 0) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// reduceStridedIndex: no divergence, but lane t touches s[2kt]: bank
// conflicts that grow with k.
extern "C" __global__ void reduceStridedIndex(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = 1; k < BLOCK; k *= 2) {
        unsigned j = 2 * k * t;
        if (j < BLOCK) s[j] += s[j + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// reduceSequential: contiguous active lanes, conflict-free.
extern "C" __global__ void reduceSequential(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// reduceShfl: warp shuffles, one shared slot per warp, one barrier.
extern "C" __global__ void reduceShfl(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s[BLOCK / 32];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    float v = i < (unsigned)n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (t % 32 == 0) s[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < BLOCK / 32 ? s[t] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0) out[blockIdx.x] = v;
    }
}

// ---------------------------------------------------------------- scan

// scanBlock: Hillis-Steele inclusive scan of each block's 256 elements in
// a double-buffered shared array, a barrier per step.
extern "C" __global__ void scanBlock(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s[2][BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    int p = 0;
    s[0][t] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned k = 1; k < BLOCK; k *= 2) {
        float v = s[p][t];
        if (t >= k) v += s[p][t - k];
        s[1 - p][t] = v;
        p = 1 - p;
        __syncthreads();
    }
    if (i < (unsigned)n) out[i] = s[p][t];
}

// ---------------------------------------------------------------- histograms

// histGlobal: one global atomicAdd per element into 256 bins.
extern "C" __global__ void histGlobal(const unsigned* __restrict__ in, unsigned* __restrict__ hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[in[i] & 255u], 1u);
}

// histShared: the same bins privatized in shared memory, merged once a block.
extern "C" __global__ void histShared(const unsigned* __restrict__ in, unsigned* __restrict__ hist, int n) {
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    int i = blockIdx.x * BLOCK + t;
    if (i < n) atomicAdd(&s[in[i] & 255u], 1u);
    __syncthreads();
    if (s[t] != 0) atomicAdd(&hist[t], s[t]);
}

// ---------------------------------------------------------------- stencils

// stencil1D: a 7-point 1D stencil through a shared tile with its halo.
extern "C" __global__ void stencil1D(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * BLOCK + threadIdx.x, l = threadIdx.x + RADIUS;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        s[l - RADIUS] = g >= RADIUS && g - RADIUS < n ? in[g - RADIUS] : 0.0f;
        s[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float v = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; k++) v += s[l + k];
        out[g] = v;
    }
}

// stencil2D: a 5-point Laplacian on an n x n grid straight from global
// memory (neighbours come from L1), 32x8 blocks.
extern "C" __global__ void stencil2D(const float* __restrict__ in, float* __restrict__ out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < n - 1 && y < n - 1) {
        int c = y * n + x;
        out[c] = 0.25f * (in[c - 1] + in[c + 1] + in[c - n] + in[c + n]) - in[c];
    }
}

// ---------------------------------------------------------------- GEMM
// C = A B for n x n matrices, n a multiple of 32, 32x32 blocks.
// TRANSPOSED keeps B's tile transposed in shared memory, so lane tx reads
// Bs[tx][k]: with 32 columns that is one bank for the whole warp (32-way
// conflicts on the stores and the reads); PAD 1 spreads the rows over the
// banks again.
template <int PAD, bool TRANSPOSED>
__device__ void gemmBody(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + PAD];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        if (TRANSPOSED) {
            Bs[tx][ty] = B[(t + ty) * n + col];
        } else {
            Bs[ty][tx] = B[(t + ty) * n + col];
        }
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * (TRANSPOSED ? Bs[tx][k] : Bs[k][tx]);
        __syncthreads();
    }
    C[row * n + col] = acc;
}

extern "C" __global__ void gemmShared(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
    gemmBody<0, false>(A, B, C, n);
}

extern "C" __global__ void gemmSharedConflict(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
    gemmBody<0, true>(A, B, C, n);
}

extern "C" __global__ void gemmSharedPadded(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
    gemmBody<1, true>(A, B, C, n);
}

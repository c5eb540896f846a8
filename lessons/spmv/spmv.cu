// SPDX-License-Identifier: MIT
//
// warplab lesson "Day 37 — SpMV two ways": the kernels.
//
// Three kernels over one CSR matrix (int32 row pointers and columns, float32
// values) and a dense float32 vector x:
//
//   spmvCsrThreadPerRow  one thread computes one row of y = A x
//   spmvCsrWarpPerRow    one warp computes one row, then reduces by shuffle
//   probeNonzeroStream   no rows at all: a grid-stride pass over the nonzeros,
//                        the floor the two SpMV kernels are read against
//
// The two SpMV kernels also come as *_unroll1 variants whose row loop carries
// `#pragma unroll 1`. Their loop trip count differs from lane to lane, and
// nvcc, left alone, unrolls such a loop by four with the remainder iterations
// first; one load instruction then pairs one lane's pass p+1 with another
// lane's pass p, which changes the sectors a warp fetches together. With
// unrolling switched off, every iteration is one pass of one load, and the
// simulator's counting rules match Nsight Compute exactly (DESIGN.md).
//
// Every kernel is extern "C" so the driver API finds it by this exact name
// (cuModuleGetFunction), with no C++ mangling. The simulator executes their
// PTX (spmv.ptx), so these bodies are the only copy of the kernels.
//
// PTX: scripts/cuda/gen-ptx.sh (nvcc 11.8, -ptx -arch=compute_75 -O3) writes
// spmv.ptx beside this file; its first line records this file's sha256.

#include <cstddef>

// A warp is 32 lanes on every GPU the course targets. warpSize is a runtime
// value in CUDA C, so a constant is used where the compiler must see it.
#define WARPLAB_WARP 32

extern "C" {

// Thread per row: y[r] = sum of val[j] * x[colIdx[j]] over row r.
//
// Launch assumptions: a one-dimensional grid and block with
// gridDim.x * blockDim.x >= nRows (the lesson uses 256 threads a block and
// ceil(nRows / 256) blocks). No barrier and no shuffle, so the single guard
// on the row index is the whole bounds check.
//
// What one warp does: its 32 lanes own 32 neighbouring rows. At loop step k,
// lane L reads val and colIdx at rowPtr[first + L] + k. Those 32 addresses
// are a whole row length apart (16 floats on the even matrix), so one load
// request touches up to 32 different 32-byte sectors. Each lane stops at the
// end of its own row, but the warp keeps issuing until its longest row is
// done: on the skewed matrix, 31 lanes finish after 3 steps and idle while
// one lane walks 419 entries.
//
// rowPtr[row + 1] is read once, into a register: the pointers are
// const __restrict__, so nvcc may keep the loop bound out of the loop.
__global__ void spmvCsrThreadPerRow(const int* __restrict__ rowPtr,
                                    const int* __restrict__ colIdx,
                                    const float* __restrict__ val,
                                    const float* __restrict__ x,
                                    float* __restrict__ y, size_t nRows) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nRows) {
        return;
    }
    const int first = rowPtr[row];
    const int last = rowPtr[row + 1];
    float acc = 0.0f;
    for (int j = first; j < last; ++j) {
        acc += val[j] * x[colIdx[j]];
    }
    y[row] = acc;
}

// The same kernel with the row loop left rolled, so that each iteration is
// one pass of each load instruction (see the top of this file).
__global__ void spmvCsrThreadPerRow_unroll1(const int* __restrict__ rowPtr,
                                            const int* __restrict__ colIdx,
                                            const float* __restrict__ val,
                                            const float* __restrict__ x,
                                            float* __restrict__ y,
                                            size_t nRows) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nRows) {
        return;
    }
    const int first = rowPtr[row];
    const int last = rowPtr[row + 1];
    float acc = 0.0f;
#pragma unroll 1
    for (int j = first; j < last; ++j) {
        acc += val[j] * x[colIdx[j]];
    }
    y[row] = acc;
}

// Warp per row: the 32 lanes of one warp share one row of y = A x.
//
// Launch assumptions: blockDim.x is a multiple of 32 and
// gridDim.x * blockDim.x >= 32 * nRows (the lesson uses 256 threads, so 8
// rows, a block). A warp's lanes then hold 32 consecutive global thread
// indices, so row = index / 32 is the same for all of them: the guard is
// taken or skipped by the whole warp, and every lane named in the full
// shuffle mask reaches the shuffles.
//
// What one warp does: lane L takes entries first + L, first + L + 32, ...,
// so at each pass the warp reads 32 consecutive values and 32 consecutive
// column indices (128 bytes each, four or five sectors). A row of 3 still
// costs one whole pass of 32 lanes; a row of 419 costs 14 passes. Then five
// shuffle-down steps (offsets 16, 8, 4, 2, 1) fold the 32 partial sums into
// lane 0, which stores y[row]. Imbalance between rows now lies between warps,
// where the scheduler can run other resident warps, not inside one warp.
__global__ void spmvCsrWarpPerRow(const int* __restrict__ rowPtr,
                                  const int* __restrict__ colIdx,
                                  const float* __restrict__ val,
                                  const float* __restrict__ x,
                                  float* __restrict__ y, size_t nRows) {
    const size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t row = gid / WARPLAB_WARP;
    const int lane = (int)(threadIdx.x % WARPLAB_WARP);
    if (row >= nRows) {
        return;
    }
    const int last = rowPtr[row + 1];
    float acc = 0.0f;
    for (int j = rowPtr[row] + lane; j < last; j += WARPLAB_WARP) {
        acc += val[j] * x[colIdx[j]];
    }
    for (int offset = WARPLAB_WARP / 2; offset > 0; offset >>= 1) {
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    }
    if (lane == 0) {
        y[row] = acc;
    }
}

// The same kernel with the row loop left rolled (see the top of this file).
// Only rows whose length is not a multiple of 32 give lanes different trip
// counts, and only there does the unrolled form fetch differently.
__global__ void spmvCsrWarpPerRow_unroll1(const int* __restrict__ rowPtr,
                                          const int* __restrict__ colIdx,
                                          const float* __restrict__ val,
                                          const float* __restrict__ x,
                                          float* __restrict__ y,
                                          size_t nRows) {
    const size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t row = gid / WARPLAB_WARP;
    const int lane = (int)(threadIdx.x % WARPLAB_WARP);
    if (row >= nRows) {
        return;
    }
    const int last = rowPtr[row + 1];
    float acc = 0.0f;
#pragma unroll 1
    for (int j = rowPtr[row] + lane; j < last; j += WARPLAB_WARP) {
        acc += val[j] * x[colIdx[j]];
    }
    for (int offset = WARPLAB_WARP / 2; offset > 0; offset >>= 1) {
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    }
    if (lane == 0) {
        y[row] = acc;
    }
}

// Stream probe: the same multiply and gather over every nonzero, with the
// rows taken away.
//
// Launch assumptions: a one-dimensional grid; partials holds exactly
// gridDim.x * blockDim.x floats, so the final store needs no guard and the
// loop condition is the only bounds check. The lesson sizes the grid from
// the device, 8 blocks of 256 threads per SM, so that every SM has work;
// the seed's fixed 320 blocks were 8 per SM of a 40-SM T4 only.
//
// What one warp does: at each step its 32 lanes read 32 consecutive values
// and 32 consecutive column indices, then jump a whole grid ahead. That is
// the best access pattern the data allows, so the probe's time is what it
// costs to stream val and colIdx once and gather x: the floor.
//
// Its output is not y: each thread leaves one partial sum over an arbitrary
// slice of the nonzeros. The host checks the sum of all partials against the
// sum of the reference y, which the same products add up to.
__global__ void probeNonzeroStream(const int* __restrict__ colIdx,
                                   const float* __restrict__ val,
                                   const float* __restrict__ x,
                                   float* __restrict__ partials, size_t nnz) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (size_t j = gid; j < nnz; j += stride) {
        acc += val[j] * x[colIdx[j]];
    }
    partials[gid] = acc;
}

}  // extern "C"

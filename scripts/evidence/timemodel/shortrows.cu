// shortrows.cu — what a warp of the warp-per-row SpMV costs on a full SM
// when its row is short (issue 27, milestone 3; not yet run).
//
// The one sweep family under 80% is spmv-road's warp per row at 2^18,
// 2^21 and 2^23 rows (0.62–0.72 of the H200's time): 2–4 entries a row, a
// warp a row, 83 instructions a warp. Nsight Compute on the sweep's own
// launches (evidence/timemodel-ncu-spmv-h200-2026-12-05) has its warps
// waiting 8.8–10.5 cycles an instruction for everything but memory, where
// the model charges WarpCPI (4.17, a dependent FFMA chain) and the
// shuffles' stalls. This program times the SpMV lesson's own kernel,
// spmvCsrWarpPerRow (included from lessons/spmv/spmv.cu, compiled here
// for the GPU at hand), on synthetic matrices of 2^18 rows of one length
// each, so a rule for that difference can come from rows that no sweep
// case is:
//
//   L      entries a row: 0 (a warp reads its row's bounds and stores a
//          zero), 1, 3, 8, 32
//   x      l1: 1,024 floats (4 KiB: in L1 after the first touch);
//          l2: 2^20 floats (4 MiB, in L2); columns random over x (an LCG)
//   w      resident warps an SM: 8, 16, 32 or 64, set by the dynamic
//          shared memory a 256-thread block asks for (one to eight blocks
//          an SM), the kernel itself using none
//
// value: µs a launch, eventTime (3 warm-ups, 10 launches back to back:
// the matrix, 2^18 × L entries, stays in L2). The model's side runs the
// same launches on the simulator with the same PTX.
#include <cstdint>

#include "bench.cuh"
#include "../../../lessons/spmv/spmv.cu"

static void fill(int* rowPtr, int* colIdx, float* val, int rows, int L, int xn) {
    std::vector<int> rp(rows + 1), c((size_t)rows * L + 1);
    std::vector<float> v((size_t)rows * L + 1, 1.0f);
    uint64_t s = 27;
    for (int r = 0; r <= rows; ++r) rp[r] = r * L;
    for (size_t j = 0; j < (size_t)rows * L; ++j) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        c[j] = (int)((s >> 33) % (uint64_t)xn);
    }
    check(cudaMemcpy(rowPtr, rp.data(), sizeof(int) * rp.size(), cudaMemcpyHostToDevice), "copy rowPtr");
    check(cudaMemcpy(colIdx, c.data(), sizeof(int) * c.size(), cudaMemcpyHostToDevice), "copy col");
    check(cudaMemcpy(val, v.data(), sizeof(float) * v.size(), cudaMemcpyHostToDevice), "copy val");
}

int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes, %zu bytes of shared memory an SM\n", prop.name,
                prop.multiProcessorCount, prop.major, prop.minor, prop.l2CacheSize, prop.sharedMemPerMultiprocessor);
    std::printf("name,param,value,unit,note\n");
    const int rows = 1 << 18, maxL = 32;
    int *rowPtr, *colIdx;
    float *val, *x, *y;
    check(cudaMalloc(&rowPtr, sizeof(int) * (rows + 1)), "malloc rowPtr");
    check(cudaMalloc(&colIdx, sizeof(int) * ((size_t)rows * maxL + 1)), "malloc col");
    check(cudaMalloc(&val, sizeof(float) * ((size_t)rows * maxL + 1)), "malloc val");
    check(cudaMalloc(&x, sizeof(float) << 20), "malloc x");
    check(cudaMalloc(&y, sizeof(float) * rows), "malloc y");
    check(cudaMemset(x, 0, sizeof(float) << 20), "memset x");
    const int maxShared = (int)prop.sharedMemPerBlockOptin;
    check(cudaFuncSetAttribute(spmvCsrWarpPerRow, cudaFuncAttributeMaxDynamicSharedMemorySize, maxShared),
          "shared memory attribute");
    const int blocks = rows * 32 / 256;
    char prm[96];
    for (int L : {0, 1, 3, 8, 32}) {
        for (int lg : {10, 20}) {
            fill(rowPtr, colIdx, val, rows, L, 1 << lg);
            for (int perSM : {1, 2, 4, 8}) {
                // blocks an SM by shared memory: just over a (perSM+1)-th of
                // the SM's, within the per-block limit (8 fit without any)
                size_t shared = 0;
                if (perSM < 8) {
                    shared = prop.sharedMemPerMultiprocessor / (perSM + 1) + 1024;
                    if (shared > (size_t)maxShared) shared = maxShared;
                }
                int got = 0;
                check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, spmvCsrWarpPerRow, 256, shared),
                      "occupancy");
                auto launch = [&] {
                    spmvCsrWarpPerRow<<<blocks, 256, shared>>>(rowPtr, colIdx, val, x, y, (size_t)rows);
                };
                std::snprintf(prm, sizeof prm, "L=%d x=%s w=%d", L, lg == 10 ? "l1" : "l2", got * 8);
                row("shortrows", prm, 1e3 * eventTime(launch), "us",
                    "spmvCsrWarpPerRow: 2^18 rows of L random columns; w resident warps an SM; 3 warm-ups, 10 "
                    "launches back to back");
            }
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

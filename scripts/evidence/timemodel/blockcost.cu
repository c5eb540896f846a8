// blockcost.cu — what a block costs the SM that runs it, apart from its
// own instructions and the GPU's dispatch rate (issue 27, milestone 3).
//
// shortrows.cu (evidence/timemodel-shortrows-h200-2026-12-06) found the
// warp per row on empty rows 462 ns a block generation at one block of 8
// warps an SM, where the model's path for such a block is 307 ns: about
// 155 ns a block that no term has, hidden at 8 blocks an SM. dispatch.cu
// measured the GPU's rate of handing out blocks (0.6 ns a block) with
// the SMs full, where a block's own start and end overlap other blocks'.
// This program holds each SM to b blocks at once (dynamic shared memory
// the kernels do not use) and times grids of k generations, k × b × SMs
// blocks, on the GPU alone (launches queued behind a spin, as
// dispatch.cu), so the slope in k is what one generation of b blocks
// takes the SM from start to start:
//
//   blockcost_empty  blocks that do nothing (T threads)
//   blockcost_store  each thread stores one float (its own element)
//   blockcost_spin   thread 0 spins S = 2,000 cycles on clock64 (the
//                    block's work known exactly: S / clock), the others
//                    end at once
//   blockcost_spinall every thread spins S cycles (each warp of the
//                    block issues for the whole block's time)
//
// param: "T=threads b=blocks-an-SM k=generations"; value: µs per launch.
// b = 1, 2, 4, 8, 16, 32 where the SM holds exactly b blocks of T threads
// (without dynamic shared memory where the warps or blocks limit it to b,
// else with it). A block's fixed cost is the slope less the block's own
// work, at b = 1; at larger b it shows how far blocks on one SM overlap
// it (empty blocks are held by the GPU's dispatch rate from b = 2 on: 0.6
// ns a block, b × SMs a generation; spinning ones are not).
#include <vector>

#include "bench.cuh"

__global__ void emptyBlocks() {}

__global__ void storeBlocks(float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }

__global__ void spinAll(float* out, unsigned long long cycles) {
    unsigned long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    if (threadIdx.x == 0) out[blockIdx.x] = 1.0f;
}

__global__ void spinBlocks(float* out, unsigned long long cycles) {
    if (threadIdx.x == 0) {
        unsigned long long t0 = clock64();
        while (clock64() - t0 < cycles) {
        }
        out[blockIdx.x] = 1.0f;
    }
}

// sharedFor is dynamic shared memory that holds an SM to b blocks
// (just over a (b+1)-th of its shared memory, within a block's limit).
static size_t sharedFor(const cudaDeviceProp& p, int b) {
    size_t s = p.sharedMemPerMultiprocessor / (b + 1) + 1024;
    return s > p.sharedMemPerBlockOptin ? p.sharedMemPerBlockOptin : s;
}

int main() {
    const cudaDeviceProp p = deviceHeader();
    const int sms = p.multiProcessorCount;
    const int optin = (int)p.sharedMemPerBlockOptin;
    check(cudaFuncSetAttribute(emptyBlocks, cudaFuncAttributeMaxDynamicSharedMemorySize, optin), "attr empty");
    check(cudaFuncSetAttribute(storeBlocks, cudaFuncAttributeMaxDynamicSharedMemorySize, optin), "attr store");
    check(cudaFuncSetAttribute(spinBlocks, cudaFuncAttributeMaxDynamicSharedMemorySize, optin), "attr spin");
    check(cudaFuncSetAttribute(spinAll, cudaFuncAttributeMaxDynamicSharedMemorySize, optin), "attr spinall");
    const int gens[] = {1, 2, 4, 8, 16, 32, 64};
    float* out;
    check(cudaMalloc(&out, sizeof(float) * 64 * 8 * sms * 1024), "malloc out");
    char prm[96];
    const unsigned long long spin = 2000;
    for (int T : {32, 256, 1024}) {
        for (int b : {1, 2, 4, 8, 16, 32}) {
            size_t sh = 0;
            int got = 0;
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, storeBlocks, T, sh), "occupancy");
            if (got != b) {
                sh = sharedFor(p, b);
                check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, storeBlocks, T, sh), "occupancy");
            }
            if (got != b) continue; // the SM cannot hold exactly b blocks of T threads
            for (int k : gens) {
                int blocks = k * b * sms;
                std::snprintf(prm, sizeof prm, "T=%d b=%d k=%d", T, b, k);
                row("blockcost_empty", prm, gpuTime([&] { emptyBlocks<<<blocks, T, sh>>>(); }, 50), "us",
                    "empty blocks, b an SM by dynamic shared memory; GPU time per launch (50 queued behind a spin)");
                row("blockcost_store", prm, gpuTime([&] { storeBlocks<<<blocks, T, sh>>>(out); }, 50), "us",
                    "a coalesced store a thread, b blocks an SM; GPU time per launch");
                row("blockcost_spin", prm, gpuTime([&] { spinBlocks<<<blocks, T, sh>>>(out, spin); }, 50), "us",
                    "thread 0 spins 2,000 cycles, b blocks an SM; GPU time per launch");
                row("blockcost_spinall", prm, gpuTime([&] { spinAll<<<blocks, T, sh>>>(out, spin); }, 50), "us",
                    "every thread spins 2,000 cycles, b blocks an SM; GPU time per launch");
            }
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

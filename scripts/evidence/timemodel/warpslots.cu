// warpslots.cu — whether an SM starts new blocks in the warp slots of a
// block's warps that ended while the block's slowest warp still runs
// (issue 27, milestone 3).
//
// blockcost.cu (evidence/timemodel-blockcost-h200-2026-12-06) found that
// it does for 256-thread blocks with one spinning warp held to 8 an SM by
// their warps (650 ns a generation, the dispatch rate, against 1,248 with
// the SM held by shared memory) and does not for 1,024-thread blocks held
// to 2 (1,234 ns). This program asks where between the two it changes and
// whether it depends on which warp is slow. Blocks of T threads, the SM
// held to b = 2,048 / T blocks by its warps (no dynamic shared memory:
// occupancy printed), grids of k generations (k × b × SMs blocks), the
// GPU's own time per launch (50 launches queued behind a spin, gpuTime):
//
//   warpslots_first  lane 0 of warp 0 spins S = 2,000 cycles, the others end
//   warpslots_last   lane 0 of the last warp spins, the others end
//   warpslots_half   lane 0 of every even warp spins
//   warpslots_held   as _first, the SM held to the same b by dynamic
//                    shared memory instead (the block slot is the limit)
//
// param: "T=threads b=blocks-an-SM k=generations"; value: µs per launch.
// The slope in k is one generation's time, start to start.
#include "bench.cuh"

// spinWarps: lane 0 of the warps w with w % every == first % every spins
// cycles (every = 0: only warp first).
__global__ void spinWarps(float* out, unsigned long long cycles, int first, int every) {
    const int w = threadIdx.x / 32;
    const bool slow = every == 0 ? w == first : w % every == first % every;
    if (slow && threadIdx.x % 32 == 0) {
        unsigned long long t0 = clock64();
        while (clock64() - t0 < cycles) {
        }
        out[blockIdx.x] = 1.0f;
    }
}

int main() {
    const cudaDeviceProp p = deviceHeader();
    const int sms = p.multiProcessorCount;
    check(cudaFuncSetAttribute(spinWarps, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.sharedMemPerBlockOptin),
          "attr");
    float* out;
    check(cudaMalloc(&out, sizeof(float) * 64 * 32 * sms), "malloc out");
    const unsigned long long spin = 2000;
    char prm[96];
    for (int T : {64, 128, 256, 384, 512, 768, 1024}) {
        const int warps = T / 32;
        const int b = p.maxThreadsPerMultiProcessor / T;
        int got = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, spinWarps, T, 0), "occupancy");
        if (got != b) {
            std::printf("# T=%d: occupancy %d blocks an SM, not %d: skipped\n", T, got, b);
            continue;
        }
        size_t held = p.sharedMemPerMultiprocessor / (b + 1) + 1024;
        int gotHeld = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&gotHeld, spinWarps, T, held), "occupancy held");
        for (int k : {1, 2, 4, 8, 16, 32, 64}) {
            const int blocks = k * b * sms;
            std::snprintf(prm, sizeof prm, "T=%d b=%d k=%d", T, b, k);
            row("warpslots_first", prm, gpuTime([&] { spinWarps<<<blocks, T>>>(out, spin, 0, 0); }, 50), "us",
                "lane 0 of warp 0 spins 2,000 cycles, b blocks an SM by its warps; GPU time per launch");
            row("warpslots_last", prm, gpuTime([&] { spinWarps<<<blocks, T>>>(out, spin, warps - 1, 0); }, 50), "us",
                "lane 0 of the last warp spins 2,000 cycles, b blocks an SM by its warps; GPU time per launch");
            if (warps >= 2) {
                row("warpslots_half", prm, gpuTime([&] { spinWarps<<<blocks, T>>>(out, spin, 0, 2); }, 50), "us",
                    "lane 0 of every even warp spins 2,000 cycles, b blocks an SM by its warps; GPU time per launch");
            }
            if (gotHeld == b) {
                row("warpslots_held", prm, gpuTime([&] { spinWarps<<<blocks, T, held>>>(out, spin, 0, 0); }, 50), "us",
                    "as warpslots_first, b blocks an SM by dynamic shared memory; GPU time per launch");
            }
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

// sharedwide.cu — what a 64- or 128-bit shared load costs the SM's shared
// memory by the lanes' addresses (issue 27, milestone 3; not yet run).
//
// The model prices a wide shared access by phases (a 128-bit one as four
// quarter-warps of 8 lanes, a 64-bit one as two half-warps), each phase
// by the 32-bit bank rule (sim's countMerged). mechanisms.cu measured the
// SM's rate with 32-bit requests only. The sweep's conflict-free
// gemmShared reads As[ty][k..k+3] as one LDS.128 that every lane of a warp
// reads at the same address (ptxas 11.8 for sm_90: 8 LDS.128 and 32 LDS a
// 32-step tile), which the phase rule counts 4 wavefronts; the model is
// 1.20–1.28 of the H200's time there at N ≥ 1024. These rows say what the
// H200's shared memory does with each pattern, at 64 warps an SM (8 blocks
// of 256), 8 independent volatile loads a step (bench.cuh's eventTime):
//
//   sh_ld128 / sh_ld64 / sh_ld32   pattern = bcast (every lane the same
//              address), seq (lane l at l × width: the whole warp's
//              bytes contiguous), half (lanes l and l + 16 at the same
//              address: half the bytes); requests a second per SM per
//              cycle (requests / time / clock / SMs): 1 is one request a
//              cycle, 0.25 four cycles a request
#include "bench.cuh"

// ldShared issues one ld.volatile.shared of W floats at the shared
// address a and returns their sum: volatile so that no load is hoisted or
// merged, at the width asked (LDS, LDS.64, LDS.128).
template <int W>
__device__ float ldShared(unsigned a);
template <>
__device__ float ldShared<1>(unsigned a) {
    float x;
    asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(x) : "r"(a));
    return x;
}
template <>
__device__ float ldShared<2>(unsigned a) {
    float x, y;
    asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "r"(a));
    return x + y;
}
template <>
__device__ float ldShared<4>(unsigned a) {
    float x, y, z, w;
    asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "r"(a));
    return x + y + z + w;
}

// wideRate: every warp issues iters × 8 shared loads of W floats a lane,
// lane l at element idx(l) of W floats: 0 (bcast), l (seq), l mod 16
// (half).
template <int W>
__global__ void wideRate(int pattern, int iters, float* out) {
    __shared__ float4 sm[2 * 256];
    const int lane = threadIdx.x & 31;
    float* f = reinterpret_cast<float*>(sm);
    for (int i = threadIdx.x; i < 2 * 256 * 4; i += blockDim.x) f[i] = (float)i;
    __syncthreads();
    const int idx = pattern == 0 ? 0 : pattern == 1 ? lane : (lane & 15);
    const unsigned base = (unsigned)__cvta_generic_to_shared(f) + idx * W * 4;
    float s = 0;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < 8; ++j) s += ldShared<W>(base + (j & 1) * 256 * 16);
    }
    if (s == 12345.0f) out[0] = s;
}

int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    const int sms = prop.multiProcessorCount;
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock");
    const double clockHz = khz * 1e3;
    std::printf("# device: %s, %d SMs, cc %d.%d\n", prop.name, sms, prop.major, prop.minor);
    std::printf("name,param,value,unit,note\n");
    row("device_sms", "", sms, "count", prop.name);
    row("clock_reported", "", clockHz, "Hz", "cudaDevAttrClockRate, the maximum SM clock (per-cycle rows divide by it)");
    float* out;
    check(cudaMalloc(&out, 64), "malloc");
    const int blocks = sms * 8, threads = 256, iters = 4096;
    const char* names[] = {"bcast", "seq", "half"};
    for (int pattern = 0; pattern < 3; ++pattern) {
        double ms[3] = {
            eventTime([&] { wideRate<1><<<blocks, threads>>>(pattern, iters, out); }),
            eventTime([&] { wideRate<2><<<blocks, threads>>>(pattern, iters, out); }),
            eventTime([&] { wideRate<4><<<blocks, threads>>>(pattern, iters, out); }),
        };
        const char* rows[] = {"sh_ld32", "sh_ld64", "sh_ld128"};
        for (int w = 0; w < 3; ++w) {
            const double req = (double)blocks * (threads / 32) * iters * 8;
            char p[32];
            std::snprintf(p, sizeof p, "pattern=%s", names[pattern]);
            row(rows[w], p, req / (ms[w] * 1e-3) / clockHz / sms, "requests/SM/cycle",
                "64 warps/SM, 8 volatile loads a step, launch cost included");
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

// mechanisms.cu — the microbenchmarks behind the time model's mechanisms
// (issue 27, milestone 3; docs/timemodel.md, "Mechanisms"). Built and run on
// the GPU host by scripts/evidence/timemodel-mechanisms.sh:
//
//	nvcc -O3 -arch=native -std=c++17 -I scripts/evidence/timemodel -o mechanisms mechanisms.cu
//	./mechanisms > mechanisms.csv
//
// Output: CSV `name,param,value,unit,note` (sim.ParseMicrobench reads it),
// '#' lines are comments. Kernel rates are CUDA-event times (3 warm-ups, 10
// launches back to back, bench.cuh's eventTime); per-warp costs are clock64()
// cycles inside the kernel. What each block measures and why:
//
//   sh_ld_rate / sh_st_rate   k-way bank conflicts, k = 1..32, at 64 warps
//                per SM: shared-memory wavefronts served per SM per cycle
//                (requests × k / time / clock / SMs). Lane l of a request
//                uses word (l mod k)·32 + ⌊l/k⌋: bank ⌊l/k⌋, k distinct
//                words in each bank used, so k wavefronts a request. The SM's
//                shared-memory throughput term.
//   sh_ld_lat  one warp per SM, a dependent chain of k-way conflicted loads
//                (each address from the last value): cycles per load. What
//                a conflicted load costs on the warp's own path.
//   sh_st_path one warp per SM, k-way conflicted stores back to back: cycles
//                per store (the warp's path when it stores).
//   sh_st_bar  the transpose's pattern: w warps of one block (one block per
//                SM) each store k-way conflicted, bar.sync, load
//                conflict-free, bar.sync; cycles per pass. Whether the
//                barrier waits for the block's wavefronts in all (w·k) or a
//                warp's (k).
//   bar        bar.sync alone, w = 1..32 warps a block, one block per SM:
//                cycles per barrier.
//   bar_slow   one warp of w does a dependent FFMA chain of n per pass, the
//                others none, then bar.sync: cycles per pass (the barrier
//                waits for the block's slowest warp).
//   bw_dram / bw_l2  bytes a second read at 1..64 warps per SM with u = 1, 2,
//                4, 8 independent float4 ld.global.cg in flight per thread,
//                from DRAM (a fresh 128 MiB stretch each launch) or a warm
//                8 MiB buffer; the note gives bytes in flight per SM and the
//                latency Little's law gives (bytes in flight / rate).
//   occ_regs   a kernel holding n live floats (256 threads a block):
//                registers per thread (cudaFuncGetAttributes), blocks per SM
//                the occupancy API allows, and the most blocks found
//                resident on one SM at once (each block counts itself in on
//                its SM with an atomic, spins 20 µs, counts itself out).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "bench.cuh"  // check, row, eventTime

__device__ __forceinline__ uint64_t globaltimer() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned smid() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// conflictWord is lane's word for a k-way conflict: bank ⌊lane/k⌋, row
// lane mod k (32 words a row).
__device__ __forceinline__ int conflictWord(int lane, int k) { return (lane % k) * 32 + lane / k; }

// ---- shared-memory throughput -----------------------------------------

// shRate: every warp issues iters × 8 shared requests of k wavefronts each.
template <bool STORE>
__global__ void shRate(int k, int iters, float* out) {
    __shared__ float sm[2 * 1024];  // 8 KiB: 8 blocks of 256 fit an SM
    const int lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < 2 * 1024; i += blockDim.x) sm[i] = (float)i;
    __syncthreads();
    volatile float* v = sm;
    const int w = conflictWord(lane, k);
    float s = 0;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            if (STORE)
                v[(j & 1) * 1024 + w] = s + (float)j;
            else
                s += v[(j & 1) * 1024 + w];
        }
    }
    if (s == 12345.0f) out[0] = s;
}

// ---- shared-memory latency on one warp's path ---------------------------

// shLat: one warp, a dependent chain of k-way conflicted loads; sm[x] = x,
// so the chain stays on the lane's word. out gets cycles per load.
__global__ void shLat(int k, int steps, unsigned long long* out) {
    __shared__ int sm[1024];
    const int lane = threadIdx.x & 31;
    for (int i = lane; i < 1024; i += 32) sm[i] = i;
    __syncwarp();
    volatile int* v = sm;
    int j = conflictWord(lane, k);
    for (int i = 0; i < 16; ++i) j = v[j];
    long long c0 = clock64();
    for (int i = 0; i < steps; ++i) j = v[j];
    long long c1 = clock64();
    if (lane == 0 && blockIdx.x == 0) out[0] = (unsigned long long)(c1 - c0);
    if (j < 0) out[1] = j;
}

// shStPath: one warp, stores of k wavefronts back to back, then one load
// of its last word (which waits for them): cycles per store.
__global__ void shStPath(int k, int steps, unsigned long long* out) {
    __shared__ int sm[8 * 1024];
    const int lane = threadIdx.x & 31;
    volatile int* v = sm;
    const int w = conflictWord(lane, k);
    v[w] = 0;
    __syncwarp();
    long long c0 = clock64();
    for (int i = 0; i < steps; i += 8) {
#pragma unroll
        for (int j = 0; j < 8; ++j) v[j * 1024 + w] = i + j;
    }
    int last = v[7 * 1024 + w];
    long long c1 = clock64();
    if (lane == 0 && blockIdx.x == 0) out[0] = (unsigned long long)(c1 - c0);
    if (last < 0) out[1] = last;
}

// shStBar: the transpose's pass. Each warp stores one word a lane k-way
// conflicted, waits, loads one conflict-free, waits. The warps share the
// 1,024 words (their stores race; the values do not matter).
__global__ void shStBar(int k, int passes, unsigned long long* out) {
    __shared__ float sm[1024];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    volatile float* v = sm;
    const int w = conflictWord(lane, k);
    float s = 0;
    __syncthreads();
    long long c0 = clock64();
    for (int p = 0; p < passes; ++p) {
        v[w] = s;
        __syncthreads();
        s += v[(warp & 31) * 32 + lane];
        __syncthreads();
    }
    long long c1 = clock64();
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = (unsigned long long)(c1 - c0);
    if (s == 12345.0f) out[1] = 1;
}

// ---- barriers --------------------------------------------------------------

// barSlow: warp 0 runs a dependent FFMA chain of n a pass, then every warp
// waits at the barrier. n = 0 is the barrier alone.
__global__ void barSlow(int n, int passes, float a, unsigned long long* out) {
    float x = threadIdx.x;
    __syncthreads();
    long long c0 = clock64();
    for (int p = 0; p < passes; ++p) {
        if (threadIdx.x < 32)
            for (int i = 0; i < n; ++i) x = fmaf(x, a, 1.0f);
        __syncthreads();
    }
    long long c1 = clock64();
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = (unsigned long long)(c1 - c0);
    if (x == 12345.0f) out[1] = 1;
}

// ---- bandwidth against bytes in flight ------------------------------------

// bwRead: each thread reads steps × U float4 (.cg), U independent loads a
// step; warps read consecutive 512-byte stretches.
template <int U>
__global__ void __launch_bounds__(256, 8) bwRead(const float4* __restrict__ p, size_t mask, size_t base, int steps, float* out) {
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t n = (size_t)gridDim.x * blockDim.x;
    float s = 0;
    for (int k = 0; k < steps; ++k) {
        float4 v[U];
#pragma unroll
        for (int j = 0; j < U; ++j) v[j] = __ldcg(p + ((base + ((size_t)k * U + j) * n + t) & mask));
#pragma unroll
        for (int j = 0; j < U; ++j) s += v[j].x + v[j].y + v[j].z + v[j].w;
    }
    if (s == 12345.0f) out[0] = s;
}

// ---- occupancy against registers ---------------------------------------

// occRegs: N live floats a thread through a loop of dependent updates, so
// ptxas keeps them in registers; every block counts itself in on its SM,
// notes the most it saw, spins 20 µs, and counts itself out.
template <int N>
__global__ void __launch_bounds__(256) occRegs(const float* __restrict__ in, int iters, unsigned* live, unsigned* most, float* out) {
    __shared__ unsigned seen;
    if (threadIdx.x == 0) {
        unsigned now = atomicAdd(&live[smid()], 1u) + 1;
        atomicMax(&most[smid()], now);
        seen = now;
    }
    float r[N];
#pragma unroll
    for (int j = 0; j < N; ++j) r[j] = in[(threadIdx.x + j) & 1023];
    const uint64_t t0 = globaltimer();
    int it = 0;
    while (globaltimer() - t0 < 20000 || it < iters) {
#pragma unroll
        for (int j = 0; j < N; ++j) r[j] = fmaf(r[j], r[(j + 1) % N], 0.5f);
        ++it;
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) s += r[j];
    if (s == 12345.0f) out[0] = s + seen;
    __syncthreads();
    if (threadIdx.x == 0) atomicSub(&live[smid()], 1u);
}

template <int N>
static void occupancy(int sms, const float* in, unsigned* live, unsigned* most, float* out) {
    cudaFuncAttributes fa;
    check(cudaFuncGetAttributes(&fa, occRegs<N>), "attributes");
    int api = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, occRegs<N>, 256, 0), "occupancy");
    check(cudaMemset(live, 0, 1024 * sizeof(unsigned)), "memset");
    check(cudaMemset(most, 0, 1024 * sizeof(unsigned)), "memset");
    occRegs<N><<<sms * 16, 256>>>(in, 4, live, most, out);
    check(cudaDeviceSynchronize(), "occRegs");
    std::vector<unsigned> m(1024);
    check(cudaMemcpy(m.data(), most, 1024 * sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
    unsigned mx = *std::max_element(m.begin(), m.end());  // %smid may leave gaps
    char p[64];
    std::snprintf(p, sizeof p, "%d live floats", N);
    row("occ_regs_per_thread", p, fa.numRegs, "registers", "cudaFuncGetAttributes, 256 threads a block");
    row("occ_api_blocks", p, api, "blocks/SM", "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    row("occ_resident_blocks", p, mx, "blocks/SM", "most blocks counted resident on one SM at once, 16 blocks per SM launched");
}

int main() {
    int sms = 0, dev = 0;
    check(cudaGetDevice(&dev), "device");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, dev), "properties");
    sms = prop.multiProcessorCount;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    std::printf("# device: %s, %d SMs, cc %d.%d, %d registers per SM, %zu shared bytes per SM, CUDA driver API %d, runtime %d\n", prop.name, sms,
                prop.major, prop.minor, prop.regsPerMultiprocessor, prop.sharedMemPerMultiprocessor, drv, rt);
    std::printf("name,param,value,unit,note\n");
    row("device_sms", "", sms, "count", prop.name);
    row("device_regs_per_sm", "", prop.regsPerMultiprocessor, "registers", "cudaDeviceProp.regsPerMultiprocessor");

    float* out;
    unsigned long long* cyc;
    check(cudaMalloc(&out, 64), "malloc");
    check(cudaMalloc(&cyc, 64), "malloc");

    // The SM clock while a kernel runs: clock64 against %globaltimer is
    // microbench.cu's `clock`; here the cycles come from clock64 directly
    // and rates per cycle use the device's reported clock, noted.
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev), "clock");
    const double clockHz = khz * 1e3;
    row("clock_reported", "", clockHz, "Hz", "cudaDevAttrClockRate, the maximum SM clock (the rate rows divide by it; microbench.cu's clock measured 1.980 GHz running)");

    // Shared-memory wavefronts per SM per cycle, k-way conflicts.
    for (int st = 0; st < 2; ++st)
        for (int k = 1; k <= 32; ++k) {
            const int blocks = sms * 8, threads = 256;  // 64 warps per SM, 32 KiB shared a block
            const int iters = std::max(16, (int)(4.0e6 / (64.0 * 8 * k)));
            double ms = eventTime([&] {
                if (st)
                    shRate<true><<<blocks, threads>>>(k, iters, out);
                else
                    shRate<false><<<blocks, threads>>>(k, iters, out);
            });
            double wav = (double)blocks * (threads / 32) * iters * 8 * k;
            char p[32];
            std::snprintf(p, sizeof p, "k=%d", k);
            row(st ? "sh_st_rate" : "sh_ld_rate", p, wav / (ms * 1e-3) / clockHz / sms, "wavefronts/SM/cycle",
                "64 warps/SM, 8 volatile requests a step, launch cost included");
        }
    // One warp's path: a conflicted load chain, conflicted stores.
    for (int k = 1; k <= 32; ++k) {
        const int steps = 4096;
        unsigned long long c = 0;
        shLat<<<sms, 32>>>(k, steps, cyc);
        check(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost), "copy");
        char p[32];
        std::snprintf(p, sizeof p, "k=%d", k);
        row("sh_ld_lat", p, (double)c / steps, "cycles", "one warp per SM, dependent chain, cycles per load");
        shStPath<<<sms, 32>>>(k, steps, cyc);
        check(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost), "copy");
        row("sh_st_path", p, (double)c / steps, "cycles", "one warp per SM, stores back to back, cycles per store");
    }
    check(cudaDeviceSynchronize(), "shared");
    // The transpose's pass: w warps store k-way, barrier, load, barrier.
    for (int w : {1, 2, 4, 8, 16, 32})
        for (int k : {1, 2, 4, 8, 16, 32}) {
            const int passes = 1024;
            unsigned long long c = 0;
            shStBar<<<sms, 32 * w>>>(k, passes, cyc);
            check(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost), "copy");
            char p[48];
            std::snprintf(p, sizeof p, "w=%d k=%d", w, k);
            row("sh_st_bar", p, (double)c / passes, "cycles", "one block per SM: store k-way, bar, load, bar; cycles per pass");
        }
    // Barriers: alone, and waiting for one slow warp.
    for (int w : {1, 2, 4, 8, 16, 32})
        for (int n : {0, 16, 64, 256}) {
            const int passes = 1024;
            unsigned long long c = 0;
            barSlow<<<sms, 32 * w>>>(n, passes, 0.999f, cyc);
            check(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost), "copy");
            char p[48];
            std::snprintf(p, sizeof p, "w=%d n=%d", w, n);
            row(n == 0 ? "bar" : "bar_slow", p, (double)c / passes, "cycles",
                "one block per SM; warp 0 runs n dependent FFMA, then bar.sync; cycles per pass");
        }
    check(cudaDeviceSynchronize(), "barriers");

    // Bandwidth against warps per SM and loads in flight per thread.
    {
        const size_t big = (size_t)1 << 30;
        float4* p;
        check(cudaMalloc(&p, big), "malloc");
        check(cudaMemset(p, 0, big), "memset");
        const size_t maskAll = big / 16 - 1;
        for (int level = 0; level < 2; ++level)
            for (int u : {1, 2, 4, 8})
                for (int wps : {1, 2, 4, 8, 16, 32, 64}) {
                    const int threads = wps >= 8 ? 256 : 32 * wps, blocks = sms * (wps >= 8 ? wps / 8 : 1);
                    const size_t n = (size_t)blocks * threads;
                    const double target = level == 0 ? 128.0 * (1 << 20) : 64.0 * (1 << 20);
                    int steps = std::max(1, (int)(target / ((double)n * u * 16)));
                    const size_t mask = level == 0 ? maskAll : ((size_t)8 << 20) / 16 - 1;
                    size_t base = 0;
                    double ms = eventTime([&] {
                        switch (u) {
                        case 1: bwRead<1><<<blocks, threads>>>(p, mask, base, steps, out); break;
                        case 2: bwRead<2><<<blocks, threads>>>(p, mask, base, steps, out); break;
                        case 4: bwRead<4><<<blocks, threads>>>(p, mask, base, steps, out); break;
                        default: bwRead<8><<<blocks, threads>>>(p, mask, base, steps, out); break;
                        }
                        if (level == 0) base += (size_t)steps * u * n;  // the next launch reads fresh lines
                    });
                    double bytes = (double)n * steps * u * 16;
                    double rate = bytes / (ms * 1e-3);
                    double inflight = (double)wps * 32 * u * 16;  // bytes per SM
                    char prm[48], note[160];
                    std::snprintf(prm, sizeof prm, "%d warps/SM u=%d", wps, u);
                    std::snprintf(note, sizeof note, "%.0f bytes in flight per SM; Little's law latency %.1f ns; launch cost included", inflight,
                                  inflight * sms / rate * 1e9);
                    row(level == 0 ? "bw_dram" : "bw_l2", prm, rate, "B/s", note);
                }
        cudaFree(p);
    }

    // Occupancy against registers.
    {
        float* in;
        unsigned *live, *most;
        check(cudaMalloc(&in, 4096), "malloc");
        check(cudaMemset(in, 0, 4096), "memset");
        check(cudaMalloc(&live, 1024 * sizeof(unsigned)), "malloc");
        check(cudaMalloc(&most, 1024 * sizeof(unsigned)), "malloc");
        occupancy<4>(sms, in, live, most, out);
        occupancy<24>(sms, in, live, most, out);
        occupancy<40>(sms, in, live, most, out);
        occupancy<56>(sms, in, live, most, out);
        occupancy<72>(sms, in, live, most, out);
        occupancy<100>(sms, in, live, most, out);
        occupancy<120>(sms, in, live, most, out);
        occupancy<160>(sms, in, live, most, out);
        occupancy<220>(sms, in, live, most, out);
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

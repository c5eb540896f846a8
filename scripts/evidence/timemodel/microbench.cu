// microbench.cu — the microbenchmarks behind the time model's constants
// (issue 13; docs/timemodel.md). Built and run on the GPU host by
// scripts/evidence/timemodel.sh:
//
//	nvcc -O3 -arch=native -o microbench microbench.cu && ./microbench > microbench.csv
//
// Output: CSV with the header `name,param,value,unit,note`, one row per
// measurement; lines starting with '#' are comments (device, date). Every
// time is measured with CUDA events (kernel times: 3 warm-ups, then 10
// launches back to back between two events, the lessons' protocol) or, for
// latencies, with clock64() inside the kernel and the SM clock measured by
// clock64() against %globaltimer.
//
// What each block measures and why the model needs it:
//   clock        the SM clock while a kernel runs (cycles per ns), to turn
//                cycles into seconds;
//   chase_*      pointer-chase latency, one thread, each load's address
//                the previous load's value: an L1 hit (16 KiB footprint,
//                default caching), an L2 hit (8 MiB, ld.global.cg so L1 is
//                bypassed), a DRAM miss (1 GiB, .cg, lines in random order);
//   launch_*     the fixed cost of a timed launch: events around 10 back-to-
//                back launches of an empty kernel (1 block, and 1,056
//                blocks) and of a tiny kernel (one store), per launch; and
//                events around every single launch; and 2,000 launches
//                back to back (the launch rate); and launch_gpu_*: 200
//                launches queued behind a 3 ms spin kernel, so the events
//                time the GPU's own cost per launch without the host's;
//   issue_*      FFMA issue rate: warp instructions per SM per cycle, 8
//                independent chains per thread at 64 warps per SM, and one
//                dependent chain at 1..64 warps per SM (how many warps it
//                takes to hide the arithmetic latency);
//   dram_*       DRAM bandwidth: read (float4, grid-stride) and copy over
//                1 GiB, and read at 1..64 warps per SM with one load in
//                flight per thread (Little's law: bytes in flight / latency);
//   l2_read      L2 bandwidth: a 16 MiB buffer read 40 times with .cg;
//   l2_capacity_read  8..72 MiB read 10 times a launch: where L2 stops
//                serving a re-read footprint.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#include "bench.cuh"  // check, row, eventTime

// ---- clock -------------------------------------------------------------

__device__ __forceinline__ uint64_t globaltimer() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// spinClock busy-waits about ns nanoseconds of %globaltimer and reports the
// clock64() cycles that passed.
__global__ void spinClock(uint64_t ns, unsigned long long* out) {
    uint64_t t0 = globaltimer();
    long long c0 = clock64();
    while (globaltimer() - t0 < ns) {
    }
    long long c1 = clock64();
    uint64_t t1 = globaltimer();
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = (unsigned long long)(t1 - t0);
}

// ---- pointer chase -----------------------------------------------------

template <bool CG>
__global__ void chase(const uint32_t* __restrict__ next, int warm, int steps, uint32_t start, unsigned long long* out) {
    uint32_t j = start;
    // A pass over the whole cycle warms the cache the footprint fits in;
    // for DRAM none: the timed steps then touch lines not yet read.
    for (int i = 0; i < warm; ++i) j = CG ? __ldcg(next + j) : next[j];
    long long c0 = clock64();
    for (int i = 0; i < steps; ++i) j = CG ? __ldcg(next + j) : next[j];
    long long c1 = clock64();
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = j;  // keeps the chain alive
}

// buildChase links one 4-byte word in each `stride`-byte line of a
// footprint of `bytes` into a single cycle, lines in random order.
static std::vector<uint32_t> buildChase(size_t bytes, size_t stride, uint32_t* start) {
    size_t words = bytes / 4, per = stride / 4, lines = bytes / stride;
    std::vector<uint32_t> order(lines);
    for (size_t i = 0; i < lines; ++i) order[i] = (uint32_t)i;
    std::mt19937_64 rng(42);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<uint32_t> next(words, 0);
    for (size_t i = 0; i < lines; ++i) {
        size_t from = (size_t)order[i] * per, to = (size_t)order[(i + 1) % lines] * per;
        next[from] = (uint32_t)to;
    }
    *start = (uint32_t)((size_t)order[0] * per);
    return next;
}

static void runChase(const char* name, size_t bytes, size_t stride, int steps, bool warm, bool cg, double cyclesPerNs) {
    uint32_t start;
    std::vector<uint32_t> h = buildChase(bytes, stride, &start);
    uint32_t* d;
    unsigned long long* out;
    check(cudaMalloc(&d, bytes), "cudaMalloc chase");
    check(cudaMalloc(&out, 16), "cudaMalloc out");
    check(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice), "memcpy chase");
    unsigned long long r[2] = {0, 0};
    double best = 1e30;
    const int w = warm ? (int)(bytes / stride) : 0;
    // For a DRAM chase, write 256 MiB elsewhere first, so the lines the
    // copy above left in L2 are evicted.
    void* flush = nullptr;
    const size_t flushBytes = (size_t)256 << 20;
    if (!warm) check(cudaMalloc(&flush, flushBytes), "cudaMalloc flush");
    for (int rep = 0; rep < 3; ++rep) {
        if (flush) check(cudaMemset(flush, rep, flushBytes), "flush");
        // Each repetition starts where the cycle stands after the previous
        // ones' steps, so a DRAM chase never re-reads a line.
        uint32_t s0 = start;
        if (rep > 0) {
            check(cudaMemcpy(r, out, 16, cudaMemcpyDeviceToHost), "chase");
            s0 = (uint32_t)r[1];
        }
        if (cg)
            chase<true><<<1, 1>>>(d, w, steps, s0, out);
        else
            chase<false><<<1, 1>>>(d, w, steps, s0, out);
        check(cudaMemcpy(r, out, 16, cudaMemcpyDeviceToHost), "chase");
        best = std::min(best, (double)r[0] / steps);
    }
    char param[64];
    std::snprintf(param, sizeof param, "%zuB/stride%zu", bytes, stride);
    row(name, param, best, "cycles", cg ? "ld.global.cg, one thread, min of 3" : "ld.global (L1 cached), one thread, min of 3");
    row(name, param, best / cyclesPerNs, "ns", "cycles / measured SM clock");
    check(cudaFree(d), "free");
    check(cudaFree(out), "free");
    if (flush) check(cudaFree(flush), "free");
}

// ---- launches ----------------------------------------------------------

__global__ void emptyKernel() {}
__global__ void tinyKernel(float* p) {
    if (threadIdx.x == 0 && blockIdx.x == 0) p[0] = 1.0f;
}

// eventEach records an event between every two launches (gpuext's pass 2)
// and returns the median milliseconds per launch.
template <class F>
static double eventEach(F launch, int runs = 10) {
    std::vector<cudaEvent_t> ev(runs + 1);
    for (auto& e : ev) check(cudaEventCreate(&e), "event");
    for (int i = 0; i < 3; ++i) launch();
    check(cudaDeviceSynchronize(), "warm-up");
    for (int i = 0; i < runs; ++i) {
        check(cudaEventRecord(ev[i]), "record");
        launch();
    }
    check(cudaEventRecord(ev[runs]), "record");
    check(cudaEventSynchronize(ev[runs]), "sync");
    std::vector<float> ms(runs);
    for (int i = 0; i < runs; ++i) check(cudaEventElapsedTime(&ms[i], ev[i], ev[i + 1]), "elapsed");
    for (auto& e : ev) cudaEventDestroy(e);
    std::sort(ms.begin(), ms.end());
    return (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
}

// gpuInterval is bench.cuh's queuedTime behind a spin of about 3 ms:
// the GPU's own cost per launch. Returns µs per launch.
template <class F>
static double gpuInterval(F launch, int n, unsigned long long* scratch) {
    return queuedTime(launch, n, [&] { spinClock<<<1, 1>>>(3000000, scratch); });
}

// ---- issue rate --------------------------------------------------------

// ffma8: 8 independent FFMA chains per thread, unrolled: issue-bound.
__global__ void ffma8(float* out, int iters, float a, float b) {
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
    }
    float s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    if (s == 12345.0f) out[blockIdx.x] = s;
}

// ffma1: one dependent chain per thread: at few warps per SM it runs at
// the FFMA latency, with more warps at the issue rate.
__global__ void ffma1(float* out, int iters, float a, float b) {
    float x = threadIdx.x;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 64; ++k) x = fmaf(x, a, b);
    }
    if (x == 12345.0f) out[blockIdx.x] = x;
}

// ---- bandwidth ---------------------------------------------------------

// readKernel (bench.cuh) reads the array once.

__global__ void readKernelCG(const float4* __restrict__ p, size_t n, int reps, float* out) {
    float s = 0;
    for (int r = 0; r < reps; ++r)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
            float4 v = __ldcg(p + i);
            s += v.x + v.y + v.z + v.w;
        }
    if (s == 12345.0f) out[0] = s;
}

__global__ void copyKernel(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}

// readOne: each thread reads one float4 per step, the next address
// depending on nothing: one load in flight per thread, as the lessons'
// #pragma unroll 1 loops keep it.
__global__ void readOne(const float4* __restrict__ p, size_t n, size_t off, int steps, float* out) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = off + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float s = 0;
#pragma unroll 1
    for (int k = 0; k < steps; ++k) {
        float4 v = __ldcg(p + (i % n));
        s += v.x + v.y + v.z + v.w;
        i += stride;
        if (s == 12345.0f) i += 1;  // a use of the load before the next one issues
    }
    if (s == 12345.0f) out[0] = s;
}

int main() {
    int dev = 0;
    check(cudaSetDevice(dev), "cudaSetDevice");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, dev), "props");
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    const int sms = prop.multiProcessorCount;
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes, CUDA driver API %d, runtime %d\n", prop.name, sms,
                prop.major, prop.minor, prop.l2CacheSize, drv, rt);
    std::printf("name,param,value,unit,note\n");
    row("device_sms", "", sms, "count", prop.name);

    // Clock.
    unsigned long long* clk;
    check(cudaMalloc(&clk, 16), "malloc");
    spinClock<<<1, 1>>>(1000000, clk);  // warm up the clock
    spinClock<<<1, 1>>>(20000000, clk);
    unsigned long long c[2];
    check(cudaMemcpy(c, clk, 16, cudaMemcpyDeviceToHost), "clock");
    const double cyclesPerNs = (double)c[0] / (double)c[1];
    row("clock", "20ms spin", cyclesPerNs * 1e9, "Hz", "clock64 cycles / globaltimer ns, one thread");
    check(cudaFree(clk), "free");

    // Latency.
    runChase("chase_l1", 16 << 10, 128, 4096, true, false, cyclesPerNs);
    runChase("chase_l2", 8 << 20, 128, 16384, true, true, cyclesPerNs);
    runChase("chase_dram", (size_t)256 << 20, 128, 8192, false, true, cyclesPerNs);
    runChase("chase_dram", (size_t)1 << 30, 128, 8192, false, true, cyclesPerNs);

    // Launches.
    float* tiny;
    check(cudaMalloc(&tiny, 4), "malloc");
    row("launch_event_empty_1block", "3 warm-ups, 10 runs", 1e3 * eventTime([] { emptyKernel<<<1, 32>>>(); }), "us",
        "events around 10 back-to-back launches, per launch");
    row("launch_event_tiny_1block", "3 warm-ups, 10 runs", 1e3 * eventTime([&] { tinyKernel<<<1, 32>>>(tiny); }), "us",
        "one store");
    row("launch_event_empty_grid", "3 warm-ups, 10 runs", 1e3 * eventTime([&] { emptyKernel<<<8 * sms, 256>>>(); }),
        "us", "8 blocks of 256 per SM");
    row("launch_event_each_empty", "median of 10", 1e3 * eventEach([] { emptyKernel<<<1, 32>>>(); }), "us",
        "an event between every two launches");
    row("launch_event_each_grid", "median of 10", 1e3 * eventEach([&] { emptyKernel<<<8 * sms, 256>>>(); }), "us",
        "an event between every two launches, 8 blocks of 256 per SM");
    row("launch_rate_empty", "2000 launches", 1e3 * eventTime([] { emptyKernel<<<1, 32>>>(); }, 100, 2000), "us",
        "events around 2000 back-to-back launches, per launch");
    {
        unsigned long long* scratch;
        check(cudaMalloc(&scratch, 16), "malloc");
        row("launch_gpu_empty", "200 queued behind a 3 ms spin", gpuInterval([] { emptyKernel<<<1, 32>>>(); }, 200, scratch),
            "us", "GPU-side cost per back-to-back launch, host rate excluded");
        row("launch_gpu_grid", "200 queued behind a 3 ms spin",
            gpuInterval([&] { emptyKernel<<<8 * sms, 256>>>(); }, 200, scratch), "us", "8 blocks of 256 per SM");
        row("launch_gpu_tiny", "200 queued behind a 3 ms spin", gpuInterval([&] { tinyKernel<<<1, 32>>>(tiny); }, 200, scratch),
            "us", "one store");
        check(cudaFree(scratch), "free");
    }
    row("launch_rate_grid", "2000 launches", 1e3 * eventTime([&] { emptyKernel<<<8 * sms, 256>>>(); }, 100, 2000),
        "us", "8 blocks of 256 per SM");

    // Issue rate.
    float* sink;
    check(cudaMalloc(&sink, 1 << 20), "malloc");
    {
        const int iters = 256, blocks = 8 * sms, threads = 256;
        double ms = eventTime([&] { ffma8<<<blocks, threads>>>(sink, iters, 1.0001f, 0.5f); });
        double warpInstr = (double)blocks * (threads / 32) * iters * 16 * 8;
        row("issue_ffma8", "64 warps/SM", warpInstr / (ms * 1e-3) / sms / (cyclesPerNs * 1e9), "warp_instr/SM/cycle",
            "FFMA only counted; loop overhead 1/128 of them");
    }
    for (int w = 1; w <= 64; w *= 2) {
        const int iters = 512;
        int blocks = sms * (w >= 8 ? w / 8 : 1), threads = 32 * (w >= 8 ? 8 : w);
        double ms = eventTime([&] { ffma1<<<blocks, threads>>>(sink, iters, 1.0001f, 0.5f); });
        double warpInstr = (double)blocks * (threads / 32) * iters * 64;
        char p[32];
        std::snprintf(p, sizeof p, "%d warps/SM", w);
        row("issue_ffma1", p, warpInstr / (ms * 1e-3) / sms / (cyclesPerNs * 1e9), "warp_instr/SM/cycle",
            "one dependent chain per thread; includes the launch's fixed cost");
    }

    // Bandwidth.
    const size_t bytes = (size_t)1 << 30, n4 = bytes / 16;
    float4 *a, *b;
    check(cudaMalloc(&a, bytes), "malloc a");
    check(cudaMalloc(&b, bytes), "malloc b");
    check(cudaMemset(a, 0, bytes), "memset");
    {
        double ms = eventTime([&] { readKernel<<<sms * 8, 256>>>(a, n4, sink); });
        row("dram_read", "1GiB", bytes / (ms * 1e-3), "B/s", "float4 grid-stride, 8 blocks of 256 per SM");
        ms = eventTime([&] { copyKernel<<<sms * 8, 256>>>(a, b, n4); });
        row("dram_copy", "1GiB->1GiB", 2.0 * bytes / (ms * 1e-3), "B/s", "read + written bytes");
    }
    {
        const size_t l2b = 16 << 20, l2n = l2b / 16;
        const int reps = 40;
        double ms = eventTime([&] { readKernelCG<<<sms * 8, 256>>>(a, l2n, reps, sink); });
        row("l2_read", "16MiB x40", (double)l2b * reps / (ms * 1e-3), "B/s", "ld.global.cg, 8 blocks of 256 per SM");
    }
    // Where L2 stops holding a re-read footprint: read it 10 times per
    // launch (.cg); the bandwidth falls toward DRAM's past the capacity
    // that serves hits (the model takes a footprint up to half the L2 as
    // resident across timed launches).
    for (int mib = 8; mib <= 72; mib += 8) {
        const size_t fb = (size_t)mib << 20, fn = fb / 16;
        const int reps = 10;
        double ms = eventTime([&] { readKernelCG<<<sms * 8, 256>>>(a, fn, reps, sink); });
        char p[32];
        std::snprintf(p, sizeof p, "%dMiB x%d", mib, reps);
        row("l2_capacity_read", p, (double)fb * reps / (ms * 1e-3), "B/s", "ld.global.cg, 8 blocks of 256 per SM");
    }
    for (int w = 1; w <= 64; w *= 2) {
        int blocks = sms * (w >= 8 ? w / 8 : 1), threads = 32 * (w >= 8 ? 8 : w);
        const int steps = 64;
        double by = (double)blocks * threads * steps * 16;
        // Each launch reads the next stretch of the 1 GiB buffer, so no
        // launch finds its data in L2 from the one before.
        size_t off = 0, span = (size_t)blocks * threads * steps;
        double ms = eventTime([&] {
            readOne<<<blocks, threads>>>(a, n4, off, steps, sink);
            off = (off + span) % n4;
        });
        char p[32];
        std::snprintf(p, sizeof p, "%d warps/SM", w);
        row("dram_read_1inflight", p, by / (ms * 1e-3), "B/s", "one float4 load in flight per thread, .cg");
    }
    check(cudaFree(a), "free");
    check(cudaFree(b), "free");
    check(cudaFree(sink), "free");
    check(cudaFree(tiny), "free");
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

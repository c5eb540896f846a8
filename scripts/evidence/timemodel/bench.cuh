// bench.cuh — what the time model's microbenchmarks share (issue 13):
// microbench.cu and the programs in scripts/evidence/timemodel-load.sh and
// timemodel-l2sectors.sh include it (nvcc -I scripts/evidence/timemodel).
//
// check exits with the failing call named; deviceHeader prints a CSV's
// device line and column names; row prints one CSV row of the
// `name,param,value,unit,note` files; eventTime times a launch sequence as
// the lessons do (gpuext.Device.Time's first pass): warm-ups, a
// synchronize, then CUDA events around runs launches back to back, and
// returns milliseconds per launch; queuedTime times the GPU's own cost per
// launch, the host's rate left out, and gpuTime does so behind spinFor;
// uploadRandom fills a device array with
// the atomics runs' random values; aloneTime and callQueuedAlone time a
// launch alone and three ways (memgap.cu, libsfloor.cu); readKernel reads a float4 array once,
// grid-stride (a bandwidth run, or data put in L2 before a warm run).
#pragma once
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

static void row(const char* name, const char* param, double value, const char* unit, const char* note) {
    std::printf("%s,%s,%.6g,%s,%s\n", name, param, value, unit, note);
    std::fflush(stdout);
}

// deviceHeader prints the first two lines of a program's CSV (the device
// line sim.ParseMicrobench keeps, and the column names) and returns the
// device's properties: dispatch.cu, blockcost.cu and warpslots.cu.
static cudaDeviceProp deviceHeader() {
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, 0), "properties");
    std::printf("# device: %s, %d SMs, cc %d.%d\n", p.name, p.multiProcessorCount, p.major, p.minor);
    std::printf("name,param,value,unit,note\n");
    return p;
}

// eventsAround records a CUDA event, calls launches, records another and
// returns the milliseconds between them, a launch error named.
template <class F>
static double eventsAround(F launches) {
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "event");
    check(cudaEventCreate(&b), "event");
    check(cudaEventRecord(a), "record");
    launches();
    check(cudaEventRecord(b), "record");
    check(cudaEventSynchronize(b), "sync");
    float ms;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    check(cudaGetLastError(), "launch");
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms;
}

template <class F>
static double eventTime(F launch, int warm = 3, int runs = 10) {
    for (int i = 0; i < warm; ++i) launch();
    check(cudaDeviceSynchronize(), "warm-up");
    return eventsAround([&] {
               for (int i = 0; i < runs; ++i) launch();
           }) /
           runs;
}

// queuedTime launches 3 warm-ups, then spin (a kernel that holds the GPU a
// few milliseconds), then n launches behind it: the host has queued them
// all before the spin ends, so the events around them (the first recorded
// when the spin ends) time the GPU's own cost per launch, free of the
// host's launch rate. Returns µs per launch.
template <class F, class S>
static double queuedTime(F launch, int n, S spin) {
    for (int i = 0; i < 3; ++i) launch();
    spin();
    return 1e3 *
           eventsAround([&] {
               for (int i = 0; i < n; ++i) launch();
           }) /
           n;
}

// spinFor holds the GPU cycles clock64 cycles: the spin queuedTime's
// launches wait behind (gpuTime).
__global__ void spinFor(unsigned long long cycles) {
    unsigned long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

// gpuTime is queuedTime behind a spin of 6 M cycles (about 3 ms): the
// GPU's own µs per launch of n launches (dispatch.cu, blockcost.cu).
template <class F>
static double gpuTime(F launch, int n) {
    return queuedTime(launch, n, [] { spinFor<<<1, 1>>>(6000000ULL); });
}

// gtime reads %globaltimer, the GPU's nanosecond clock.
__device__ inline unsigned long long gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// spinNs runs for ns nanoseconds of %globaltimer; with out != nullptr
// thread 0 of block 0 writes the SM cycles and nanoseconds it spun
// (coldlaunch.cu, memgap.cu).
__global__ void spinNs(unsigned long long ns, unsigned long long* out) {
    unsigned long long t0 = gtime(), c0 = clock64(), t;
    do {
        t = gtime();
    } while (t - t0 < ns);
    if (out && blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = clock64() - c0;
        out[1] = t - t0;
    }
}

// smClockMHz is the SM clock: spinNs's cycles over its nanoseconds in a
// 20 µs spin, d two words of device memory.
static double smClockMHz(unsigned long long* d) {
    unsigned long long h[2];
    spinNs<<<1, 32>>>(20000, d);
    check(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "clock read");
    return h[1] ? 1e3 * double(h[0]) / double(h[1]) : 0;
}

// aloneTime is one launch between two events after a synchronize, the
// median of 21 in µs: the kernel and one launch's latency (memgap.cu,
// libsfloor.cu).
template <class F>
static double aloneTime(F launch) {
    std::vector<double> v;
    for (int i = 0; i < 21; ++i) {
        check(cudaDeviceSynchronize(), "sync");
        v.push_back(1e3 * eventsAround(launch));
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// callQueuedAlone prints a launch's three times as rows NAME (eventTime,
// the lessons' protocol), NAME_queued (gpuTime of 20, the GPU's own) and
// NAME_alone (aloneTime), in µs, each note starting with what.
template <class F>
static void callQueuedAlone(const char* name, const char* param, F launch, const char* what) {
    char note[200], qn[64];
    std::snprintf(note, sizeof note, "%s; 3 warm-ups and 10 back to back between events", what);
    row(name, param, 1e3 * eventTime(launch), "us", note);
    std::snprintf(note, sizeof note, "%s; 20 launches queued behind a 3 ms spin", what);
    std::snprintf(qn, sizeof qn, "%s_queued", name);
    row(qn, param, gpuTime(launch, 20), "us", note);
    std::snprintf(note, sizeof note, "%s; one launch between events after a sync, median of 21", what);
    std::snprintf(qn, sizeof qn, "%s_alone", name);
    row(qn, param, aloneTime(launch), "us", note);
}

// uploadRandom copies n values of a 64-bit LCG (Knuth's MMIX constants,
// the top 31 bits) from seed to the device array r: atomics.cu's and
// atomfresh.cu's random bins, the same values in both.
static void uploadRandom(unsigned* r, int n, uint64_t seed) {
    std::vector<unsigned> h(n);
    uint64_t x = seed;
    for (auto& v : h) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        v = (unsigned)(x >> 33);
    }
    check(cudaMemcpy(r, h.data(), sizeof(unsigned) * (size_t)n, cudaMemcpyHostToDevice), "copy");
}

// readKernel reads p[0..n) once, a grid-stride loop of float4 loads, and
// keeps the sum alive: microbench.cu's DRAM bandwidth, timemodel-load.sh's
// read, and gathers.cu's warm-up of its L2 buffer.
// readBody is its body, for a kernel that must read the same way under
// another name (l2warm.cu's probe, which Nsight Compute picks by name).
// b is the block whose share this block reads: blockIdx.x, or another
// (l2warm.cu's moved stream).
__device__ __forceinline__ void readBody(const float4* __restrict__ p, size_t n, float* out, size_t b = blockIdx.x) {
    float s = 0;
    for (size_t i = b * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = p[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == 12345.0f) out[0] = s;
}

__global__ void readKernel(const float4* __restrict__ p, size_t n, float* out) { readBody(p, n, out); }

#!/bin/bash
# timemodel-load.sh — microbenchmarks that decide three open questions of
# the time model (issue 13; docs/timemodel.md, "What it gets wrong"), in
# one device call of under a minute, from the repository root:
#
#   bash scripts/evidence/timemodel-load.sh .cache/device "$OUT/timemodel-load"
#
# ($1 is unused: the program is CUDA C, compiled here by nvcc.) It writes
# under $2: env.txt (date, nvidia-smi, nvcc), loadbench.csv (header
# name,param,value,unit,note as microbench.csv) and prints the CSV.
#
#   l2_read_1inflight   one 16-byte .cg load in flight per thread over an
#                       8 MiB buffer already in L2, 1..64 warps per SM: the
#                       L2 latency a warp's request sees under load (bytes in
#                       flight / rate), as dram_read_1inflight gives DRAM's
#                       (the model takes the L2 latency from one thread's
#                       pointer chase today);
#   l1_scatter          32 lanes each reading its own 128-byte line (or its
#                       own 32-byte sector of shared lines) from a footprint
#                       that stays in L1, 32 warps per SM: sectors per SM per
#                       cycle of the L1's tag stage for scattered requests
#                       (CG's thread-per-row SpMV at 100³ measures 2.6x the
#                       model, which has no such term);
#   rw_resident, xlaunch_read
#                       a copy (read a, write b), a waxpby (read x, y,
#                       write w) and a plain read over footprints of 2..56
#                       MiB, one pass a launch, timed as the
#                       lessons time (3 warm-ups, 10 launches between
#                       events): up to what footprint a launch finds the
#                       previous launch's data in L2. The model takes a
#                       footprint up to half the L2 (30 MiB) as resident;
#                       microbench.csv's l2_capacity_read re-reads within
#                       one launch and does not test this, and CG's waxpby
#                       (24 MB) and ddot (16 MB) at 100³ run at DRAM speed.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${2:?usage: timemodel-load.sh BINDIR OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
R="$(cd "$(dirname "$0")/../.." && pwd)"
T="$(mktemp -d)"
cat >"$T/loadbench.cu" <<'CU'
#include "bench.cuh"  // check, row, eventTime (scripts/evidence/timemodel)
// one .cg float4 load in flight per thread, n float4s (a power of two)
__global__ void readOne(const float4* __restrict__ p, size_t mask, int steps, float* out) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float s = 0;
#pragma unroll 1
    for (int k = 0; k < steps; ++k) {
        float4 v = __ldcg(p + (i & mask));
        s += v.x + v.y + v.z + v.w;
        i += stride;
        if (s == 12345.0f) i += 1;
    }
    if (s == 12345.0f) out[0] = s;
}
// each lane reads word lane*strideWords (+k*32... within a per-block
// footprint of 32*strideWords words) with the default (L1) caching; 8
// independent loads per step keep the L1 busy.
__global__ void scatter(const float* __restrict__ p, int strideWords, int steps, float* out) {
    const float* b = p + (size_t)(blockIdx.x % 64) * 32 * strideWords * 8;
    int lane = threadIdx.x & 31;
    float s = 0;
    for (int k = 0; k < steps; ++k) {
#pragma unroll
        for (int j = 0; j < 8; ++j) s += b[(j * 32 + lane) * strideWords + (k & 1)];
    }
    if (s == 12345.0f) out[0] = s;
}
__global__ void copyK(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}
__global__ void waxpbyK(const double* __restrict__ x, const double* __restrict__ y, double* __restrict__ w, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) w[i] = 2.0 * x[i] + 3.0 * y[i];
}
int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "props");
    const int sms = prop.multiProcessorCount;
    int drv = 0; cudaDriverGetVersion(&drv);
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes, CUDA driver API %d\n", prop.name, sms, prop.major, prop.minor, prop.l2CacheSize, drv);
    std::printf("name,param,value,unit,note\n");
    float* sink; check(cudaMalloc(&sink, 1 << 20), "malloc");
    char p[64];
    {   // L2 under load
        const size_t bytes = 8 << 20, n4 = bytes / 16;
        float4* a; check(cudaMalloc(&a, bytes), "malloc"); check(cudaMemset(a, 0, bytes), "memset");
        for (int w = 1; w <= 64; w *= 2) {
            int blocks = sms * (w >= 8 ? w / 8 : 1), threads = 32 * (w >= 8 ? 8 : w);
            const int steps = 256;
            double ms = eventTime([&] { readOne<<<blocks, threads>>>(a, n4 - 1, steps, sink); });
            double by = (double)blocks * threads * steps * 16;
            std::snprintf(p, sizeof p, "%d warps/SM", w);
            row("l2_read_1inflight", p, by / (ms * 1e-3), "B/s", "8 MiB in L2; one float4 .cg load in flight per thread");
            row("l2_read_1inflight_latency", p, (double)blocks * threads * 16 / (by / (ms * 1e-3)) * 1e9, "ns", "bytes in flight / rate");
        }
        check(cudaFree(a), "free");
    }
    {   // L1 tag stage, scattered requests that hit L1
        float* a; const size_t bytes = 64 << 20;
        check(cudaMalloc(&a, bytes), "malloc"); check(cudaMemset(a, 0, bytes), "memset");
        int clk = 0; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
        for (int sw : {1, 8, 32}) {  // 4-byte (coalesced), 32-byte (a sector each), 128-byte (a line each)
            const int steps = 2048, blocks = sms * 4, threads = 256;
            double ms = eventTime([&] { scatter<<<blocks, threads>>>(a, sw, steps, sink); });
            double req = (double)blocks * (threads / 32) * steps * 8;
            double sectors = req * (sw == 1 ? 4 : 32);
            std::snprintf(p, sizeof p, "stride %d B", sw * 4);
            row("l1_scatter_requests", p, req / (ms * 1e-3) / sms, "requests/SM/s", "32 warps/SM, footprint in L1");
            row("l1_scatter_sectors", p, sectors / (ms * 1e-3) / sms / (clk * 1e3), "sectors/SM/cycle", "at the device's reported max SM clock");
        }
        check(cudaFree(a), "free");
    }
    {   // re-written footprints
        const size_t maxb = (size_t)56 << 20;
        char *a, *b, *c; check(cudaMalloc(&a, maxb), "m"); check(cudaMalloc(&b, maxb), "m"); check(cudaMalloc(&c, maxb), "m");
        check(cudaMemset(a, 0, maxb), "z"); check(cudaMemset(b, 0, maxb), "z"); check(cudaMemset(c, 0, maxb), "z");
        for (int mib : {2, 4, 8, 12, 16, 24, 32, 40, 48, 56}) {
            size_t fb = (size_t)mib << 20;
            size_t n4 = fb / 2 / 16;  // half read, half written
            double ms = eventTime([&] { copyK<<<sms * 8, 256>>>((float4*)a, (float4*)b, n4); });
            std::snprintf(p, sizeof p, "%d MiB footprint", mib);
            row("rw_resident_copy", p, 2.0 * n4 * 16 / (ms * 1e-3), "B/s", "read a + write b, read+written bytes");
            size_t n = fb / 3 / 8;
            ms = eventTime([&] { waxpbyK<<<(unsigned)((n + 255) / 256), 256>>>((double*)a, (double*)b, (double*)c, n); });
            row("rw_resident_waxpby", p, 3.0 * n * 8 / (ms * 1e-3), "B/s", "read x, y + write w, one thread per element");
            row("rw_resident_waxpby_time", p, ms * 1e3, "us", "per launch, events around 10");
            size_t nr = fb / 16;
            ms = eventTime([&] { readKernel<<<sms * 8, 256>>>((const float4*)a, nr, sink); });
            row("xlaunch_read", p, fb / (ms * 1e-3), "B/s", "read once per launch (default caching), launches back to back: L2 serves it across launches when above dram_read");
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}
CU
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/loadbench" "$T/loadbench.cu" 2>"$E/nvcc.err"; then
	timeout 120 "$T/loadbench" >"$E/loadbench.csv" 2>"$E/loadbench.err"
	echo "loadbench exit $?"
	cat "$E/loadbench.csv"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
rm -rf "$T"

// linewait.cu — what a warp waits for a line another warp of its block
// has just asked for (issue 27, the twenty-seventh pass).
//
// The executor's L1 model charges a line's miss to the first warp that
// touches it and gives the block's other warps an L1 hit; the time model
// takes a block's slowest warp, so that choice did not matter until the
// twenty-seventh pass freed warps' slots one by one. This program asks
// what the other warps wait on the GPU. One block an SM of 8 warps; lane 0
// of each warp times one dependent load with clock64. Warp 0 loads a line
// no one has read since a 256 MiB sweep pushed it out of L2; warps 1..7
// load the same line after spinning d cycles (d = 0: at once, while warp
// 0's miss is in flight; larger d: after it came back):
//
//   linewait_first  warp 0's load, cycles (median over the SMs' blocks)
//   linewait_other  warps 1..7's loads of the same line, cycles (median)
//   linewait_own    warps 1..7 loading lines of their own instead (d = 0)
//
// Recorded: evidence/timemodel-linewait-h100-2026-12-06.
//
// param: "d=cycles"; value: cycles.
#include <algorithm>
#include <vector>

#include "bench.cuh"

__global__ void lineWait(const float* __restrict__ x, long stride, unsigned delay, int own, long long* cyc, float* sink) {
    const int w = threadIdx.x / 32;
    if (threadIdx.x % 32 != 0) return;
    long i = (long)blockIdx.x * stride;
    if (own && w > 0) i += (long)w * 32; // another 128-byte line of the block's region
    if (w > 0 && delay > 0) {
        long long s = clock64();
        while (clock64() - s < delay) {
        }
    }
    volatile __shared__ float got[8];
    long long t0 = clock64();
    float v = x[i];
    got[w] = v; // a volatile store of the value: the warp issues in order, so t1 is read after the load is back
    long long t1 = clock64();
    cyc[blockIdx.x * 8 + w] = t1 - t0;
    if (got[w] == 12345.0f) sink[0] = v; // never true
}

__global__ void sweep(const float* __restrict__ big, long n, float* sink) {
    float s = 0;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) s += big[i];
    if (s == 12345.0f) sink[2] = s;
}

static double median(std::vector<long long> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : (double)v[v.size() / 2];
}

int main() {
    const cudaDeviceProp p = deviceHeader();
    const int sms = p.multiProcessorCount;
    const long stride = 1 << 16; // floats between blocks' lines: 256 KiB
    float *x, *big, *sink;
    long long* cyc;
    const long bigN = 64L << 20; // 256 MiB of floats
    check(cudaMalloc(&x, sizeof(float) * stride * sms), "malloc x");
    check(cudaMalloc(&big, sizeof(float) * bigN), "malloc big");
    check(cudaMalloc(&sink, 16), "malloc sink");
    check(cudaMalloc(&cyc, sizeof(long long) * 8 * sms), "malloc cyc");
    check(cudaMemset(x, 0, sizeof(float) * stride * sms), "memset x");
    check(cudaMemset(big, 0, sizeof(float) * bigN), "memset big");
    std::vector<long long> h(8 * sms);
    char prm[64];
    for (int own : {0, 1}) {
        for (unsigned d : {0u, 100u, 400u, 1000u, 2000u, 4000u}) {
            if (own && d > 0) continue;
            std::vector<long long> first, other;
            for (int rep = 0; rep < 5; ++rep) {
                sweep<<<4 * sms, 256>>>(big, bigN, sink);
                lineWait<<<sms, 256>>>(x, stride, d, own, cyc, sink);
                check(cudaDeviceSynchronize(), "lineWait");
                check(cudaMemcpy(h.data(), cyc, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost), "copy");
                for (int b = 0; b < sms; ++b) {
                    first.push_back(h[b * 8]);
                    for (int w = 1; w < 8; ++w) other.push_back(h[b * 8 + w]);
                }
            }
            std::snprintf(prm, sizeof prm, "d=%u", d);
            if (!own) {
                row("linewait_first", prm, median(first), "cycles", "warp 0's load of a line out of L2, lane 0, clock64 around it");
                row("linewait_other", prm, median(other), "cycles", "warps 1-7's loads of the same line after d cycles");
            } else {
                row("linewait_own", prm, median(other), "cycles", "warps 1-7 loading lines of their own, out of L2");
            }
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

// gathers.cu — what a pass of g independent gathers costs a warp alone
// (issue 27; docs/timemodel.md, "What it gets wrong": long rows over when
// warm, under when cold). lonerow.cu's lone lane paid 1.7 DRAM scatter
// latencies a compiled pass for 16 random gathers from DRAM, where the
// model waits one round. Here one warp on the whole GPU (one block of 32
// threads, lanes k and up idle) runs 1,024 passes; each pass computes g
// random line addresses, each a hash of the pass's seed and the gather's
// index (no load and no other gather's arithmetic feeds an address),
// issues the g loads (ld.global.nc, as the SpMV kernels' x gathers), and
// adds their values into one sum, which the next pass's seed waits for.
// The warp times itself with clock64: cycles a pass. Rows (name, param,
// value, unit, note):
//
//   gath_dram  k=K,g=G   a 4 GiB buffer, each launch at fresh random lines:
//                        every gather a DRAM miss (the L2 holds 1.5% of it)
//   gath_l2    k=K,g=G   a 16 MiB buffer read whole by a kernel before:
//                        L2 hits (the L1 holds 1.5% of it)
//
// for K = 1 (a lone lane: a load is one line) and 32 (every lane its own
// line: a load is a request of 32 lines), G = 1, 2, 4, 8, 16.
#include <algorithm>

#include "bench.cuh"

constexpr int kPasses = 1024;

template <int G>
__global__ void gathers(const float* __restrict__ x, unsigned long long lines, unsigned seed, int k,
                        float* out, long long* cyc) {
    const unsigned lane = threadIdx.x;
    float acc = 0;
    unsigned s = seed * 2654435761u + lane * 40503u + 1;
    long long t0 = 0;
    if (lane < (unsigned)k) {
        t0 = clock64();
        for (int p = 0; p < kPasses; ++p) {
            // each gather's line a hash of the pass's seed and its own
            // index: no address waits for another's arithmetic
            unsigned idx[G];
#pragma unroll
            for (int i = 0; i < G; ++i) {
                unsigned h = s + (unsigned)i * 0x9E3779B9u;
                h ^= h >> 16;
                h *= 0x7feb352du;
                h ^= h >> 15;
                idx[i] = h & (unsigned)(lines - 1); // lines: a power of two
            }
            float v[G];
#pragma unroll
            for (int i = 0; i < G; ++i) v[i] = __ldg(x + (size_t)idx[i] * 32); // a line's first float
#pragma unroll
            for (int i = 0; i < G; ++i) acc += v[i];
            // the next pass's addresses wait for this pass's loads (the
            // buffers hold zeros, so this adds 0; the compiler cannot
            // know it, and does not overlap passes)
            s = s * 1664525u + 1013904223u + (__float_as_uint(acc) >> 31);
        }
        const long long t1 = clock64();
        if (lane == 0) cyc[0] = t1 - t0;
    }
    if (acc == 1234.5f) out[0] = acc;
}

template <int G>
static double run(const float* x, size_t bytes, unsigned seed, int k, float* out, long long* cyc) {
    gathers<G><<<1, 32>>>(x, bytes / 128, seed, k, out, cyc);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "sync");
    long long c = 0;
    check(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost), "copy");
    return (double)c / kPasses;
}

template <int G>
static void rows(const char* name, const float* x, size_t bytes, bool warmFirst, int k, float* out,
                 long long* cyc, unsigned& seed, const char* note) {
    // three launches, the median of them; the warm case reads the buffer
    // whole before each, the cold one takes fresh random lines each time
    double v[3];
    for (int r = 0; r < 3; ++r) {
        if (warmFirst) {
            readKernel<<<264, 256>>>((const float4*)x, bytes / 16, out);
            check(cudaDeviceSynchronize(), "read");
        }
        v[r] = run<G>(x, bytes, seed++, k, out, cyc);
    }
    std::sort(v, v + 3);
    char prm[32];
    std::snprintf(prm, sizeof prm, "k=%d;g=%d", k, G);
    row(name, prm, v[1], "cycles/pass", note);
}

int main() {
    deviceHeader();
    const size_t big = (size_t)4 << 30, small = (size_t)16 << 20;
    float *xb, *xs, *out;
    long long* cyc;
    check(cudaMalloc(&xb, big), "malloc 4 GiB");
    check(cudaMemset(xb, 0, big), "memset");
    check(cudaMalloc(&xs, small), "malloc 16 MiB");
    check(cudaMemset(xs, 0, small), "memset");
    check(cudaMalloc(&out, 64), "malloc");
    check(cudaMalloc(&cyc, 64), "malloc");
    unsigned seed = 1;
    const char* nd = "one warp on the GPU, lanes < k; g random-line gathers a pass from 4 GiB (DRAM), summed; clock64";
    const char* nl = "one warp on the GPU, lanes < k; g random-line gathers a pass from 16 MiB read just before (L2), summed; clock64";
    for (int k : {1, 32}) {
        rows<1>("gath_dram", xb, big, false, k, out, cyc, seed, nd);
        rows<2>("gath_dram", xb, big, false, k, out, cyc, seed, nd);
        rows<4>("gath_dram", xb, big, false, k, out, cyc, seed, nd);
        rows<8>("gath_dram", xb, big, false, k, out, cyc, seed, nd);
        rows<16>("gath_dram", xb, big, false, k, out, cyc, seed, nd);
        rows<1>("gath_l2", xs, small, true, k, out, cyc, seed, nl);
        rows<2>("gath_l2", xs, small, true, k, out, cyc, seed, nl);
        rows<4>("gath_l2", xs, small, true, k, out, cyc, seed, nl);
        rows<8>("gath_l2", xs, small, true, k, out, cyc, seed, nl);
        rows<16>("gath_l2", xs, small, true, k, out, cyc, seed, nl);
    }
    check(cudaFree(xb), "free");
    check(cudaFree(xs), "free");
    check(cudaFree(out), "free");
    check(cudaFree(cyc), "free");
    return 0;
}

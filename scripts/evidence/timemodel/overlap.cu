// overlap.cu — how a warp's instructions and its memory waits add up when
// many warps share an SM (issue 27, milestone 3).
//
// The model prices a launch by the longest of its terms: the latency
// term (each warp's load rounds at their latencies plus its instructions
// at WarpCPI, blocks taking the SM's slots in turn) and the issue term
// (the SM's instructions at its issue rate), among others. Where the two
// are close the GPU takes longer than either: the sweep's warp-per-row
// SpMV on road-like rows (2–4 entries a row) is modeled at 0.62–0.72 of
// the H200's time with its issue term at 77–108% of its latency term.
// These rows say how the two compose, with no data-dependent control:
// every warp walks a chain of random 128-byte lines (dram.cu's chase:
// one coalesced request a step, each lane a word of the line, all the
// same next line), then runs K FMAs a step, at w warps an SM (blocks of
// 256 threads; w = 8: one block an SM).
//
//   overlap_dep  the K FMAs are one chain from the loaded value, and the
//                next load's address depends on the chain's result (a
//                zero bit of it): a step is its load, then its chain
//   overlap_ind  the K FMAs are a chain of their own, independent of the
//                loads: they issue while the step's load is in flight
//   param: mem = l2 (16 MiB, 2^17 lines: in L2 after the first launch)
//          or dram (4 GiB, 2^25 lines), w = 8, 16, 32, 64, k = 0, 8, 32,
//          128; value: ns a step (bench.cuh's eventTime / 256 steps,
//          launch included)
#include <cstdint>

#include "bench.cuh"

__global__ void fillChase(unsigned* p, int lg) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t lines = (size_t)1 << lg;
    if (i >= lines * 32) return;
    const unsigned line = (unsigned)(i / 32);
    p[i] = (line * 2891336453u + 12345u) & (unsigned)(lines - 1);
}

template <int K, bool DEP>
__global__ void overlap(const unsigned* __restrict__ p, float* out, int steps, int lg, float a, float b) {
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned line = (warp * 2654435761u) & ((1u << lg) - 1);
    float x = (float)threadIdx.x;
    for (int i = 0; i < steps; ++i) {
        // DEP: the next line also depends on x (its sign bit, always 0:
        // x stays positive), so a step's load waits for the last step's
        // FMAs as well, whatever order the compiler picks.
        const unsigned from = DEP ? line ^ (__float_as_uint(x) >> 31) : line;
        line = __ldcg(p + (size_t)from * 32 + (threadIdx.x & 31));
        const float v = DEP ? __uint_as_float(line | 0x3f000000u) : b;
#pragma unroll
        for (int j = 0; j < K; ++j) x = fmaf(x, a, v);
    }
    if (x == 12345.0f || line == 0xffffffffu) out[0] = x + (float)line;
}

template <int K, bool DEP>
static double stepNs(const unsigned* p, float* out, int sms, int w, int lg) {
    const int steps = 256, blocks = sms * (w / 8);
    return eventTime([&] { overlap<K, DEP><<<blocks, 256>>>(p, out, steps, lg, 1.0001f, 0.5f); }) * 1e6 / steps;
}

template <bool DEP>
static void rows(const unsigned* p, float* out, int sms, const char* mem, int lg) {
    const char* name = DEP ? "overlap_dep" : "overlap_ind";
    const char* note = DEP ? "a step: a coalesced line load then K dependent FMAs from its value; launch included"
                           : "a step: a coalesced line load and K FMAs of their own chain; launch included";
    char prm[64];
    for (int w : {8, 16, 32, 64}) {
        const double t[4] = {stepNs<0, DEP>(p, out, sms, w, lg), stepNs<8, DEP>(p, out, sms, w, lg),
                             stepNs<32, DEP>(p, out, sms, w, lg), stepNs<128, DEP>(p, out, sms, w, lg)};
        const int ks[4] = {0, 8, 32, 128};
        for (int i = 0; i < 4; ++i) {
            std::snprintf(prm, sizeof prm, "mem=%s w=%d k=%d", mem, w, ks[i]);
            row(name, prm, t[i], "ns", note);
        }
    }
}

int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    const int sms = prop.multiProcessorCount;
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes\n", prop.name, sms, prop.major, prop.minor, prop.l2CacheSize);
    std::printf("name,param,value,unit,note\n");
    row("device_sms", "", sms, "count", prop.name);
    unsigned* buf;
    float* out;
    check(cudaMalloc(&buf, ((size_t)1 << 25) * 128), "malloc 4 GiB");
    check(cudaMalloc(&out, 64), "malloc");
    for (int lg : {17, 25}) {
        const size_t words = ((size_t)1 << lg) * 32;
        fillChase<<<(unsigned)((words + 255) / 256), 256>>>(buf, lg);
        check(cudaDeviceSynchronize(), "fill");
        const char* mem = lg == 17 ? "l2" : "dram";
        rows<true>(buf, out, sms, mem, lg);
        if (lg == 17) rows<false>(buf, out, sms, mem, lg);
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

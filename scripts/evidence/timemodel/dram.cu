// dram.cu — what DRAM moves for partial sectors, and how long a coalesced
// request waits under load (issue 27, milestone 3); and the latencies on a
// reduction's dependent path (shuffles, a shared step between barriers).
// The time model's DRAM access granularity, loaded-latency curve and
// dependent latencies come from these rows, not from the sweep. Timed as
// the lessons time (bench.cuh's eventTime: 3 warm-ups, 10 launches between
// two events), grids of 8 blocks of 256 threads an SM unless the row says
// otherwise. Rows (name,param,value,unit,note):
//
//   dram_stride_read   s = 4, 32, 64, 128, 256 bytes: 8 loads a thread of
//                      one float each, float k·(n/8)+i at byte offset
//                      (k·(n/8)+i)·s of a 4 GiB span (16x the L2), so each
//                      load touches its own 32-byte sector for s >= 32.
//                      Touched sectors a second, and bytes a second if each
//                      touched sector moved g bytes: the rate is what the
//                      DRAM sustains, so g = rate(s=4 B, bytes) / (touched
//                      sectors a second) says how many bytes DRAM moves a
//                      touched sector
//   dram_stride_write  the same with one float stored a touched sector
//                      (partial-sector writes)
//   dram_chase         w = 1..64 warps per SM: each warp walks K = 256
//                      random 128-byte lines of a 4 GiB buffer, lane l
//                      reading word l; every word of a line holds the next
//                      line's index, so the walk is one coalesced request a
//                      step, each waiting for the one before. Nanoseconds a
//                      step: the latency of a coalesced DRAM request with w
//                      × 128 bytes in flight per SM
//   dram_chase_v4      the same with float4 loads of 512-byte blocks (w ×
//                      512 bytes in flight per SM)
//   l2_chase           dram_chase over 16 MiB (2^17 lines): in L2
//   dram_scatter       w = 1..64 warps per SM: every lane walks its own
//                      chain of random 128-byte lines of 4 GiB (64 steps,
//                      new lines each launch), so a warp's request touches
//                      32 lines; nanoseconds a step (a thread-per-row
//                      gather's round)
//   l2_scatter         the same over 16 MiB (in L2)
//   shfl_chain         one warp: K dependent __shfl_down_sync + add steps
//                      (a warp reduction's step); cycles a step
//   red_step           b blocks of 256 threads an SM: K steps of
//                      { v = s[t ^ 1]; __syncthreads(); s[t] = v + 1;
//                      __syncthreads(); } (a block tree reduction's step:
//                      a shared load, its use, a store, two barriers);
//                      cycles a step
//
// With the argument "once" it launches each strided kernel once and times
// nothing, for Nsight Compute's DRAM byte counters (timemodel-dram.sh).
#include <cstdint>
#include <vector>

#include "bench.cuh"

__global__ void strideRead(const float* __restrict__ p, float* out, size_t n8, size_t step) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n8) return;
    float v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = p[(k * n8 + i) * step];
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += v[k];
    if (s == 1234.5f) out[0] = s;
}

__global__ void strideWrite(float* p, size_t n8, size_t step) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n8) return;
#pragma unroll
    for (int k = 0; k < 8; ++k) p[(k * n8 + i) * step] = (float)i;
}

// fillChase makes every word of line p (words per line: wpl) hold the next
// line's index, a full-period LCG over the 2^lg lines; with v4, only the
// first word of each 16 bytes does and the other three are 0 (chaseV4
// xors all four, so the load stays 16 bytes wide).
__global__ void fillChase(unsigned* p, int lg, int wpl, int v4) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t lines = (size_t)1 << lg;
    if (i >= lines * wpl) return;
    const unsigned line = (unsigned)(i / wpl);
    p[i] = v4 && (i & 3) ? 0u : (line * 2891336453u + 12345u) & (unsigned)(lines - 1);
}

__global__ void chase(const unsigned* __restrict__ p, unsigned* out, int steps, int lg) {
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned line = (warp * 2654435761u) & ((1u << lg) - 1);
    for (int i = 0; i < steps; ++i) line = __ldcg(p + (size_t)line * 32 + (threadIdx.x & 31));
    if (line == 0xffffffffu) out[0] = line;
}

// scatterChase: every lane walks its own chain of random 128-byte lines
// (start from its thread index and seed), so a warp's request touches 32
// lines, one word each: a thread-per-row loop's gather.
__global__ void scatterChase(const unsigned* __restrict__ p, unsigned* out, int steps, int lg, unsigned seed) {
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned line = ((tid + seed) * 2654435761u) & ((1u << lg) - 1);
    for (int i = 0; i < steps; ++i) line = __ldcg(p + (size_t)line * 32 + (threadIdx.x & 7));
    if (line == 0xffffffffu) out[0] = line;
}

__global__ void chaseV4(const uint4* __restrict__ p, unsigned* out, int steps, int lg) {
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned line = (warp * 2654435761u) & ((1u << lg) - 1);
    for (int i = 0; i < steps; ++i) {
        const uint4 q = __ldcg(p + (size_t)line * 32 + (threadIdx.x & 31));
        line = q.x ^ q.y ^ q.z ^ q.w;
    }
    if (line == 0xffffffffu) out[0] = line;
}

__global__ void shflChain(float* out, int steps) {
    float v = threadIdx.x;
    for (int i = 0; i < steps; ++i) v += __shfl_down_sync(0xffffffffu, v, 1 + (i & 15));
    if (v == 1234.5f) out[0] = v;
}

__global__ void redStep(float* out, int steps) {
    __shared__ float s[256];
    const unsigned t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < steps; ++i) {
        float v = s[t ^ 1];
        __syncthreads();
        s[t] = v + 1.0f;
        __syncthreads();
    }
    if (s[t] == 1234.5f) out[0] = s[t];
}

int main(int argc, char** argv) {
    // "once": each strided kernel launched once, nothing timed (for Nsight
    // Compute's DRAM byte counters: timemodel-dram.sh).
    const bool once = argc > 1 && argv[1][0] == 'o';
    int dev = 0;
    check(cudaGetDevice(&dev), "device");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, dev), "properties");
    const int sms = prop.multiProcessorCount;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes, CUDA driver API %d, runtime %d\n", prop.name, sms, prop.major, prop.minor,
                prop.l2CacheSize, drv, rt);
    std::printf("name,param,value,unit,note\n");
    row("device_sms", "", sms, "count", prop.name);
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev), "clock");
    const double clockHz = khz * 1e3;
    row("clock_reported", "", clockHz, "Hz", "cudaDevAttrClockRate, the maximum SM clock (per-cycle rows divide by it)");

    const size_t span = (size_t)4 << 30;
    char* buf;
    float* out;
    check(cudaMalloc(&buf, span), "malloc");
    check(cudaMalloc(&out, 4096), "malloc");
    check(cudaMemset(buf, 0, span), "memset");
    char prm[48];
    if (once) {
        for (int wr = 0; wr < 2; ++wr)
            for (size_t s : {4, 32, 64, 128, 256}) {
                const size_t n8 = span / s / 8, step = s / 4;
                const unsigned blocks = (unsigned)((n8 + 255) / 256);
                if (wr)
                    strideWrite<<<blocks, 256>>>((float*)buf, n8, step);
                else
                    strideRead<<<blocks, 256>>>((const float*)buf, out, n8, step);
            }
        check(cudaDeviceSynchronize(), "once");
        return 0;
    }

    // Strided reads and writes over a 4 GiB span.
    for (int wr = 0; wr < 2; ++wr)
        for (size_t s : {4, 32, 64, 128, 256}) {
            const size_t n = span / s, n8 = n / 8, step = s / 4;
            const int threads = 256;
            const unsigned blocks = (unsigned)((n8 + threads - 1) / threads);
            double ms = wr ? eventTime([&] { strideWrite<<<blocks, threads>>>((float*)buf, n8, step); })
                           : eventTime([&] { strideRead<<<blocks, threads>>>((const float*)buf, out, n8, step); });
            const double sec = ms * 1e-3;
            const double sectors = s >= 32 ? (double)n : (double)n * s / 32;
            std::snprintf(prm, sizeof prm, "s=%zu B", s);
            row(wr ? "dram_stride_write" : "dram_stride_read", prm, sectors / sec, "sectors/s",
                wr ? "one float stored a touched sector (s>=32), 4 GiB span" : "one float loaded a touched sector (s>=32), 4 GiB span, 8 loads a thread");
            row(wr ? "dram_stride_write_ms" : "dram_stride_read_ms", prm, ms, "ms", "per launch");
        }

    // Coalesced dependent walks: 128-byte lines (2^25 of them: 4 GiB),
    // 512-byte blocks (2^23), and 128-byte lines in 16 MiB (2^17: in L2).
    struct walk {
        int lg, v4;
        const char *name, *note;
    };
    for (walk c : {walk{25, 0, "dram_chase", "a step: one coalesced 128-byte request a warp, w warps/SM; launch cost included"},
                   walk{23, 1, "dram_chase_v4", "a step: one coalesced 512-byte request a warp (float4), w warps/SM; launch cost included"},
                   walk{17, 0, "l2_chase", "a step: one coalesced 128-byte request a warp, 16 MiB (in L2), w warps/SM; launch cost included"}}) {
        const int wpl = c.v4 ? 128 : 32;
        const size_t words = ((size_t)1 << c.lg) * wpl;
        fillChase<<<(unsigned)((words + 255) / 256), 256>>>((unsigned*)buf, c.lg, wpl, c.v4);
        check(cudaDeviceSynchronize(), "fill");
        const int steps = 256;
        for (int w : {1, 2, 4, 8, 16, 32, 64}) {
            const int threads = w >= 8 ? 256 : 32 * w, blocks = sms * (w >= 8 ? w / 8 : 1);
            double ms = c.v4 ? eventTime([&] { chaseV4<<<blocks, threads>>>((const uint4*)buf, (unsigned*)out, steps, c.lg); })
                             : eventTime([&] { chase<<<blocks, threads>>>((const unsigned*)buf, (unsigned*)out, steps, c.lg); });
            std::snprintf(prm, sizeof prm, "w=%d", w);
            row(c.name, prm, ms * 1e6 / steps, "ns", c.note);
        }
    }
    // Scattered walks: a lane a line, over 4 GiB (2^25 lines) and 16 MiB
    // (2^17: in L2); each launch starts from new lines (the seed), so the
    // 4 GiB walks are DRAM misses whatever the warps.
    for (int lg : {25, 17}) {
        const size_t words = ((size_t)1 << lg) * 32;
        fillChase<<<(unsigned)((words + 255) / 256), 256>>>((unsigned*)buf, lg, 32, 0);
        check(cudaDeviceSynchronize(), "fill");
        const int steps = 64;
        for (int w : {1, 2, 4, 8, 16, 32, 64}) {
            const int threads = w >= 8 ? 256 : 32 * w, blocks = sms * (w >= 8 ? w / 8 : 1);
            unsigned seed = 0;
            double ms = eventTime([&] {
                seed += 0x9E3779B9u;
                scatterChase<<<blocks, threads>>>((const unsigned*)buf, (unsigned*)out, steps, lg, seed);
            });
            std::snprintf(prm, sizeof prm, "w=%d", w);
            row(lg == 25 ? "dram_scatter" : "l2_scatter", prm, ms * 1e6 / steps, "ns",
                lg == 25 ? "a step: a warp request of 32 lines (a word a lane, random), w warps/SM, fresh lines each launch; launch cost included"
                         : "a step: a warp request of 32 lines, 16 MiB (in L2), w warps/SM; launch cost included");
        }
        double ms = eventTime([&] { scatterChase<<<sms * 8, 256>>>((const unsigned*)buf, (unsigned*)out, 1, lg, 7u); });
        row(lg == 25 ? "dram_scatter_1step" : "l2_scatter_1step", "w=64", ms * 1e6, "ns", "one step: the launch and one request");
    }

    // The launch's own cost, to take off the chases: the same walk, 1 step.
    {
        double ms = eventTime([&] { chase<<<sms * 8, 256>>>((const unsigned*)buf, (unsigned*)out, 1, 17); });
        row("dram_chase_1step", "w=64", ms * 1e6, "ns", "one step: the launch and one request");
    }

    // Dependent latencies on a reduction's path.
    {
        const int steps = 4096;
        double ms = eventTime([&] { shflChain<<<1, 32>>>(out, steps); });
        row("shfl_chain", "1 warp", ms * 1e-3 * clockHz / steps, "cycles", "a step: shfl.down + add, dependent; launch cost included");
        ms = eventTime([&] { shflChain<<<1, 32>>>(out, 1); });
        row("shfl_chain_1step", "1 warp", ms * 1e-3 * clockHz, "cycles", "one step: the launch's cost");
    }
    for (int b : {1, 8}) {
        const int steps = 1024;
        double ms = eventTime([&] { redStep<<<sms * b, 256>>>(out, steps); });
        std::snprintf(prm, sizeof prm, "b=%d", b);
        row("red_step", prm, ms * 1e-3 * clockHz / steps, "cycles", "a step: lds, use, bar, sts, bar; 256-thread blocks, b an SM; launch cost included");
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

// atomics.cu — what atomics cost on the GPU (issue 27, milestone 3): the
// time model's atomics term comes from these rows, not from the sweep's
// histograms. Every kernel issues `iters` atomicAdd(…, 1u) a thread whose
// result is unused (the compiler emits RED / ATOMS), from grids that fill
// the GPU (8 blocks of 256 threads an SM: 64 warps) unless the row says
// otherwise, timed as the lessons time (bench.cuh's eventTime: 3 warm-ups,
// 10 launches between two events). Rows (name,param,value,unit,note):
//
//   atom_g_same      w = warps per SM: every lane of every warp adds to one
//                    global word (an address ptxas cannot prove uniform, so
//                    one RED a lane). Lane updates a second: the rate one
//                    address is served at, by how many warps ask
//   atom_g_lanes     k = 1..32: a warp's 32 lanes add to k distinct words of
//                    one 128-byte line (lane mod k), every warp the same k
//                    words. Lane updates a second
//   atom_g_lines     m = 1..32: every lane to its own word, lines spread over
//                    m distinct lines the whole grid shares (word = (warp
//                    mod m)·32 + lane): many addresses, few lines
//   atom_g_words     w = 1..32: w lanes of each warp (lane < w) on their own
//                    words of one line, every warp the same line: warp
//                    operations a second by the operation's words
//   atom_g_spread    each thread to its own word (p[global thread]): no
//                    contention; lane updates a second
//   atom_g_bins      B = 2, 16, 64, 1024, 16384, 2^20: a lane adds to bin
//                    r mod B of a random r (a fixed 2^24 array, one element
//                    a thread): contention by how many distinct bins
//   atom_s_lanes     k = 1..32: shared atomics, a warp's lanes on k distinct
//                    words in k distinct banks; warp requests an SM a cycle
//   atom_s_bank      k = 1..32: shared atomics, k distinct words in one bank
//                    (word (lane mod k)·32); warp requests an SM a cycle
//   atom_s_bins      B = 2, 16, 64, 1024: shared atomics to bin r mod B of a
//                    random r; warp requests an SM a cycle
#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench.cuh"

// gSame's address is p + (lane mod k) with k = 1 passed at run time: with
// an address ptxas can prove uniform (atomicAdd(p, 1u)) it aggregates the
// warp (VOTEU.ANY, POPC, one RED from one lane; ptxas 11.8, sm_90), which
// a data-dependent address, as a histogram's, never gets.
__global__ void gSame(unsigned* p, int k, int iters) {
    unsigned* q = p + (threadIdx.x & 31) % k;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

__global__ void gLanes(unsigned* p, int k, int iters) {
    unsigned* q = p + (threadIdx.x & 31) % k;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

__global__ void gLines(unsigned* p, int m, int iters) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned* q = p + (warp % m) * 32 + (threadIdx.x & 31);
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

// gWords: w lanes of each warp (lane < w) add to their own words of one
// line, every warp the same line: a warp operation of w words.
__global__ void gWords(unsigned* p, int w, int iters) {
    const int lane = threadIdx.x & 31;
    if (lane >= w) return;
    unsigned* q = p + lane;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

__global__ void gSpread(unsigned* p, int iters) {
    unsigned* q = p + blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

__global__ void gBins(const unsigned* __restrict__ r, unsigned* p, unsigned mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&p[r[i] & mask], 1u);
}

__global__ void sLanes(unsigned* out, int k, int stride, int iters) {
    __shared__ unsigned s[32 * 32];
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned* q = s + ((threadIdx.x & 31) % k) * stride;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
    __syncthreads();
    if (threadIdx.x == 0 && s[0] == 12345u) out[0] = s[1];
}

__global__ void sBins(const unsigned* __restrict__ r, unsigned* out, unsigned mask, int iters) {
    __shared__ unsigned s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
    __syncthreads();
    const unsigned v = r[(blockIdx.x * blockDim.x + threadIdx.x) & ((1 << 24) - 1)];
    for (int i = 0; i < iters; ++i) atomicAdd(&s[(v + i * 0x9e3779b9u) & mask], 1u);
    __syncthreads();
    if (threadIdx.x == 0 && s[0] == 12345u) out[0] = s[1];
}

int main() {
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

    const int N = 1 << 24;
    unsigned *p, *r, *out;
    check(cudaMalloc(&p, sizeof(unsigned) * (size_t)(sms * 8 * 256 + (1 << 20))), "malloc");
    check(cudaMalloc(&r, sizeof(unsigned) * (size_t)N), "malloc");
    check(cudaMalloc(&out, 64), "malloc");
    uploadRandom(r, N, 27);
    char prm[48];

    // One global address, by warps per SM (blocks of 32..256 threads).
    for (int w : {1, 2, 4, 8, 16, 32, 64}) {
        const int threads = std::min(256, 32 * w), blocks = sms * std::max(1, w / 8);
        const int iters = 64;
        double ms = eventTime([&] { gSame<<<blocks, threads>>>(p, 1, iters); });
        std::snprintf(prm, sizeof prm, "w=%d", w);
        row("atom_g_same", prm, (double)blocks * threads * iters / (ms * 1e-3), "updates/s", "every lane to one word; launch cost included");
    }
    // k distinct words of one line, the whole grid.
    for (int k : {1, 2, 4, 8, 16, 32}) {
        const int blocks = sms * 8, threads = 256, iters = 64;
        double ms = eventTime([&] { gLanes<<<blocks, threads>>>(p, k, iters); });
        std::snprintf(prm, sizeof prm, "k=%d", k);
        row("atom_g_lanes", prm, (double)blocks * threads * iters / (ms * 1e-3), "updates/s", "lanes on k words of one line, all warps alike");
    }
    // m distinct lines, a word a lane.
    for (int m : {1, 2, 4, 8, 16, 32, 128, 1024}) {
        const int blocks = sms * 8, threads = 256, iters = 64;
        double ms = eventTime([&] { gLines<<<blocks, threads>>>(p, m, iters); });
        std::snprintf(prm, sizeof prm, "m=%d", m);
        row("atom_g_lines", prm, (double)blocks * threads * iters / (ms * 1e-3), "updates/s", "a word a lane, warps over m shared lines");
    }
    // w words a warp operation, one line.
    for (int w : {1, 2, 4, 8, 16, 32}) {
        const int blocks = sms * 8, threads = 256, iters = 64;
        double ms = eventTime([&] { gWords<<<blocks, threads>>>(p, w, iters); });
        std::snprintf(prm, sizeof prm, "w=%d", w);
        row("atom_g_words", prm, (double)blocks * (threads / 32) * iters / (ms * 1e-3), "operations/s", "w lanes a warp on their own words of one line, all warps alike");
    }
    {
        const int blocks = sms * 8, threads = 256, iters = 64;
        double ms = eventTime([&] { gSpread<<<blocks, threads>>>(p, iters); });
        row("atom_g_spread", "", (double)blocks * threads * iters / (ms * 1e-3), "updates/s", "a word a thread, no contention");
    }
    for (int lg : {1, 4, 6, 10, 14, 20}) {
        const int threads = 256, blocks = N / threads;
        double ms = eventTime([&] { gBins<<<blocks, threads>>>(r, p, (1u << lg) - 1, N); });
        std::snprintf(prm, sizeof prm, "B=%d", 1 << lg);
        row("atom_g_bins", prm, (double)N / (ms * 1e-3), "updates/s", "2^24 random values, one update a thread, bin r mod B");
    }
    // Shared: warp requests an SM a cycle.
    for (int bank = 0; bank < 2; ++bank)
        for (int k : {1, 2, 4, 8, 16, 32}) {
            const int blocks = sms * 8, threads = 256, iters = 256;
            double ms = eventTime([&] { sLanes<<<blocks, threads>>>(out, k, bank ? 32 : 1, iters); });
            std::snprintf(prm, sizeof prm, "k=%d", k);
            const double req = (double)blocks * (threads / 32) * iters;
            row(bank ? "atom_s_bank" : "atom_s_lanes", prm, req / (ms * 1e-3) / clockHz / sms, "requests/SM/cycle",
                bank ? "k words of one bank a warp; launch cost included" : "k words in k banks a warp; launch cost included");
        }
    for (int lg : {1, 4, 6, 10}) {
        const int blocks = sms * 8, threads = 256, iters = 256;
        double ms = eventTime([&] { sBins<<<blocks, threads>>>(r, out, (1u << lg) - 1, iters); });
        std::snprintf(prm, sizeof prm, "B=%d", 1 << lg);
        const double req = (double)blocks * (threads / 32) * iters;
        row("atom_s_bins", prm, req / (ms * 1e-3) / clockHz / sms, "requests/SM/cycle", "random bins r mod B a lane; launch cost included");
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

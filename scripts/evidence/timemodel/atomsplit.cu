// atomsplit.cu — what a warp's atomic costs when its lanes fall on several
// lines (issue 27, milestone 3; not yet run).
//
// atomics.cu priced a line's warp operation from operations that each hit
// one line (atom_g_words: w lanes of every warp on one line; atom_g_lines:
// a word a lane, warps over m lines). The sweep's histGlobal (256 random
// bins: a warp's 32 lanes on about 8 lines, ~4 lanes and ~3 sectors a
// line) and atomics.cu's own atom_g_bins rows at 16 to 1,024 bins come
// out 0.46-0.67 of the H200's time under that pricing
// (docs/timemodel.md, "The recorded sweep"): either a line's operation of
// a few lanes costs more when the warp's instruction splits over several
// lines, or the lines of one instruction are served one after another.
// These rows tell the two apart, with no randomness: every warp issues
// iters atomicAdd(…, 1u) whose result is unused (RED), 8 blocks of 256
// threads an SM, eventTime (3 warm-ups, 10 launches).
//
//   atom_g_split    m = 1..32: lane l adds to word (l / m) of line (l mod
//                   m): the instruction splits into m line operations of
//                   32/m lanes on their own consecutive words; every warp
//                   the same m lines (base 0). Line operations a second
//   atom_g_splitown the same split, each warp on m lines of its own (no
//                   line shared between warps): the split's cost with no
//                   contention. Line operations a second
//   atom_g_sectors  s = 1, 2, 4: four lanes of each warp on one line, their
//                   words 2s apart (lane·2s: 1, 2 and 4 sectors), every
//                   warp the same line: operations a second by sectors at
//                   four lanes
//   atom_g_dup      d = 1, 2, 4, 8: the 32 lanes on 32/d words of one line
//                   (word = lane / d: d lanes a word, adjacent lanes),
//                   every warp the same line: operations a second by the
//                   lanes on one word
#include <cstdint>

#include "bench.cuh"

__global__ void gSplit(unsigned* p, int m, int own, int iters) {
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned* q = p + (own ? (size_t)warp * m * 32 : 0) + (lane % m) * 32 + lane / m;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

__global__ void gSectors(unsigned* p, int s, int iters) {
    const int lane = threadIdx.x & 31;
    if (lane >= 4) return;
    unsigned* q = p + lane * 2 * s;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

__global__ void gDup(unsigned* p, int d, int iters) {
    unsigned* q = p + (threadIdx.x & 31) / d;
    for (int i = 0; i < iters; ++i) atomicAdd(q, 1u);
}

int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    const int sms = prop.multiProcessorCount;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes, CUDA driver API %d, runtime %d\n", prop.name, sms, prop.major,
                prop.minor, prop.l2CacheSize, drv, rt);
    std::printf("name,param,value,unit,note\n");
    row("device_sms", "", sms, "count", prop.name);
    const int blocks = sms * 8, threads = 256, iters = 64;
    const double warps = (double)blocks * threads / 32;
    unsigned* p;
    check(cudaMalloc(&p, sizeof(unsigned) * (size_t)warps * 32 * 32), "malloc");
    check(cudaMemset(p, 0, sizeof(unsigned) * (size_t)warps * 32 * 32), "memset");
    char prm[48];
    for (int own = 0; own < 2; ++own)
        for (int m : {1, 2, 4, 8, 16, 32}) {
            double ms = eventTime([&] { gSplit<<<blocks, threads>>>(p, m, own, iters); });
            std::snprintf(prm, sizeof prm, "m=%d", m);
            row(own ? "atom_g_splitown" : "atom_g_split", prm, warps * m * iters / (ms * 1e-3), "line operations/s",
                own ? "32/m lanes on each of m lines of the warp's own" : "32/m lanes on each of m lines every warp shares");
        }
    for (int s : {1, 2, 4}) {
        double ms = eventTime([&] { gSectors<<<blocks, threads>>>(p, s, iters); });
        std::snprintf(prm, sizeof prm, "s=%d", s);
        row("atom_g_sectors", prm, warps * iters / (ms * 1e-3), "operations/s",
            "4 lanes a warp on one line, words 2s apart, every warp the same line");
    }
    for (int d : {1, 2, 4, 8}) {
        double ms = eventTime([&] { gDup<<<blocks, threads>>>(p, d, iters); });
        std::snprintf(prm, sizeof prm, "d=%d", d);
        row("atom_g_dup", prm, warps * iters / (ms * 1e-3), "operations/s", "32 lanes on 32/d words of one line, d lanes a word");
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

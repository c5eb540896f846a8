// ilp.cu — how fast does a warp issuing alone issue instructions that do
// not wait on each other? (issue 27, milestone 3). The time model's path of
// a warp charged every instruction WarpCPI cycles, the rate of one
// dependent FFMA chain (microbench.cu's issue_ffma1 at one warp an SM:
// 4.17 cycles); a warp with independent work, the address arithmetic and
// loads of an unrolled SpMV pass, issues faster than that. One warp on the
// whole GPU (one block of 32 threads) runs k independent chains of one
// operation, 64 steps of each chain a pass, 256 passes, and times itself
// with clock64(): cycles a warp instruction (the chain operations only;
// the loop's own three instructions a pass are 1/(64k) of them or fewer).
// Rows (name,param,value,unit,note):
//
//   ilp_ffma  k=1,2,4,8   fmaf(x, a, b) chains          (FP32 pipe)
//   ilp_imad  k=1,2,4,8   x * a + b on int chains        (IMAD)
//   ilp_lop   k=1,2,4,8   ((x ^ a) & b) | (x >> 3) chains (LOP3, SHF)
//
// k = 1 is the dependent chain's rate (WarpCPI); the rate it tends to as k
// grows is the warp's own issue interval for independent instructions.
#include "bench.cuh"

#include <cstdint>

constexpr int kPasses = 256, kSteps = 64;

// The chains' operations: one FFMA, one IMAD, or a LOP3 and a shift.
struct FFMA {
    __device__ float operator()(float x, float a, float b) const { return fmaf(x, a, b); }
};
struct IMAD {
    __device__ unsigned operator()(unsigned x, unsigned a, unsigned b) const { return x * a + b; }
};
struct LOP {
    __device__ unsigned operator()(unsigned x, unsigned a, unsigned b) const { return ((x ^ a) & b) | (x >> 3); }
};

// ilp runs K independent chains of op, kSteps a pass, kPasses passes, and
// stores the cycles they took (thread 0's clock64).
template <class T, int K, class Op>
__global__ void ilp(T* out, long long* cyc, T a, T b, Op op) {
    T x[K];
#pragma unroll
    for (int c = 0; c < K; ++c) x[c] = threadIdx.x + c;
    const long long t0 = clock64();
    for (int p = 0; p < kPasses; ++p) {
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
#pragma unroll
            for (int c = 0; c < K; ++c) x[c] = op(x[c], a, b);
        }
    }
    const long long t1 = clock64();
    T sum = 0;
#pragma unroll
    for (int c = 0; c < K; ++c) sum += x[c];
    if (sum == T(12345)) out[0] = sum;
    if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

// cycles runs kern 3 times (the first warms the instruction cache) and
// returns the last run's cycles a chain operation.
template <class F>
static double cycles(F launch, long long* dcyc, int k) {
    long long c = 0;
    for (int r = 0; r < 3; ++r) {
        launch();
        check(cudaGetLastError(), "launch");
        check(cudaDeviceSynchronize(), "sync");
        check(cudaMemcpy(&c, dcyc, sizeof c, cudaMemcpyDeviceToHost), "copy");
    }
    return (double)c / ((double)kPasses * kSteps * k);
}

int main() {
    deviceHeader();
    float* fo;
    unsigned* uo;
    long long* cyc;
    check(cudaMalloc(&fo, 64), "malloc");
    check(cudaMalloc(&uo, 64), "malloc");
    check(cudaMalloc(&cyc, 64), "malloc");
    char prm[16];
    auto one = [&](const char* name, int k, double v, const char* note) {
        std::snprintf(prm, sizeof prm, "k=%d", k);
        row(name, prm, v, "cycles/warp_instr", note);
    };
    const char* nf = "one warp on the GPU, k independent FFMA chains, clock64";
    const char* ni = "one warp on the GPU, k independent IMAD chains, clock64";
    const char* nl = "one warp on the GPU, k independent LOP3/shift chains (three SASS instructions a step: a LOP3 and a shift side by side, then a LOP3), clock64";
    one("ilp_ffma", 1, cycles([&] { ilp<float, 1><<<1, 32>>>(fo, cyc, 1.0001f, 0.5f, FFMA{}); }, cyc, 1), nf);
    one("ilp_ffma", 2, cycles([&] { ilp<float, 2><<<1, 32>>>(fo, cyc, 1.0001f, 0.5f, FFMA{}); }, cyc, 2), nf);
    one("ilp_ffma", 4, cycles([&] { ilp<float, 4><<<1, 32>>>(fo, cyc, 1.0001f, 0.5f, FFMA{}); }, cyc, 4), nf);
    one("ilp_ffma", 8, cycles([&] { ilp<float, 8><<<1, 32>>>(fo, cyc, 1.0001f, 0.5f, FFMA{}); }, cyc, 8), nf);
    one("ilp_imad", 1, cycles([&] { ilp<unsigned, 1><<<1, 32>>>(uo, cyc, 3u, 7u, IMAD{}); }, cyc, 1), ni);
    one("ilp_imad", 2, cycles([&] { ilp<unsigned, 2><<<1, 32>>>(uo, cyc, 3u, 7u, IMAD{}); }, cyc, 2), ni);
    one("ilp_imad", 4, cycles([&] { ilp<unsigned, 4><<<1, 32>>>(uo, cyc, 3u, 7u, IMAD{}); }, cyc, 4), ni);
    one("ilp_imad", 8, cycles([&] { ilp<unsigned, 8><<<1, 32>>>(uo, cyc, 3u, 7u, IMAD{}); }, cyc, 8), ni);
    // three SASS instructions a step (sm_90: LOP3 and SHF, then LOP3)
    one("ilp_lop", 1, cycles([&] { ilp<unsigned, 1><<<1, 32>>>(uo, cyc, 0x5au, 0xffffu, LOP{}); }, cyc, 1) / 3, nl);
    one("ilp_lop", 2, cycles([&] { ilp<unsigned, 2><<<1, 32>>>(uo, cyc, 0x5au, 0xffffu, LOP{}); }, cyc, 2) / 3, nl);
    one("ilp_lop", 4, cycles([&] { ilp<unsigned, 4><<<1, 32>>>(uo, cyc, 0x5au, 0xffffu, LOP{}); }, cyc, 4) / 3, nl);
    one("ilp_lop", 8, cycles([&] { ilp<unsigned, 8><<<1, 32>>>(uo, cyc, 0x5au, 0xffffu, LOP{}); }, cyc, 8) / 3, nl);
    check(cudaFree(fo), "free");
    check(cudaFree(uo), "free");
    check(cudaFree(cyc), "free");
    return 0;
}

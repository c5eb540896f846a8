// memgap.cu — where a call's time goes once a kernel that touches memory
// is past the launch floor (issue 27, held out; docs/timemodel.md, "What
// it gets wrong"). On the H100 the libs lesson's kernels at 2^14 rows take
// 5.2 µs at the median alone on the GPU (Nsight Compute, caches warm) and
// 10.6 µs a call under the lessons' protocol, where the spin curve (a
// kernel of s µs takes s + 2.2 µs a call past the floor) says 7.4. This
// times, for a copy (one float loaded and stored a thread, blocks of 256,
// n = 2^12 to 2^22: warm in L2, a few µs to tens) and a spin kernel (one
// thread, s ns of %globaltimer) of matched lengths:
//   call    eventTime: 3 warm-ups, events around 10 launches back to back
//           (the lessons' protocol), µs a call
//   queued  gpuTime: 20 launches queued behind a 3 ms spin, so the host's
//           rate is out of it: the GPU's own µs a launch back to back
//   alone   one launch between two events after a synchronize, the median
//           of 21: the kernel and one launch's latency
// and the SM clock (clock64 over %globaltimer in a 20 µs spin) before each
// copy size. If call ≈ queued where queued is past the floor, the cost is
// the GPU's in the stream; if call > queued, the host's.
// CSV rows: name,param,value,unit,note (sim.ParseMicrobench reads them).
//
//   nvcc -O3 -arch=native -std=c++17 -I scripts/evidence/timemodel -o memgap memgap.cu
#include "bench.cuh"

__global__ void copy1(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

int main() {
    deviceHeader();
    const int maxN = 1 << 22;
    float *x, *y;
    unsigned long long* clk;
    check(cudaMalloc(&x, sizeof(float) * maxN), "malloc");
    check(cudaMalloc(&y, sizeof(float) * maxN), "malloc");
    check(cudaMalloc(&clk, 2 * sizeof(unsigned long long)), "malloc");
    check(cudaMemset(x, 0, sizeof(float) * maxN), "memset");
    for (int e = 12; e <= 22; ++e) {
        const int n = 1 << e;
        char p[32];
        std::snprintf(p, sizeof p, "n=2^%d", e);
        row("sm_clock", p, smClockMHz(clk), "MHz", "clock64 cycles over %globaltimer ns in a 20 us spin, before this size");
        callQueuedAlone("copy", p, [&] { copy1<<<(n + 255) / 256, 256>>>(x, y, n); }, "y = x, one float a thread, blocks of 256");
    }
    for (unsigned long long ns : {0ull, 2000ull, 4000ull, 6000ull, 8000ull, 12000ull, 16000ull, 24000ull}) {
        char p[32];
        std::snprintf(p, sizeof p, "s=%lluns", ns);
        callQueuedAlone("spin", p, [&] { spinNs<<<1, 1>>>(ns, nullptr); }, "one thread spinning s ns of globaltimer, no memory");
    }
    return 0;
}

// phase.cu — do co-resident blocks wait for memory in step or apart?
// (issue 27, milestone 3; contention.cu measured what blocks sharing an
// SM cost each other with no memory in the step). Each step of each
// kernel: a dependent global load from a 16 MiB buffer the launches before
// left in L2 (the next address depends on the loaded value), then, where
// the row says, a reduction step: a store to shared memory, a barrier, a
// load of the neighbour's word, a barrier. b blocks of 256 threads an SM
// (grid b × SMs, all resident), 1,024 steps, timed as the lessons time
// (bench.cuh's eventTime); cycles a step (the launch's time × the device
// clock attribute / steps, launch included). Rows (name,param,value,unit,
// note):
//
//   phase_load   the load alone (its chain: one L2 round trip a step)
//   phase_tree   the reduction step alone (contention.cu's cont_red)
//   phase_both   the load, then the reduction step
//
// If the blocks of an SM keep in step, phase_both is about phase_load +
// phase_tree at every b; if they drift apart, the trees of some overlap
// the loads of others and phase_both tends to the larger of the two.
#include "bench.cuh"

__global__ void phaseLoad(const unsigned* in, float* out, int steps, unsigned mask) {
    unsigned i = ((blockIdx.x * blockDim.x + threadIdx.x) * 97u) & mask;
    for (int k = 0; k < steps; ++k) i = (i + in[i] + 32u) & mask;
    if (i == 12345678u) out[0] = 1;
}

__global__ void phaseTree(float* out, int steps) {
    __shared__ float s[256];
    const unsigned t = threadIdx.x;
    float acc = t;
    for (int k = 0; k < steps; ++k) {
        s[t] = acc;
        __syncthreads();
        acc += s[t ^ 1];
        __syncthreads();
    }
    if (acc == 1234.5f) out[0] = acc;
}

__global__ void phaseBoth(const unsigned* in, float* out, int steps, unsigned mask) {
    __shared__ float s[256];
    const unsigned t = threadIdx.x;
    unsigned i = ((blockIdx.x * blockDim.x + t) * 97u) & mask;
    float acc = t;
    for (int k = 0; k < steps; ++k) {
        i = (i + in[i] + 32u) & mask;
        s[t] = acc + (float)(i & 1u);
        __syncthreads();
        acc += s[t ^ 1];
        __syncthreads();
    }
    if (acc == 1234.5f || i == 12345678u) out[0] = acc;
}

int main() {
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, 0), "properties");
    const int sms = p.multiProcessorCount;
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock");
    const double clockHz = khz * 1e3;
    std::printf("# device: %s, %d SMs, cc %d.%d, clock %.0f MHz (attribute)\n", p.name, sms, p.major, p.minor, clockHz / 1e6);
    std::printf("name,param,value,unit,note\n");
    const unsigned n = 4u << 20; // 16 MiB of unsigned: in L2
    unsigned* in;
    float* out;
    check(cudaMalloc(&in, n * sizeof(unsigned)), "malloc in");
    check(cudaMemset(in, 0, n * sizeof(unsigned)), "memset");
    check(cudaMalloc(&out, 64), "malloc out");
    const int steps = 1024;
    char prm[32];
    for (int b : {1, 2, 4, 8}) {
        const int grid = sms * b;
        std::snprintf(prm, sizeof prm, "b=%d", b);
        auto per = [&](double ms) { return ms * 1e-3 * clockHz / steps; };
        row("phase_load", prm, per(eventTime([&] { phaseLoad<<<grid, 256>>>(in, out, steps, n - 1); })), "cycles",
            "dependent L2 load a step; 256-thread blocks, b an SM");
        row("phase_tree", prm, per(eventTime([&] { phaseTree<<<grid, 256>>>(out, steps); })), "cycles",
            "shared store, barrier, load, barrier");
        row("phase_both", prm, per(eventTime([&] { phaseBoth<<<grid, 256>>>(in, out, steps, n - 1); })), "cycles",
            "the load, then the reduction step");
    }
    check(cudaFree(in), "free");
    check(cudaFree(out), "free");
    return 0;
}

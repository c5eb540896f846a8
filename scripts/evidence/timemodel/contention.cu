// contention.cu — what blocks sharing an SM cost each other (issue 27,
// milestone 3): dram.cu's red_step took 86 cycles a step with one block of
// 256 threads an SM and 278 with eight, and the time model's schedule
// gives each block its slot's time as if alone. These rows take the step
// apart. Every kernel runs `steps` steps in b blocks of T threads an SM
// (grid b × SMs, all resident), timed as the lessons time (bench.cuh's
// eventTime); the value is cycles a step (the launch's time × the clock /
// steps, launch cost included). Rows (name,param,value,unit,note):
//
//   cont_bar     { __syncthreads(); }: barriers alone
//   cont_shared  { v = s[t ^ 1]; s[t] = v + 1; } through volatile shared
//                memory, no barrier: a load, its use and a store
//   cont_red     dram.cu's red_step: { v = s[t ^ 1]; __syncthreads();
//                s[t] = v + 1; __syncthreads(); }
//   cont_ffma    { x = fma(x, a, b) } × 8, dependent: issue alone
//
// param "T=256 b=4": T threads a block, b blocks an SM.
#include "bench.cuh"

__global__ void contBar(float* out, int steps) {
    for (int i = 0; i < steps; ++i) __syncthreads();
    if (threadIdx.x == 12345) out[0] = 1;
}

__global__ void contShared(float* out, int steps) {
    __shared__ float s[1024];
    volatile float* vs = s;
    const unsigned t = threadIdx.x;
    vs[t] = t;
    for (int i = 0; i < steps; ++i) {
        float v = vs[t ^ 1];
        vs[t] = v + 1.0f;
    }
    if (vs[t] == 1234.5f) out[0] = vs[t];
}

__global__ void contRed(float* out, int steps) {
    __shared__ float s[1024];
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

__global__ void contFFMA(float* out, int steps, float a, float b) {
    float x = threadIdx.x;
    for (int i = 0; i < steps; ++i) {
#pragma unroll
        for (int k = 0; k < 8; ++k) x = fmaf(x, a, b);
    }
    if (x == 1234.5f) out[0] = x;
}

int main() {
    cudaDeviceProp p;
    check(cudaGetDeviceProperties(&p, 0), "properties");
    const int sms = p.multiProcessorCount;
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock");
    const double clockHz = khz * 1e3;
    std::printf("# device: %s, %d SMs, cc %d.%d, clock %.0f MHz (attribute; the SM clock under load is that at most)\n",
                p.name, sms, p.major, p.minor, clockHz / 1e6);
    std::printf("name,param,value,unit,note\n");
    float* out;
    check(cudaMalloc(&out, 64), "malloc");
    const int steps = 4096;
    char prm[64];
    struct shape {
        int threads, blocks;
    };
    const shape shapes[] = {{256, 1}, {256, 2}, {256, 4}, {256, 8}, {64, 1}, {64, 8}, {64, 32}, {1024, 1}, {1024, 2}};
    for (shape s : shapes) {
        std::snprintf(prm, sizeof prm, "T=%d b=%d", s.threads, s.blocks);
        const int grid = sms * s.blocks;
        auto per = [&](double ms) { return ms * 1e-3 * clockHz / steps; };
        row("cont_bar", prm, per(eventTime([&] { contBar<<<grid, s.threads>>>(out, steps); })), "cycles", "barriers alone");
        row("cont_shared", prm, per(eventTime([&] { contShared<<<grid, s.threads>>>(out, steps); })), "cycles",
            "shared load, use, store; no barrier");
        row("cont_red", prm, per(eventTime([&] { contRed<<<grid, s.threads>>>(out, steps); })), "cycles",
            "red_step: load, barrier, store, barrier");
        row("cont_ffma", prm, per(eventTime([&] { contFFMA<<<grid, s.threads>>>(out, steps, 1.0001f, 0.5f); })), "cycles",
            "8 dependent FFMA");
    }
    check(cudaFree(out), "free");
    return 0;
}

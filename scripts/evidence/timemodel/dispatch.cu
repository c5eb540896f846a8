// dispatch.cu — what a grid's blocks cost the GPU beyond their own work
// (issue 27, milestone 3): the time model's schedule hands blocks to SMs
// for free, and this measures whether the H200 does. Every row times a
// grid of W waves (W × the blocks the SMs hold at once) on the GPU alone:
// 50 launches queued behind a 3 ms spin (the host has queued them all
// before the spin ends, so the events time the GPU's own cost per launch;
// microbench.cu's launch_gpu_* rows, 1 to 8 blocks an SM, measured the same
// way). Rows (name,param,value,unit,note):
//
//   dispatch_empty   blocks that do nothing: T threads a block, W waves of
//                    2048/T blocks an SM. µs per launch
//   dispatch_store   each thread stores one float (coalesced, its own
//                    element): W waves of 8 blocks of 256 an SM
//   dispatch_load    each thread loads one float of a 16 MiB buffer the
//                    launches before it left in L2, adds 1 and stores it:
//                    one dependent L2 round trip a block
//   dispatch_sync    as dispatch_store with one __syncthreads() before the
//                    store
//
// The differences between W = 1 and larger W are the cost per wave of
// blocks, against what the blocks' own work takes (dispatch_load: about
// one L2 latency, 0.15 µs, a wave).
#include <vector>

#include "bench.cuh"

__global__ void emptyBlocks() {}

__global__ void storeBlocks(float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }

__global__ void loadBlocks(const float* in, float* out, unsigned mask) {
    unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) & mask;
    out[i] = in[i] + 1.0f;
}

__global__ void syncBlocks(float* out) {
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

int main() {
    const cudaDeviceProp p = deviceHeader();
    const int sms = p.multiProcessorCount;
    const int waves[] = {1, 2, 4, 8, 16, 32, 64};
    const size_t maxElems = (size_t)64 * 8 * sms * 256;
    float *in, *out;
    check(cudaMalloc(&in, 16u << 20), "malloc in");
    check(cudaMemset(in, 0, 16u << 20), "memset");
    check(cudaMalloc(&out, maxElems * sizeof(float)), "malloc out");
    char param[64];
    for (int threads : {64, 256, 1024}) {
        int perSM = 2048 / threads;
        for (int w : waves) {
            int blocks = w * perSM * sms;
            std::snprintf(param, sizeof param, "%dt x %d waves", threads, w);
            row("dispatch_empty", param, gpuTime([&] { emptyBlocks<<<blocks, threads>>>(); }, 50), "us",
                "GPU-side per launch, 50 behind a spin");
        }
    }
    for (int w : waves) {
        int blocks = w * 8 * sms;
        std::snprintf(param, sizeof param, "256t x %d waves", w);
        row("dispatch_store", param, gpuTime([&] { storeBlocks<<<blocks, 256>>>(out); }, 50), "us",
            "one coalesced store a thread");
        row("dispatch_load", param,
            gpuTime([&] { loadBlocks<<<blocks, 256>>>(in, out, (4u << 20) - 1); }, 50), "us",
            "one L2-resident load a thread, then its store");
        row("dispatch_sync", param, gpuTime([&] { syncBlocks<<<blocks, 256>>>(out); }, 50), "us",
            "one __syncthreads, then one store a thread");
    }
    check(cudaFree(in), "free");
    check(cudaFree(out), "free");
    return 0;
}

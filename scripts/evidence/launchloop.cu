// launchloop.cu — the C side of `warplab bench launch`: the host cost of
// launching an empty kernel, back to back with one synchronisation at the
// end, and each launch followed by a synchronisation. Built and run on the
// GPU host by scripts/evidence/h200.sh beside the Go measurement.
//
// Launch assumption: one block of 32 threads; the kernel touches no memory.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

extern "C" __global__ void emptyKernel() {}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
    for (int i = 0; i < 100; ++i) emptyKernel<<<1, 32>>>();
    check(cudaDeviceSynchronize(), "warm-up");
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) emptyKernel<<<1, 32>>>();
    check(cudaDeviceSynchronize(), "async loop");
    auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        emptyKernel<<<1, 32>>>();
        check(cudaDeviceSynchronize(), "sync loop");
    }
    auto t2 = std::chrono::steady_clock::now();
    auto us = [&](auto a, auto b) {
        return std::chrono::duration<double, std::micro>(b - a).count() / n;
    };
    std::printf("C launch loop, %d launches of an empty kernel (host clock, measured)\n", n);
    std::printf("  back to back, one sync at the end: %8.2f us per launch\n", us(t0, t1));
    std::printf("  each launch followed by a sync:    %8.2f us per launch\n", us(t1, t2));
    return 0;
}

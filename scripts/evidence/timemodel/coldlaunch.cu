// coldlaunch.cu — does a kernel's CUDA-event time depend on what the GPU
// did before it (issue 13)? The lessons time each kernel with 3 warm-ups
// and 10 runs between events (gpuext.Device.Time), often right after host
// work that left the GPU idle. This times one tiny kernel (1056 blocks of
// 256 threads, one load and one store a thread: the spmv probe's shape)
// with that protocol under three histories, interleaved, several trials:
//   idle   the host sleeps 200 ms first (the GPU idles);
//   busy   a 20 ms spin kernel runs first (the GPU has just been busy);
//   long   the host sleeps 200 ms, then 1 ms of warm-up launches.
// and reads the SM clock (clock64 cycles over %globaltimer ns in a 20 µs
// spin) after each history. CSV rows: name,param,value,unit,note.
//
//   nvcc -O3 -arch=native -I scripts/evidence/timemodel -o coldlaunch coldlaunch.cu
#include "bench.cuh"
#include <chrono>
#include <thread>

__global__ void tiny(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * 2.0f;
}

int main(int argc, char** argv) {
    int trials = argc > 1 ? std::atoi(argv[1]) : 5;
    const int n = 1056 * 256;
    float *x, *y;
    unsigned long long* clk;
    check(cudaMalloc(&x, n * sizeof(float)), "malloc");
    check(cudaMalloc(&y, n * sizeof(float)), "malloc");
    check(cudaMalloc(&clk, 2 * sizeof(unsigned long long)), "malloc");
    check(cudaMemset(x, 0, n * sizeof(float)), "memset");
    auto launch = [&] { tiny<<<1056, 256>>>(x, y, n); };
    auto sleep = [] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); };
    std::printf("# name,param,value,unit,note\n");
    for (int t = 0; t < trials; ++t) {
        char p[32];
        std::snprintf(p, sizeof p, "trial %d", t);
        sleep();
        row("clock_after_idle", p, smClockMHz(clk), "MHz", "SM clock right after 200 ms idle");
        sleep();
        row("tiny_idle", p, 1e3 * eventTime(launch), "us", "3 warm-ups + 10 runs after 200 ms idle");
        spinNs<<<132, 32>>>(20000000ull, nullptr);
        check(cudaDeviceSynchronize(), "spin");
        row("tiny_busy", p, 1e3 * eventTime(launch), "us", "3 warm-ups + 10 runs right after a 20 ms spin kernel");
        spinNs<<<132, 32>>>(20000000ull, nullptr);
        check(cudaDeviceSynchronize(), "spin");
        row("clock_after_busy", p, smClockMHz(clk), "MHz", "SM clock right after a 20 ms spin kernel");
        sleep();
        row("tiny_long", p, 1e3 * eventTime(launch, 200), "us", "200 warm-ups + 10 runs after 200 ms idle");
    }
    return 0;
}

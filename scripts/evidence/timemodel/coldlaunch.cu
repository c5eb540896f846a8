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

__device__ unsigned long long gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// spin runs for ns nanoseconds of %globaltimer; with out != nullptr thread 0
// of block 0 writes the SM cycles and nanoseconds it spun.
__global__ void spin(unsigned long long ns, unsigned long long* out) {
    unsigned long long t0 = gtime(), c0 = clock64(), t;
    do {
        t = gtime();
    } while (t - t0 < ns);
    if (out && blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = clock64() - c0;
        out[1] = t - t0;
    }
}

static double mhz(unsigned long long* d) {
    unsigned long long h[2];
    spin<<<1, 32>>>(20000, d);
    check(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "clock read");
    return h[1] ? 1e3 * double(h[0]) / double(h[1]) : 0;
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
        row("clock_after_idle", p, mhz(clk), "MHz", "SM clock right after 200 ms idle");
        sleep();
        row("tiny_idle", p, 1e3 * eventTime(launch), "us", "3 warm-ups + 10 runs after 200 ms idle");
        spin<<<132, 32>>>(20000000ull, nullptr);
        check(cudaDeviceSynchronize(), "spin");
        row("tiny_busy", p, 1e3 * eventTime(launch), "us", "3 warm-ups + 10 runs right after a 20 ms spin kernel");
        spin<<<132, 32>>>(20000000ull, nullptr);
        check(cudaDeviceSynchronize(), "spin");
        row("clock_after_busy", p, mhz(clk), "MHz", "SM clock right after a 20 ms spin kernel");
        sleep();
        row("tiny_long", p, 1e3 * eventTime(launch, 200), "us", "200 warm-ups + 10 runs after 200 ms idle");
    }
    return 0;
}

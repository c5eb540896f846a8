// l2reuse.cu — when a gathered buffer's re-reads stay in L2 while a kernel
// streams far more than the L2 holds (issue 27, milestone 3).
//
// The model's rule until this run: when a launch's footprint overflows
// the L2, every re-read of a sector another block fetched comes again from
// DRAM with probability 1 − L2 / footprint, whatever the buffer. An SpMV
// at 2^21 rows streams 280 MB of indices and values and gathers 32 M times
// from an 8 MB x: that rule sends 82% of the gathers to DRAM. LRU says a
// re-read hits while the bytes touched since the sector's last touch fit
// the L2, and a small buffer touched often is touched again soon.
//
// gather: n = 2^26 elements; thread t sums a[i] * x[idx[i]] over i = t,
// t + T, ... (a and idx stream 512 MB, each read once) and writes one
// float; idx is uniform over x's X floats, so each 32-byte sector of x is
// read k = 8n/X times at random moments. Rows:
//   gather_ms,X_MB,ms   time per launch (eventTime: 3 warm-ups, 10 runs)
//   stream_ms,0,ms      the same kernel with idx[i] = i mod 8 (x in L1)
//   l2reuse_dram,X_MB,bytes  DRAM bytes read by one launch (ncu's
//                            dram__bytes_read.sum; l2reuse-ncu.py adds
//                            these rows from ncu's CSV, stream row as X 0)
// Run with the argument `once`, it launches the stream kernel and then each
// X once, in the rows' order (for ncu, which flushes the caches first).
#include "bench.cuh"

#include <cstring>
#include <vector>

__global__ void gather(const float* __restrict__ a, const int* __restrict__ idx, const float* __restrict__ x,
                       float* __restrict__ y, long n) {
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
    long T = (long)gridDim.x * blockDim.x;
    float s = 0;
    for (long i = t; i < n; i += T) s += a[i] * x[idx[i]];
    y[t] = s;
}

int main(int argc, char** argv) {
    bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
    const long n = 1L << 26;
    const int block = 256;
    int sms;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
    const int grid = sms * 8; // 2048 threads an SM
    const long T = (long)grid * block;
    if (!once) {
        cudaDeviceProp p;
        check(cudaGetDeviceProperties(&p, 0), "properties");
        std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes\n", p.name, sms, p.major, p.minor, p.l2CacheSize);
        std::printf("name,param,value,unit,note\n");
    }
    const long maxX = 1L << 26; // 256 MB of floats
    float *a, *x, *y;
    int* idx;
    check(cudaMalloc(&a, n * 4), "malloc a");
    check(cudaMalloc(&idx, n * 4), "malloc idx");
    check(cudaMalloc(&x, maxX * 4), "malloc x");
    check(cudaMalloc(&y, T * 4), "malloc y");
    check(cudaMemset(a, 0, n * 4), "memset a");
    check(cudaMemset(x, 0, maxX * 4), "memset x");
    std::vector<int> h(n);
    auto run = [&](const char* name, long X, double mb) {
        auto launch = [&] { gather<<<grid, block>>>(a, idx, x, y, n); };
        if (once) {
            launch();
            check(cudaDeviceSynchronize(), "launch");
            return;
        }
        char p[32];
        std::snprintf(p, sizeof p, "%g", mb);
        char note[96];
        std::snprintf(note, sizeof note, "n=2^26 streamed 512 MB; x %ld floats", X);
        row(name, p, eventTime(launch), "ms", note);
    };
    for (long i = 0; i < n; ++i) h[i] = (int)(i & 7);
    check(cudaMemcpy(idx, h.data(), n * 4, cudaMemcpyHostToDevice), "copy idx");
    run("stream_ms", 8, 0);
    unsigned long long z = 12345;
    for (double mb : {1.0, 4.0, 8.0, 16.0, 24.0, 32.0, 40.0, 48.0, 64.0, 96.0, 128.0, 256.0}) {
        long X = (long)(mb * (1 << 20) / 4);
        for (long i = 0; i < n; ++i) {
            z = z * 6364136223846793005ULL + 1442695040888963407ULL;
            h[i] = (int)((z >> 33) % (unsigned long long)X);
        }
        check(cudaMemcpy(idx, h.data(), n * 4, cudaMemcpyHostToDevice), "copy idx");
        run("gather_ms", X, mb);
    }
    return 0;
}

// l2store.cu — what a warp's request of one word in each of 32 lines costs
// when it stores rather than loads (issue 27, milestone 3).
//
// The sweep's naive transposes (each warp reads a row and writes a column:
// 32 lines, 4 bytes in each) take twice the model's time at N = 1024 to
// 8192, where the model prices their line transactions at the rate
// l2sectors measured for loads of one sector of each of 32 lines. This run
// times the two halves of that kernel apart, and the whole.
//
// Blocks of 32x32 threads over an N x N float matrix, one element a thread,
// as the tiling lesson's transposeNaive:
//   row_load   v = a[row*N + col]   (a warp: one line)
//   col_load   v = a[col*N + row]   (a warp: 32 lines, a word each)
//   row_store  c[row*N + col] = k
//   col_store  c[col*N + row] = k   (the naive transpose's store)
//   transpose  c[col*N + row] = a[row*N + col]
// The loads keep their value live by a store no element reaches (v == -1
// never holds: a is filled with 1). Rows: NAME,N,us (eventTime: 3 warm-ups,
// 10 runs, the lessons' protocol). Run with `once`, it launches each kernel
// once at N = 4096 in that order (for ncu: line and sector counts, DRAM
// bytes).
#include "bench.cuh"

#include <cstring>

__global__ void rowLoad(const float* __restrict__ a, float* __restrict__ c, int n) {
    int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    float v = a[(long)row * n + col];
    if (v == -1.0f) c[0] = v;
}

__global__ void colLoad(const float* __restrict__ a, float* __restrict__ c, int n) {
    int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    float v = a[(long)col * n + row];
    if (v == -1.0f) c[0] = v;
}

__global__ void rowStore(float* __restrict__ c, int n, float k) {
    int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    c[(long)row * n + col] = k;
}

__global__ void colStore(float* __restrict__ c, int n, float k) {
    int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    c[(long)col * n + row] = k;
}

__global__ void transposeNaive(const float* __restrict__ a, float* __restrict__ c, int n) {
    int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
    c[(long)col * n + row] = a[(long)row * n + col];
}

__global__ void fill(float* a, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) a[i] = 1.0f;
}

int main(int argc, char** argv) {
    bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
    const int maxN = 8192;
    float *a, *c;
    long cells = (long)maxN * maxN;
    check(cudaMalloc(&a, cells * 4), "malloc a");
    check(cudaMalloc(&c, cells * 4), "malloc c");
    fill<<<(unsigned)((cells + 255) / 256), 256>>>(a, cells);
    check(cudaDeviceSynchronize(), "fill");
    if (!once) {
        cudaDeviceProp p;
        check(cudaGetDeviceProperties(&p, 0), "properties");
        int sms;
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
        std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes\n", p.name, sms, p.major, p.minor, p.l2CacheSize);
        std::printf("name,param,value,unit,note\n");
    }
    for (int n : {1024, 2048, 4096, 8192}) {
        if (once && n != 4096) continue;
        dim3 grid(n / 32, n / 32), block(32, 32);
        struct {
            const char* name;
            void (*run)(dim3, dim3, float*, float*, int);
        } ks[] = {
            {"row_load", [](dim3 g, dim3 b, float* a, float* c, int n) { rowLoad<<<g, b>>>(a, c, n); }},
            {"col_load", [](dim3 g, dim3 b, float* a, float* c, int n) { colLoad<<<g, b>>>(a, c, n); }},
            {"row_store", [](dim3 g, dim3 b, float* a, float* c, int n) { rowStore<<<g, b>>>(c, n, 2.0f); }},
            {"col_store", [](dim3 g, dim3 b, float* a, float* c, int n) { colStore<<<g, b>>>(c, n, 2.0f); }},
            {"transpose", [](dim3 g, dim3 b, float* a, float* c, int n) { transposeNaive<<<g, b>>>(a, c, n); }},
        };
        for (auto& k : ks) {
            auto launch = [&] { k.run(grid, block, a, c, n); };
            if (once) {
                launch();
                check(cudaDeviceSynchronize(), k.name);
                continue;
            }
            char p[16], note[96];
            std::snprintf(p, sizeof p, "%d", n);
            std::snprintf(note, sizeof note, "%dx%d floats, blocks of 32x32, one element a thread", n, n);
            row(k.name, p, 1e3 * eventTime(launch), "us", note);
        }
    }
    return 0;
}

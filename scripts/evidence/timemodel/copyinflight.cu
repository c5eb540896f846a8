// copyinflight.cu — what a store costs the loads in flight, DRAM-bound
// (issue 27; docs/timemodel.md, "A copy against saxpy").
//
// The sweep's copyKernel (one float loaded and stored a thread) runs
// 1.16-1.30x faster than saxpy (two loaded, one stored) at 2^24 and 2^26
// elements on the H100 and the H200, where the model, which divides read
// and written bytes together by the rate the loads in flight sustain,
// ties them. This run times, on n = 2^24 and 2^26 floats (64 and 256 MiB
// an array, the sweep's two largest stream sizes, launched back to back
// as the sweep times them):
//   read   K independent loads a thread, no store (a never-true store
//          keeps them: the arrays hold 1)
//   write  K stores a thread, no load
//   copy   K loads then K stores a thread (y = x)
//   saxpy  2K loads then K stores a thread (y = a x + y)
// each with float loads (v=1) and float4 loads (v=4), for K = 1, 2, 4 and
// 8: thread t handles elements t, t + T, ..., t + (K-1) T of the n / v
// vectors (T the grid's threads; loadK, storeK), so a warp's every
// request is coalesced and a thread has K requests in flight a round. Blocks of 256 threads.
// Rows: NAME,K=k v=v n=2^e,us (eventTime: 3 warm-ups, 10 runs, the
// lessons' protocol) and NAME_gbs the bytes read and written over that
// time. Nothing in the model reads it yet: the rule that would is to be
// fixed before its rows are looked at.
#include "bench.cuh"

#include <cstring>

// Thread t's K elements are t, t + T, ..., t + (K-1) T (T the grid's
// threads): loadK issues its K loads before any is used, so K requests
// are in flight a thread; storeK stores K values the same way.
__device__ inline long threadIndex() { return blockIdx.x * (long)blockDim.x + threadIdx.x; }
__device__ inline long gridThreads() { return (long)gridDim.x * blockDim.x; }

template <int K, class T>
__device__ inline void loadK(const T* __restrict__ x, T (&v)[K]) {
    long t = threadIndex(), stride = gridThreads();
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] = x[t + i * stride];
}

template <int K, class T>
__device__ inline void storeK(T* __restrict__ y, const T (&v)[K]) {
    long t = threadIndex(), stride = gridThreads();
#pragma unroll
    for (int i = 0; i < K; ++i) y[t + i * stride] = v[i];
}

template <int K, class T>
__global__ void readK(const T* __restrict__ x, float* __restrict__ sink) {
    T v[K];
    loadK(x, v);
    float s = 0;
#pragma unroll
    for (int i = 0; i < K; ++i) s += reinterpret_cast<float*>(&v[i])[0];
    if (s == -1.0f) sink[0] = s;
}

template <int K, class T>
__global__ void writeK(T* __restrict__ y, T k) {
    T v[K];
#pragma unroll
    for (int i = 0; i < K; ++i) v[i] = k;
    storeK(y, v);
}

template <int K, class T>
__global__ void copyK(const T* __restrict__ x, T* __restrict__ y) {
    T v[K];
    loadK(x, v);
    storeK(y, v);
}

__device__ inline float axpy(float a, float x, float y) { return a * x + y; }
__device__ inline float4 axpy(float a, float4 x, float4 y) {
    return make_float4(a * x.x + y.x, a * x.y + y.y, a * x.z + y.z, a * x.w + y.w);
}

template <int K, class T>
__global__ void saxpyK(float a, const T* __restrict__ x, T* __restrict__ y) {
    T u[K], w[K];
    loadK(x, u);
    loadK(static_cast<const T*>(y), w);
#pragma unroll
    for (int i = 0; i < K; ++i) w[i] = axpy(a, u[i], w[i]);
    storeK(y, w);
}

__global__ void fill(float* a, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) a[i] = 1.0f;
}

template <int K, class T>
static void runAll(const char* vname, int v, float* x, float* y, float* sink, long n, int log2n) {
    long nv = n / v;
    unsigned blocks = (unsigned)(nv / K / 256);
    const T* xv = reinterpret_cast<const T*>(x);
    T* yv = reinterpret_cast<T*>(y);
    T k;
    std::memset(&k, 0, sizeof k);
    char p[48], note[128];
    std::snprintf(p, sizeof p, "K=%d v=%d n=2^%d", K, v, log2n);
    struct {
        const char* name;
        double bytes;  // read and written, a launch
        double us;
    } rs[] = {
        {"read_inflight", 4.0 * n, 1e3 * eventTime([&] { readK<K, T><<<blocks, 256>>>(xv, sink); })},
        {"write_inflight", 4.0 * n, 1e3 * eventTime([&] { writeK<K, T><<<blocks, 256>>>(yv, k); })},
        {"copy_inflight", 8.0 * n, 1e3 * eventTime([&] { copyK<K, T><<<blocks, 256>>>(xv, yv); })},
        {"saxpy_inflight", 12.0 * n, 1e3 * eventTime([&] { saxpyK<K, T><<<blocks, 256>>>(2.0f, xv, yv); })},
    };
    for (auto& r : rs) {
        std::snprintf(note, sizeof note, "%s, %d requests a thread in flight, blocks of 256", vname, K);
        row(r.name, p, r.us, "us", note);
        char g[48];
        std::snprintf(g, sizeof g, "%s_gbs", r.name);
        row(g, p, r.bytes / (r.us * 1e-6) / 1e9, "GB/s", "bytes read and written over the time");
    }
}

int main() {
    deviceHeader();
    const int maxLog = 26;
    long maxN = 1L << maxLog;
    float *x, *y, *sink;
    check(cudaMalloc(&x, maxN * 4), "malloc x");
    check(cudaMalloc(&y, maxN * 4), "malloc y");
    check(cudaMalloc(&sink, 16), "malloc sink");
    fill<<<(unsigned)(maxN / 256), 256>>>(x, maxN);
    fill<<<(unsigned)(maxN / 256), 256>>>(y, maxN);
    check(cudaDeviceSynchronize(), "fill");
    for (int e : {24, 26}) {
        long n = 1L << e;
        runAll<1, float>("float", 1, x, y, sink, n, e);
        runAll<2, float>("float", 1, x, y, sink, n, e);
        runAll<4, float>("float", 1, x, y, sink, n, e);
        runAll<8, float>("float", 1, x, y, sink, n, e);
        runAll<1, float4>("float4", 4, x, y, sink, n, e);
        runAll<2, float4>("float4", 4, x, y, sink, n, e);
        runAll<4, float4>("float4", 4, x, y, sink, n, e);
        runAll<8, float4>("float4", 4, x, y, sink, n, e);
    }
    return 0;
}

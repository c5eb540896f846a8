// Kernels for the uninitialized-read sanitizer's tests (sim/initcheck_test.go).
// initcheck.ptx is nvcc 11.8's PTX of this file:
//   nvcc -ptx -arch=compute_75 -O3 -lineinfo initcheck.cu

// Faulting: each reads what no one wrote.

extern "C" __global__ void pick(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v;
    for (int k = 0; k < n; k++)
        if (blockIdx.x == 0 || threadIdx.x < 40) v = x[(i + k) % 4096];
    y[i] = v;
}

extern "C" __global__ void sumNoInit(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float sum;
    for (int k = 0; k < n; k++) sum += x[(i * n + k) % 4096];
    y[i] = sum;
}

extern "C" __global__ void histNoZero(int n, const int *x, int *out) {
    __shared__ int h[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&h[x[i] & 63], 1);
    __syncthreads();
    if (threadIdx.x < 64) atomicAdd(&out[threadIdx.x], h[threadIdx.x]);
}

extern "C" __global__ void haloMissing(const float *x, float *y) {
    __shared__ float s[130];
    int t = threadIdx.x, i = blockIdx.x * 128 + t;
    s[t + 1] = x[i];
    if (t == 0) s[0] = 0.0f;   // s[129], the right halo, is never written
    __syncthreads();
    y[i] = s[t] + s[t + 1] + s[t + 2];
}

// Correct: a path reads a register before writing it, but no thread uses
// a value it did not write.

extern "C" __global__ void condMax(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float best; int have = 0;
    for (int k = 0; k < n; k++) {
        float v = x[(i * n + k) % 4096];
        if (!have || v > best) { best = v; have = 1; }
    }
    if (have) y[i] = best; else y[i] = -1.0f;
}

extern "C" __global__ void findIdx(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int idx; bool found = false;
    for (int k = 0; k < n; k++)
        if (!found && x[(i + k) % 4096] > 1.5f) { idx = k; found = true; }
    if (found) y[i] = idx;
}

extern "C" __global__ void bcast(const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v;
    if ((threadIdx.x & 31) == 0) v = x[i];
    y[i] = __shfl_sync(0xffffffff, v, 0);
}

extern "C" __global__ void ballotPart(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool p;
    if (i < n) p = x[i] > 0;
    unsigned b = __ballot_sync(0xffffffff, i < n && p);
    y[i] = __popc(b);
}

extern "C" __global__ void tiled(const float *x, float *y) {
    __shared__ float s[130];
    int t = threadIdx.x, i = blockIdx.x * 128 + t;
    s[t + 1] = x[i];
    if (t == 0) s[0] = 0.0f;
    if (t == 127) s[129] = 0.0f;
    __syncthreads();
    y[i] = s[t] + s[t + 1] + s[t + 2];
}

// rows.cu: row-wise kernels of the ML lessons and two classic patterns:
// softmax and layernorm a warp a row (shuffles; layernorm through
// cooperative groups' reduce), GELU (tanhf), merge path, an ELL SpMV with
// __ldg, and float4 loads. Floats are checked within a tolerance (expf,
// rsqrtf and tanhf go through approximate instructions). Corpus of issue
// 28; CPU references in sim/corpus_rows_test.go.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void softmax(const float *x, float *y, int cols) {
  int row = blockIdx.x, lane = threadIdx.x;
  const float *xr = x + row * cols;
  float m = -INFINITY;
  for (int j = lane; j < cols; j += 32) m = fmaxf(m, xr[j]);
  for (int k = 16; k; k >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, k));
  float s = 0;
  for (int j = lane; j < cols; j += 32) s += expf(xr[j] - m);
  for (int k = 16; k; k >>= 1) s += __shfl_xor_sync(0xffffffffu, s, k);
  for (int j = lane; j < cols; j += 32) y[row * cols + j] = expf(xr[j] - m) / s;
}

extern "C" __global__ void layernorm(const float *x, float *y, const float *g, const float *b, int cols, float eps) {
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  int row = blockIdx.x;
  const float *xr = x + row * cols;
  float s = 0, s2 = 0;
  for (int j = w.thread_rank(); j < cols; j += 32) {
    s += xr[j];
    s2 += xr[j] * xr[j];
  }
  s = cg::reduce(w, s, cg::plus<float>());
  s2 = cg::reduce(w, s2, cg::plus<float>());
  float mean = s / cols, var = s2 / cols - mean * mean;
  float inv = rsqrtf(var + eps);
  for (int j = w.thread_rank(); j < cols; j += 32) y[row * cols + j] = (xr[j] - mean) * inv * g[j] + b[j];
}

extern "C" __global__ void gelu(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

extern "C" __global__ void mergePath(const int *a, int na, const int *b, int nb, int *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= na + nb) return;
  int lo = max(0, i - nb), hi = min(i, na);
  while (lo < hi) {
    int m = (lo + hi) / 2;
    if (a[m] <= b[i - m - 1]) lo = m + 1;
    else hi = m;
  }
  int ai = lo, bi = i - lo;
  c[i] = (bi >= nb || (ai < na && a[ai] <= b[bi])) ? a[ai] : b[bi];
}

extern "C" __global__ void ellSpmv(const int *cols, const float *vals, const float *x, float *y, int rows, int width) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0;
  for (int k = 0; k < width; k++) {
    int c = cols[k * rows + r];
    if (c >= 0) s += vals[k * rows + r] * __ldg(&x[c]);
  }
  y[r] = s;
}

extern "C" __global__ void reverse4(const float4 *a, float4 *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = __ldg(&a[i]);
    b[n - 1 - i] = make_float4(v.w, v.z, v.y, v.x);
  }
}

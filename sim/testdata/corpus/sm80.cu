// arch: compute_80
// sm80.cu: warp reductions (__reduce_*_sync: redux.sync, sm_80 and
// later) and asynchronous copies to shared memory (cp.async with its
// commit and wait groups, sm_80 and later). Compiled for compute_80.
// Corpus of issue 28; CPU references in sim/corpus_test.go.
#include <cuda_pipeline.h>

extern "C" __global__ void reduxes(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned u = (unsigned)v;
  int w = threadIdx.x / 32;
  out[8 * w + 0] = __reduce_add_sync(0xffffffffu, v);
  out[8 * w + 1] = __reduce_min_sync(0xffffffffu, v);
  out[8 * w + 2] = __reduce_max_sync(0xffffffffu, v);
  out[8 * w + 3] = (int)__reduce_min_sync(0xffffffffu, u);
  out[8 * w + 4] = (int)__reduce_max_sync(0xffffffffu, u);
  out[8 * w + 5] = (int)__reduce_and_sync(0xffffffffu, u | 0x100u);
  out[8 * w + 6] = (int)__reduce_or_sync(0xffffffffu, u & 0xffu);
  out[8 * w + 7] = (int)__reduce_xor_sync(0xffffffffu, u);
}

// tileSum: each block copies two tiles of 4 floats a thread into shared
// memory with cp.async (two commit groups), waits for the first, sums it,
// waits for the second, sums that.
extern "C" __global__ void tileSum(const float4 *in, float *out) {
  __shared__ float4 a[64], b[64];
  int t = threadIdx.x;
  const float4 *src = in + 2 * 64 * blockIdx.x;
  __pipeline_memcpy_async(&a[t], &src[t], sizeof(float4));
  __pipeline_commit();
  __pipeline_memcpy_async(&b[t], &src[64 + t], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(1);
  __syncthreads();
  float4 x = a[63 - t];
  float s = x.x + x.y + x.z + x.w;
  __pipeline_wait_prior(0);
  __syncthreads();
  float4 y = b[t];
  out[64 * blockIdx.x + t] = s + (y.x + y.y + y.z + y.w);
}

// calls.cu: device functions nvcc does not inline (__noinline__, recursion)
// and printf. Corpus of issue 28; CPU references in sim/corpus_test.go.
#include <cstdio>

__device__ __noinline__ int addsq(int a, int b) { return a * a + b; }

__device__ __noinline__ float2 scale2(float2 v, float s) { return make_float2(v.x * s, v.y * s); }

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// deep recurses n levels with a local array in each frame.
__device__ int deep(int n) {
  volatile int pad[16];
  pad[n & 15] = n;
  if (n == 0) return 0;
  return deep(n - 1) + pad[n & 15];
}

extern "C" __global__ void calls(int *out, float *fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = addsq(i, 3) + fib(i % 12);
    float2 v = scale2(make_float2(i, -i), 0.5f);
    fout[2 * i] = v.x;
    fout[2 * i + 1] = v.y;
  }
}

extern "C" __global__ void recurse(int *out, int depth) {
  int i = threadIdx.x;
  out[i] = deep(depth + (i & 1));
}

extern "C" __global__ void hello(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (i % 3) == 0) {
    printf("block %d thread %2d: %5.2f %e %s %lld %x %c%%\n", blockIdx.x, threadIdx.x, 1.5f * i, 1e-3 * i,
           i % 2 ? "odd" : "even", (long long)i << 40, 255 + i, 'A' + i % 26);
  }
  if (i < n) out[i] = i;
}

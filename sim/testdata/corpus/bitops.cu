// bitops.cu: the integer intrinsics whose PTX goes beyond plain
// arithmetic (bfind, prmt, sad, funnel shifts, mul.hi, mul24) and the fast
// float intrinsics (__sinf, __cosf, __expf: sin/cos/ex2.approx, checked
// within a tolerance). Corpus of issue 28; CPU references in
// sim/corpus_basics_test.go.

extern "C" __global__ void bitops(const unsigned *x, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  unsigned *o = out + 8 * i;
  o[0] = __clz(v);
  o[1] = __ffs(v);
  o[2] = __brev(v);
  o[3] = __byte_perm(v, 0x76543210u, 0x5140);
  o[4] = __funnelshift_l(v, 0x9abcdef0u, i);
  o[5] = __umulhi(v, 2654435761u);
  o[6] = __umul24(v, 1234567u);
  o[7] = __sad((int)v, i * 1000, 7u);
}

extern "C" __global__ void fastmath(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __sinf(x[i]) + __cosf(x[i]) + __expf(-x[i] * x[i]);
}

#include <cuda_fp16.h>

// halfops: scalar half arithmetic (add.f16, mul.f16, fma.rn.f16, setp.f16,
// cvt to and from half), each result rounded to nearest.
extern "C" __global__ void halfops(const half *a, const half *b, half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  half x = a[i], y = b[i];
  half s = __hadd(x, y), p = __hmul(x, y), f = __hfma(x, y, s);
  out[4 * i] = s;
  out[4 * i + 1] = p;
  out[4 * i + 2] = __hlt(x, y) ? f : __hneg(f);
  out[4 * i + 3] = __float2half(__half2float(x) * 0.5f);
}

// arch: compute_80
// halves.cu: 16-bit float arithmetic beyond scalar half (bitops.cu's
// halfops): __half2 pairs (add, sub, mul, fma, min, max, neg, abs through
// .f16x2), bfloat16 scalars (__hmul, __hadd, __hfma: fma.rn.bf16 on sm_80)
// and pairs, and the conversions that pack two floats (__floats2half2_rn,
// __floats2bfloat162_rn) or widen a bfloat16 (__bfloat162float). Corpus
// of issue 28; CPU references in sim/corpus_halves_test.go.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// half2s: for pair i of x and y (each two halves), out[4i..4i+3] =
// x+y, x*y - y, fma(x, y, x), max(x, -|y|).
extern "C" __global__ void half2s(const __half2 *x, const __half2 *y, __half2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 a = x[i], b = y[i];
  out[4 * i] = __hadd2(a, b);
  out[4 * i + 1] = __hsub2(__hmul2(a, b), b);
  out[4 * i + 2] = __hfma2(a, b, a);
  out[4 * i + 3] = __hmax2(a, __hneg2(__habs2(b)));
}

// bf16s: bfloat16 scalars and pairs from floats: out[4i..4i+3] = float of
// (x*y + x as bf16 fma), x*y, x+y (bf16 mul and add), and the two halves of
// the bf16x2 fma of (x, y) pairs with itself, packed back to floats.
extern "C" __global__ void bf16s(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 a = __float2bfloat16(x[i]), b = __float2bfloat16(y[i]);
  out[4 * i] = __bfloat162float(__hfma(a, b, a));
  out[4 * i + 1] = __bfloat162float(__hmul(a, b));
  out[4 * i + 2] = __bfloat162float(__hadd(a, b));
  __nv_bfloat162 p = __floats2bfloat162_rn(x[i], y[i]);
  __nv_bfloat162 q = __hfma2(p, p, p);
  out[4 * i + 3] = __low2float(q) - __high2float(q);
}

// pack: __floats2half2_rn of (x, y) as bits, and __half22float2 back.
extern "C" __global__ void pack(const float *x, const float *y, unsigned *bits, float2 *back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 h = __floats2half2_rn(x[i], y[i]);
  bits[i] = *reinterpret_cast<unsigned *>(&h);
  back[i] = __half22float2(h);
}

// halfAtomics: every thread adds its pair to acc2[i % 4] (atomicAdd on
// __half2: atom.add.noftz.f16x2), its low half to acc[i % 4] (on __half:
// atom.add.noftz.f16) and to bacc[i % 4] (on __nv_bfloat16: a CAS loop on
// compute_80). The inputs are small integers, so every order of the adds
// gives the same sums.
extern "C" __global__ void halfAtomics(const __half2 *x, __half2 *acc2, __half *acc, __nv_bfloat16 *bacc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&acc2[i % 4], x[i]);
  atomicAdd(&acc[i % 4], __low2half(x[i]));
  atomicAdd(&bacc[i % 4], __float2bfloat16(__low2float(x[i])));
}

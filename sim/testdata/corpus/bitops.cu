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

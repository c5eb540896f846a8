// dmath.cu: double precision as a course's numerics week uses it — the
// library's sin, cos, exp, log and pow (whose argument reduction for large
// angles multiplies by 2/pi in 32-bit pieces with carry chains) — and a
// 64x64 -> 128-bit product and 128-bit sums by inline PTX carry chains
// (add.cc, addc, mad.lo.cc, madc.hi). Corpus of issue 28; CPU references
// in sim/corpus_dmath_test.go.

// dmath: out[5i..5i+4] = sin, cos, exp(x/1000), log|x|, pow(|x|, 0.75) of x[i].
extern "C" __global__ void dmath(const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  out[5 * i] = sin(v);
  out[5 * i + 1] = cos(v);
  out[5 * i + 2] = exp(v / 1000.0);
  out[5 * i + 3] = log(fabs(v));
  out[5 * i + 4] = pow(fabs(v), 0.75);
}

// wide: the 128-bit product of a[i] and b[i] (lo, hi words), and the
// 128-bit sum of that product with (a[i], b[i]) as (lo, hi), in 32-bit
// limbs through the carry flag.
extern "C" __global__ void wide(const unsigned long long *a, const unsigned long long *b, unsigned long long *prod,
                                unsigned long long *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i], lo, hi;
  asm("mul.lo.u64 %0, %2, %3;\n\tmul.hi.u64 %1, %2, %3;" : "=l"(lo), "=l"(hi) : "l"(x), "l"(y));
  prod[2 * i] = lo;
  prod[2 * i + 1] = hi;
  unsigned s0, s1, s2, s3;
  asm("add.cc.u32 %0, %4, %8;\n\taddc.cc.u32 %1, %5, %9;\n\taddc.cc.u32 %2, %6, %10;\n\taddc.u32 %3, %7, %11;"
      : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
      : "r"((unsigned)lo), "r"((unsigned)(lo >> 32)), "r"((unsigned)hi), "r"((unsigned)(hi >> 32)),
        "r"((unsigned)x), "r"((unsigned)(x >> 32)), "r"((unsigned)y), "r"((unsigned)(y >> 32)));
  // and a 32x32 multiply-accumulate chain: (s1:s0) += x.lo * y.lo with mad.lo.cc / madc.hi
  unsigned m0, m1;
  asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.u32 %1, %2, %3, %5;"
      : "=r"(m0), "=r"(m1) : "r"((unsigned)x), "r"((unsigned)y), "r"(s0), "r"(s1));
  sum[4 * i] = s0 | (unsigned long long)s1 << 32;
  sum[4 * i + 1] = s2 | (unsigned long long)s3 << 32;
  sum[4 * i + 2] = m0 | (unsigned long long)m1 << 32;
  // sub.cc / subc: (hi:lo) - (y:x)
  unsigned d0, d1;
  asm("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %4, %5;" : "=r"(d0), "=r"(d1) : "r"((unsigned)lo), "r"((unsigned)x), "r"((unsigned)(lo >> 32)), "r"((unsigned)(x >> 32)));
  sum[4 * i + 3] = d0 | (unsigned long long)d1 << 32;
}

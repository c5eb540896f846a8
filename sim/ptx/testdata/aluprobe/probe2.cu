// probe2.cu: the second round of probe.cu, after its answers: NaN operand
// order, payloads through cvt, NaN to integer, .ftz tininess, rcp.approx.ftz.f64.
#include <cstdio>
#include <cstring>
#define O32(name, ptx, a, b) do { unsigned r; asm volatile(ptx " %0, %1, %2;" : "=r"(r) : "r"((unsigned)in[a]), "r"((unsigned)in[b])); out[n] = r; names[n++] = name; } while (0)
#define U32(name, ptx, a) do { unsigned r; asm volatile(ptx " %0, %1;" : "=r"(r) : "r"((unsigned)in[a])); out[n] = r; names[n++] = name; } while (0)
#define T32(name, ptx, a, b, c) do { unsigned r; asm volatile(ptx " %0, %1, %2, %3;" : "=r"(r) : "r"((unsigned)in[a]), "r"((unsigned)in[b]), "r"((unsigned)in[c])); out[n] = r; names[n++] = name; } while (0)
#define O64(name, ptx, a, b) do { unsigned long long r; asm volatile(ptx " %0, %1, %2;" : "=l"(r) : "l"(in[a]), "l"(in[b])); out[n] = r; names[n++] = name; } while (0)
#define U64(name, ptx, a) do { unsigned long long r; asm volatile(ptx " %0, %1;" : "=l"(r) : "l"(in[a])); out[n] = r; names[n++] = name; } while (0)
#define T64(name, ptx, a, b, c) do { unsigned long long r; asm volatile(ptx " %0, %1, %2, %3;" : "=l"(r) : "l"(in[a]), "l"(in[b]), "l"(in[c])); out[n] = r; names[n++] = name; } while (0)
#define C_64_32(name, ptx, a) do { unsigned long long r; asm volatile(ptx " %0, %1;" : "=l"(r) : "r"((unsigned)in[a])); out[n] = r; names[n++] = name; } while (0)
#define C_32_64(name, ptx, a) do { unsigned r; asm volatile(ptx " %0, %1;" : "=r"(r) : "l"(in[a])); out[n] = r; names[n++] = name; } while (0)
#define C_16_32(name, ptx, a) do { unsigned short r; asm volatile(ptx " %0, %1;" : "=h"(r) : "r"((unsigned)in[a])); out[n] = r; names[n++] = name; } while (0)
#define C_32_16(name, ptx, a) do { unsigned r; asm volatile(ptx " %0, %1;" : "=r"(r) : "h"((unsigned short)in[a])); out[n] = r; names[n++] = name; } while (0)
#define O16(name, ptx, a, b) do { unsigned short r; asm volatile(ptx " %0, %1, %2;" : "=h"(r) : "h"((unsigned short)in[a]), "h"((unsigned short)in[b])); out[n] = r; names[n++] = name; } while (0)


enum { NA64, NB64, SN64, ONE64, NEGN64, NA32, NB32, SN32, ONE32, NEGN32, PAY64, NEGN32B, NEGONE64, PINF64, NINF64, PI64, FTZA, FTZB, NIN };
__global__ void probe(const unsigned long long* in, unsigned long long* out, int* count) {
  int n = 0; const char* names[128];
  O64("add.f64 A,B", "add.f64", NA64, NB64);
  O64("add.f64 B,A", "add.f64", NB64, NA64);
  O64("add.f64 sNaN,1", "add.f64", SN64, ONE64);
  O64("mul.f64 1,negNaN", "mul.f64", ONE64, NEGN64);
  O64("sub.f64 1,A", "sub.f64", ONE64, NA64);
  T64("fma.rn.f64 1,1,A", "fma.rn.f64", ONE64, ONE64, NA64);
  T64("fma.rn.f64 A,1,B", "fma.rn.f64", NA64, ONE64, NB64);
  T64("fma.rn.f64 1,A,B", "fma.rn.f64", ONE64, NA64, NB64);
  T64("fma.rn.f64 B,A,1", "fma.rn.f64", NB64, NA64, ONE64);
  O64("min.f64 A,B", "min.f64", NA64, NB64);
  O64("min.f64 B,A", "min.f64", NB64, NA64);
  O64("max.f64 sNaN,sNaN", "max.f64", SN64, SN64);
  U64("neg.f64 negNaN", "neg.f64", NEGN64);
  U64("abs.f64 negNaN", "abs.f64", NEGN64);
  U64("sqrt.rn.f64 negNaN", "sqrt.rn.f64", NEGN64);
  O64("div.rn.f64 A,1", "div.rn.f64", NA64, ONE64);
  U64("rcp.rn.f64 A", "rcp.rn.f64", NA64);
  O32("min.f32 A,B", "min.f32", NA32, NB32);
  O32("min.f32 B,A", "min.f32", NB32, NA32);
  O32("max.f32 A,B", "max.f32", NA32, NB32);
  O32("max.f32 sNaN,sNaN", "max.f32", SN32, SN32);
  O32("min.f32 negNaN,negNaN2", "min.f32", NEGN32, NEGN32B);
  O32("add.f32 sNaN,1", "add.f32", SN32, ONE32);
  C_32_64("cvt.rn.f32.f64 negNaN", "cvt.rn.f32.f64", NEGN64);
  C_32_64("cvt.rn.f32.f64 payload", "cvt.rn.f32.f64", PAY64);
  C_32_64("cvt.rn.f32.f64 sNaN", "cvt.rn.f32.f64", SN64);
  C_32_64("cvt.rz.f32.f64 A", "cvt.rz.f32.f64", NA64);
  C_64_32("cvt.f64.f32 negNaN", "cvt.f64.f32", NEGN32);
  C_64_32("cvt.f64.f32 sNaN", "cvt.f64.f32", SN32);
  C_32_64("cvt.rzi.s32.f64 NaN", "cvt.rzi.s32.f64", NA64);
  C_32_64("cvt.rzi.u32.f64 NaN", "cvt.rzi.u32.f64", NA64);
  U64("cvt.rzi.u64.f64 NaN", "cvt.rzi.u64.f64", NA64);
  U64("cvt.rzi.s64.f64 NaN", "cvt.rzi.s64.f64", NA64);
  U64("cvt.rzi.s64.f64 negNaN", "cvt.rzi.s64.f64", NEGN64);
  C_64_32("cvt.rzi.s64.f32 NaN", "cvt.rzi.s64.f32", NA32);
  C_64_32("cvt.rzi.u64.f32 NaN", "cvt.rzi.u64.f32", NA32);
  C_16_32("cvt.rzi.s16.f32 NaN", "cvt.rzi.s16.f32", NA32);
  C_16_32("cvt.rzi.u16.f32 NaN", "cvt.rzi.u16.f32", NA32);
  U64("cvt.rzi.s64.f64 +inf", "cvt.rzi.s64.f64", PINF64);
  U64("cvt.rzi.s64.f64 -inf", "cvt.rzi.s64.f64", NINF64);
  U64("cvt.rzi.u64.f64 -1", "cvt.rzi.u64.f64", NEGONE64);
  U64("cvt.rzi.u64.f64 +inf", "cvt.rzi.u64.f64", PINF64);
  C_32_64("cvt.rzi.s32.f64 +inf", "cvt.rzi.s32.f64", PINF64);
  C_32_64("cvt.rzi.u32.f64 -inf", "cvt.rzi.u32.f64", NINF64);
  U64("cvt.rni.f64.f64 A", "cvt.rni.f64.f64", NA64);
  U64("cvt.rni.f64.f64 sNaN", "cvt.rni.f64.f64", SN64);
  U64("rcp.approx.ftz.f64 pi", "rcp.approx.ftz.f64", PI64);
  U64("rcp.approx.ftz.f64 A", "rcp.approx.ftz.f64", NA64);
  U64("rsqrt.approx.f64 A", "rsqrt.approx.f64", NA64);
  O32("mul.rn.ftz.f32 2^-126(1-2^-46)", "mul.rn.ftz.f32", FTZA, FTZB);
  O32("mul.rn.f32 2^-126(1-2^-46)", "mul.rn.f32", FTZA, FTZB);
  O32("mul.rz.ftz.f32 2^-126(1-2^-46)", "mul.rz.ftz.f32", FTZA, FTZB);
  O32("mul.rp.ftz.f32 2^-126(1-2^-46)", "mul.rp.ftz.f32", FTZA, FTZB);
  *count = n;
}
#include <cmath>
int main() {
  unsigned long long h[NIN]; memset(h, 0, sizeof h);
  h[NA64] = 0x7ff8000000000123ULL; h[NB64] = 0x7ff8000000000456ULL; h[SN64] = 0x7ff0000000000001ULL;
  h[ONE64] = 0x3ff0000000000000ULL; h[NEGN64] = 0xfff8000000000789ULL; h[NA32] = 0x7fc00001; h[NB32] = 0x7fc00002;
  h[SN32] = 0x7f800001; h[ONE32] = 0x3f800000; h[NEGN32] = 0xffc00005; h[NEGN32B] = 0xffc00006;
  h[PAY64] = 0x7ff8000123456789ULL; h[NEGONE64] = 0xbff0000000000000ULL; h[PINF64] = 0x7ff0000000000000ULL;
  h[NINF64] = 0xfff0000000000000ULL; h[PI64] = 0x400921fb54442d18ULL;
  float fa = ldexpf(1.0f - 0x1p-23f, -63), fb = ldexpf(1.0f + 0x1p-23f, -63);
  unsigned ua, ub; memcpy(&ua, &fa, 4); memcpy(&ub, &fb, 4); h[FTZA] = ua; h[FTZB] = ub;
  unsigned long long *din, *dout; int* dcount;
  cudaMalloc(&din, sizeof h); cudaMalloc(&dout, 256 * 8); cudaMalloc(&dcount, 4);
  cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
  probe<<<1, 1>>>(din, dout, dcount);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
  unsigned long long out[256]; int count;
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  cudaMemcpy(&count, dcount, 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < count; i++) printf("%d %#llx\n", i, out[i]);
  return 0;
}

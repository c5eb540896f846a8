// probe.cu: runs the PTX instructions whose results the manual leaves to the
// hardware (NaN bits, division by zero, signed zeros, ftz timing) on a GPU
// and prints each result's bits, so Eval's choices can be checked against it.
// Build and run: nvcc -O3 -arch=sm_90 probe.cu && ./a.out; each output line
// is "index bits", the index counting the probe lines below in order.
// probe.out and probe2.out: an H200, driver 580.159.04, nvcc 13.0.88;
// alu_test.go's TestEvalAsMeasured holds the same values.
#include <cstdio>
#include <cstring>

enum {
  NAN32P, ONE32, INF32, NINF32, NZ32, PZ32, M24, MINN32, HUGE127, TRAPA, TRAPC,
  NAN64P, ONE64, INF64, NINF64, NZ64, PZ64, THREE64, TWO64, NEG1_32,
  S7, SM7, Z, S7_64, SM7_64, HALF32, THREE32, X80000000, P28, L10, P40, L8,
  NAN16, NEG1_64, NINF_F64, FOUR32, SAT_NEG, NIN
};

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

__device__ const char* dnames[256];

__global__ void probe(const unsigned long long* in, unsigned long long* out, int* count) {
  int n = 0;
  const char** names = dnames;
  // NaN bits of f32 arithmetic
  O32("add.f32 nanp+1", "add.f32", NAN32P, ONE32);
  O32("add.rn.f32 inf-inf", "add.rn.f32", INF32, NINF32);
  O32("mul.rn.f32 nanp*1", "mul.rn.f32", NAN32P, ONE32);
  T32("fma.rn.f32 nanp", "fma.rn.f32", NAN32P, ONE32, ONE32);
  U32("neg.f32 nanp", "neg.f32", NAN32P);
  U32("abs.f32 nanp", "abs.f32", NAN32P);
  O32("min.f32 nanp,nanp", "min.f32", NAN32P, NAN32P);
  O32("max.f32 nanp,1", "max.f32", NAN32P, ONE32);
  U32("sqrt.rn.f32 -1", "sqrt.rn.f32", NEG1_32);
  U32("rcp.approx.f32 nanp", "rcp.approx.f32", NAN32P);
  U32("ex2.approx.f32 nanp", "ex2.approx.f32", NAN32P);
  O32("div.rn.f32 0/0", "div.rn.f32", PZ32, PZ32);
  // NaN bits of f64 arithmetic
  O64("add.f64 nanp+1", "add.f64", NAN64P, ONE64);
  O64("add.rn.f64 inf-inf", "add.rn.f64", INF64, NINF64);
  O64("mul.rn.f64 nanp*1", "mul.rn.f64", NAN64P, ONE64);
  T64("fma.rn.f64 nanp", "fma.rn.f64", NAN64P, ONE64, ONE64);
  U64("neg.f64 nanp", "neg.f64", NAN64P);
  U64("abs.f64 nanp", "abs.f64", NAN64P);
  O64("min.f64 nanp,nanp", "min.f64", NAN64P, NAN64P);
  O64("div.rn.f64 0/0", "div.rn.f64", PZ64, PZ64);
  U64("sqrt.rn.f64 -1", "sqrt.rn.f64", NEG1_64);
  // conversions of NaN
  C_64_32("cvt.f64.f32 nanp", "cvt.f64.f32", NAN32P);
  C_32_64("cvt.rn.f32.f64 nanp", "cvt.rn.f32.f64", NAN64P);
  C_16_32("cvt.rn.f16.f32 nanp", "cvt.rn.f16.f32", NAN32P);
  C_32_16("cvt.f32.f16 nan16", "cvt.f32.f16", NAN16);
  U32("cvt.rzi.s32.f32 nanp", "cvt.rzi.s32.f32", NAN32P);
  U32("cvt.rzi.u32.f32 nanp", "cvt.rzi.u32.f32", NAN32P);
  U64("cvt.rni.s64.f64 nanp", "cvt.rni.s64.f64", NAN64P);
  U32("cvt.rni.f32.f32 nanp", "cvt.rni.f32.f32", NAN32P);
  U32("cvt.ftz.f32.f32 nanp", "cvt.ftz.f32.f32", NAN32P);
  // integer division by zero
  O32("div.s32 7/0", "div.s32", S7, Z);
  O32("div.s32 -7/0", "div.s32", SM7, Z);
  O32("div.u32 7/0", "div.u32", S7, Z);
  O32("rem.s32 -7%0", "rem.s32", SM7, Z);
  O32("rem.u32 7%0", "rem.u32", S7, Z);
  O64("div.s64 7/0", "div.s64", S7_64, Z);
  O64("div.s64 -7/0", "div.s64", SM7_64, Z);
  O64("div.u64 7/0", "div.u64", S7_64, Z);
  O64("rem.s64 -7%0", "rem.s64", SM7_64, Z);
  O64("rem.u64 7%0", "rem.u64", S7_64, Z);
  O16("div.s16 -7/0", "div.s16", SM7, Z);
  O16("div.u16 7/0", "div.u16", S7, Z);
  O16("rem.s16 -7%0", "rem.s16", SM7, Z);
  // signed zeros in min/max, sat
  O32("min.f32 -0,+0", "min.f32", NZ32, PZ32);
  O32("min.f32 +0,-0", "min.f32", PZ32, NZ32);
  O32("max.f32 -0,+0", "max.f32", NZ32, PZ32);
  O32("max.f32 +0,-0", "max.f32", PZ32, NZ32);
  O64("min.f64 +0,-0", "min.f64", PZ64, NZ64);
  O64("max.f64 -0,+0", "max.f64", NZ64, PZ64);
  O32("add.sat.f32 -0+-0", "add.sat.f32", NZ32, NZ32);
  U32("cvt.sat.f32.f32 -0", "cvt.sat.f32.f32", NZ32);
  O32("mul.sat.f32 -1*0.5", "mul.sat.f32", NEG1_32, HALF32);
  O32("add.sat.f32 nanp", "add.sat.f32", NAN32P, ONE32);
  // ftz: tininess after rounding? (1-2^-24)*2^-126 rounds to 2^-126
  O32("mul.rn.ftz.f32 tiny->minnormal", "mul.rn.ftz.f32", M24, MINN32);
  O32("mul.rn.f32 tiny->minnormal", "mul.rn.f32", M24, MINN32);
  // div.approx with a huge divisor
  O32("div.approx.f32 1/2^127", "div.approx.f32", ONE32, HUGE127);
  O32("div.approx.f32 inf/2^127", "div.approx.f32", INF32, HUGE127);
  O32("div.approx.f32 nanp/2^127", "div.approx.f32", NAN32P, HUGE127);
  O32("div.full.f32 1/2^127", "div.full.f32", ONE32, HUGE127);
  O32("div.full.f32 1/3", "div.full.f32", ONE32, THREE32);
  O32("div.approx.f32 1/3", "div.approx.f32", ONE32, THREE32);
  // one-rounding fma trap
  T32("fma.rn.f32 trap", "fma.rn.f32", TRAPA, TRAPA, TRAPC);
  // approximate functions (for the error bounds)
  U32("rcp.approx.f32 3", "rcp.approx.f32", THREE32);
  U32("sqrt.approx.f32 3", "sqrt.approx.f32", THREE32);
  U32("rsqrt.approx.f32 3", "rsqrt.approx.f32", THREE32);
  U32("ex2.approx.f32 0.5", "ex2.approx.f32", HALF32);
  U32("lg2.approx.f32 3", "lg2.approx.f32", THREE32);
  U64("rcp.approx.ftz.f64 3", "rcp.approx.ftz.f64", THREE64);
  U64("rsqrt.approx.f64 2", "rsqrt.approx.f64", TWO64);
  U32("rsqrt.approx.f32 -0", "rsqrt.approx.f32", NZ32);
  U32("lg2.approx.f32 -0", "lg2.approx.f32", NZ32);
  U32("ex2.approx.f32 -inf", "ex2.approx.f32", NINF32);
  // bit fields
  T32("bfe.s32 0x80000000,28,10", "bfe.s32", X80000000, P28, L10);
  T32("bfe.u32 0x80000000,40,8", "bfe.u32", X80000000, P40, L8);
  T32("bfe.s32 0x80000000,40,8", "bfe.s32", X80000000, P40, L8);
  *count = n;
}

int main() {
  unsigned long long h[NIN];
  memset(h, 0, sizeof h);
  h[NAN32P] = 0x7fc00001; h[ONE32] = 0x3f800000; h[INF32] = 0x7f800000; h[NINF32] = 0xff800000;
  h[NZ32] = 0x80000000; h[PZ32] = 0; h[M24] = 0x3f7fffff; h[MINN32] = 0x00800000; h[HUGE127] = 0x7f000000;
  h[TRAPA] = 0x3f800800; h[TRAPC] = 0x17800000;
  h[NAN64P] = 0x7ff8000000000123ULL; h[ONE64] = 0x3ff0000000000000ULL; h[INF64] = 0x7ff0000000000000ULL;
  h[NINF64] = 0xfff0000000000000ULL; h[NZ64] = 0x8000000000000000ULL; h[PZ64] = 0; h[THREE64] = 0x4008000000000000ULL;
  h[TWO64] = 0x4000000000000000ULL; h[NEG1_32] = 0xbf800000; h[S7] = 7; h[SM7] = 0xfffffff9; h[Z] = 0;
  h[S7_64] = 7; h[SM7_64] = 0xfffffffffffffff9ULL; h[HALF32] = 0x3f000000; h[THREE32] = 0x40400000;
  h[X80000000] = 0x80000000; h[P28] = 28; h[L10] = 10; h[P40] = 40; h[L8] = 8; h[NAN16] = 0x7e01;
  h[NEG1_64] = 0xbff0000000000000ULL;
  // the 16-bit s7/-7 cases read the low halves: -7 as 0xfff9
  unsigned long long *din, *dout; int* dcount;
  cudaMalloc(&din, sizeof h); cudaMalloc(&dout, 256 * 8); cudaMalloc(&dcount, 4);
  cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
  probe<<<1, 1>>>(din, dout, dcount);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
  unsigned long long out[256]; int count; const char* names[256];
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  cudaMemcpy(&count, dcount, 4, cudaMemcpyDeviceToHost);
  cudaMemcpyFromSymbol(names, dnames, sizeof names);
  // names are device pointers to string literals: print by index instead
  for (int i = 0; i < count; i++) printf("%d %#llx\n", i, out[i]);
  return 0;
}

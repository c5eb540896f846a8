// diff.cu: a differential probe. For K input quadruples (random bits, .f32
// and .f64 values chosen to round, cancel, overflow and underflow, special
// values) it runs the instructions below on the GPU and writes inputs and
// results to diff.bin, which alu_test.go's TestEvalAgainstGPU replays
// through Eval bit for bit. Generated together with that test's table
// (same order); build: nvcc -O3 -arch=sm_90 diff.cu && ./a.out diff.bin
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>

#define K 256
#define NI 222

__global__ void diff(const unsigned long long* in, unsigned long long* out) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= K) return;
  unsigned long long a = in[4 * t], b = in[4 * t + 1], c = in[4 * t + 2], d = in[4 * t + 3];
  unsigned a32 = (unsigned)a, b32 = (unsigned)b, c32 = (unsigned)c, d32 = (unsigned)d;
  unsigned short a16 = (unsigned short)a, b16 = (unsigned short)b;
  unsigned r32; unsigned long long r64; unsigned short r16;
  { unsigned long long o; asm volatile("add.rn.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 0] = o; }
  { unsigned long long o; asm volatile("mul.rn.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 1] = o; }
  { unsigned long long o; asm volatile("fma.rn.f32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 2] = o; }
  { unsigned long long o; asm volatile("div.rn.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 3] = o; }
  { unsigned long long o; asm volatile("sqrt.rn.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 4] = o; }
  { unsigned long long o; asm volatile("rcp.rn.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 5] = o; }
  { unsigned long long o; asm volatile("add.rn.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 6] = o; }
  { unsigned long long o; asm volatile("mul.rn.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 7] = o; }
  { unsigned long long o; asm volatile("fma.rn.f64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "l"(b), "l"(c)); o = r64; out[(size_t)t * NI + 8] = o; }
  { unsigned long long o; asm volatile("div.rn.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 9] = o; }
  { unsigned long long o; asm volatile("sqrt.rn.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 10] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f32.f64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 11] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 12] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f32.s32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 13] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f32.u64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 14] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f64.s64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 15] = o; }
  { unsigned long long o; asm volatile("add.rz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 16] = o; }
  { unsigned long long o; asm volatile("mul.rz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 17] = o; }
  { unsigned long long o; asm volatile("fma.rz.f32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 18] = o; }
  { unsigned long long o; asm volatile("div.rz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 19] = o; }
  { unsigned long long o; asm volatile("sqrt.rz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 20] = o; }
  { unsigned long long o; asm volatile("rcp.rz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 21] = o; }
  { unsigned long long o; asm volatile("add.rz.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 22] = o; }
  { unsigned long long o; asm volatile("mul.rz.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 23] = o; }
  { unsigned long long o; asm volatile("fma.rz.f64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "l"(b), "l"(c)); o = r64; out[(size_t)t * NI + 24] = o; }
  { unsigned long long o; asm volatile("div.rz.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 25] = o; }
  { unsigned long long o; asm volatile("sqrt.rz.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 26] = o; }
  { unsigned long long o; asm volatile("cvt.rz.f32.f64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 27] = o; }
  { unsigned long long o; asm volatile("cvt.rz.f16.f32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 28] = o; }
  { unsigned long long o; asm volatile("cvt.rz.f32.s32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 29] = o; }
  { unsigned long long o; asm volatile("cvt.rz.f32.u64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 30] = o; }
  { unsigned long long o; asm volatile("cvt.rz.f64.s64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 31] = o; }
  { unsigned long long o; asm volatile("add.rm.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 32] = o; }
  { unsigned long long o; asm volatile("mul.rm.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 33] = o; }
  { unsigned long long o; asm volatile("fma.rm.f32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 34] = o; }
  { unsigned long long o; asm volatile("div.rm.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 35] = o; }
  { unsigned long long o; asm volatile("sqrt.rm.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 36] = o; }
  { unsigned long long o; asm volatile("rcp.rm.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 37] = o; }
  { unsigned long long o; asm volatile("add.rm.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 38] = o; }
  { unsigned long long o; asm volatile("mul.rm.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 39] = o; }
  { unsigned long long o; asm volatile("fma.rm.f64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "l"(b), "l"(c)); o = r64; out[(size_t)t * NI + 40] = o; }
  { unsigned long long o; asm volatile("div.rm.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 41] = o; }
  { unsigned long long o; asm volatile("sqrt.rm.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 42] = o; }
  { unsigned long long o; asm volatile("cvt.rm.f32.f64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 43] = o; }
  { unsigned long long o; asm volatile("cvt.rm.f16.f32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 44] = o; }
  { unsigned long long o; asm volatile("cvt.rm.f32.s32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 45] = o; }
  { unsigned long long o; asm volatile("cvt.rm.f32.u64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 46] = o; }
  { unsigned long long o; asm volatile("cvt.rm.f64.s64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 47] = o; }
  { unsigned long long o; asm volatile("add.rp.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 48] = o; }
  { unsigned long long o; asm volatile("mul.rp.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 49] = o; }
  { unsigned long long o; asm volatile("fma.rp.f32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 50] = o; }
  { unsigned long long o; asm volatile("div.rp.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 51] = o; }
  { unsigned long long o; asm volatile("sqrt.rp.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 52] = o; }
  { unsigned long long o; asm volatile("rcp.rp.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 53] = o; }
  { unsigned long long o; asm volatile("add.rp.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 54] = o; }
  { unsigned long long o; asm volatile("mul.rp.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 55] = o; }
  { unsigned long long o; asm volatile("fma.rp.f64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "l"(b), "l"(c)); o = r64; out[(size_t)t * NI + 56] = o; }
  { unsigned long long o; asm volatile("div.rp.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 57] = o; }
  { unsigned long long o; asm volatile("sqrt.rp.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 58] = o; }
  { unsigned long long o; asm volatile("cvt.rp.f32.f64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 59] = o; }
  { unsigned long long o; asm volatile("cvt.rp.f16.f32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 60] = o; }
  { unsigned long long o; asm volatile("cvt.rp.f32.s32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 61] = o; }
  { unsigned long long o; asm volatile("cvt.rp.f32.u64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 62] = o; }
  { unsigned long long o; asm volatile("cvt.rp.f64.s64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 63] = o; }
  { unsigned long long o; asm volatile("add.rn.ftz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 64] = o; }
  { unsigned long long o; asm volatile("sub.rn.ftz.sat.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 65] = o; }
  { unsigned long long o; asm volatile("mul.rz.ftz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 66] = o; }
  { unsigned long long o; asm volatile("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 67] = o; }
  { unsigned long long o; asm volatile("fma.rn.sat.f32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 68] = o; }
  { unsigned long long o; asm volatile("div.rn.ftz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 69] = o; }
  { unsigned long long o; asm volatile("div.full.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 70] = o; }
  { unsigned long long o; asm volatile("sub.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 71] = o; }
  { unsigned long long o; asm volatile("min.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 72] = o; }
  { unsigned long long o; asm volatile("max.ftz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 73] = o; }
  { unsigned long long o; asm volatile("min.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 74] = o; }
  { unsigned long long o; asm volatile("max.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 75] = o; }
  { unsigned long long o; asm volatile("abs.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 76] = o; }
  { unsigned long long o; asm volatile("neg.ftz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 77] = o; }
  { unsigned long long o; asm volatile("cvt.f64.f32 %0, %1;" : "=l"(r64) : "r"(a32)); o = r64; out[(size_t)t * NI + 78] = o; }
  { unsigned long long o; asm volatile("cvt.ftz.f64.f32 %0, %1;" : "=l"(r64) : "r"(a32)); o = r64; out[(size_t)t * NI + 79] = o; }
  { unsigned long long o; asm volatile("cvt.rn.ftz.f32.f64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 80] = o; }
  { unsigned long long o; asm volatile("cvt.f32.f16 %0, %1;" : "=r"(r32) : "h"(a16)); o = r32; out[(size_t)t * NI + 81] = o; }
  { unsigned long long o; asm volatile("cvt.rni.s32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 82] = o; }
  { unsigned long long o; asm volatile("cvt.rni.f32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 83] = o; }
  { unsigned long long o; asm volatile("cvt.rni.f64.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 84] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.s32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 85] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.f32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 86] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.f64.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 87] = o; }
  { unsigned long long o; asm volatile("cvt.rmi.s32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 88] = o; }
  { unsigned long long o; asm volatile("cvt.rmi.f32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 89] = o; }
  { unsigned long long o; asm volatile("cvt.rmi.f64.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 90] = o; }
  { unsigned long long o; asm volatile("cvt.rpi.s32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 91] = o; }
  { unsigned long long o; asm volatile("cvt.rpi.f32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 92] = o; }
  { unsigned long long o; asm volatile("cvt.rpi.f64.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 93] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.u32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 94] = o; }
  { unsigned long long o; asm volatile("cvt.rni.s64.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 95] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.u64.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 96] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.s32.f64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 97] = o; }
  { unsigned long long o; asm volatile("cvt.rmi.s64.f32 %0, %1;" : "=l"(r64) : "r"(a32)); o = r64; out[(size_t)t * NI + 98] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.ftz.s32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 99] = o; }
  { unsigned long long o; asm volatile("cvt.rni.s16.f32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 100] = o; }
  { unsigned long long o; asm volatile("cvt.sat.f32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 101] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f64.u32 %0, %1;" : "=l"(r64) : "r"(a32)); o = r64; out[(size_t)t * NI + 102] = o; }
  { unsigned long long o; asm volatile("cvt.s64.s32 %0, %1;" : "=l"(r64) : "r"(a32)); o = r64; out[(size_t)t * NI + 103] = o; }
  { unsigned long long o; asm volatile("cvt.sat.s16.s32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 104] = o; }
  { unsigned long long o; asm volatile("cvt.sat.u32.s64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 105] = o; }
  { unsigned long long o; asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 106] = o; }
  { unsigned long long o; asm volatile("mul.hi.s32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 107] = o; }
  { unsigned long long o; asm volatile("mul.hi.u64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 108] = o; }
  { unsigned long long o; asm volatile("mul.hi.s64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 109] = o; }
  { unsigned long long o; asm volatile("mul.wide.s32 %0, %1, %2;" : "=l"(r64) : "r"(a32), "r"(b32)); o = r64; out[(size_t)t * NI + 110] = o; }
  { unsigned long long o; asm volatile("div.s32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 111] = o; }
  { unsigned long long o; asm volatile("rem.s32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 112] = o; }
  { unsigned long long o; asm volatile("div.u64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 113] = o; }
  { unsigned long long o; asm volatile("rem.s64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 114] = o; }
  { unsigned long long o; asm volatile("shr.s32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 115] = o; }
  { unsigned long long o; asm volatile("shl.b64 %0, %1, %2;" : "=l"(r64) : "l"(a), "r"(b32)); o = r64; out[(size_t)t * NI + 116] = o; }
  { unsigned long long o; asm volatile("bfe.s32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 117] = o; }
  { unsigned long long o; asm volatile("bfe.u64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "r"(b32), "r"(c32)); o = r64; out[(size_t)t * NI + 118] = o; }
  { unsigned long long o; asm volatile("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32), "r"(d32)); o = r32; out[(size_t)t * NI + 119] = o; }
  { unsigned long long o; asm volatile("clz.b64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 120] = o; }
  { unsigned long long o; asm volatile("popc.b32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 121] = o; }
  { unsigned long long o; asm volatile("brev.b32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 122] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.ltu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 123] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.ltu.f64 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "l"(a), "l"(b)); o = r32; out[(size_t)t * NI + 124] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.ge.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 125] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.ge.f64 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "l"(a), "l"(b)); o = r32; out[(size_t)t * NI + 126] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.neu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 127] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.neu.f64 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "l"(a), "l"(b)); o = r32; out[(size_t)t * NI + 128] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.num.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 129] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.num.f64 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "l"(a), "l"(b)); o = r32; out[(size_t)t * NI + 130] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.eq.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 131] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.eq.f64 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "l"(a), "l"(b)); o = r32; out[(size_t)t * NI + 132] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.lt.s32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 133] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.hi.u64 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "l"(a), "l"(b)); o = r32; out[(size_t)t * NI + 134] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p; setp.gt.ftz.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 135] = o; }
  { unsigned long long o; asm volatile("sqrt.approx.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 136] = o; }
  { unsigned long long o; asm volatile("sqrt.approx.ftz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 137] = o; }
  { unsigned long long o; asm volatile("rcp.approx.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 138] = o; }
  { unsigned long long o; asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 139] = o; }
  { unsigned long long o; asm volatile("rsqrt.approx.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 140] = o; }
  { unsigned long long o; asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 141] = o; }
  { unsigned long long o; asm volatile("ex2.approx.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 142] = o; }
  { unsigned long long o; asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 143] = o; }
  { unsigned long long o; asm volatile("lg2.approx.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 144] = o; }
  { unsigned long long o; asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 145] = o; }
  { unsigned long long o; asm volatile("rsqrt.approx.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 146] = o; }
  { unsigned long long o; asm volatile("div.approx.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 147] = o; }
  { unsigned long long o; asm volatile("div.approx.ftz.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 148] = o; }
  { unsigned long long o; asm volatile("mad.rn.f32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 149] = o; }
  { unsigned long long o; asm volatile("mad.rz.f64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "l"(b), "l"(c)); o = r64; out[(size_t)t * NI + 150] = o; }
  { unsigned long long o; asm volatile("sub.rm.f32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 151] = o; }
  { unsigned long long o; asm volatile("sub.rp.f64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 152] = o; }
  { unsigned long long o; asm volatile("add.sat.s32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 153] = o; }
  { unsigned long long o; asm volatile("sub.sat.s32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 154] = o; }
  { unsigned long long o; asm volatile("add.s16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "h"(b16)); o = r16; out[(size_t)t * NI + 155] = o; }
  { unsigned long long o; asm volatile("mul.hi.u16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "h"(b16)); o = r16; out[(size_t)t * NI + 156] = o; }
  { unsigned long long o; asm volatile("mul.hi.s16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "h"(b16)); o = r16; out[(size_t)t * NI + 157] = o; }
  { unsigned long long o; asm volatile("mul.wide.u16 %0, %1, %2;" : "=r"(r32) : "h"(a16), "h"(b16)); o = r32; out[(size_t)t * NI + 158] = o; }
  { unsigned long long o; asm volatile("mul.wide.s16 %0, %1, %2;" : "=r"(r32) : "h"(a16), "h"(b16)); o = r32; out[(size_t)t * NI + 159] = o; }
  { unsigned long long o; asm volatile("mul.wide.u32 %0, %1, %2;" : "=l"(r64) : "r"(a32), "r"(b32)); o = r64; out[(size_t)t * NI + 160] = o; }
  { unsigned long long o; asm volatile("mad.hi.s32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 161] = o; }
  { unsigned long long o; asm volatile("mad.lo.s32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 162] = o; }
  { unsigned long long o; asm volatile("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r64) : "r"(a32), "r"(b32), "l"(c)); o = r64; out[(size_t)t * NI + 163] = o; }
  { unsigned long long o; asm volatile("mad.wide.s32 %0, %1, %2, %3;" : "=l"(r64) : "r"(a32), "r"(b32), "l"(c)); o = r64; out[(size_t)t * NI + 164] = o; }
  { unsigned long long o; asm volatile("mad.lo.s64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "l"(b), "l"(c)); o = r64; out[(size_t)t * NI + 165] = o; }
  { unsigned long long o; asm volatile("mad.hi.u64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "l"(b), "l"(c)); o = r64; out[(size_t)t * NI + 166] = o; }
  { unsigned long long o; asm volatile("div.s16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "h"(b16)); o = r16; out[(size_t)t * NI + 167] = o; }
  { unsigned long long o; asm volatile("rem.u16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "h"(b16)); o = r16; out[(size_t)t * NI + 168] = o; }
  { unsigned long long o; asm volatile("div.u32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 169] = o; }
  { unsigned long long o; asm volatile("rem.u32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 170] = o; }
  { unsigned long long o; asm volatile("div.s64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 171] = o; }
  { unsigned long long o; asm volatile("rem.u64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 172] = o; }
  { unsigned long long o; asm volatile("min.s32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 173] = o; }
  { unsigned long long o; asm volatile("max.u32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 174] = o; }
  { unsigned long long o; asm volatile("min.s64 %0, %1, %2;" : "=l"(r64) : "l"(a), "l"(b)); o = r64; out[(size_t)t * NI + 175] = o; }
  { unsigned long long o; asm volatile("max.u16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "h"(b16)); o = r16; out[(size_t)t * NI + 176] = o; }
  { unsigned long long o; asm volatile("abs.s32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 177] = o; }
  { unsigned long long o; asm volatile("neg.s64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 178] = o; }
  { unsigned long long o; asm volatile("abs.s16 %0, %1;" : "=h"(r16) : "h"(a16)); o = r16; out[(size_t)t * NI + 179] = o; }
  { unsigned long long o; asm volatile("abs.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 180] = o; }
  { unsigned long long o; asm volatile("neg.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 181] = o; }
  { unsigned long long o; asm volatile("shl.b32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 182] = o; }
  { unsigned long long o; asm volatile("shr.u32 %0, %1, %2;" : "=r"(r32) : "r"(a32), "r"(b32)); o = r32; out[(size_t)t * NI + 183] = o; }
  { unsigned long long o; asm volatile("shr.s64 %0, %1, %2;" : "=l"(r64) : "l"(a), "r"(b32)); o = r64; out[(size_t)t * NI + 184] = o; }
  { unsigned long long o; asm volatile("shr.u64 %0, %1, %2;" : "=l"(r64) : "l"(a), "r"(b32)); o = r64; out[(size_t)t * NI + 185] = o; }
  { unsigned long long o; asm volatile("shr.s16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "r"(b32)); o = r16; out[(size_t)t * NI + 186] = o; }
  { unsigned long long o; asm volatile("shl.b16 %0, %1, %2;" : "=h"(r16) : "h"(a16), "r"(b32)); o = r16; out[(size_t)t * NI + 187] = o; }
  { unsigned long long o; asm volatile("popc.b64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 188] = o; }
  { unsigned long long o; asm volatile("clz.b32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 189] = o; }
  { unsigned long long o; asm volatile("brev.b64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 190] = o; }
  { unsigned long long o; asm volatile("bfe.s64 %0, %1, %2, %3;" : "=l"(r64) : "l"(a), "r"(b32), "r"(c32)); o = r64; out[(size_t)t * NI + 191] = o; }
  { unsigned long long o; asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 192] = o; }
  { unsigned long long o; asm volatile("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(r64) : "l"(a), "l"(b), "r"(c32), "r"(d32)); o = r64; out[(size_t)t * NI + 193] = o; }
  { unsigned long long o; asm volatile("cvt.s8.s32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 194] = o; }
  { unsigned long long o; asm volatile("cvt.u8.s32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 195] = o; }
  { unsigned long long o; asm volatile("cvt.sat.u8.s32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 196] = o; }
  { unsigned long long o; asm volatile("cvt.sat.s8.s32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 197] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.s8.f32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 198] = o; }
  { unsigned long long o; asm volatile("cvt.rni.u8.f32 %0, %1;" : "=h"(r16) : "r"(a32)); o = r16; out[(size_t)t * NI + 199] = o; }
  { unsigned long long o; asm volatile("cvt.s32.s8 %0, %1;" : "=r"(r32) : "h"(a16)); o = r32; out[(size_t)t * NI + 200] = o; }
  { unsigned long long o; asm volatile("cvt.u32.s8 %0, %1;" : "=r"(r32) : "h"(a16)); o = r32; out[(size_t)t * NI + 201] = o; }
  { unsigned long long o; asm volatile("cvt.u64.s16 %0, %1;" : "=l"(r64) : "h"(a16)); o = r64; out[(size_t)t * NI + 202] = o; }
  { unsigned long long o; asm volatile("cvt.sat.s32.u64 %0, %1;" : "=r"(r32) : "l"(a)); o = r32; out[(size_t)t * NI + 203] = o; }
  { unsigned long long o; asm volatile("cvt.sat.u16.s64 %0, %1;" : "=h"(r16) : "l"(a)); o = r16; out[(size_t)t * NI + 204] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f16.f64 %0, %1;" : "=h"(r16) : "l"(a)); o = r16; out[(size_t)t * NI + 205] = o; }
  { unsigned long long o; asm volatile("cvt.rz.f16.f64 %0, %1;" : "=h"(r16) : "l"(a)); o = r16; out[(size_t)t * NI + 206] = o; }
  { unsigned long long o; asm volatile("cvt.f64.f16 %0, %1;" : "=l"(r64) : "h"(a16)); o = r64; out[(size_t)t * NI + 207] = o; }
  { unsigned long long o; asm volatile("cvt.rni.s32.f16 %0, %1;" : "=r"(r32) : "h"(a16)); o = r32; out[(size_t)t * NI + 208] = o; }
  { unsigned long long o; asm volatile("cvt.rn.f32.u32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 209] = o; }
  { unsigned long long o; asm volatile("cvt.rz.f64.u64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 210] = o; }
  { unsigned long long o; asm volatile("cvt.rpi.u32.f32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 211] = o; }
  { unsigned long long o; asm volatile("cvt.rmi.u64.f32 %0, %1;" : "=l"(r64) : "r"(a32)); o = r64; out[(size_t)t * NI + 212] = o; }
  { unsigned long long o; asm volatile("cvt.rni.u16.f64 %0, %1;" : "=h"(r16) : "l"(a)); o = r16; out[(size_t)t * NI + 213] = o; }
  { unsigned long long o; asm volatile("cvt.rzi.s16.f64 %0, %1;" : "=h"(r16) : "l"(a)); o = r16; out[(size_t)t * NI + 214] = o; }
  { unsigned long long o; asm volatile("cvt.sat.f64.f64 %0, %1;" : "=l"(r64) : "l"(a)); o = r64; out[(size_t)t * NI + 215] = o; }
  { unsigned long long o; asm volatile("cvt.rn.sat.f32.s32 %0, %1;" : "=r"(r32) : "r"(a32)); o = r32; out[(size_t)t * NI + 216] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p, q, c; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.lt.and.f32 p|q, %1, %2, c; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 217] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p, q, c; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.geu.or.f64 p|q, %1, %2, c; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }" : "=r"(r32) : "l"(a), "l"(b), "r"(c32)); o = r32; out[(size_t)t * NI + 218] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p, q, c; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.eq.xor.s32 p|q, %1, %2, c; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 219] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p, q, c; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.nan.and.f32 p|q, %1, %2, c; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }" : "=r"(r32) : "r"(a32), "r"(b32), "r"(c32)); o = r32; out[(size_t)t * NI + 220] = o; }
  { unsigned long long o; asm volatile("{ .reg .pred p, q, c; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.ls.or.u64 p|q, %1, %2, c; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }" : "=r"(r32) : "l"(a), "l"(b), "r"(c32)); o = r32; out[(size_t)t * NI + 221] = o; }
}

static unsigned long long s = 0x9e3779b97f4a7c15ULL;
static unsigned long long rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static double unit() { return (rnd() >> 11) * 0x1p-53; }
static unsigned f2u(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static unsigned long long d2u(double f) { unsigned long long u; memcpy(&u, &f, 8); return u; }

int main(int argc, char** argv) {
  static unsigned long long h[4 * K];
  const unsigned sp32[] = {0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00001, 0x7f800001, 1, 0x80000001, 0x007fffff,
                           0x00800000, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff, 0x3f000000, 0x4f000000, 0xcf000000, 0x5f000000};
  const unsigned long long sp64[] = {0, 0x8000000000000000ULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL,
                                     0x7ff8000000000123ULL, 0x7ff0000000000001ULL, 1, 0x000fffffffffffffULL,
                                     0x0010000000000000ULL, 0x3ff0000000000000ULL, 0xbff0000000000000ULL,
                                     0x7fefffffffffffffULL, 0x41e0000000000000ULL, 0xc3e0000000000000ULL, 0x43f0000000000000ULL};
  for (int i = 0; i < K; i++) {
    unsigned long long* q = h + 4 * i;
    int kind = i % 6;
    for (int j = 0; j < 4; j++) q[j] = rnd();
    if (kind == 1 || kind == 2) { // .f32 values that round, cancel, or land near 2^-126
      int e1 = (int)(rnd() % 60) - 30, e2 = (int)(rnd() % 60) - 30;
      if (kind == 2) { e1 = -60 - (int)(rnd() % 10); e2 = -66 - (int)(rnd() % 20) + (-60 - e1) + 60; }
      float x = ldexpf((float)(1 + unit()) * ((rnd() & 1) ? 1 : -1), e1);
      float y = ldexpf((float)(1 + unit()) * ((rnd() & 1) ? 1 : -1), e2);
      float z = (rnd() & 1) ? -(float)((double)x * y) : ldexpf((float)(1 + unit()), (int)(rnd() % 60) - 60);
      if (rnd() % 3 == 0) y = -x * (float)(1 + ldexp(unit(), -20));
      q[0] = f2u(x); q[1] = f2u(y); q[2] = f2u(z);
    } else if (kind == 3 || kind == 4) { // .f64 values
      int e1 = (int)(rnd() % 200) - 100, e2 = (int)(rnd() % 200) - 100;
      if (kind == 4) { e1 = -500 - (int)(rnd() % 20); e2 = -1023 - (int)(rnd() % 60) - e1; }
      double x = ldexp((1 + unit()) * ((rnd() & 1) ? 1 : -1), e1);
      double y = ldexp((1 + unit()) * ((rnd() & 1) ? 1 : -1), e2);
      double z = (rnd() & 1) ? -(x * y) : ldexp(1 + unit(), (int)(rnd() % 200) - 100);
      q[0] = d2u(x); q[1] = d2u(y); q[2] = d2u(z);
    } else if (kind == 5) { // special values, .f32 in even cases, .f64 in odd ones
      for (int j = 0; j < 3; j++)
        q[j] = (i / 6) % 2 ? sp64[rnd() % (sizeof sp64 / 8)] : sp32[rnd() % (sizeof sp32 / 4)];
    }
    if (rnd() % 4 == 0) q[3] = rnd() % 70; // small bfi lengths too
  }
  unsigned long long *din, *dout;
  cudaMalloc(&din, sizeof h); cudaMalloc(&dout, (size_t)K * NI * 8);
  cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
  diff<<<(K + 127) / 128, 128>>>(din, dout);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
  unsigned long long* out = (unsigned long long*)malloc((size_t)K * NI * 8);
  cudaMemcpy(out, dout, (size_t)K * NI * 8, cudaMemcpyDeviceToHost);
  FILE* f = fopen(argc > 1 ? argv[1] : "diff.bin", "wb");
  unsigned long long hdr[2] = {K, NI};
  fwrite(hdr, 8, 2, f); fwrite(h, 8, 4 * K, f); fwrite(out, 8, (size_t)K * NI, f);
  fclose(f);
  printf("K=%d NI=%d written\n", K, NI);
  return 0;
}

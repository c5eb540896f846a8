// arch: compute_80
// tensor.cu: the tensor-core forms after the first WMMA tile (wmma.cu):
// bfloat16 and TensorFloat-32 WMMA into float, half accumulators, the
// m32n8k16 and m8n32k16 shapes, a GEMM from several tiles, and mma.sync
// for bf16, tf32 and half accumulators by inline PTX (sm_80: compiled for
// compute_80). Corpus of issue 28; CPU references in
// sim/corpus_tensor_test.go.
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// wmmaBf16: one 16x16x16 tile a warp; the warp converts its float A and B
// to bfloat16 in shared memory (__float2bfloat16, round to nearest even),
// A row-major, B column-major, C and D row-major.
extern "C" __global__ void wmmaBf16(const float *a, const float *b, const float *c, float *d) {
  __shared__ __align__(32) __nv_bfloat16 sa[256], sb[256];
  int l = threadIdx.x;
  for (int i = l; i < 256; i += 32) {
    sa[i] = __float2bfloat16(a[256 * blockIdx.x + i]);
    sb[i] = __float2bfloat16(b[256 * blockIdx.x + i]);
  }
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, sa, 16);
  wmma::load_matrix_sync(fb, sb, 16);
  wmma::load_matrix_sync(fc, c + 256 * blockIdx.x, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + 256 * blockIdx.x, fc, 16, wmma::mem_row_major);
}

// wmmaTf32: one 16x16x8 tile a warp, A (16x8) and B (8x16) row-major
// floats rounded to tf32 in the fragment (__float_to_tf32), C and D
// column-major; every element of D is then scaled by alpha.
extern "C" __global__ void wmmaTf32(const float *a, const float *b, const float *c, float *d, float alpha) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, a + 128 * blockIdx.x, 8);
  wmma::load_matrix_sync(fb, b + 128 * blockIdx.x, 16);
  for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::load_matrix_sync(fc, c + 256 * blockIdx.x, 16, wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= alpha;
  wmma::store_matrix_sync(d + 256 * blockIdx.x, fc, 16, wmma::mem_col_major);
}

// wmmaHalfAcc: a 32x8x16 tile with a half accumulator that starts at 1
// (fill_fragment), A column-major, B row-major, D row-major halves.
extern "C" __global__ void wmmaHalfAcc(const half *a, const half *b, half *d) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
  wmma::load_matrix_sync(fa, a + 512 * blockIdx.x, 32);
  wmma::load_matrix_sync(fb, b + 128 * blockIdx.x, 8);
  wmma::fill_fragment(fc, __float2half(1.0f));
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + 256 * blockIdx.x, fc, 8, wmma::mem_row_major);
}

// wmma8x32: an 8x32x16 bf16 tile from zero, A and B row-major.
extern "C" __global__ void wmma8x32(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *d) {
  wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, float> fc;
  wmma::load_matrix_sync(fa, a + 128 * blockIdx.x, 16);
  wmma::load_matrix_sync(fb, b + 512 * blockIdx.x, 32);
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + 256 * blockIdx.x, fc, 32, wmma::mem_row_major);
}

// wmmaGemm: C = A·B for n x n half matrices (n a multiple of 16), A
// row-major, B column-major, C row-major floats; each warp computes one
// 16x16 tile of C, walking k in steps of 16. Blocks of 4 warps (2x2 tiles).
extern "C" __global__ void wmmaGemm(const half *a, const half *b, float *c, int n) {
  int warp = threadIdx.x / 32;
  int ti = (blockIdx.y * 2 + warp / 2) * 16, tj = (blockIdx.x * 2 + warp % 2) * 16;
  if (ti >= n || tj >= n) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(fa, a + ti * n + k, n);
    wmma::load_matrix_sync(fb, b + tj * n + k, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + ti * n + tj, acc, n, wmma::mem_row_major);
}

// mmaForms: one warp a block runs, on its 16x16 A, 16x8 B (both row-major
// 32-bit words: bf16 pairs, or floats for tf32) and 16x8 C, the mma.sync
// form `form` selects, each lane loading its fragment registers by the PTX
// manual's layout: 0 bf16 m16n8k16, 1 bf16 m16n8k8, 2 tf32 m16n8k8,
// 3 tf32 m16n8k4, 4 f16 m16n8k16 with half C and D. D as floats (form 4:
// halves in the low 16 bits of each word).
extern "C" __global__ void mmaForms(const unsigned short *a16, const unsigned short *b16, const float *a32,
                                    const float *b32, const float *c, float *d, int form) {
  int l = threadIdx.x, g = l / 4, t = l % 4;
  a16 += 256 * blockIdx.x; b16 += 128 * blockIdx.x; a32 += 256 * blockIdx.x; b32 += 128 * blockIdx.x;
  c += 128 * blockIdx.x; d += 128 * blockIdx.x;
  // 16-bit pairs: A (row, col) and (row, col+1); B (k, n) and (k+1, n).
  auto pa = [&](int r, int k) { return (unsigned)a16[r * 16 + k] | (unsigned)a16[r * 16 + k + 1] << 16; };
  auto pb = [&](int k, int n) { return (unsigned)b16[k * 8 + n] | (unsigned)b16[(k + 1) * 8 + n] << 16; };
  float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1], c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  if (form == 0) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(pa(g, 2 * t)), "r"(pa(g + 8, 2 * t)), "r"(pa(g, 2 * t + 8)), "r"(pa(g + 8, 2 * t + 8)),
                   "r"(pb(2 * t, g)), "r"(pb(2 * t + 8, g)), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  } else if (form == 1) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(pa(g, 2 * t)), "r"(pa(g + 8, 2 * t)), "r"(pb(2 * t, g)), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  } else if (form == 2) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(__float_as_uint(a32[g * 16 + t])), "r"(__float_as_uint(a32[(g + 8) * 16 + t])),
                   "r"(__float_as_uint(a32[g * 16 + t + 4])), "r"(__float_as_uint(a32[(g + 8) * 16 + t + 4])),
                   "r"(__float_as_uint(b32[t * 8 + g])), "r"(__float_as_uint(b32[(t + 4) * 8 + g])),
                   "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  } else if (form == 3) {
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(__float_as_uint(a32[g * 16 + t])), "r"(__float_as_uint(a32[(g + 8) * 16 + t])),
                   "r"(__float_as_uint(b32[t * 8 + g])), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  } else {
    unsigned hc0 = __half_as_ushort(__float2half(c0)) | (unsigned)__half_as_ushort(__float2half(c1)) << 16;
    unsigned hc1 = __half_as_ushort(__float2half(c2)) | (unsigned)__half_as_ushort(__float2half(c3)) << 16;
    unsigned hd0, hd1;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(hd0), "=r"(hd1)
                 : "r"(pa(g, 2 * t)), "r"(pa(g + 8, 2 * t)), "r"(pa(g, 2 * t + 8)), "r"(pa(g + 8, 2 * t + 8)),
                   "r"(pb(2 * t, g)), "r"(pb(2 * t + 8, g)), "r"(hc0), "r"(hc1));
    d0 = __uint_as_float(hd0 & 0xffff); d1 = __uint_as_float(hd0 >> 16);
    d2 = __uint_as_float(hd1 & 0xffff); d3 = __uint_as_float(hd1 >> 16);
  }
  d[g * 8 + 2 * t] = d0;
  d[g * 8 + 2 * t + 1] = d1;
  d[(g + 8) * 8 + 2 * t] = d2;
  d[(g + 8) * 8 + 2 * t + 1] = d3;
}

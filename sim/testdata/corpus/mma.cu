// arch: compute_80
// mma.cu: one 16x8x16 tile a warp through the warp-level matrix
// instructions whose fragment layouts the PTX manual fixes: ldmatrix (x4
// for A, x2 for B, .trans for B stored row-major) and
// mma.sync.m16n8k16.row.col.f32.f16.f16.f32 (sm_80: compiled for
// compute_80), by inline PTX as CUDA C has no intrinsic for them.
// Corpus of issue 28; CPU reference in sim/corpus_wmma_test.go.
#include <cuda_fp16.h>

__device__ void tile(const half *sa, const half *sb, bool bRowMajor, const float *c, float *d) {
  int l = threadIdx.x % 32;
  unsigned ra[4], rb[2];
  unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[(l % 16) * 16 + (l / 16) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
               : "r"(pa));
  if (bRowMajor) {  // B[k][n] at sb[k*8+n]: rows k of 8 halves, transposed
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(l % 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
  } else {  // B[k][n] at sb[n*16+k]: columns n of 16 halves
    unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(l % 8) * 16 + ((l / 8) % 2) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
  }
  int g = l / 4, t = l % 4;
  float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1], c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  d[g * 8 + 2 * t] = d0;
  d[g * 8 + 2 * t + 1] = d1;
  d[(g + 8) * 8 + 2 * t] = d2;
  d[(g + 8) * 8 + 2 * t + 1] = d3;
}

// mmaTile: block b computes tile b; A row-major 16x16, B column-major
// (bRowMajor 0) or row-major (1), C and D row-major 16x8. One warp a block.
extern "C" __global__ void mmaTile(const half *a, const half *b, const float *c, float *d, int bRowMajor) {
  __shared__ __align__(16) half sa[256];
  __shared__ __align__(16) half sb[128];
  int l = threadIdx.x;
  // Half by half: neighbouring threads store the two halves of a word.
  for (int i = l; i < 256; i += 32) sa[i] = a[256 * blockIdx.x + i];
  for (int i = l; i < 128; i += 32) sb[i] = b[128 * blockIdx.x + i];
  __syncwarp();
  tile(sa, sb, bRowMajor != 0, c + 128 * blockIdx.x, d + 128 * blockIdx.x);
}

// wmma.cu: one 16x16x16 tensor-core tile (WMMA, half inputs, float
// accumulator) per warp: C = A·B + C, A row-major, B column-major.
// Corpus of issue 28; CPU reference in sim/corpus_test.go.
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmmaTile(const half *a, const half *b, const float *c, float *d) {
  int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a + 256 * tile, 16);
  wmma::load_matrix_sync(fb, b + 256 * tile, 16);
  wmma::load_matrix_sync(fc, c + 256 * tile, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + 256 * tile, fc, 16, wmma::mem_row_major);
}

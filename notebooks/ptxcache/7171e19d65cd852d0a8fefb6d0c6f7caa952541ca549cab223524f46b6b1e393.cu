
#define TILE 32
template <int PAD> __device__ void tile_transpose(int n, const float *in, float *out) {
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];      // a row of the tile
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];     // a column of the tile
}
extern "C" __global__ void transpose(int n, const float *in, float *out) { tile_transpose<0>(n, in, out); }
extern "C" __global__ void transpose_pad(int n, const float *in, float *out) { tile_transpose<1>(n, in, out); }
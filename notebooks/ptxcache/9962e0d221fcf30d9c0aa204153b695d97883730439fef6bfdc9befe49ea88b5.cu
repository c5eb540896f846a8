
extern "C" __global__ void by_lane(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i % 32 < 8) y[i] = 2.0f * x[i];         // 8 lanes of every warp
}
extern "C" __global__ void by_warp(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i / 32 % 4 == 0) y[i] = 2.0f * x[i];    // all lanes of every 4th warp
}
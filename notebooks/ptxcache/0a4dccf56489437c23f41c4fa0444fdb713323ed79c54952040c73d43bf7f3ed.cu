
extern "C" __global__ void shift(int n, const float *src, float *dst) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i + 1];
}
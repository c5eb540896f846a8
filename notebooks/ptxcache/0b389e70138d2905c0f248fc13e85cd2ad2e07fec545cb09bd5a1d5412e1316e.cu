
extern "C" __global__ void strided_copy(int n, int stride, const float *src, float *dst) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i * stride];
}

extern "C" __global__ void reverse(float *x) {
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = x[i];
    // forgot __syncthreads(): thread t reads what thread 255 - t writes
    x[i] = s[blockDim.x - 1 - t];
}
// Test kernels of package gpuext: the smallest programs that exercise every
// kind of kernel parameter. Regenerate kernels.ptx with
// scripts/cuda/gen-ptx.sh gpuext/testdata/kernels.cu

// saxpy: y = a*x + y.
//
// Launch assumptions: one thread per element, 1-D grid and block, any block
// size; threads past n do nothing. One warp handles 32 consecutive elements:
// its loads of x[i] and y[i] and its store of y[i] each touch 128 contiguous
// bytes, four 32-byte sectors.
extern "C" __global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// params: writes back every scalar it was given, so a test can check that
// each parameter type reaches the kernel intact.
//
// Launch assumptions: any grid and block; only thread 0 of block 0 writes.
// One warp: lane 0 stores three 8-byte integers and two doubles.
extern "C" __global__ void params(int a, long long b, unsigned long long c, float d, double e,
                                  long long *outI, double *outF) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        outI[0] = a;
        outI[1] = b;
        outI[2] = (long long)c;
        outF[0] = d;
        outF[1] = e;
    }
}

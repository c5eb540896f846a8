// Kernels for measuring launch overhead, not work.
//
// emptyKernel does nothing: a launch of it costs what the host and the
// driver spend to launch, plus the few microseconds the GPU needs to start
// and retire one small grid.
//
// argsKernel does nothing either, but takes the SpMV lessons' six
// parameters (five device pointers and a count): launched beside
// emptyKernel, it shows what passing arguments adds to a launch.
// scalarsKernel takes six 64-bit scalars instead, so that what a buffer
// argument costs (gpuext checks each buffer before a launch) and what a
// scalar costs can be told apart.
//
// Launch assumption: any grid and block; no thread touches memory.
extern "C" __global__ void emptyKernel() {}

extern "C" __global__ void argsKernel(const int *rowPtr, const int *colIdx, const float *val,
                                      const float *x, float *y, unsigned long long n) {}

extern "C" __global__ void scalarsKernel(unsigned long long a, unsigned long long b, unsigned long long c,
                                         unsigned long long d, unsigned long long e, unsigned long long f) {}

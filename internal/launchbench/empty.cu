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
// Launch assumption: any grid and block; no thread touches memory (but
// copyKernel's, below).
extern "C" __global__ void emptyKernel() {}

extern "C" __global__ void argsKernel(const int *rowPtr, const int *colIdx, const float *val,
                                      const float *x, float *y, unsigned long long n) {}

// manyArgsKernel takes the libs lesson's split kernels' fourteen
// parameters (eleven device pointers, three 32-bit counts): the time model
// prices a launch's arguments by argsKernel's five buffers and
// scalarsKernel's six scalars, and this says whether that holds at eleven.
extern "C" __global__ void manyArgsKernel(const int *a0, const int *a1, const float *a2, const float *a3, float *a4,
                                          unsigned int n5, unsigned int n6, int *a7, int *a8, float *a9,
                                          float *a10, int *a11, int *a12, unsigned int n13) {}

extern "C" __global__ void scalarsKernel(unsigned long long a, unsigned long long b, unsigned long long c,
                                         unsigned long long d, unsigned long long e, unsigned long long f) {}

// spinKernel holds its one thread for ns nanoseconds of the GPU's global
// timer and does nothing else: a kernel whose own GPU time is known, to
// measure how the lessons' time per call grows with a kernel's time near
// the host's launch interval (launchbench's spin curve). Its PTX reads
// %globaltimer, which the simulator runs too; launchbench launches it on a
// GPU only.
extern "C" __global__ void spinKernel(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

// copyKernel copies n floats, one a thread: launched over one warp (n 32)
// and over the sweep's smallest copy (16 blocks of 256, n 4096), beside the
// kernels above that touch no memory, it shows what a kernel's first loads
// and its stores add to a call at the host's floor, where the time model
// had only the spin curve's kernels (no memory touched) to go by
// (docs/timemodel.md, "Another GPU").
extern "C" __global__ void copyKernel(const float *x, float *y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

// Kernels for measuring launch overhead, not work.
//
// emptyKernel does nothing: a launch of it costs what the host and the
// driver spend to launch, plus the few microseconds the GPU needs to start
// and retire one small grid.
//
// Launch assumption: any grid and block; no thread touches memory.
extern "C" __global__ void emptyKernel() {}


extern "C" __global__ void boom(int lane) {
    if (threadIdx.x == lane) __trap();
}
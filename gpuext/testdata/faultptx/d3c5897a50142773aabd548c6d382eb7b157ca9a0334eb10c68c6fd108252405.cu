
extern "C" __global__ void poke(unsigned long long addr) {
    *(volatile float *)addr = 1.0f;   // addr is in no buffer: an illegal address
}
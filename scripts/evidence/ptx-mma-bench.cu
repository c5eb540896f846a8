// ptx-mma-bench.cu: the tensor cores' mma.sync throughput per SM (issue 28:
// the time model's tensor term, sim/timing/tensor.go). One block an SM,
// W warps a block; each warp runs ITERS iterations of CHAINS independent
// mma.sync (independent accumulators, so the pipe, not the latency of one
// chain, sets the rate). Each block times its loop with clock64 between
// two __syncthreads, so the result is multiply-adds per SM cycle, not per
// second (no clock to assume). A single chain (CHAINS = 1 per warp, one
// warp) gives the latency of one mma.
//
// Build and run (the device): nvcc -O3 -arch=sm_90 -o mma-bench ptx-mma-bench.cu && ./mma-bench
// Output: CSV form,warps,chains,iters,blocks,median_cycles,macs_per_sm_cycle,cycles_per_mma_per_warp
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

template <int FORM>
__device__ __forceinline__ void mma(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  if (FORM == 0)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else if (FORM == 1)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else if (FORM == 2)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(b0));
}

template <int FORM, int CHAINS>
__global__ void bench(int iters, float *out, long long *cycles) {
  float d[CHAINS][4] = {};
  unsigned a = threadIdx.x * 0x00010001u, b = 0x3c003c00u;  // small halves / tiny tf32s: no overflow
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int c = 0; c < CHAINS; c++) mma<FORM>(d[c], a, a + c, a, a, b, b);
  }
  __syncthreads();
  long long t1 = clock64();
  float s = 0;
  for (int c = 0; c < CHAINS; c++) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

static const char *names[] = {"f16.m16n8k16", "bf16.m16n8k16", "tf32.m16n8k8", "f16.m16n8k8"};
static const int macs[] = {16 * 8 * 16, 16 * 8 * 16, 16 * 8 * 8, 16 * 8 * 8};

template <int FORM, int CHAINS>
void run(int sms, int warps, int iters) {
  float *out;
  long long *cyc;
  cudaMalloc(&out, sizeof(float) * sms * warps * 32);
  cudaMalloc(&cyc, sizeof(long long) * sms);
  bench<FORM, CHAINS><<<sms, warps * 32>>>(iters, out, cyc);  // warm-up
  bench<FORM, CHAINS><<<sms, warps * 32>>>(iters, out, cyc);
  cudaError_t err = cudaDeviceSynchronize();
  std::vector<long long> c(sms);
  cudaMemcpy(c.data(), cyc, sizeof(long long) * sms, cudaMemcpyDeviceToHost);
  std::sort(c.begin(), c.end());
  double med = (double)c[sms / 2];
  double total = (double)warps * iters * CHAINS * macs[FORM];
  printf("%s,%d,%d,%d,%d,%.0f,%.2f,%.3f%s\n", names[FORM], warps, CHAINS, iters, sms, med, total / med,
         med / ((double)iters * CHAINS), err == cudaSuccess ? "" : ",ERROR");
  cudaFree(out);
  cudaFree(cyc);
}

template <int FORM>
void form(int sms) {
  run<FORM, 1>(1, 1, 4096);  // latency: one warp, one chain
  run<FORM, 8>(sms, 1, 2048);
  run<FORM, 8>(sms, 4, 2048);
  run<FORM, 8>(sms, 8, 2048);
  run<FORM, 8>(sms, 16, 1024);
}

int main() {
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  printf("form,warps,chains,iters,blocks,median_cycles,macs_per_sm_cycle,cycles_per_mma_per_warp\n");
  form<0>(sms);
  form<1>(sms);
  form<2>(sms);
  form<3>(sms);
  return 0;
}

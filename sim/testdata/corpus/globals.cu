// globals.cu: __constant__ and __device__ module variables. Corpus of
// issue 28; CPU references in sim/corpus_test.go.
#define R 2
__constant__ float filt[2 * R + 1] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
__constant__ int lut[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ unsigned int launches = 100;
__device__ int table[4] = {10, 20, 30, 40};

// conv1d: a 5-tap filter from constant memory, every lane reading the
// same tap at once (the constant cache's broadcast).
extern "C" __global__ void conv1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
#pragma unroll
  for (int k = -R; k <= R; k++) {
    int j = min(max(i + k, 0), n - 1);
    s += filt[k + R] * in[j];
  }
  out[i] = s;
}

// lookup: each lane reads lut[lane % 8] (8 distinct addresses a warp:
// serialized), and the launch counter in global memory counts launches.
extern "C" __global__ void lookup(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lut[threadIdx.x % 8] + table[i % 4];
  if (i == 0) atomicAdd(&launches, 1u);
}

extern "C" __global__ void readCounter(unsigned int *out) { *out = launches; }

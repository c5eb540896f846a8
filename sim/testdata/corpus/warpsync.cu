// warpsync.cu: block votes (__syncthreads_count/_and/_or: bar.red) and warp
// matching (__match_any_sync, __match_all_sync: sm_70 and later, so
// compute_75 has them). Corpus of issue 28; CPU references in
// sim/corpus_test.go.

extern "C" __global__ void votes(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int p = i < n && in[i] > 0;
  int count = __syncthreads_count(p);
  int all = __syncthreads_and(p);
  int any = __syncthreads_or(p);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}

extern "C" __global__ void matches(const int *key, const long long *key64, unsigned *any, unsigned *any64, unsigned *all, int *allp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  any[i] = __match_any_sync(0xffffffffu, key[i]);
  any64[i] = __match_any_sync(0xffffffffu, key64[i]);
  int pred;
  all[i] = __match_all_sync(0xffffffffu, key[i] / 100, &pred);
  allp[i] = pred;
}

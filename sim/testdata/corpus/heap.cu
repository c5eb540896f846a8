// heap.cu: device-side malloc and free, as students use them for scratch
// space whose size is known only at run time: each thread takes its own
// buffer, and each block one that its threads share through a __shared__
// pointer. Corpus of issue 28; CPU references in sim/corpus_heap_test.go.

// perThread: thread i allocates m ints, fills them with i*k, sums them and
// frees them; a NULL from malloc (the heap used up) writes -1.
extern "C" __global__ void perThread(int *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int *p = (int *)malloc(m * sizeof(int));
  if (p == NULL) {
    out[i] = -1;
    return;
  }
  for (int k = 0; k < m; k++) p[k] = i * k;
  int s = 0;
  for (int k = 0; k < m; k++) s += p[k];
  free(p);
  out[i] = s;
}

// perBlock: thread 0 allocates blockDim.x floats for the block; the
// threads write their squares, then each reads its neighbour's.
extern "C" __global__ void perBlock(float *out) {
  __shared__ float *buf;
  int t = threadIdx.x;
  if (t == 0) buf = (float *)malloc(blockDim.x * sizeof(float));
  __syncthreads();
  if (buf == NULL) return;
  buf[t] = (float)(t * t);
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = buf[(t + 1) % blockDim.x];
  __syncthreads();
  if (t == 0) free(buf);
}

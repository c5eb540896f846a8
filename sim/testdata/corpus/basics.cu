// basics.cu: the kernels a course teaches right after the first lessons,
// in integer or exactly-representable float arithmetic so that any order
// of operations gives the same bits: a shared-memory tree reduction and a
// warp-shuffle reduction, a block-wide inclusive scan, a 2D five-point
// stencil, a COO SpMV with atomicAdd, and one level of a BFS. Corpus of
// issue 28; CPU references in sim/corpus_basics_test.go.

// reduceShared: tree reduction in shared memory, one sum a block.
extern "C" __global__ void reduceShared(const int *in, int *out, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
  int v = 0;
  if (i < n) v += in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  s[t] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// reduceShuffle: warp shuffles, then one atomicAdd a warp.
extern "C" __global__ void reduceShuffle(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int k = 16; k > 0; k >>= 1) v += __shfl_down_sync(0xffffffffu, v, k);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

// scanBlock: Kogge-Stone inclusive scan of each block's elements (double
// buffered in shared memory).
extern "C" __global__ void scanBlock(const int *in, int *out, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int *a = buf, *b = buf + blockDim.x;
  a[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int k = 1; k < blockDim.x; k <<= 1) {
    b[t] = a[t] + (t >= k ? a[t - k] : 0);
    __syncthreads();
    int *tmp = a; a = b; b = tmp;
  }
  if (i < n) out[i] = a[t];
}

// stencil2d: one Jacobi step of the five-point Laplacian on a w x h grid
// (boundary copied), 16x16 blocks.
extern "C" __global__ void stencil2d(const float *u, float *v, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    v[i] = u[i];
    return;
  }
  v[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - w] + u[i + w]);
}

// spmvCoo: y += A x for A in coordinate form, one thread a nonzero.
extern "C" __global__ void spmvCoo(const int *row, const int *col, const float *val, const float *x, float *y, int nnz) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) atomicAdd(&y[row[k]], val[k] * x[col[k]]);
}

// bfsLevel: one level of a breadth-first search over a CSR graph: each
// vertex of the frontier labels its unvisited neighbours and appends them
// to the next frontier (atomicCAS claims a vertex once).
extern "C" __global__ void bfsLevel(const int *rowPtr, const int *cols, int *level, const int *frontier, int nf,
                                    int *next, int *nnext, int depth) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nf) return;
  int u = frontier[f];
  for (int e = rowPtr[u]; e < rowPtr[u + 1]; e++) {
    int v = cols[e];
    if (atomicCAS(&level[v], -1, depth + 1) == -1) next[atomicAdd(nnext, 1)] = v;
  }
}

// sorts.cu: what a course teaches after reductions and scans: one radix
// sort pass with a shared-memory scan, a bitonic sort in shared memory, a
// single-pass prefix sum with decoupled look-back, a JDS SpMV and a small
// attention (softmax with warp shuffles). Corpus of issue 28; CPU
// references in sim/corpus_sorts_test.go.

// radixPass: block b sorts its tile of 256 keys stably by their digit
// (key >> shift) & 15, one bit at a time (four splits, each an exclusive
// scan of the bit's zeros in shared memory, Hillis-Steele), writes the
// sorted tile and the tile's 16 digit counts (the histogram a global pass
// would scan). 256 threads, one key each.
extern "C" __global__ void radixPass(const unsigned *in, unsigned *out, unsigned *hist, int shift) {
  __shared__ unsigned keys[256], scan[2][256];
  __shared__ unsigned counts[16];
  int t = threadIdx.x;
  keys[t] = in[blockIdx.x * 256 + t];
  if (t < 16) counts[t] = 0;
  __syncthreads();
  for (int bit = 0; bit < 4; bit++) {
    unsigned k = keys[t];
    unsigned zero = ((k >> (shift + bit)) & 1) == 0;
    int p = 0;
    scan[0][t] = zero;
    __syncthreads();
    for (int d = 1; d < 256; d *= 2) {  // inclusive scan, ping-pong
      unsigned v = scan[p][t];
      if (t >= d) v += scan[p][t - d];
      scan[1 - p][t] = v;
      p = 1 - p;
      __syncthreads();
    }
    unsigned zeros = scan[p][255];
    unsigned before = scan[p][t] - zero;  // zeros before t
    int dst = zero ? before : zeros + (t - before);
    __syncthreads();
    keys[dst] = k;
    __syncthreads();
  }
  unsigned k = keys[t];
  out[blockIdx.x * 256 + t] = k;
  atomicAdd(&counts[(k >> shift) & 15], 1u);
  __syncthreads();
  if (t < 16) hist[blockIdx.x * 16 + t] = counts[t];
}

// bitonicSort: block b sorts its 512 ints ascending in shared memory, 256
// threads, each compare-exchanging one pair a step.
extern "C" __global__ void bitonicSort(int *data) {
  __shared__ int s[512];
  int t = threadIdx.x;
  int *d = data + blockIdx.x * 512;
  s[t] = d[t];
  s[t + 256] = d[t + 256];
  __syncthreads();
  for (int k = 2; k <= 512; k *= 2) {
    for (int j = k / 2; j > 0; j /= 2) {
      int i = 2 * j * (t / j) + t % j;  // the lower index of t's pair
      int p = i + j;
      bool up = (i & k) == 0;
      int a = s[i], b = s[p];
      if ((a > b) == up) {
        s[i] = b;
        s[p] = a;
      }
      __syncthreads();
    }
  }
  d[t] = s[t];
  d[t + 256] = s[t + 256];
}

// lookbackScan: an inclusive prefix sum of ints in one pass (decoupled
// look-back, Merrill and Garland): each block takes the next tile by an
// atomic ticket, scans its 256 values (warp shuffles, then the warps'
// sums), publishes its sum (flag 1) and, once it knows its prefix, the
// inclusive total (flag 2); its thread 0 walks back over the tiles before
// it, adding sums until it meets a total. status[i] is (flag << 32) | value,
// zero before the launch; ticket[0] is zero too.
extern "C" __global__ void lookbackScan(const int *in, int *out, unsigned long long *status, unsigned *ticket, int n) {
  __shared__ int tile, warpSum[8], prefix;
  int t = threadIdx.x, lane = t % 32, w = t / 32;
  if (t == 0) tile = atomicAdd(ticket, 1u);
  __syncthreads();
  int i = tile * 256 + t;
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d *= 2) {
    int u = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += u;
  }
  if (lane == 31) warpSum[w] = v;
  __syncthreads();
  if (t < 32) {
    int s = t < 8 ? warpSum[t] : 0;
    for (int d = 1; d < 8; d *= 2) {
      int u = __shfl_up_sync(0xffffffffu, s, d);
      if (t >= d) s += u;
    }
    if (t < 8) warpSum[t] = s;
  }
  __syncthreads();
  if (w > 0) v += warpSum[w - 1];
  if (t == 255) {
    int total = v, before = 0;
    if (tile == 0) {
      atomicExch(&status[0], (2ull << 32) | (unsigned)total);
    } else {
      atomicExch(&status[tile], (1ull << 32) | (unsigned)total);
      for (int j = tile - 1; j >= 0;) {
        unsigned long long st = atomicAdd(&status[j], 0ull);
        unsigned flag = st >> 32;
        if (flag == 0) continue;  // not published yet: look again
        before += (int)(unsigned)st;
        if (flag == 2) break;
        j--;
      }
      atomicExch(&status[tile], (2ull << 32) | (unsigned)(before + total));
    }
    prefix = before;
  }
  __syncthreads();
  if (i < n) out[i] = v + prefix;
}

// jdsSpmv: y = A x with A in JDS (jagged diagonal storage): rows sorted
// by decreasing length (perm[r] is the original row of sorted row r),
// jagged diagonal d holding the d-th entry of every row that has one, at
// jdPtr[d] .. jdPtr[d+1]; one thread a sorted row, so a warp's loads of
// one diagonal are contiguous.
extern "C" __global__ void jdsSpmv(const int *jdPtr, const int *col, const float *val, const int *perm,
                                   const float *x, float *y, int rows, int ndiag) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0;
  for (int d = 0; d < ndiag && jdPtr[d] + r < jdPtr[d + 1]; d++) {
    int k = jdPtr[d] + r;
    s += val[k] * x[col[k]];
  }
  y[perm[r]] = s;
}

// attention: one warp a query row of softmax(Q K^T / sqrt(dim)) V for 32
// keys and dim 32 (row-major); lane j scores key j, the warp takes the
// max and the sum by shuffles, then lane c sums column c of V weighted by
// the 32 probabilities, each fetched from its lane by a shuffle.
extern "C" __global__ void attention(const float *q, const float *k, const float *v, float *o, float scale) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  const float *qr = q + row * 32;
  float s = 0;
  for (int c = 0; c < 32; c++) s += qr[c] * k[lane * 32 + c];
  s *= scale;
  float m = s;
  for (int d = 16; d; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
  float e = expf(s - m), sum = e;
  for (int d = 16; d; d >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, d);
  float p = e / sum, acc = 0;
  for (int j = 0; j < 32; j++) acc += __shfl_sync(0xffffffffu, p, j) * v[j * 32 + lane];
  o[row * 32 + lane] = acc;
}

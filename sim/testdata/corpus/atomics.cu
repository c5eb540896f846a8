// atomics.cu: the atomic set (32- and 64-bit, float and double add, exch,
// inc/dec, min/max signed and unsigned, and/or/xor, CAS loops), and
// __activemask, __nanosleep and clock64. Corpus of issue 28; CPU
// references in sim/corpus_test.go.

// atoms: every thread of one block applies each atomic once; the results
// do not depend on the order.
extern "C" __global__ void atoms(unsigned *u, int *s, unsigned long long *ul, long long *sl, double *d, float *f) {
  int i = threadIdx.x;
  atomicMax(&s[0], i - 10);
  atomicMin(&s[1], i - 10);
  atomicAdd(&s[2], i - 10);
  atomicMax(&u[0], (unsigned)i);
  atomicMin(&u[1], (unsigned)i + 5);
  atomicInc(&u[2], 5u);
  atomicDec(&u[3], 5u);
  atomicAnd(&u[4], ~(1u << (i & 31)));
  atomicOr(&u[5], 1u << (i & 31));
  atomicXor(&u[6], (unsigned)i);
  atomicAdd(&ul[0], (unsigned long long)i << 33);
  atomicMax(&ul[1], (unsigned long long)i << 40);
  atomicMin(&ul[2], (unsigned long long)i + 7);
  atomicAnd(&ul[3], ~(1ull << i));
  atomicOr(&ul[4], 1ull << i);
  atomicXor(&ul[5], (unsigned long long)i << 20);
  atomicMax(&sl[0], (long long)(i - 20) << 32);
  atomicMin(&sl[1], (long long)(i - 20) << 32);
  atomicAdd(&d[0], 0.5 * i);
  atomicAdd(&f[0], 0.25f * i);
  if (atomicCAS(&u[7], 0u, (unsigned)i + 1) == 0u) atomicExch(&u[8], (unsigned)i + 100);
  atomicCAS(&ul[6], 0ull, 1ull << 50);
}

// casAdd: a float add built from atomicCAS (the pre-sm_20 idiom, and the
// usual exercise), on shared memory then global, with 64-bit CAS on a double.
extern "C" __global__ void casAdd(float *out, double *dout, const float *in, int n) {
  __shared__ float acc;
  if (threadIdx.x == 0) acc = 0.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  unsigned *p = (unsigned *)&acc;
  unsigned old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) + v));
  } while (assumed != old);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, acc);
  unsigned long long *q = (unsigned long long *)dout;
  unsigned long long o2 = *q, a2;
  do {
    a2 = o2;
    o2 = atomicCAS(q, a2, __double_as_longlong(__longlong_as_double(a2) + (double)v));
  } while (a2 != o2);
}

// warpinfo: __activemask in a divergent branch, __nanosleep, and clock64
// growing.
extern "C" __global__ void warpinfo(unsigned *mask, int *grew) {
  int i = threadIdx.x;
  long long t0 = clock64();
  if (i % 3 == 0) mask[i] = __activemask();
  else mask[i] = 0;
  __nanosleep(100);
  long long t1 = clock64();
  grew[i] = t1 > t0;
}

// histogram: 256 bins in shared memory, merged into global with atomicAdd.
extern "C" __global__ void histogram(const unsigned *in, unsigned *bins, int n) {
  __shared__ unsigned h[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) h[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&h[in[i] & 255u], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (h[b]) atomicAdd(&bins[b], h[b]);
}

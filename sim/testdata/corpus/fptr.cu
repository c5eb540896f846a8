// fptr.cu: calls through function pointers: a __device__ table of them
// (indexed per thread, so a warp's lanes call different functions) and a
// virtual function. Corpus of issue 28; CPU reference in
// sim/corpus_rows_test.go.
typedef int (*op_t)(int);
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
__device__ __noinline__ int negate(int x) { return -x; }
__device__ op_t ops[3] = {twice, square, negate};

struct Shape {
  __device__ virtual int area(int s) const { return 0; }
};
struct Square : Shape {
  __device__ int area(int s) const override { return s * s; }
};
struct Tri : Shape {
  __device__ int area(int s) const override { return s * s / 2; }
};

extern "C" __global__ void fptr(int *out, int *vout) {
  int i = threadIdx.x;
  out[i] = ops[i % 3](i);
  Square sq;
  Tri tr;
  const Shape *s = (i & 1) ? (const Shape *)&tr : (const Shape *)&sq;
  vout[i] = s->area(i);
}

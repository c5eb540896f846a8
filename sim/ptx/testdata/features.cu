// features.cu — kernels that exercise what package sim/ptx decodes, one
// family of PTX instructions each, compiled by scripts/cuda/gen-ptx.sh
// (nvcc 11.8, -arch=compute_75 -O3 -lineinfo) into features.ptx. They are
// parser test inputs: what nvcc really emits for shuffles, votes, atomics,
// dynamic and static shared memory, local arrays, struct parameters,
// switches, loops with break and continue, and the math library's
// approximations. They are not lesson kernels and are not run on a GPU.

struct Params {
    int n;
    float scale;
    double bias;
};

__constant__ float coef[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ unsigned int counter = 7;

// Warp reductions with every shuffle mode, and the votes.
extern "C" __global__ void warpOps(const float *in, float *out, unsigned *votes, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffff, v, d);
    float x = __shfl_xor_sync(0xffffffff, v, 1);
    float u = __shfl_up_sync(0xffffffff, x, 2);
    float b = __shfl_sync(0xffffffff, u, 0);
    unsigned ballot = __ballot_sync(0xffffffff, v > 1.0f);
    int all = __all_sync(0xffffffff, v > 0.0f);
    int any = __any_sync(0xffffffff, v < 0.0f);
    if ((threadIdx.x & 31) == 0) {
        out[i / 32] = b;
        votes[3 * (i / 32)] = ballot;
        votes[3 * (i / 32) + 1] = all;
        votes[3 * (i / 32) + 2] = any;
    }
}

// Atomics on global and shared memory, of every operation and type.
extern "C" __global__ void atomics(float *f, int *s, unsigned *u, unsigned long long *ull, double *d, int n)
{
    __shared__ int hist[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 32)
        hist[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&hist[i & 31], 1);
    atomicMax(&hist[(i + 1) & 31], i);
    __syncthreads();
    if (i >= n)
        return;
    atomicAdd(f, 1.5f);
    atomicAdd(d, 2.5);
    atomicAdd(ull, 3ull);
    atomicMin(s, i);
    atomicMax(s + 1, i);
    int old = atomicCAS(s + 2, 0, i);
    atomicExch(s + 3, old);
    atomicAnd(u, 0xf0u);
    atomicOr(u + 1, 1u << (i & 31));
    atomicXor(u + 2, (unsigned)i);
    atomicInc(u + 3, 100u);
    atomicDec(u + 4, 100u);
    atomicAdd(&counter, 1u);
    __threadfence();
    if (threadIdx.x < 32)
        s[4 + threadIdx.x] = hist[threadIdx.x];
}

// Dynamic shared memory, a block reduction, 2-D indices, vector loads.
extern "C" __global__ void sharedOps(const float4 *in, float4 *out, int n)
{
    extern __shared__ float buf[];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + tid;
    float4 v = i < n ? __ldg(&in[i]) : make_float4(0, 0, 0, 0);
    buf[tid] = v.x + v.y + v.z + v.w;
    __syncthreads();
    for (int s = blockDim.x * blockDim.y / 2; s > 0; s >>= 1) {
        if (tid < s)
            buf[tid] += buf[tid + s];
        __syncthreads();
    }
    __threadfence_block();
    if (i < n)
        out[i] = make_float4(buf[0] * coef[0], v.y * coef[1], v.z * coef[2], v.w * coef[3]);
}

// A struct parameter, a local array indexed at run time, a switch, a loop
// with break and continue, an early return.
extern "C" __global__ void control(Params p, const int *keys, int *out)
{
    int local[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n)
        return;
    for (int k = 0; k < 8; k++)
        local[k] = keys[(i + k) % p.n];
    int acc = 0;
#pragma unroll 1
    for (int k = 0; k < p.n; k++) {
        int key = keys[k];
        if (key < 0)
            break;
        if (key % 3 == 0)
            continue;
        switch (key & 3) {
        case 0:
            acc += 1;
            break;
        case 1:
            acc -= local[key & 7];
            break;
        case 2:
            acc ^= key;
            break;
        default:
            acc *= 3;
        }
    }
    out[i] = acc + (int)(p.scale * (float)p.bias);
}

// Integer and floating-point arithmetic the math library and intrinsics
// lower to: division, remainders, bit operations, conversions with
// rounding, approximations.
extern "C" __global__ void arith(const float *x, const double *y, const signed char *c, const short *h,
                                 const unsigned long long *w, float *fo, double *dout, int *io, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i];
    double b = y[i];
    int q = c[i] + h[i];
    unsigned long long m = w[i];
    fo[8 * i + 0] = sqrtf(a) + rsqrtf(a) + __fdividef(a, 3.0f);
    fo[8 * i + 1] = __expf(a) + exp2f(a) + __log2f(a);
    fo[8 * i + 2] = fminf(a, 1.0f) + fmaxf(a, -1.0f) + fabsf(a) - a / (a + 1.0f);
    fo[8 * i + 3] = __fmaf_rz(a, a, 1.0f) + __fadd_rd(a, 1.0f) + __frcp_rn(a);
    fo[8 * i + 4] = (float)b + __int2float_rz(q) + truncf(a) + floorf(a) + rintf(a);
    dout[4 * i + 0] = sqrt(b) + 1.0 / b + fma(b, b, 1.0) + fabs(b) + fmin(b, 2.0);
    dout[4 * i + 1] = (double)m + (double)q + __ddiv_ru(b, 3.0) + __drcp_rn(b);
    io[8 * i + 0] = q / 7 + q % 5 + (int)(m / 3) + (int)(m % 11);
    io[8 * i + 1] = __popc(q) + __popcll(m) + __clz(q) + __clzll(m) + __brev(q);
    io[8 * i + 2] = __float2int_rn(a) + __float2int_rd(a) + __double2int_rz(b) + (int)__float2uint_ru(a);
    io[8 * i + 3] = (q >> 3) + (int)((unsigned)q >> 5) + (q << 2) + (int)(m >> 7) + (int)(~m);
    io[8 * i + 4] = max(q, 3) + min(q, -3) + abs(q) + (q > 10 ? 4 : 9) + umin(q, 5u);
    io[8 * i + 5] = __mulhi(q, 12345) + __umulhi((unsigned)q, 777u) + (int)__mul64hi((long long)m, 99);
    io[8 * i + 6] = (int)(((unsigned)q >> 4) & 0xff);
}

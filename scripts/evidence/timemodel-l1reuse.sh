#!/bin/bash
# timemodel-l1reuse.sh — how much of a thread's own row the L1 keeps while
# the SM's other warps stream theirs: the microbenchmark the time model's
# L1 capacity needs (issue 13; docs/timemodel.md, "Uncoalesced thread per
# row: the L1's capacity"), in one device call of a few minutes, from the
# repository root:
#
#   bash scripts/evidence/timemodel-l1reuse.sh .cache/device "$OUT/timemodel-l1reuse"
#
# ($1 is unused: the program is CUDA C, compiled here by nvcc.) Each thread
# sums its own rows of doubles, one row after another (CG's thread-per-row
# SpMV without the gather): lane l of a warp reads row (warp's first row +
# l), so a warp-level load touches 32 lines once a row is 128 bytes or
# longer, and each line is read again by its lane's next loads. Varied:
# the row length (64 to 1024 bytes), the warps resident per SM (1 to 64:
# one block per SM of 32..1024 threads, or two of 1024), and the loop as
# nvcc unrolls it or under #pragma unroll 1; and with one array a row
# (doubles) or two (doubles and ints, as a CSR SpMV without its gather). Every launch is one wave
# (grid = SMs × blocks per SM), so each SM holds exactly that many warps.
#
# Nsight Compute profiles each launch once (caches flushed first): L1
# sectors requested (l1tex__t_sectors_pipe_lsu_mem_global_op_ld) against
# sectors read from L2 (lts__t_sectors_srcunit_tex_op_read). The footprint
# in sectors is what any L1 must fetch; the rest of the L2 reads are lines
# the L1 lost before their lane came back. It writes under $2: env.txt,
# l1reuse.csv (ncu's CSV, the program's header lines first) and
# configs.csv (the program's one line per launch: name, row bytes, warps
# per SM, rows per thread, footprint sectors).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${2:?usage: timemodel-l1reuse.sh BINDIR OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
	ncu --version | tail -1
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
cat >"$T/l1reuse.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
static void check(cudaError_t e, const char* w) {
    if (e != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", w, cudaGetErrorString(e)); std::exit(1); }
}
// rowsUnrolled and rowsUnroll1: thread t sums rows t, t + T, t + 2T, ...
// (T threads in all), each row len doubles long and contiguous.
__global__ void rowsUnrolled(const double* __restrict__ v, int len, int rows, double* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
    double s = 0;
    for (int r = t; r < rows; r += T) {
        const double* p = v + (size_t)r * len;
        for (int j = 0; j < len; ++j) s += p[j];
    }
    out[t] = s;
}
__global__ void rowsUnroll1(const double* __restrict__ v, int len, int rows, double* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
    double s = 0;
    for (int r = t; r < rows; r += T) {
        const double* p = v + (size_t)r * len;
#pragma unroll 1
        for (int j = 0; j < len; ++j) s += p[j];
    }
    out[t] = s;
}
// rowsValCol and rowsValColUnroll1 read two arrays a row, as a CSR SpMV
// does without its gather: len doubles and len ints, so each lane holds two
// lines at once.
__global__ void rowsValCol(const double* __restrict__ v, const int* __restrict__ c, int len, int rows, double* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
    double s = 0;
    for (int r = t; r < rows; r += T) {
        const double* p = v + (size_t)r * len;
        const int* q = c + (size_t)r * len;
        for (int j = 0; j < len; ++j) s += p[j] * q[j];
    }
    out[t] = s;
}
__global__ void rowsValColUnroll1(const double* __restrict__ v, const int* __restrict__ c, int len, int rows, double* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
    double s = 0;
    for (int r = t; r < rows; r += T) {
        const double* p = v + (size_t)r * len;
        const int* q = c + (size_t)r * len;
#pragma unroll 1
        for (int j = 0; j < len; ++j) s += p[j] * q[j];
    }
    out[t] = s;
}
int main() {
    int sms = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "sms");
    const size_t maxBytes = (size_t)512 << 20;
    double *v, *out;
    int* c;
    check(cudaMalloc(&v, maxBytes), "malloc");
    check(cudaMemset(v, 0, maxBytes), "memset");
    check(cudaMalloc(&c, maxBytes / 2), "malloc");
    check(cudaMemset(c, 0, maxBytes / 2), "memset");
    check(cudaMalloc(&out, (size_t)sms * 2048 * sizeof(double)), "malloc");
    int id = 0;
    std::printf("config,kernel,row_bytes,warps_per_sm,blocks,threads,rows_per_thread,footprint_sectors\n");
    const char* names[] = {"rowsUnrolled", "rowsUnroll1", "rowsValCol", "rowsValColUnroll1"};
    for (int kind = 0; kind < 4; ++kind)
        for (int len : {8, 16, 27, 32, 64, 128})
            for (int w : {1, 2, 4, 8, 16, 32, 64}) {
                int threads = 32 * (w > 32 ? 32 : w), per = w > 32 ? w / 32 : 1;
                int blocks = sms * per, T = blocks * threads;
                // Up to 16 rows a thread, within the buffer.
                size_t fit = maxBytes / ((size_t)T * len * 8);
                int rpt = (int)(fit < 16 ? fit : 16);
                if (rpt < 1) rpt = 1;
                int rows = T * rpt;
                switch (kind) {
                case 0: rowsUnrolled<<<blocks, threads>>>(v, len, rows, out); break;
                case 1: rowsUnroll1<<<blocks, threads>>>(v, len, rows, out); break;
                case 2: rowsValCol<<<blocks, threads>>>(v, c, len, rows, out); break;
                default: rowsValColUnroll1<<<blocks, threads>>>(v, c, len, rows, out);
                }
                check(cudaGetLastError(), "launch");
                // Footprint: the doubles, and the ints for the two-array kernels.
                size_t fb = (size_t)rows * len * (kind < 2 ? 8 : 12);
                std::printf("c%03d,%s,%d,%d,%d,%d,%d,%zu\n", id++, names[kind],
                            len * 8, w, blocks, threads, rpt, fb / 32);
            }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}
CU
if nvcc -O3 -arch=native -std=c++17 -o "$T/l1reuse" "$T/l1reuse.cu" 2>"$E/nvcc.err"; then
	# One run without the profiler for the configs, then one under ncu.
	timeout 60 "$T/l1reuse" >"$E/configs.csv" 2>"$E/l1reuse.err"
	echo "l1reuse exit $?"
	timeout 400 ncu --csv --metrics lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,gpu__time_duration.sum,sm__warps_active.avg.per_cycle_active \
		"$T/l1reuse" 2>>"$E/l1reuse.err" | grep -v '^==PROF==' >"$E/l1reuse.csv"
	echo "ncu exit ${PIPESTATUS[0]}"
	wc -l "$E/l1reuse.csv" "$E/configs.csv"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
rm -rf "$T"

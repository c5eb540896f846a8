#!/bin/bash
# timemodel-l2sectors.sh — how fast the L2 and DRAM serve requests that use
# one, two or four of a line's sectors: whether the time model's l2 term can
# count bytes alone (issue 13; docs/timemodel.md, "Sectors per line"). One
# device call of about a minute, from the repository root:
#
#   bash scripts/evidence/timemodel-l2sectors.sh .cache/device "$OUT/timemodel-l2sectors"
#
# ($1 is unused: the program is CUDA C, compiled here by nvcc.) Every lane
# reads one float (ld.global.cg, past the L1) a step, lanes `stride` bytes
# apart: stride 4 is one line and four sectors a request, 32 eight lines of
# four sectors, 64 sixteen lines of two, 128 thirty-two lines of one. Eight
# independent loads a step per thread, 8 blocks of 256 per SM (64 warps). The
# L2 case re-reads a 16 MiB buffer (warm: it stays in the L2); the DRAM case
# reads a fresh stretch of a 2 GiB buffer each launch. Times are CUDA events
# around 10 launches after 3 warm-ups. It writes under $2: env.txt and
# l2sectors.csv (level, stride, sectors a request, lines a request,
# sectors/s, bytes of sectors/s).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${2:?usage: timemodel-l2sectors.sh BINDIR OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
R="$(cd "$(dirname "$0")/../.." && pwd)"
T="$(mktemp -d)"
cat >"$T/l2sectors.cu" <<'CU'
#include "bench.cuh"  // check, eventTime (scripts/evidence/timemodel)
// Each warp reads, per step, 8 requests; request j of step k of warp g
// starts at ((g * steps + k) * 8 + j) * 32 * stride bytes (mod the buffer),
// lane l at + l * stride.
__global__ void strided(const float* __restrict__ p, size_t maskElems, int strideElems, int steps, size_t warpBase, float* out) {
    size_t g = warpBase + (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    size_t span = (size_t)32 * strideElems;
    float s = 0;
    for (int k = 0; k < steps; ++k) {
        size_t base = (g * steps + k) * 8 * span + (size_t)lane * strideElems;
        float v[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) v[j] = __ldcg(p + ((base + j * span) & maskElems));
#pragma unroll
        for (int j = 0; j < 8; ++j) s += v[j];
    }
    if (s == 12345.0f) out[0] = s;
}
int main() {
    int sms = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "sms");
    const size_t big = (size_t)2 << 30;
    float *p, *out;
    check(cudaMalloc(&p, big), "malloc");
    check(cudaMemset(p, 0, big), "memset");
    check(cudaMalloc(&out, 64), "malloc");
    const int blocks = sms * 8, threads = 256, warps = blocks * threads / 32;
    std::printf("level,stride_bytes,sectors_per_request,lines_per_request,sectors_per_s,sector_bytes_per_s\n");
    for (int level = 0; level < 2; ++level)
        for (int stride : {4, 32, 64, 128}) {
            int se = stride / 4;
            int lines = stride >= 128 ? 32 : (32 * stride) / 128;
            int secs = stride >= 32 ? 32 : (32 * stride) / 32;
            size_t mask = level == 0 ? ((size_t)16 << 20) / 4 - 1 : big / 4 - 1;
            // Steps: about 64 MiB of sectors a launch on L2, 256 MiB on DRAM.
            double perStep = (double)warps * 8 * secs * 32;
            int steps = (int)((level == 0 ? 64.0 : 256.0) * (1 << 20) / perStep);
            if (steps < 1) steps = 1;
            size_t wb = 0;
            double ms = eventTime([&] {
                strided<<<blocks, threads>>>(p, mask, se, steps, wb, out);
                if (level == 1) wb += warps;  // the next launch reads fresh lines
            });
            double sectors = (double)warps * steps * 8 * secs;
            std::printf("%s,%d,%d,%d,%.4g,%.4g\n", level == 0 ? "l2" : "dram", stride, secs, lines,
                        sectors / (ms * 1e-3), sectors * 32 / (ms * 1e-3));
        }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}
CU
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/l2sectors" "$T/l2sectors.cu" 2>"$E/nvcc.err"; then
	timeout 120 "$T/l2sectors" >"$E/l2sectors.csv" 2>"$E/l2sectors.err"
	echo "l2sectors exit $?"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
rm -rf "$T"

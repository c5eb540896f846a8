// l2warm.cu — how much of a footprint a launch finds in L2 when the same
// kernel ran on the same buffers just before it (issue 27; docs/timemodel.md,
// "Warm and cold").
//
// The lessons time launches back to back after warm-ups, so a launch finds
// in L2 whatever its own previous launch left there. The model took a
// footprint of at most half the L2 as found there whole, and a larger one
// as not found at all (a guess, from the H200's waxpby across launches,
// evidence/timemodel-load-h200-2026-12-01). This run measures the share
// directly, footprint by footprint, for the two access patterns the
// lessons' kernels have most: a read of one array (readKernel: float4,
// grid-stride, const __restrict__, the read-only path the lesson kernels
// use) and a read of one array beside a store to another (copyKernel, half
// the footprint each). Footprints F = 4 to 64 MiB, every 4 MiB; blocks of
// 256, 8 an SM.
//
// Rows (timed, the default mode): l2warm_read,F MiB,us and
// l2warm_copy,F MiB,us, the time a launch with the lessons' protocol
// (eventTime: 3 warm-ups, 10 launches between events).
// `l2warm ncu` launches each kernel 4 times on its buffers and then its
// probe twin (probeRead, probeCopy: the same body under another name) once,
// in the timed rows' order; ncu --cache-control none -k regex:probe
// measures the probes' DRAM bytes with the caches as the 4 launches left
// them, and l2warm-ncu.py appends them as l2warm_read_dram and
// l2warm_copy_dram rows (bytes). A probe's DRAM read bytes over the bytes
// it reads are the share of its footprint it did not find in L2.
//
// The thirty-ninth pass (docs/timemodel.md, "Waves") adds two reads of the
// same F. readKernel is one wave of blocks striding over the array, so a
// block reads the same bytes on the same SM every launch; the lessons'
// kernels run many waves, whose blocks land on whichever SM frees first,
// so a byte is read from another SM, often behind the other L2 partition,
// than the launch before. waveKernel (l2warm_waves) reads one float4 a
// thread in F / 4 KiB blocks of 256, many waves, as the lessons' kernels;
// movedKernel (l2warm_moved) is readKernel with every block's share handed
// to the block half the grid away at each launch (the diagnosis: the same
// one-wave stream, only the SM that reads a byte changes). Their probes,
// probeWaves and probeMoved, come after the copy's in the same order. On
// the H100 (evidence/timemodel-l2warm-waves-h100-2026-12-07) the many-wave
// read kept 37.0 MiB, the stream 42.7 and the moved stream 40.8: the SM
// that reads a byte is not what costs the many-wave read its share.
#include "bench.cuh"

#include <cstring>

__global__ void probeRead(const float4* __restrict__ p, size_t n, float* out) { readBody(p, n, out); }

// copyBody copies a[0..n) to b, grid-stride: copyKernel and its probe twin.
__device__ __forceinline__ void copyBody(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        b[i] = a[i];
    }
}

// waveBody reads one float4 a thread (element blockIdx * blockDim + tid):
// waveKernel and its probe twin.
__device__ __forceinline__ void waveBody(const float4* __restrict__ p, size_t n, float* out) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = p[i];
        if (v.x + v.y + v.z + v.w == 12345.0f) out[0] = v.x;
    }
}

__global__ void waveKernel(const float4* __restrict__ p, size_t n, float* out) { waveBody(p, n, out); }

__global__ void probeWaves(const float4* __restrict__ p, size_t n, float* out) { waveBody(p, n, out); }

// movedBody is readBody as block (blockIdx + shift) mod gridDim would run it:
// with shift alternating 0 and gridDim / 2, every launch reads each byte
// from the block half the grid away from the one that read it last.
__device__ __forceinline__ void movedBody(const float4* __restrict__ p, size_t n, float* out, unsigned shift) {
    readBody(p, n, out, (blockIdx.x + shift) % gridDim.x);
}

__global__ void movedKernel(const float4* __restrict__ p, size_t n, float* out, unsigned shift) { movedBody(p, n, out, shift); }

__global__ void probeMoved(const float4* __restrict__ p, size_t n, float* out, unsigned shift) { movedBody(p, n, out, shift); }

__global__ void copyKernel(const float4* __restrict__ a, float4* __restrict__ b, size_t n) { copyBody(a, b, n); }

__global__ void probeCopy(const float4* __restrict__ a, float4* __restrict__ b, size_t n) { copyBody(a, b, n); }

int main(int argc, char** argv) {
    const bool ncu = argc > 1 && std::strcmp(argv[1], "ncu") == 0;
    cudaDeviceProp prop = ncu ? cudaDeviceProp{} : deviceHeader();
    if (ncu) {
        check(cudaGetDeviceProperties(&prop, 0), "properties");
    }
    const unsigned blocks = prop.multiProcessorCount * 8;
    const size_t maxBytes = (size_t)64 << 20;
    float4 *a, *b;
    float* sink;
    check(cudaMalloc(&a, maxBytes), "malloc a");
    check(cudaMalloc(&b, maxBytes), "malloc b");
    check(cudaMalloc(&sink, 16), "malloc sink");
    check(cudaMemset(a, 0, maxBytes), "memset a");
    check(cudaMemset(b, 0, maxBytes), "memset b");
    check(cudaDeviceSynchronize(), "memset");
    for (int mib = 4; mib <= 64; mib += 4) {
        const size_t f = (size_t)mib << 20;
        const size_t nRead = f / 16, nCopy = f / 32;  // float4s: read F; copy F/2 read, F/2 written
        char p[32];
        std::snprintf(p, sizeof p, "%d MiB", mib);
        auto read = [&] { readKernel<<<blocks, 256>>>(a, nRead, sink); };
        auto copy = [&] { copyKernel<<<blocks, 256>>>(a, b, nCopy); };
        const unsigned waveBlocks = (unsigned)((nRead + 255) / 256);
        auto waves = [&] { waveKernel<<<waveBlocks, 256>>>(a, nRead, sink); };
        unsigned launch = 0;  // movedKernel's launches so far: its shift alternates
        auto moved = [&] { movedKernel<<<blocks, 256>>>(a, nRead, sink, (launch++ % 2) * (blocks / 2)); };
        if (ncu) {
            for (int i = 0; i < 4; ++i) read();
            probeRead<<<blocks, 256>>>(a, nRead, sink);
            check(cudaDeviceSynchronize(), "probeRead");
            for (int i = 0; i < 4; ++i) copy();
            probeCopy<<<blocks, 256>>>(a, b, nCopy);
            check(cudaDeviceSynchronize(), "probeCopy");
            for (int i = 0; i < 4; ++i) waves();
            probeWaves<<<waveBlocks, 256>>>(a, nRead, sink);
            check(cudaDeviceSynchronize(), "probeWaves");
            for (int i = 0; i < 4; ++i) moved();  // shifts 0, half, 0, half
            probeMoved<<<blocks, 256>>>(a, nRead, sink, 0u);
            check(cudaDeviceSynchronize(), "probeMoved");
            continue;
        }
        row("l2warm_read", p, 1e3 * eventTime(read), "us", "one float4 array read, back to back (3 warm-ups, 10 launches)");
        row("l2warm_copy", p, 1e3 * eventTime(copy), "us", "half the footprint read, half written, back to back");
        row("l2warm_waves", p, 1e3 * eventTime(waves), "us", "the read as one float4 a thread, F / 4 KiB blocks of 256 (many waves), back to back");
        row("l2warm_moved", p, 1e3 * eventTime(moved), "us", "the one-wave read, each block's share moved half the grid every launch, back to back");
    }
    return 0;
}

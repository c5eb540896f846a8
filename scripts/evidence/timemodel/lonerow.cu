// lonerow.cu — what one compiled pass of a long row costs a lone lane
// (issue 27, milestone 3; not yet run).
//
// The sweep's largest misses are SpMV launches held by one long row
// (docs/timemodel.md, "What is left": powerlaw20 at 2^23 rows, thread per
// row, its 20,571-entry row 1,286 compiled passes of 16 entries; the
// H200 took at least 1.7 µs a pass, the model 0.78). The model prices such
// a row's passes at its rounds' latencies (a miss round at the launch's
// blended miss latency) plus its instructions at WarpCPI. This program
// times the SpMV lesson's own kernel, spmvCsrThreadPerRow (included from
// lessons/spmv/spmv.cu, compiled here for the GPU at hand), on a matrix of
// one row of L = 16,384 entries, launched as one warp whose other lanes
// have no row: one lane walks the row alone, the rest of the GPU idle.
//
// Cases, each a row (name, param, µs per launch):
//   x size       2^10 floats (4 KiB: L1 after first touch), 2^20 (4 MiB:
//                L2), 2^25 (128 MiB: past the L2)
//   columns      random over x (an LCG) or in order (j mod the size)
//   warm         3 warm-ups and 10 launches back to back (eventTime): the
//                row's col and val (128 KiB) and a small x stay in L2
//   cold         each launch after a 512 MiB memset that evicts the L2,
//                events around that launch alone, median of 10
// and lonerow_empty_{warm,cold}: the same launch on a row of no entries,
// the floor to take off. (t - empty) / (L / 16) is a pass as ptxas 11.8
// compiles the loop for sm_90 (16 entries); the README of the run says
// what this nvcc made of it (cuobjdump -sass of the binary).
#include <algorithm>

#include "bench.cuh"
#include "../../../lessons/spmv/spmv.cu"

static void fill(int* colIdx, float* val, int L, int xn, bool random) {
    std::vector<int> c(L);
    std::vector<float> v(L, 1.0f);
    uint64_t s = 27;
    for (int j = 0; j < L; ++j) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        c[j] = random ? (int)((s >> 33) % (uint64_t)xn) : j % xn;
    }
    check(cudaMemcpy(colIdx, c.data(), sizeof(int) * L, cudaMemcpyHostToDevice), "copy col");
    check(cudaMemcpy(val, v.data(), sizeof(float) * L, cudaMemcpyHostToDevice), "copy val");
}

int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes\n", prop.name, prop.multiProcessorCount, prop.major,
                prop.minor, prop.l2CacheSize);
    std::printf("name,param,value,unit,note\n");
    const int L = 16384;
    const size_t flushBytes = (size_t)512 << 20;
    int *rowPtr, *colIdx;
    float *val, *x, *y;
    unsigned char* flush;
    check(cudaMalloc(&rowPtr, sizeof(int) * 2), "malloc rowPtr");
    check(cudaMalloc(&colIdx, sizeof(int) * L), "malloc col");
    check(cudaMalloc(&val, sizeof(float) * L), "malloc val");
    check(cudaMalloc(&x, sizeof(float) << 25), "malloc x");
    check(cudaMalloc(&y, sizeof(float)), "malloc y");
    check(cudaMalloc(&flush, flushBytes), "malloc flush");
    check(cudaMemset(x, 0, sizeof(float) << 25), "memset x");
    auto launch = [&] { spmvCsrThreadPerRow<<<1, 32>>>(rowPtr, colIdx, val, x, y, 1); };
    auto cold = [&] {
        std::vector<double> t;
        for (int i = 0; i < 10; ++i) {
            check(cudaMemset(flush, i, flushBytes), "flush");
            t.push_back(eventsAround(launch));
        }
        std::sort(t.begin(), t.end());
        return 0.5 * (t[4] + t[5]);
    };
    int rp[2] = {0, 0};
    check(cudaMemcpy(rowPtr, rp, sizeof rp, cudaMemcpyHostToDevice), "copy rowPtr");
    row("lonerow_empty_warm", "L=0", 1e3 * eventTime(launch), "us", "one warp, a row of no entries: the floor");
    row("lonerow_empty_cold", "L=0", 1e3 * cold(), "us", "the same after a 512 MiB memset, median of 10");
    rp[1] = L;
    check(cudaMemcpy(rowPtr, rp, sizeof rp, cudaMemcpyHostToDevice), "copy rowPtr");
    char prm[64];
    for (int lg : {10, 20, 25}) {
        for (int random = 0; random < 2; ++random) {
            fill(colIdx, val, L, 1 << lg, random);
            std::snprintf(prm, sizeof prm, "x=2^%d cols=%s", lg, random ? "random" : "in order");
            row("lonerow_warm", prm, 1e3 * eventTime(launch), "us",
                "one lane walks 16384 entries; 3 warm-ups, 10 launches back to back");
            row("lonerow_cold", prm, 1e3 * cold(), "us",
                "the same, each launch after a 512 MiB memset (L2 evicted), median of 10");
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

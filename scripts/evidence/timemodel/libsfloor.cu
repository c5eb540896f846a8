// libsfloor.cu — the libs lesson's CSR-vector kernels at 2^14 rows, timed
// from C (issue 27, held out; docs/timemodel.md, "What it gets wrong").
// Under the lessons' protocol from Go they take 10.6 µs a call at the
// median on the H100 against 5.2 µs alone on the GPU (Nsight Compute), and
// a copy of the same GPU time costs about 6–7 µs a call from C
// (memgap.cu). This compiles the lesson's own kernels (lessons/libs/libs.cu,
// included) and times spmvVector2 and spmvVector8 on a matrix of the
// uniform family's shape (16,384 rows, 12 to 20 nonzeros a row, random
// columns, a fixed seed), launched as the lesson launches them (blocks of
// 256, rows × W threads), three ways:
//   call    eventTime: 3 warm-ups, events around 10 launches back to back
//   queued  gpuTime: 20 launches queued behind a 3 ms spin (the GPU's own)
//   alone   one launch between two events after a synchronize, median of 21
// If the call is about the queued time (or the floor, whichever is
// longer) here, what the lesson's calls add from Go is the Go side's.
// CSV rows: name,param,value,unit,note.
//
//   nvcc -O3 -arch=native -std=c++17 -I scripts/evidence/timemodel -o libsfloor libsfloor.cu
#include "bench.cuh"

#include "../../../lessons/libs/libs.cu"

int main() {
    deviceHeader();
    const int rows = 1 << 14;
    std::vector<int> rp(rows + 1), ci;
    std::vector<float> v;
    uint64_t s = 1;
    auto next = [&] {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (unsigned)(s >> 33);
    };
    for (int r = 0; r < rows; ++r) {
        rp[r] = (int)ci.size();
        int len = 12 + (int)(next() % 9);
        for (int k = 0; k < len; ++k) {
            ci.push_back((int)(next() % rows));
            v.push_back(1.0f);
        }
    }
    rp[rows] = (int)ci.size();
    const int nnz = rp[rows];
    int *dRp, *dCi;
    float *dV, *dX, *dY;
    check(cudaMalloc(&dRp, sizeof(int) * (rows + 1)), "malloc");
    check(cudaMalloc(&dCi, sizeof(int) * nnz), "malloc");
    check(cudaMalloc(&dV, sizeof(float) * nnz), "malloc");
    check(cudaMalloc(&dX, sizeof(float) * rows), "malloc");
    check(cudaMalloc(&dY, sizeof(float) * rows), "malloc");
    check(cudaMemcpy(dRp, rp.data(), sizeof(int) * (rows + 1), cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(dCi, ci.data(), sizeof(int) * nnz, cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(dV, v.data(), sizeof(float) * nnz, cudaMemcpyHostToDevice), "copy");
    check(cudaMemset(dX, 0, sizeof(float) * rows), "memset");
    char p[64];
    std::snprintf(p, sizeof p, "rows=2^14 nnz=%d", nnz);
    callQueuedAlone("vector2", p, [&] { spmvVector2<<<(rows * 2 + 255) / 256, 256>>>(dRp, dCi, dV, dX, dY, (size_t)rows); }, "the lesson's kernel, launched as the lesson launches it");
    callQueuedAlone("vector8", p, [&] { spmvVector8<<<(rows * 8 + 255) / 256, 256>>>(dRp, dCi, dV, dX, dY, (size_t)rows); }, "the lesson's kernel, launched as the lesson launches it");
    callQueuedAlone("vector2", p, [&] { spmvVector2<<<(rows * 2 + 255) / 256, 256>>>(dRp, dCi, dV, dX, dY, (size_t)rows); }, "the lesson's kernel, launched as the lesson launches it");
    return 0;
}

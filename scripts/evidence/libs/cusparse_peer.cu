// SPDX-License-Identifier: MIT
//
// cusparse_peer.cu: the peer of the "How libraries win" lesson
// (lessons/libs). It times cusparseSpMV on exactly the matrices our kernels
// ran on, in the same GPU call (scripts/evidence/libs.sh), with the
// lesson's protocol: CUDA events, 3 warm-ups, then 10 timed runs (mean from
// one event pair around all 10, min from an event pair around each), and
// checks cuSPARSE's y against the lesson's CPU reference with the lesson's
// tolerance (1e-5 of each row's sum of |val*x|).
//
// Input: files written by `warplab run libs --dump DIR` (lessons/libs
// WriteCSR): "WLCSR01\0", rows, cols, nnz (int64), rowPtr, colIdx (int32),
// val, x, reference y, row scales (float32), little-endian.
//
// For each matrix and each of CUSPARSE_SPMV_ALG_DEFAULT and
// CUSPARSE_SPMV_CSR_ALG2: the one-time preparation (buffer size query,
// buffer allocation, and cusparseSpMV_preprocess when built with
// -DWARPLAB_PREPROCESS, CUDA 12.4 and later) is timed on the host's clock
// apart from the SpMV, as the lesson times its own binning and merge-path
// partitions. Before the matrices, a cudaMemcpy device to device of
// --copy-mib MiB (default 256) gives the copy bandwidth reference.
//
// Output: one JSON object a line on stdout (lessons/libs PeerRun).
//
// Build (on the GPU host): nvcc -O3 -o cusparse_peer cusparse_peer.cu -lcusparse
// Run:   cusparse_peer [--copy-mib N] DIR/*.csr

#define WARPLAB_PROG "cusparse_peer"
#include "devcsr.cuh"

#include <chrono>
#include <cstring>
#include <string>

static const int kWarmups = 3, kRuns = 10;

// timeIt: warm-ups, then the mean over kRuns between two events, then the
// fastest of kRuns each between its own two events.
template <typename F>
static void timeIt(F f, double& meanMs, double& minMs) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < kWarmups; ++i) f();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(a));
    for (int i = 0; i < kRuns; ++i) f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    meanMs = ms / kRuns;
    minMs = 1e30;
    for (int i = 0; i < kRuns; ++i) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        minMs = std::min(minMs, (double)ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
}

static std::string gpuName;
static int driverVersion = 0, cusparseVersion = 0;

static void printLine(const std::string& matrix, const char* alg, double meanMs, double minMs, double prepMs,
                      long long bytes, double maxErr, bool correct) {
    printf("{\"matrix\":\"%s\",\"alg\":\"%s\",\"mean_ms\":%.6f,\"min_ms\":%.6f,\"prep_ms\":%.6f,\"bytes\":%lld,"
           "\"max_rel_err\":%.3g,\"correct\":%s,\"gpu\":\"%s\",\"driver\":%d,\"cusparse\":%d}\n",
           matrix.c_str(), alg, meanMs, minMs, prepMs, bytes, std::isfinite(maxErr) ? maxErr : 1e30,
           correct ? "true" : "false", gpuName.c_str(), driverVersion, cusparseVersion);
    fflush(stdout);
}

int main(int argc, char** argv) {
    long long copyMiB = 256;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--copy-mib") == 0) {
        copyMiB = atoll(argv[2]);
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: cusparse_peer [--copy-mib N] FILE.csr...\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    gpuName = prop.name;
    CK(cudaDriverGetVersion(&driverVersion));
    cusparseHandle_t h;
    CS(cusparseCreate(&h));
    CS(cusparseGetVersion(h, &cusparseVersion));

    if (copyMiB > 0) {
        size_t bytes = (size_t)copyMiB << 20;
        void *src, *dst;
        CK(cudaMalloc(&src, bytes));
        CK(cudaMalloc(&dst, bytes));
        CK(cudaMemset(src, 1, bytes));
        double mean, mn;
        timeIt([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0)); }, mean, mn);
        printLine("", "memcpy", mean, mn, 0, (long long)bytes, 0, true);
        CK(cudaFree(src));
        CK(cudaFree(dst));
    }

    int failures = 0;
    for (int a = first; a < argc; ++a) {
        Csr m;
        loadCsr(argv[a], m);
        const std::string key = keyOf(argv[a]);
        DevCsr d(m);
        const float alpha = 1.0f, beta = 0.0f;
        struct {
            cusparseSpMVAlg_t alg;
            const char* name;
        } algs[] = {{CUSPARSE_SPMV_ALG_DEFAULT, "CUSPARSE_SPMV_ALG_DEFAULT"},
                    {CUSPARSE_SPMV_CSR_ALG2, "CUSPARSE_SPMV_CSR_ALG2"}};
        std::vector<float> y(m.rows);
        for (auto& al : algs) {
            CK(cudaDeviceSynchronize());
            auto t0 = std::chrono::steady_clock::now();
            size_t bufBytes = 0;
            CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.A, d.X, &beta, d.Y, CUDA_R_32F,
                                       al.alg, &bufBytes));
            void* buf = nullptr;
            CK(cudaMalloc(&buf, std::max<size_t>(bufBytes, 1)));
#ifdef WARPLAB_PREPROCESS
            CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.A, d.X, &beta, d.Y, CUDA_R_32F,
                                       al.alg, buf));
#endif
            CK(cudaDeviceSynchronize());
            const double prepMs =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            auto spmv = [&] {
                CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.A, d.X, &beta, d.Y, CUDA_R_32F, al.alg,
                                buf));
            };
            // One checked run; y is NaN first (all bytes 0xff), so a row
            // never written fails.
            CK(cudaMemset(d.y, 0xff, sizeof(float) * m.rows));
            spmv();
            CK(cudaMemcpy(y.data(), d.y, sizeof(float) * m.rows, cudaMemcpyDeviceToHost));
            const double maxErr = maxRelErr(m, y);
            const bool correct = maxErr <= kTolerance;
            if (!correct) ++failures;
            double mean, mn;
            timeIt(spmv, mean, mn);
            printLine(key, al.name, mean, mn, prepMs, 0, maxErr, correct);
            CK(cudaFree(buf));
        }
    }
    CS(cusparseDestroy(h));
    if (failures) fprintf(stderr, "cusparse_peer: %d wrong outputs\n", failures);
    return failures ? 1 : 0;
}

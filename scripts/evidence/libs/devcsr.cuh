// SPDX-License-Identifier: MIT
//
// devcsr.cuh: what the programs run beside the lesson (cusparse_peer.cu,
// l2persist.cu) do alike with a matrix file (csrfile.h) on the device:
// fail loudly on a CUDA or cuSPARSE error (CK, CS: the call, file and line
// after the program's name, WARPLAB_PROG, defined before the include) or
// on a file it cannot read (loadCsr), upload the matrix with its cuSPARSE
// descriptors (DevCsr), and check a y against its reference with the
// lesson's tolerance (maxRelErr).
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "csrfile.h"

#ifndef WARPLAB_PROG
#error "define WARPLAB_PROG (the program's name, for its error messages) before including devcsr.cuh"
#endif

// fail reports a failed call after the program's name and exits.
[[noreturn]] static void fail(const char* file, int line, const char* call, const char* why) {
    fprintf(stderr, WARPLAB_PROG ": %s:%d %s: %s\n", file, line, call, why);
    exit(1);
}
#define CK(call)                                                                  \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fail(__FILE__, __LINE__, #call, cudaGetErrorString(e_));              \
        }                                                                         \
    } while (0)
#define CS(call)                                                                  \
    do {                                                                          \
        cusparseStatus_t s_ = (call);                                             \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                      \
            fail(__FILE__, __LINE__, #call, cusparseGetErrorString(s_));          \
        }                                                                         \
    } while (0)

// loadCsr reads a matrix file (readCsr), or says why it cannot after the
// program's name and exits.
static void loadCsr(const char* path, Csr& m) {
    std::string err;
    if (!readCsr(path, m, err)) {
        fprintf(stderr, WARPLAB_PROG ": %s\n", err.c_str());
        exit(1);
    }
}

// kTolerance is the lesson's: |y - reference| at most 1e-5 of the row's
// sum of |val * x|.
static const double kTolerance = 1e-5;

// DevCsr is a matrix on the device (x uploaded, y allocated) with its
// cuSPARSE descriptors; the destructor frees both.
struct DevCsr {
    int32_t *row = nullptr, *col = nullptr;
    float *val = nullptr, *x = nullptr, *y = nullptr;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;

    explicit DevCsr(const Csr& m) {
        CK(cudaMalloc(&row, sizeof(int32_t) * (m.rows + 1)));
        CK(cudaMalloc(&col, sizeof(int32_t) * std::max<int64_t>(m.nnz, 1)));
        CK(cudaMalloc(&val, sizeof(float) * std::max<int64_t>(m.nnz, 1)));
        CK(cudaMalloc(&x, sizeof(float) * std::max<int64_t>(m.cols, 1)));
        CK(cudaMalloc(&y, sizeof(float) * std::max<int64_t>(m.rows, 1)));
        CK(cudaMemcpy(row, m.rowPtr.data(), sizeof(int32_t) * (m.rows + 1), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(col, m.colIdx.data(), sizeof(int32_t) * m.nnz, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(val, m.val.data(), sizeof(float) * m.nnz, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(x, m.x.data(), sizeof(float) * m.cols, cudaMemcpyHostToDevice));
        CS(cusparseCreateCsr(&A, m.rows, m.cols, m.nnz, row, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        CS(cusparseCreateDnVec(&X, m.cols, x, CUDA_R_32F));
        CS(cusparseCreateDnVec(&Y, m.rows, y, CUDA_R_32F));
    }
    DevCsr(const DevCsr&) = delete;
    DevCsr& operator=(const DevCsr&) = delete;
    ~DevCsr() {
        CS(cusparseDestroySpMat(A));
        CS(cusparseDestroyDnVec(X));
        CS(cusparseDestroyDnVec(Y));
        CK(cudaFree(row));
        CK(cudaFree(col));
        CK(cudaFree(val));
        CK(cudaFree(x));
        CK(cudaFree(y));
    }
};

// maxRelErr is the largest |y - reference| over its row's scale (1 where
// the scale is 0), +Inf where a row is NaN: y is correct when it is at
// most kTolerance.
static double maxRelErr(const Csr& m, const std::vector<float>& y) {
    double maxErr = 0;
    for (int64_t r = 0; r < m.rows; ++r) {
        const double s = m.scale[r] == 0 ? 1.0 : (double)m.scale[r];
        const double e = std::fabs((double)y[r] - (double)m.want[r]) / s;
        maxErr = std::max(maxErr, std::isnan(e) ? INFINITY : e);
    }
    return maxErr;
}

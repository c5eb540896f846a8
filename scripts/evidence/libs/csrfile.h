// SPDX-License-Identifier: MIT
//
// csrfile.h: a matrix file written by `warplab run libs --dump DIR`
// (lessons/libs WriteCSR) as the programs run beside the lesson read it
// (cusparse_peer.cu, l2persist.cu): "WLCSR01\0", rows, cols, nnz (int64),
// rowPtr, colIdx (int32), val, x, reference y, row scales (float32),
// little-endian. keyOf is the matrix's key, the file's name without
// ".csr", as the lesson's results name it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

struct Csr {
    int64_t rows = 0, cols = 0, nnz = 0;
    std::vector<int32_t> rowPtr, colIdx;
    std::vector<float> val, x, want, scale;
};

template <typename T>
static bool readN(FILE* f, std::vector<T>& v, int64_t n) {
    v.resize((size_t)n);
    return n == 0 || fread(v.data(), sizeof(T), (size_t)n, f) == (size_t)n;
}

static bool readCsr(const char* path, Csr& m, std::string& err) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        err = std::string("cannot open ") + path;
        return false;
    }
    char magic[8];
    int64_t dims[3];
    bool ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, "WLCSR01\0", 8) == 0;
    if (!ok) {
        err = std::string(path) + ": not a warplab CSR file (magic)";
    } else if (fread(dims, sizeof(int64_t), 3, f) != 3 || dims[0] < 0 || dims[1] < 0 || dims[2] < 0 ||
               dims[2] > INT32_MAX) {
        ok = false;
        err = std::string(path) + ": bad header";
    } else {
        m.rows = dims[0], m.cols = dims[1], m.nnz = dims[2];
        ok = readN(f, m.rowPtr, m.rows + 1) && readN(f, m.colIdx, m.nnz) && readN(f, m.val, m.nnz) &&
             readN(f, m.x, m.cols) && readN(f, m.want, m.rows) && readN(f, m.scale, m.rows);
        if (!ok) err = std::string(path) + ": truncated";
        else if (m.rowPtr[0] != 0 || m.rowPtr[m.rows] != m.nnz) {
            ok = false;
            err = std::string(path) + ": rowPtr does not run from 0 to nnz";
        }
    }
    fclose(f);
    return ok;
}

static std::string keyOf(const char* path) {
    std::string s(path);
    size_t slash = s.find_last_of('/');
    if (slash != std::string::npos) s = s.substr(slash + 1);
    if (s.size() > 4 && s.substr(s.size() - 4) == ".csr") s = s.substr(0, s.size() - 4);
    return s;
}

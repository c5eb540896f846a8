// Package sparse holds the sparse-matrix formats the SpMV lessons run on:
// COO for assembly, CSR for the kernels, the counting-sort conversion
// between them, validation, a float64-accumulated CPU reference, and a
// Matrix Market reader for the SuiteSparse Matrix Collection's files.
//
// # Why CSR with int32 offsets
//
// A CSR matrix is three arrays: RowPtr (Rows+1 offsets), ColIdx and Val (one
// per stored entry). Row r owns the half-open range RowPtr[r]:RowPtr[r+1].
// The offsets and column indices are int32 and the values float32 because
// that is the layout the Day-37 CUDA kernels take and the one cuSPARSE's
// 32-bit index path (CUSPARSE_INDEX_32I) uses; almost every published SpMV
// kernel assumes it. It halves the index traffic of 64-bit offsets, which
// matters because SpMV is bound by the bytes it streams, and it caps a
// matrix at 2^31-1 rows, columns and nonzeros. Every constructor here
// (ToCSR, the reader) refuses sizes beyond that instead of wrapping.
//
// A CSR also costs a row pointer per row however few its entries, so ToCSR
// and ReadCSR refuse, before allocating, rows or columns beyond
// DimLimit(nnz) = max(2^24, 16·nnz): a Matrix Market header that claims
// 10^9 rows and stores one entry is an error naming its size line, not an
// 8 GB allocation. ReadMatrixMarket's COO, which costs nothing per row,
// keeps the whole int32 range. MinDimLimit says why these numbers.
//
// The kernels index without bounds checks: they assume RowPtr starts at 0,
// never decreases and ends at NNZ, and that every column is in [0, Cols).
// (*CSR).Validate checks exactly that, so a bad matrix is an error on the
// host, naming the row, rather than an out-of-bounds read on the device.
//
// # Matrix Market files
//
// ReadMatrixMarket reads "matrix coordinate" files with real, integer or
// pattern values (pattern entries get the value 1). Symmetric files store one
// triangle; the reader expands them to the full matrix, because the kernels
// multiply by every stored entry and know nothing of symmetry: each
// off-diagonal entry (i, j) also becomes (j, i), negated for skew-symmetric
// files, and diagonal entries are stored once. Duplicates are summed in
// float64 and rounded once; explicitly stored zeros stay entries, since they
// cost the kernels the same loads as any other entry. ReadCSR then gives the
// layout the recorded GPU measurements used: expanded, columns ascending
// within each row, explicit zeros kept.
//
// Malformed files are errors, never panics, and the error (a *ParseError)
// names the line.
package sparse

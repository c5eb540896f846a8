// Package sweep is the time model's recorded sweep (issue 27, milestone
// 2): a fixed list of kernels and inputs that spans the regimes from the
// host's launch floor to DRAM bandwidth, run on a GPU (measured, CUDA
// events) or on the simulator (modeled), one JSON line per case.
//
// # Families fixed before runs
//
// The cases come in FAMILIES, declared here in code before any run was
// looked at (commit of 2026-12-04, before the first device call): a family
// is the unit a leave-one-family-out check leaves out, so it must not be
// chosen, split or merged after seeing how the model does on it. Adding a
// family later is allowed (a new shape); moving a case between families,
// dropping a case or a size because the model misses it, is not. The
// families and their sizes:
//
//   - matmul: the tiling lesson's matmulNaive, matmulTiled and
//     matmulTiledCoarse4 (TILE 16), N = 256 to 8192 (powers of two).
//   - transpose: the tiling lesson's transposeNaive, transposeShared and
//     transposeSharedPadded (32x32 tiles), N = 256 to 8192.
//   - spmv-<matrix family>: the SpMV lesson's spmvCsrThreadPerRow and
//     spmvCsrWarpPerRow on sparse/gen's matrices (uniform, banded,
//     denserows, blockdiag, road, stencil27, powerlaw15, powerlaw20,
//     powerlaw25, powerlaw20c), 2^12, 2^15, 2^18, 2^21 and 2^23 rows
//     (stencil27 up to 2^21: its 27 entries a row make 2^23 rows a 225 M
//     entry matrix), seed 1, x in [0.5, 1.5). Each matrix family is its
//     own sweep family: its row-length distribution is the shape.
//   - cg: the CG lesson's stage 5 (coalesced SpMV, GPU-resident) kernels
//     spmv, waxpby and ddot, per call, at 20³, 50³, 100³ and 150³.
//   - our own kernels (kernels.cu, none a lesson's, compiled to the
//     repository's compute_75 PTX): stream (copyKernel, copyStrided with
//     stride 33, saxpy), reduce (reduceInterleaved, reduceStridedIndex,
//     reduceSequential, reduceShfl), scan (scanBlock), histogram
//     (histGlobal, histShared, on uniformly random values and on values
//     that all fall in one bin), stencil1d (stencil1D), all at n = 2^12,
//     2^16, 2^20, 2^24 and 2^26 elements (histogram 2^16, 2^20, 2^24);
//     stencil2d (stencil2D) on n x n grids, n = 64 to 8192; gemm
//     (gemmShared, gemmSharedConflict, gemmSharedPadded) N = 256 to 4096.
//
// The kernels of one input form the pairs a check asks the model to order
// (Input.Name within a family: the same matrix, the same N, the same n).
//
// # Protocol
//
// On a GPU every case is checked first (one launch, its output against a
// CPU reference: in full, or at 512 sampled entries where a full product
// would take the CPU minutes) and then timed with gpuext's Device.Time, 3
// warm-ups and 10 runs (the lessons' protocol): the events around the 10
// back-to-back runs give MeanMs (what the lessons print, and what the
// check compares), per-run events the median and the fastest run. CG
// cases are the CG lesson's own per-kernel event replays (the same 3 and
// 10) in a two-iteration solve. On the simulator every case is launched
// once and its modeled time read off the launch (what the lessons do).
package sweep

// Package spmv is the lesson "Day 37 — SpMV two ways": sparse matrix-vector
// multiplication in CSR, one thread per row against one warp per row, on two
// matrices that hold exactly the same nonzeros.
//
// # The story the seed tells
//
// The variable is the shape of the data, not the code. The "even" matrix
// has 16 nonzeros in every row; the "skewed" one has, in every aligned group
// of 32 rows, 31 rows of 3 and one of 419 — the same 512 nonzeros a group,
// so both hold Rows×16. A group of 32 rows is one warp of the thread-per-row
// kernel, so the imbalance lands inside a warp: 31 lanes finish after 3
// steps and wait while one lane walks 419.
//
// Before any kernel runs, the lesson predicts what each kernel issues, in
// lane-slots (one lane of one issued warp step), from the row lengths alone:
//
//	even,   thread per row:   8,388,608 lane-slots, 100.0% useful
//	even,   warp per row:    16,777,216,             50.0%
//	skewed, thread per row: 219,676,672,              3.8%
//	skewed, warp per row:    23,592,960,             35.6%
//
// (2^19 rows.) Then it runs a stream probe — the same multiply and gather
// with the rows taken away, the floor — and both SpMV kernels on both
// matrices, checks every y against a float64 CPU reference (relative
// tolerance 1e-5, the first wrong row named) and the probe's total against
// the reference's, and prints each time as a multiple of the probe's
// ("x floor"). The timings are then read against the prediction.
//
// # The one change to the seed
//
// The seed's probe grid is 320 blocks: 8 per SM of the T4's 40 SMs. On an
// H200 (132 SMs) that grid is 2.4 blocks per SM, and the "floor" measured
// 0.076 ms while thread per row on the even matrix took 0.041 ms. The probe
// here is sized from the device (8 blocks per SM); Options.ProbeBlocks = 320
// brings the seed's grid back, and the text says why it is no floor.
//
// # One form of each kernel
//
// spmv.cu holds the CUDA C (embedded, with its PTX from nvcc 11.8 for
// compute_75, generated with line information). Module gives gpuext both:
// a GPU runs the CUDA C (a cubin from a local nvcc) or the PTX, and the
// simulator executes the PTX, so what it counts follows what the compiler
// emitted, instruction counts included. There is no Go copy of the kernels.
// The *_unroll1 variants keep the row loop rolled (#pragma unroll 1); for
// those the simulator's global-load requests and sectors equal Nsight
// Compute's exactly, on the seed's matrices and on real SuiteSparse
// matrices. The default kernels' PTX holds nvcc's unrolling (by four,
// remainder first), which changes which addresses a warp fetches together
// where its lanes' trip counts differ. ptxas may
// restructure such a loop again below the PTX, and then the PTX-level
// counts and ncu's part (lecture 4's spmvCsrThread does; docs/design-notes.md);
// on the seed's matrices they agree (TestPTXPathEqualsNCUSeed). Since
// one source line reads colIdx, val and x, LoadSites tells the loads apart
// by the pointer parameter each address derives from in the PTX.
//
// Run does it all on a gpuext.Device; Predict gives the prediction alone,
// without a device; Lesson is the lesson as `warplab run spmv` runs it
// (package lessons/lesson: --rows, --matrix, --probe-blocks, --unroll 1|4).
package spmv

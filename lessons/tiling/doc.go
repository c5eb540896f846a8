// Package tiling is lecture 4 of warplab: the same computation, rearranged so
// that threads fetch less and fetch it better.
//
// The lecture's four ideas, each a kernel pair in tiling.cu. The kernels
// exist once, in CUDA C: the GPU loads them (nvcc's cubin, or the embedded
// tiling.ptx JIT-compiled by the driver) and the simulator executes the same
// tiling.ptx (nvcc 11.8, compute_75), so what it counts is what nvcc emitted,
// not a hand-written copy:
//
//   - Tiling. The naive matrix product loads a row of A and a column of B
//     per output element, 2N^3 global loads for 2N^3 flops. The tiled kernel
//     stages TILE x TILE pieces of A and B in shared memory and uses each
//     loaded element TILE times: 2N^3/TILE loads. Two barriers per phase make
//     it correct; the NoSync variants drop one each and the simulator names
//     the racing threads and the shared word. The slide version (N/TILE
//     phases, no bounds checks) reads past A when TILE does not divide N;
//     the simulator names the block, thread and index of the first access
//     outside every buffer (at N = 40 that is the store C[1600]: buffers
//     lie 256-byte aligned and back to back, as cudaMalloc may place them,
//     so A[1600] is B[0], a wrong value but a valid address).
//   - Thread coarsening. Horizontally adjacent output tiles share their strip
//     of A; a block that computes COARSE of them loads each A tile once, so A
//     loads drop to N^3/(TILE*COARSE) while B stays at N^3/TILE.
//   - Coalescing and bank conflicts. A naive transpose reads rows (four
//     sectors per warp request) but writes columns (32 sectors). Staging a
//     tile in shared memory makes both sides coalesced but writes a column of
//     a 32 x 32 shared array, 32 lanes in one bank: a 32-way conflict. One
//     padding column (32 x 33) spreads them over all 32 banks.
//   - Sparse matrices. A dense matrix is converted to CSR on the device (a
//     row count, a host scan, a fill), then multiplied by a vector a thread
//     per row (the lecture's kernel: uncoalesced, divergent on uneven rows)
//     and a warp per row (coalesced; partial sums added by a shared-memory
//     tree, or by shuffles).
//
// Run executes all of it on a gpuext.Device and returns a Result: counters
// per kernel (requests, sectors, shared wavefronts, bank conflicts, modeled
// DRAM bytes), the load sweep over TILE and COARSE next to the formulas
// (LoadFormula), roofline data for every device model, and the bug
// demonstrations. Every output is checked against a CPU reference that adds
// in the kernel's order; because the CUDA C spells products and sums
// __fmul_rn/__fadd_rn (no FMA contraction: mul.rn and add.rn in the PTX) and
// the reference writes float32(a*b), the GPU, the simulator and the CPU agree
// bit for bit, and the tiled and coarsened products equal the naive one
// exactly.
//
// Counters are the simulator's on the PTX it runs. The load sweep splits a
// matmul's loads into A's and B's by following each load's address back to
// its pointer parameter (loads.go), since one source line reads both. The
// counters equal Nsight Compute's on the H200 for every kernel but
// spmvCsrThread, whose row loop ptxas restructures below the PTX: the PTX
// gives 2,244 load requests at N = 256, the GPU's SASS 2,400 (ncu). The
// difference is measured and shown (TestSimulatorEqualsNCU, the notebook's
// counter table), not corrected.
//
// Lesson is the lesson as `warplab run tiling` runs it (package
// lessons/lesson: --n, --tile, --coarse, --sweep-n, --transpose-tile,
// --no-sweep, --no-demos).
package tiling

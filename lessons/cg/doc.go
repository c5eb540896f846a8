// Package cg is the lesson "Porting a CG solver to the GPU, one step at a
// time", rebuilt from an article that ports HPCCG to CUDA.
//
// # Why CG
//
// HPCCG is a Mantevo mini-application: an unpreconditioned conjugate gradient
// solver and nothing else. CG is a good porting target because almost all of
// its work is three kernels — a sparse matrix-vector product (SpMV), the
// vector update w = alpha·x + beta·y (waxpby) and the dot product (ddot) —
// strung together by a short loop with two global reductions per iteration.
// Every porting decision is a decision about where one line of that loop runs
// and where its data lives, which makes the cost of each decision visible.
//
// # The problem
//
// The matrix is a 27-point stencil on an NX×NY×NZ grid: every grid point is
// coupled to itself (27.0) and to each of its up to 26 neighbours in the
// surrounding 3×3×3 block (−1.0). The right-hand side is chosen so the exact
// solution is all ones, and CG starts from zero. HPCCG always runs 149
// iterations (max_iter 150, tolerance 0), so runs of different ports compare
// iteration for iteration. Generate builds the problem exactly as HPCCG's
// generate_matrix does (see its comment for the index arithmetic); CSR is the
// flattened storage the article's first step introduces, with int32 indices
// because the CUDA kernels take them.
//
// Each row holds at most 27 nonzeros and the SpMV reads about 12 bytes per
// nonzero for 2 flops, so every kernel here is bound by memory bandwidth,
// not arithmetic. On the CPU SpMV takes about 85% of the time (the article's
// profile at 100³: SpMV 83.5%, waxpby 10.1%, ddot 6.4%).
//
// # Stages
//
// One solver loop; each stage moves where its lines run:
//
//	0  CPU baseline in Go (SolveCPU). Serial, it reproduces HPCCG's residual
//	   history bit for bit (testdata holds HPCCG's own); a goroutine version
//	   shows what re-associating the dot product does to the last bits.
//	1  SpMV on the GPU, the rest on the CPU: p goes up and Ap comes down every
//	   iteration. The hot spot gets faster; the copies eat the gain.
//	2  All three kernels on the GPU, vectors still copied back and forth as a
//	   naive port does: more kernels on the device, still slower than hoped.
//	3  GPU-resident: the working set stays on the device, alpha and beta are
//	   computed there, and one scalar per iteration comes back for the
//	   convergence check. Host timers around asynchronous launches now read
//	   near zero; CUDA events tell the truth.
//	4  Swap the two scalar buffers instead of copying one into the other:
//	   148 fewer copies, little time saved — removing many operations is not
//	   removing the expensive ones.
//	5  Follow the bottleneck: the thread-per-row SpMV wastes most of its
//	   memory sectors on uncoalesced loads (the simulator: 71–72%, the
//	   article's ncu run: ~72%). An SpMV with eight threads per row coalesces
//	   them (about 24% excessive); the simulator and Nsight Compute count the
//	   sectors before and after.
//	6  Fuse what is left: ddot's second pass with the divide, and the two
//	   updates x += alpha·p, r −= alpha·Ap with the next r·r's partial sums
//	   (ddotFinalDivide, updateXRDot). Six launches per iteration instead
//	   of ten, the same arithmetic in the same order: stage 5's residuals
//	   bit for bit. Each GPU stage also reports its kernel bytes per
//	   iteration against the copy bandwidth measured in the same run, and
//	   where the rest of its time goes (bandwidth.go).
//	7  Stop waiting: in stage 6 the host downloads r·r synchronously every
//	   iteration and queues nothing until it has it, so the GPU idles while
//	   the host catches up (about 10 of stage 6's 31.7 ms on the H200 at
//	   100³). Stage 7 reads r·r with gpuext's Buffer.ReadAsync and queues
//	   iteration k+1 before it waits for iteration k's value: the
//	   convergence check runs one iteration behind. x, r, p and the scalars
//	   are double-buffered and every update writes the other set
//	   (updateXRDotTo is updateXRDot out of place), so when the check ends
//	   the loop the iteration queued ahead is discarded and reported as
//	   speculative. Same kernels and arithmetic: stage 6's residuals and x
//	   bit for bit (pipelined.go).
//	8  Follow the bottleneck to its end: stage 7's SpMV streams the CSR
//	   matrix (vals, cols, rowPtr: 324 MB per call at 100³) to multiply by
//	   a matrix whose every entry is known from the grid. spmvStencil27
//	   computes row (ix, iy, iz) from the grid instead: HPCCG's neighbour
//	   order (sz outer, sx inner), its skipping of neighbours off the grid,
//	   27.0 on the diagonal and −1.0 off it, summed from 0.0 without fused
//	   multiply-adds. The terms and their order are the stored row's, so Ap
//	   is the thread-per-row CSR SpMV's bit for bit, and stage 8 is stage 7
//	   with ThreadsPerRow 1 bit for bit (residuals, x, launches, copies).
//	   It reads p and writes Ap, 16 bytes a row, and no matrix is uploaded.
//	   What it gives up: the code solves this one matrix, not an arbitrary
//	   sparse one.
//
//	9  Take the host out of the loop: stages 7 and 8 still read r·r on the
//	   host every iteration, and the GPU idles whenever the host falls
//	   behind (about 11 of stage 7's 34 ms on the H200 at 100³). Stage 9
//	   checks convergence on the device: cgBetaUpdateP decides from a small
//	   state in device memory whether iteration k runs, writes the residual
//	   history there, and tells every later kernel to do nothing once the
//	   loop has ended. One iteration is three kernels (the scalar
//	   divisions ride in every block of the kernels that need them, the
//	   p·Ap partials in the SpMV); batches of 16 iterations are recorded
//	   once as graphs (gpuext.Device.Record) and replayed; the host reads
//	   the state after every batch, one batch behind, and the history once
//	   at the end.
//	   The SpMV is spmvCsrVector<W>: stage 5's CSR-vector with W fixed at
//	   compile time, four steps of a row a pass with the group's lanes
//	   together, read-only loads; W = 8 by default (CompareVectorWidths has
//	   the simulator's counters per W). Ap is stage 7's bit for bit; p·Ap
//	   is summed in another order, so the history is within tolerance
//	   (deviceloop.go).
//	10 Stage 9 with the matrix-free SpMV (spmvStencil27Dot): stage 8's Ap
//	   bit for bit, and stage 9's history with ThreadsPerRow 1.
//
// Every stage reports a StageResult: iterations, HPCCG's final residual, the
// true residual ‖b − A·x‖, per-kernel time, calls and MFLOPS (flops counted
// as HPCCG counts them), copies and bytes each way, launches and wall time.
// A simulated time is labeled modeled, a measured one names its device.
//
// # Running the stages
//
// RunStage runs one stage on a gpuext.Device: a GPU (CUDA C from cg.cu,
// compiled by nvcc or loaded from cg.ptx) or the simulator, which executes
// cg.ptx itself (sim.LaunchPTX; the lesson has no Go mirrors). One kernel
// source serves both backends, so the simulator's counters follow what nvcc
// emitted: its memory sites are PTX loads named by cg.cu line (nvcc unrolls
// the thread-per-row row loop by four, so that loop's loads are several
// sites), and its instruction counts, which feed the time model, are the
// executed PTX's. On the simulator the outputs are the H200's bit for bit
// (tested against the recorded 20³ run and, at 8³, by `warplab selftest`
// on every GPU), and the CSR SpMVs' load requests and sectors at 100³ are
// Nsight Compute's (the subwarp kernel exactly, thread per row within
// 0.61%, where the sm_90 code pairs a few lanes' unrolled iterations
// differently). All GPU stages run one loop,
// cgLoop, HPCCG's; the stage only decides where each line runs (see RunStage
// for the table). On a GPU, per-kernel times are CUDA events from replaying
// each kernel after the solve, copies are host-timed, and the wall time is
// the host clock around the synchronized solve; on the simulator, kernel
// times come from the time model and copies from the model's PCIe bandwidth
// and latency, all labeled modeled. Both keep HPCCG's host timer around each
// call beside it, because that timer is the lesson: around an asynchronous
// launch it measures the launch.
//
// Numerics. Stage 1 runs HPCCG's SpMV bits on the device and the rest on the
// CPU, so its residual history is stage 0's bit for bit. Stages 2–4 add
// their dot products in a fixed tree and share their bits with one another;
// stage 5 also re-associates each row sum (with the default 8 threads per
// row; stages 6 and 7 inherit it), and stage 8 sums rows in stored order
// again, as stages 1–4 do; stages 9 and 10 keep 7's and 8's rows and sum
// p·Ap in the SpMV's order. Their histories agree with stage
// 0's within EarlyTolerance while the residual is above EarlyFloor·‖b‖, then
// drift apart by factors of order one as the recursive residual sinks below
// rounding (CompareResiduals; see EarlyFloor for why).
//
// Run(ctx, dev, Options) runs the stages on a device the caller opened;
// Lesson is the lesson as `warplab run cg` runs it (package lessons/lesson:
// --grid, --stage, --threads-per-row, --unroll 1|4, --max-iter); TimeBars, Convergence and
// TransfersHTML give the lesson's figure data and table from results, never
// from a device, so recorded GPU runs draw like live ones; TimePlot and
// ConvergencePlot draw the figures from them (figure.go, with plots/chart).
package cg

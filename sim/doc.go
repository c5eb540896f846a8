// Package sim is a SIMT simulator for CUDA kernels. It runs a kernel's PTX
// (LaunchPTX: the same PTX the GPU loads) or a kernel written in Go
// (Launch) over a grid of blocks of threads, the way a GPU would,
// and counts what the GPU's memory system would count: the requests and
// 32-byte sectors of every global load and store, the wavefronts and bank
// conflicts of every shared-memory access, how many lanes of each warp had
// work. It checks the kernel the way compute-sanitizer does (out-of-bounds
// accesses, shared-memory races, barriers not every thread reaches), and it
// predicts, from the counters and a device model, how long the launch would
// take on a T4, A100, H100 or H200. That prediction is always labelled
// "modeled"; the counters are exact by the rules below, which reproduce
// Nsight Compute's numbers for the lessons' kernels on an H200 (see
// lessons/spmv/fidelity_test.go and DESIGN.md).
//
// It exists so that a student without a GPU can see why one kernel is
// faster than another, and a student with one can check a prediction.
//
// # Threads, warps and blocks
//
// A launch has a grid of blocks and a block of threads, both Dim3 (x varies
// fastest). Inside a block, thread (x, y, z) has the linear id
// x + y*blockDim.x + z*blockDim.x*blockDim.y, and warps are 32 consecutive
// linear ids: warp w holds ids 32w .. 32w+31, lane = id % 32. A block of 40
// threads is a full warp and a warp of 8 lanes; the missing 24 lanes still
// occupy lane-slots, as on hardware.
//
// # Running PTX
//
// ptx.Parse reads a module's PTX; NewPTXKernel decodes one kernel of it once
// (register rows, variable layout, a counter site per memory instruction);
// Device.LaunchPTX runs it with *Global[T] buffers for pointer parameters
// and int32/uint32/int64/uint64/float32/float64 scalars that match each
// parameter's size. Execution is warp-wide: each decoded instruction is
// applied to the active lanes of one warp at once (ptxexec.go), with a
// register file of 32-slot rows and the per-lane arithmetic of ptx.Eval.
// Divergence follows the immediate-post-dominator stack of GPGPU-Sim and
// Ocelot: a branch whose lanes go both ways runs the fall-through path
// first, then the taken one, and the warp reconverges at the branch's
// Reconv (its immediate post-dominator, computed by package ptx). A block's
// warps run round-robin to each bar.sync; the barrier releases when every
// warp with live lanes has arrived (warps whose lanes all exited count as
// arrived, as on sm_70 and later).
//
// Memory: global addresses are the buffers' device addresses (a binary
// search over the device's live allocations); generic addresses (cvta) put
// module variables, the block's shared memory and the thread's local memory
// in windows below the first buffer (1<<32), so a generic ld/st resolves to
// the right space; .param reads the launch's arguments, .const the module's
// initialised variables; .local is per thread; static .shared variables are
// laid out at their alignment, the .extern array after them, sized by
// sharedBytes. ld/st .v2/.v4, atom/red (add, min, max, inc, dec, cas, exch,
// and, or, xor), shfl.sync (up, down, bfly, idx, with clamp and segment
// mask and the predicate output), vote.sync (all, any, uni, ballot);
// membar and fence do nothing in a simulator that runs memory in order.
// Also match.any/.all.sync, redux.sync, activemask, bar.red (popc, and,
// or: __syncthreads_count/_and/_or), cp.async with its commit and wait
// groups (a copy done when issued, which is one of the orders CUDA
// allows), nanosleep (no effect), %clock/%clock64/%globaltimer (the warp's
// issued instructions so far: deterministic, not cycles), and WMMA tiles
// (wmma.load/.mma/.store in the floating-point forms: f16, bf16 and tf32
// inputs, float or half accumulators; the fragment layout, which the PTX
// manual leaves unspecified, is the simulator's own, ptxwmma.go), mma.sync
// (f16, bf16, tf32) and ldmatrix with the layouts the manual fixes, counted
// in Stats.Tensor and timed by the time model's tensor term.
//
// Modules and kernels: ptx.ParseKernels keeps a module whose only problems
// are inside kernels; NewPTXKernel of such a kernel fails naming the PTX
// line and the .cu line of what it cannot run, and the module's other
// kernels run (unknown .version and .target refuse the module). A module's
// __device__ and __constant__ variables (.global and .const at module
// scope) exist once per module on a device, start from their initialisers
// and keep their values from launch to launch and kernel to kernel, as in
// a CUDA context; Device.ModuleGlobal and ModuleVar read and write them
// from Go (cudaMemcpyToSymbol/FromSymbol). Loads from __constant__ are
// counted as the constant cache serves them (Stats.ConstLoad: a request's
// distinct addresses are its serialized transactions).
//
// Calls (ptxcall.go): device functions nvcc did not inline (recursion,
// __noinline__, -G, function pointers and virtual functions: an indirect
// call's lanes are served one target at a time) run as calls, with .param arguments and return values
// in the thread's frame and a stack of CUDA's default 1 KiB (a call past
// it is a "stack overflow" fault); printf (vprintf) is formatted as C's
// printf into Stats.Printf, a warp's lanes in lane order and the blocks in
// index order (a GPU prints blocks in the order they ran), at most CUDA's
// default 1 MiB (Stats.PrintfDropped counts the lines left out); a failed
// assert() (__assertfail) is an "assertion failed" fault. Lines are the
// student's: code nvcc inlined from a header (atomicAdd's body) is
// credited to the .cu line that called it, in sites and faults.
//
// On the PTX path the counter rules below hold with one change: there is no
// pairing rule. Each execution of a memory instruction by a warp with at
// least one active, guard-true lane is one request, with that warp's lanes;
// what the k-th access pairing (and Unroll, SkipLd, barrier flushes) stood
// in for is now the executed control flow. Sites are the memory
// instructions, labelled by their .cu line when the PTX has line
// information ("spmv.cu:66 ..." with the line's text when the module's CUDA
// C is given, SetSource), else "kernel.ptx:LINE opcode". WarpInstructions
// counts every warp-level instruction issued, predicated-off ones included
// (ncu's smsp__inst_executed), instead of the mirrors' Ops estimates.
// Faults name the .cu line (else the PTX line) of the faulting
// instruction; a runaway is "runaway warp" (PTXKernel.MaxInstructions, or
// PTXOptions.MaxInstructions for one launch, bounds each warp's issued
// instructions), a shuffle reading a lane that is not executing it
// "shuffle from inactive lane", a misaligned access "misaligned address",
// __trap() "trap". A shared race names the array as the .cu declares it.
// A value read before anything wrote it is a fault too, where a GPU would
// compute with garbage and the simulator would read 0 (initcheck.go):
// "uninitialized register" when a value derived from a register the thread
// never wrote is used as a branch or guard condition, an address, a value
// stored or an atomic's or shuffle's operand (it moves through arithmetic,
// selp and shuffles silently, as in Valgrind, because nvcc's PTX for
// correct kernels copies such values where no path uses them); the fault
// names that line and the line that first read the unwritten register.
// "uninitialized shared memory" when a load, atomic or reduction reads a
// word of shared memory no thread of the block has written (reported at
// the block's next barrier or end, so that a missing __syncthreads is
// still reported as the race it is). Only kernels with a path that reads
// a register before writing it track registers; nvcc's lesson kernels
// have none.
// LaunchPTXWith can also trace chosen warps: every global and shared
// instruction's lanes and addresses (trace.go), for the pictures of which
// lane touched which sector or bank.
//
// # Counter rules
//
// A site is one load or store instruction of the kernel. Lane L's k-th
// access at a site pairs with every other lane's k-th access at that site
// in the same warp: together they are one warp-level request. This is SIMT
// lockstep for the structured loops of the lessons (a lane that runs more
// trips simply has no partners in the later requests).
//
//   - Global requests: requests with at least one active lane
//     (l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum, _op_st, _op_atom).
//   - Global sectors: the distinct aligned 32-byte sectors the active lanes
//     of a request touch, summed (l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,
//     _op_st, _op_atom). 32 consecutive float32 from a 128-byte boundary: 1
//     request, 4 sectors; shifted by one element: 5; stride 2: 8; stride 8
//     or more: 32; all lanes on one address: 1; 32 consecutive float64: 8.
//     Buffers start on 256-byte boundaries, like cudaMalloc's.
//   - Shared memory: 32 banks of 4 bytes. Lanes reading the same word share
//     it (broadcast); a request takes as many wavefronts as its busiest bank
//     has distinct words (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum);
//     Ideal is what it would take without conflicts (one wavefront per 32
//     distinct words), and bank conflicts = wavefronts - ideal
//     (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum). tile[lane*32]
//     of a float tile: 32 wavefronts, 31 conflicts; tile[lane*33]: 1.
//     Shared atomics are counted with the shared stores.
//   - Pairing: lane L's k-th access at a site pairs with every other lane's
//     k-th access there. Three refinements make that SIMT lockstep in the
//     cases the lessons meet: Thread.Unroll models nvcc's remainder-first
//     unrolling (each unrolled copy of a load is its own instruction);
//     Global.SkipLd and SkipSt keep the place of a lane predicated off at a
//     conditional access inside a loop, so requests pair by iteration; and
//     a __syncthreads is a reconvergence point: no request pairs accesses
//     from both sides of it.
//   - Lane-slots, as the Day-37 seed defines them: 32 per request, whether
//     or not a lane had work; ActiveLanes counts those that did, and
//     ActiveHist[n] the requests with n active lanes (divergence).
//   - WarpInstructions estimates smsp__inst_executed.sum: per warp, the
//     longest lane's count of memory accesses, warp intrinsics and Ops.
//   - L2Sectors (modeled): sectors that miss a per-block L1 (a block that
//     reads a sector twice fetches it once, unless, on the PTX path, the
//     L1's capacity lost it in between: timing.L1Capacity and
//     worker.go's l1Lost); stores and atomics go through.
//   - DRAMReadBytes and DRAMWriteBytes (modeled): each distinct sector a
//     launch touches, once, plus refetches when the footprint exceeds the
//     model's L2.
//
// # Writing a kernel in Go
//
// A kernel is a Go function run once per thread. It reads the built-in
// variables from its *Thread and makes every global and shared access
// through the simulator (Ld, St, AtomicAdd), which is how the accesses are
// seen. Buffers come from Alloc or Upload; the host reads and writes their
// Data between launches. Side by side:
//
//	CUDA C                                      Go mirror
//	__global__ void saxpy(int n, float a,       k := sim.NewKernel("saxpy", false)
//	    const float *x, float *y) {             k.Body = func(t *sim.Thread) {
//	  int i = blockIdx.x * blockDim.x             i := t.BlockIdx.X*t.BlockDim.X +
//	          + threadIdx.x;                           t.ThreadIdx.X
//	  if (i < n)                                  if i < n {
//	    y[i] = a * x[i] + y[i];                     y.St(t, i, a*x.Ld(t, i)+y.Ld(t, i))
//	}                                             }
//	                                            }
//	saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
//	                                            st, err := dev.Launch(k, sim.Dim1((n+255)/256), sim.Dim1(256), 0)
//
// with the device and buffers made by
//
//	m, _ := sim.ModelByKey("h200")
//	dev := sim.NewDevice(m)
//	x, err := sim.Upload(dev, "x", hostX) // named: the name labels sites and faults
//	y, err := sim.Alloc[float32](dev, "y", n)
//
// A kernel that synchronises needs Sync set. The tiled transpose, whose
// column read of a 32×32 tile is the textbook bank conflict unless each row
// is padded by one float:
//
//	#define TILE 32
//	// Launch: block (TILE, TILE), grid (w/TILE, h/TILE); w, h multiples of TILE.
//	__global__ void transpose(const float *in, float *out, int w, int h) {
//	  __shared__ float tile[TILE][TILE + 1];   // +1: column reads hit 32 banks
//	  int x = blockIdx.x * TILE + threadIdx.x;
//	  int y = blockIdx.y * TILE + threadIdx.y;
//	  tile[threadIdx.y][threadIdx.x] = in[y * w + x];    // one warp: one row
//	  __syncthreads();
//	  x = blockIdx.y * TILE + threadIdx.x;
//	  y = blockIdx.x * TILE + threadIdx.y;
//	  out[y * h + x] = tile[threadIdx.x][threadIdx.y];   // one warp: one column
//	}
//
// and its mirror:
//
//	const tile = 32
//	k := sim.NewKernel("transpose", true) // true: the body calls SyncThreads
//	ld := k.Site("in[y*w+x]")             // optional readable site labels
//	k.Body = func(t *sim.Thread) {
//		s := sim.SharedArray[float32](t, "tile", tile*(tile+1)) // the block's array
//		x := t.BlockIdx.X*tile + t.ThreadIdx.X
//		y := t.BlockIdx.Y*tile + t.ThreadIdx.Y
//		s.St(t, t.ThreadIdx.Y*(tile+1)+t.ThreadIdx.X, in.LdAt(t, ld, y*w+x))
//		t.SyncThreads()
//		x = t.BlockIdx.Y*tile + t.ThreadIdx.X
//		y = t.BlockIdx.X*tile + t.ThreadIdx.Y
//		out.St(t, y*h+x, s.Ld(t, t.ThreadIdx.X*(tile+1)+t.ThreadIdx.Y))
//	}
//	st, err := dev.Launch(k, sim.Dim2(w/tile, h/tile), sim.Dim2(tile, tile), 0)
//
// Write the loads the compiled kernel makes: nvcc keeps a loop-invariant
// load through a const __restrict__ pointer in a register, so rowPtr[row+1]
// in a loop condition is one load, not one per iteration. Call t.Ops(n) for
// the arithmetic instructions if the time model should see them.
//
// # Sync kernels and warp intrinsics
//
// SyncThreads is __syncthreads; SyncWarp, ShflSync, ShflDownSync,
// ShflUpSync, ShflXorSync, BallotSync, AnySync and AllSync are their _sync
// CUDA namesakes (width 32). They need Kernel.Sync: such kernels can run
// each lane as a coroutine that waits for its block or warp. Kernels that
// never synchronise leave Sync false and run thread after thread on a plain
// call stack, much faster. Kernels whose only intrinsic is __shfl_down_sync
// run their lanes from 31 down to 0 on a plain stack as well and fall back
// to coroutines on anything else; set Lockstep to force the coroutine path
// (needed today when such a kernel stores to global memory before its first
// other intrinsic, barrier or shared access; the launch says so).
//
// Shared memory: SharedArray[T](t, name, n) is `__shared__ T name[n]`, the
// same array for every thread of the block, zeroed per block;
// DynamicShared[T](t) is `extern __shared__ T buf[]`, sized by Launch's
// sharedBytes.
//
// # Sites
//
// Accesses without a Site use their buffer's default site, labelled
// "<buffer> ld", "<buffer> st" or "<buffer> atom". Where one buffer is
// accessed by two instructions (rowPtr[row] and rowPtr[row+1], or a load in
// each branch of an if), declare a Site for each with Kernel.Site and use
// LdAt/StAt: a load in each branch is two requests on a GPU, but through
// one default site the two branches' accesses would pair into one.
//
// # Unroll
//
// nvcc unrolls a loop whose trip count varies by lane (by 4, say) and runs
// the remainder iterations first, so one load instruction pairs lane A's
// pass p+1 with lane B's pass p. Thread.Unroll(factor, trips) before the
// loop, Next at the end of each iteration and EndLoop after it model that
// pairing; factor 1 is `#pragma unroll 1`, the plain rule. One warp walking
// 419 floats from element 93: 66 sectors with factor 1, 54 with factor 4,
// both as ncu measured on an H200.
//
// # Reading Stats
//
// Launch returns *Stats: totals per kind (GlobalLoad, GlobalStore,
// GlobalAtomic as Traffic; SharedLoad, SharedStore as Banked) and per site
// (Sites, or Site(label)), in declaration order. Traffic.SectorsPerRequest
// is the coalescing figure (4 is ideal for float32), SiteStats.UsefulShare
// the share of lane-slots that did work.
//
// # Sanitizers
//
// A kernel error comes back from Launch as a *Fault (use errors.As) naming
// kernel, kind, block, thread, site, buffer, index and length, never as a
// panic and never as a hang:
//
//   - "out of bounds": a global or shared access outside its buffer;
//   - "shared race": two threads of a block touch one shared word between
//     the same two barriers, at least one writing (within a warp, a
//     __syncwarp or any _sync intrinsic orders them);
//   - "runaway thread": a thread issued more than Kernel.MaxInstructions
//     (2^31 by default) instructions, a loop that never ends; "cancelled":
//     the context given to LaunchContext is done. Both stop the launch
//     instead of hanging it (a loop that touches no memory cannot be
//     stopped).
//   - "divergent barrier": some thread waits at SyncThreads while another
//     has exited;
//   - "shuffle from exited lane", "bad warp mask", "divergent warp
//     intrinsic": a warp intrinsic whose mask names a lane that exited, does
//     not exist, or waits elsewhere;
//   - "synchronisation in a kernel without Sync";
//   - "panic": any Go panic in the body (a division by zero, a nil map);
//   - PTX kernels only: "uninitialized register" and "uninitialized shared
//     memory", a value used that nothing wrote (see above; Go kernels'
//     variables and Shared arrays start at Go's zero values).
//
// A launch the hardware would refuse (more than 1024 threads a block, an
// empty grid, more dynamic shared memory than the device allows) is a plain
// error before any thread runs.
//
// # Device and time models
//
// Models lists the GPUs (ModelByKey("t4"), "a100", "h100", "h200") with
// their SM counts, limits, L2 size, DRAM bandwidth and FP32/TF32 peaks
// (timing.GPU) and the time model's constants (timing.Constants). The
// time model (package sim/timing, fed by the PTX executor's per-warp
// records; docs/timemodel.md) takes the slowest of DRAM
// bytes over achievable bandwidth, L2 sectors over L2 bandwidth, L1
// wavefronts over the L1's rate, the busiest SM's warp instructions over
// the issue rate, and the critical path: on the PTX path, each warp's
// instructions and load rounds (loads in flight together, from the data
// dependences of the compiled loop) list-scheduled onto the SMs' warp slots, so the
// slowest warp and the waves of blocks show. The GPU's fixed cost is added,
// and a timed launch takes at least the host's launch interval for its
// arguments (Model.LaunchFloor: a buffer costs the host more than a scalar).
// Stats.Time carries the result with Kind "modeled" and Bound naming the
// term that set it; TimeConstants lists each model's constants with their
// sources. It is a prediction to compare with a measurement, not a
// measurement.
//
// # Determinism
//
// Blocks run in parallel on every core (GOMAXPROCS). Counters, results and
// the reported fault are the same for any core count and any run: counters
// merge in a fixed order, threads of a block run in a fixed order, and when
// several blocks fault the lowest block's fault is returned.
//
// # Limits
//
//   - No race detection on global memory (only shared memory is checked).
//   - Float atomicAdd to global memory from different blocks lands in
//     scheduling order, as on a GPU, so float sums can differ in the last
//     bits between runs; set Kernel.Ordered to run blocks in order and make
//     them reproducible. Integer atomics are always exact.
//   - Where an atomic's returned value decides which block does more work
//     (a last-arriver count, as the libs lesson's split and tile kernels
//     keep to add a row's pieces), the results and counters are the same
//     in every run, but which block does that work follows scheduling:
//     the blocks' records, and so the modeled time, can differ between
//     runs (the tile kernel's by up to 0.3% on the libs corpus). Ordered
//     (Kernel.Ordered, PTXKernel.Ordered) makes them reproducible too.
//   - Request pairing follows structured SIMT lockstep; code whose lanes
//     reconverge differently on hardware (or that the compiler transforms
//     beyond Unroll's model) can pair differently.
//   - Shuffles have no width argument (width is 32) in Go kernels; PTX
//     shfl.sync takes the clamp and segment operand as the manual says.
//   - The PTX path runs what package ptx accepts: no textures or
//     surfaces; no integer, .f64 or sub-byte WMMA and mma.sync (wmma's
//     and ldmatrix's memory accesses not counted as requests); device
//     malloc never reuses what free returns. Each instruction runs over a warp's
//     active lanes one by one (a fast whole-warp loop for the common
//     arithmetic), so a kernel of mostly warp-uniform work, like
//     warp-per-row SpMV, is still far slower than its plain Go equivalent.
//   - The L1/L2/DRAM and time figures are models: compare them with
//     measurements before trusting them.
package sim

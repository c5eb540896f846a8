// Package ptx reads the PTX that nvcc emits for ordinary CUDA kernels and
// turns it into a flat, checked form that the simulator executes warp-wide.
//
// The simulator runs the same PTX the GPU loads, so a kernel is written once,
// in CUDA C, and what the simulator counts follows what the compiler emitted.
// This package knows nothing of execution: it parses (Parse, ParseKernels), checks that
// every instruction is one the simulator implements (an instruction outside
// that set is an error naming it and its PTX line, never skipped), resolves
// labels, registers and symbols to indices, computes where each branch
// reconverges (its immediate post-dominator, the rule GPGPU-Sim and Ocelot
// use), and records each instruction's source position from .loc.
//
// Decoding happens once per module; the executor (package sim) walks
// Kernel.Instrs by index with no string handling left.
//
// # The decoded form
//
// A Kernel is a flat slice of Instr. Registers are indices into
// Kernel.Regs (%r<26> declares %r0 to %r25; registers of nested { }
// scopes get their own indices), variables indices into Kernel.Vars (the
// module-scope variables the kernel names, then its own: a kernel that does
// not name a module's shared array does not get it, as with ptxas),
// parameters indices into Kernel.Params (with their byte offsets in the
// parameter buffer). Each Instr keeps its PTX line, its text, and its
// source position from .loc; for code nvcc inlined, Caller is the outermost
// call site (the line of the kernel's own .cu that called the inlined
// function), which Module.SourceLine spells "spmv.cu:42". Operands sit in
// PTX order:
//
//   - ld: Dst[0] (a register, or a vector for .v2/.v4, whose _ elements are
//     -1), Src[0] the address. st: no destination, Src[0] the address,
//     Src[1] the value. atom: Dst[0], Src[0] address, Src[1] b, Src[2] c
//     (cas). red: Src[0] address, Src[1] b. A space not written is
//     SpaceGeneric; Vec is 1 for scalar accesses.
//   - An address is [Reg+Imm], [Var+Imm], [Param+Imm] (ld.param only) or
//     [Imm]; Imm is the byte offset in two's complement.
//   - setp: Dst[0] and, for `%p|%q`, Dst[1] (the complement); Src[2] is
//     the predicate of .and/.or/.xor, possibly negated (Operand.Neg).
//   - shfl.sync: Dst[0], Dst[1] the optional predicate output; Src[0..3]
//     a, b, c and the member mask. vote.sync: Src[0] the predicate
//     (possibly negated), Src[1] the member mask. bar: Src[0] the barrier,
//     Src[1] the optional thread count. bra: no operands; Target.
//     bar.warp.sync (__syncwarp) decodes as OpMembar with Sync set and the
//     member mask in Src[0]: the lanes of a simulated warp run in step.
//   - mov may pack or unpack: mov.b64 %rd1, {%r1, %r2} (a source vector)
//     and mov.b64 {%r1, %r2}, %rd1 (a destination vector), low part first.
//     mov and cvta may take a variable's address (OpdSym); mov and cvt may
//     read a special register (OpdSpecial).
//   - mul.wide and mad.wide: Type is the sources' type; the destination
//     (and mad's addend) are twice as wide.
//   - cvt: Type is the destination's type, SrcType the source's.
//
// An immediate holds its bits at its operand's type: integers truncated to
// the width (shl's shift and bfe's positions are .u32 whatever the
// instruction's type), a plain integer given for a float type converted to
// that float (as ptxas does), 0f/0d literals as written. WARP_SZ is the
// immediate 32. Registers are checked by PTX's rules: a register has the
// operand's size, a float operand takes its own float type or a bit type,
// and ld, st and cvt accept integer registers wider than their type.
//
// # Reconvergence
//
// A warp executes one instruction for its active lanes. At a conditional
// bra the lanes may split; the executor runs one side, then the other, and
// merges them again at the branch's Reconv: the first instruction of the
// immediate post-dominator of the basic block the branch ends, the first
// point every path from the branch must pass. Reconv is len(Instrs) when
// that point is the kernel's exit (all paths end in ret or exit). This is
// the rule GPGPU-Sim and Ocelot use, and what the SIMT stack of the GPUs
// before Volta did; it is exact for the structured control flow nvcc emits
// for ordinary kernels (if/else, loops with break and continue, early
// return), which is why one warp-level load executed under a mask is one
// request, as Nsight Compute counts them. Post-dominators come from the
// iterative algorithm of Cooper, Harvey and Kennedy on the reversed
// control-flow graph, rooted at a virtual exit node that every ret, exit and
// the end of the kernel lead to. Blocks that cannot reach the exit (an
// endless loop) have no post-dominator; their branches reconverge at
// len(Instrs), i.e. only when lanes leave.
//
// # Which array a load reads
//
// Module.LoadParams follows each global load's address back through the
// kernel's registers to the pointer parameter it derives from, so that a
// lesson can name a load by its array (rowPtr, val, x) rather than by its PTX
// text; a load whose address mixes parameters, or comes from none, is an
// error with its line. LoadForLabel finds the load a counter site names.
//
// # Device functions and calls
//
// A .func with a body is a Kernel with IsFunc set (Module.Funcs); its
// parameters and return values, and a caller's { } scoped .param
// variables, are .param Vars that ld.param and st.param address. call
// (call.go) names its callee and the caller's .param variables for the
// return values and arguments; at the end of the module each call is
// linked to a function of the module or to a built-in (vprintf,
// __assertfail) and checked against its parameters; an indirect call
// (a register holding FuncAddr of a function whose address the module
// takes in an initializer or a mov) is checked when it runs. Module.Flatten
// appends the functions a kernel reaches to its instructions, registers
// and variables renumbered, for the executor.
//
// # What is refused
//
// Everything the executor does not implement is an error with the PTX line
// (and, with line information, the .cu line, Error.Src): textures and
// surfaces, calls of functions the module does not define (but vprintf,
// __assertfail, malloc and free), wmma's and mma.sync's integer, .f64, sub-byte, fp8
// and sparse forms (the floating-point ones run: f16, bf16 and tf32 A and B
// into f32, f16 into f16, in every shape the PTX manual gives wmma and
// m16n8k16/k8/k4 of mma.sync), ldmatrix beyond m8n8 .b16 from shared
// memory, cp.async.bulk, the comparisons and .ftz/.sat forms of .f16x2,
// .bf16 and .bf16x2 (their add, sub, mul, fma, neg, abs, min and max run:
// alu_half.go; so do cvt.rn.bf16.f32, cvt.rna.tf32.f32 and the packing
// cvt.rn.f16x2.f32 and cvt.rn.bf16x2.f32; the carry forms add.cc, addc,
// sub.cc, subc, mad.cc and madc run: alu_carry.go; atom.add.noftz on
// .f16, .f16x2, .bf16 and .bf16x2 and atom.cas.b16 run) (scalar .f16 runs: alu_f16.go), prmt's modes other than the default, approximate
// transcendental functions beyond rcp/sqrt/rsqrt/ex2/lg2/sin/cos (tanh), the old vote and shfl forms without
// .sync, and special registers other than the thread, block, grid, lane
// and warp ids, the lane masks and the clocks. Parse refuses the module
// for any of them; ParseKernels refuses only the kernel (Kernel.Err), and
// a kernel that calls a function with errors. A .version outside PTX ISA
// 6.0 to 9.1 or a .target that names no known sm_XX refuses the module.
package ptx

package ptx

// Type is a PTX fundamental type (.u32, .f64, .pred, ...).
type Type uint8

// The fundamental types.
const (
	TypeNone Type = iota
	B8
	B16
	B32
	B64
	U8
	U16
	U32
	U64
	S8
	S16
	S32
	S64
	F16
	F32
	F64
	Pred
)

// Space is a PTX state space.
type Space uint8

// The state spaces. SpaceGeneric is an ld/st/atom with no space named.
const (
	SpaceNone Space = iota
	SpaceGeneric
	SpaceGlobal
	SpaceShared
	SpaceLocal
	SpaceParam
	SpaceConst
	SpaceReg
)

// Opcode is an instruction's base name.
type Opcode uint8

// The opcodes the simulator implements. Anything else is refused by Parse.
const (
	OpInvalid Opcode = iota
	OpMov
	OpLd
	OpSt
	OpCvta
	OpCvt
	OpAdd
	OpSub
	OpMul
	OpMad
	OpFma
	OpDiv
	OpRem
	OpMin
	OpMax
	OpAbs
	OpNeg
	OpRcp
	OpSqrt
	OpRsqrt
	OpEx2
	OpLg2
	OpShl
	OpShr
	OpAnd
	OpOr
	OpXor
	OpNot
	OpPopc
	OpClz
	OpBrev
	OpBfe
	OpBfi
	OpSetp
	OpSelp
	OpBra
	OpRet
	OpExit
	OpBar // bar.sync, barrier.sync (and their .aligned forms)
	OpShfl
	OpVote
	OpAtom
	OpRed
	OpTrap       // trap (__trap()): the thread stops the kernel with an error
	OpMembar     // membar and fence: no effect in a simulator that runs memory in order; also bar.warp.sync (__syncwarp: Sync set, Src[0] the member mask), as a warp's lanes run in step
	OpCall       // call: a direct call of a .func (Call says which), or of a built-in (vprintf, __assertfail)
	OpShf        // shf.l/.r.wrap/.clamp.b32: funnel shift (Eval)
	OpActivemask // activemask.b32 d: the lanes executing it
	OpNanosleep  // nanosleep.u32 t: no effect in the simulator (a warp's lanes run in step)
	OpMatch      // match.any/.all.sync.b32/.b64 d[|p], a, membermask (Match)
	OpRedux      // redux.sync.<Red>.<type> d, a, membermask
	OpCpAsync    // cp.async (Async: a copy, commit_group, wait_group N, wait_all)
	OpWmma       // wmma.load/.mma/.store, m16n16k16 (Wmma)
	OpSin        // sin.approx.f32 (__sinf)
	OpCos        // cos.approx.f32 (__cosf)
	OpBfind      // bfind[.shiftamt] (ShiftAmt): the most significant non-sign bit (__clz, __ffs's helpers)
	OpPrmt       // prmt.b32 (default mode): byte permute (__byte_perm)
	OpSad        // sad: c + |a - b| (__sad)
	numOps
)

// Cmp is setp's comparison.
type Cmp uint8

// The comparisons. The U forms are true when either operand is NaN; Num and
// Nan test for ordered and unordered pairs. Lo, Ls, Hi, Hs are the unsigned
// integer spellings of lt, le, gt, ge.
const (
	CmpNone Cmp = iota
	CmpEq
	CmpNe
	CmpLt
	CmpLe
	CmpGt
	CmpGe
	CmpLo
	CmpLs
	CmpHi
	CmpHs
	CmpEqu
	CmpNeu
	CmpLtu
	CmpLeu
	CmpGtu
	CmpGeu
	CmpNum
	CmpNan
)

// BoolOp is setp's optional combination with a third, predicate operand.
type BoolOp uint8

// The boolean combinations of setp (and of and/or/xor on .pred).
const (
	BoolNone BoolOp = iota
	BoolAnd
	BoolOr
	BoolXor
)

// Round is a rounding modifier.
type Round uint8

// Rounding modifiers: floating-point results (.rn .rz .rm .rp) and
// float-to-integer conversions (.rni .rzi .rmi .rpi).
const (
	RoundNone Round = iota
	RoundRN
	RoundRZ
	RoundRM
	RoundRP
	RoundRNI
	RoundRZI
	RoundRMI
	RoundRPI
)

// MulMode says which half of a product mul and mad keep.
type MulMode uint8

// .lo, .hi and .wide (the full product in a type twice as wide).
const (
	MulNone MulMode = iota
	MulLo
	MulHi
	MulWide
)

// ShflMode is shfl.sync's addressing mode.
type ShflMode uint8

// The shuffle modes.
const (
	ShflNone ShflMode = iota
	ShflUp
	ShflDown
	ShflBfly
	ShflIdx
)

// VoteMode is vote.sync's mode.
type VoteMode uint8

// The vote modes.
const (
	VoteNone VoteMode = iota
	VoteAll
	VoteAny
	VoteUni
	VoteBallot
)

// AtomOp is atom's and red's operation.
type AtomOp uint8

// The atomic operations.
const (
	AtomNone AtomOp = iota
	AtomAdd
	AtomMin
	AtomMax
	AtomInc
	AtomDec
	AtomCAS
	AtomExch
	AtomAnd
	AtomOr
	AtomXor
)

// Special is a special register.
type Special uint8

// The special registers the simulator provides.
const (
	SpecialNone Special = iota
	SpecialTidX
	SpecialTidY
	SpecialTidZ
	SpecialNtidX
	SpecialNtidY
	SpecialNtidZ
	SpecialCtaidX
	SpecialCtaidY
	SpecialCtaidZ
	SpecialNctaidX
	SpecialNctaidY
	SpecialNctaidZ
	SpecialLaneID
	SpecialWarpID
	SpecialNWarpID
	SpecialWarpSize // WARP_SZ; Parse decodes WARP_SZ as the immediate 32, so this is never produced
	SpecialLaneMaskEq
	SpecialLaneMaskLt
	SpecialLaneMaskLe
	SpecialLaneMaskGt
	SpecialLaneMaskGe
	// The clocks: the executor reads them when an instruction runs (the
	// warp's issued instructions so far, a deterministic stand-in for
	// cycles and nanoseconds). %clock64 and %globaltimer are 64 bits wide.
	SpecialClock
	SpecialClock64
	SpecialGlobalTimer
	NumSpecial // the number of special registers
)

// OperandKind says what an Operand holds.
type OperandKind uint8

// The operand kinds.
const (
	OpdNone    OperandKind = iota
	OpdReg                 // a register: Reg (predicate sources may be negated: Neg)
	OpdImm                 // an immediate: Imm holds its bits at the operand's type (see the package doc)
	OpdSpecial             // a special register: Special
	OpdAddr                // a memory address [Reg+Imm], [Var+Imm] or [Param+Imm]
	OpdSym                 // the address of a variable as a value (mov %rd, sym): Var
	OpdVec                 // a vector of registers {%f1, %f2, _, _}: Vec (-1 for _)
	OpdSink                // _ as a destination: the result is discarded
)

// Operand is one decoded operand. Fields that do not apply to the Kind are
// zero, except the indices Reg, Var and Param, which are -1 when unused.
type Operand struct {
	Kind    OperandKind
	Reg     int32   // register index into Kernel.Regs (OpdReg; OpdAddr's base, -1 if none)
	Neg     bool    // !%p: the negated predicate (OpdReg of type Pred)
	Imm     uint64  // OpdImm: the value's bits; OpdAddr: the byte offset (two's complement)
	Special Special // OpdSpecial
	Var     int32   // OpdAddr/OpdSym: index into Kernel.Vars, -1 if none
	Param   int32   // OpdAddr: index into Kernel.Params, -1 if none
	Vec     []int32 // OpdVec: register indices, -1 for _
}

// Loc is a source position from a .loc directive: File indexes Module.Files
// (0 when the PTX has no line information).
type Loc struct {
	File, Line, Col int32
}

// Instr is one decoded instruction. Type is the instruction's type (add.s32:
// S32; cvt.f32.s32 and other two-type forms: the destination's type; setp's
// and selp's: the compared/selected type; ld/st: the element type;
// mul.wide/mad.wide: the sources' type, the result being twice as wide).
// SrcType is the second type of cvt (the source's). Modifiers that do not
// apply are zero. The operand layout of each opcode is in the package doc.
type Instr struct {
	Op      Opcode
	Type    Type
	SrcType Type
	Space   Space // ld, st, atom, red, cvta: the state space (cvta: the non-generic one)
	CvtaTo  bool  // cvta.to.<space>: generic to space; false: space to generic
	Vec     uint8 // ld/st vector width: 1, 2 or 4
	NC      bool  // ld.global.nc: the read-only (non-coherent) path
	Cmp     Cmp
	Bool    BoolOp
	Round   Round
	Ftz     bool
	Sat     bool
	Approx  bool // .approx (rcp, sqrt, ex2, lg2, div): result within the PTX manual's stated error
	Full    bool // div.full.f32
	// Narrow is, for cvt.rna.tf32.f32 (Type B32) and cvt.rn.bf16.f32 (Type
	// B16), the tensor-core format the float is rounded to; for
	// cvt.f32.bf16 (Type F32, SrcType B16) the format widened; with Pair,
	// cvt.rn.f16x2.f32 and cvt.rn.bf16x2.f32 d, a, b (Type B32), which pack
	// a in d's upper half and b in its lower. MatNone for every other cvt.
	Narrow MatType
	Pair   bool
	// CarryIn and CarryOut are the extended-precision integer forms
	// (alu_carry.go): addc, subc and madc read the carry flag, .cc writes
	// it. The flag is a hidden .b32 register of the kernel (%cc): a
	// reader's last source (Src[2] of add and sub, Src[3] of mad), a
	// writer's Dst[1].
	CarryIn, CarryOut bool
	// Prefetch marks prefetch and prefetchu (an OpMembar with the address
	// as Src[0]): a hint that changes no value, which the simulator runs
	// as nothing.
	Prefetch bool
	// Half is the 16-bit float arithmetic of add, sub, mul, fma, neg, abs,
	// min and max on .f16x2 (Type B32), .bf16 (Type B16) and .bf16x2 (Type
	// B32) operands (alu_half.go); HalfNone for the rest (scalar .f16 is
	// Type F16).
	Half  HalfKind
	Mul   MulMode
	Shfl  ShflMode
	Vote  VoteMode
	Atom  AtomOp
	Uni   bool   // bra.uni: the compiler promises no divergence
	Sync  bool   // bar.sync / barrier.sync (as opposed to bar.arrive): waits
	Scope string // membar/fence/atom scope (.cta, .gl, .sys, .gpu), for display only

	Guard    int32 // predicate register guarding the instruction, -1 for none
	GuardNeg bool  // @!%p

	Dst  [2]Operand // destinations; setp's optional second predicate and shfl's predicate output go in Dst[1]
	Src  [4]Operand // sources in PTX order
	NDst uint8
	NSrc uint8

	Target int32 // bra: the instruction index of its label (len(Kernel.Instrs) for a label at the end: the exit)
	Reconv int32 // bra: where a diverged warp reconverges (the branch's immediate post-dominator); len(Kernel.Instrs) means the kernel's exit

	Line int32 // 1-based line in the PTX text
	Loc  Loc   // source position from the latest .loc before it
	// Caller is, for code nvcc inlined from another function (a .loc with
	// inlined_at), the outermost call site: where in the kernel's own code
	// the inlined function was called (a shuffle inside sm_30_intrinsics.hpp
	// gets the cg.cu line that called __shfl_down_sync). Zero when the code
	// was not inlined.
	Caller Loc
	Text   string // the instruction as written (runs of blanks made one space), for messages and listings
	Call   *Call  // OpCall: what is called, with which arguments
	// Red is redux.sync's operation, and bar.red's (popc, and, or): Dst[0]
	// the result, Src[0] the barrier, Src[1] the thread count (an
	// immediate 0 when absent: the whole block), Src[2] the predicate.
	Red RedOp
	// Match is match.sync's mode; Dst[1] the optional predicate of .all.
	Match MatchMode
	// Async is cp.async's form. A copy: Src[0] the shared destination,
	// Src[1] the global source, Src[2] the copy size (4, 8 or 16 bytes),
	// Src[3] the optional source size (the rest zero-filled); Src[0] of
	// wait_group is N. CpCG is .cg (.ca otherwise: cache hints only).
	Async AsyncOp
	CpCG  bool
	// Shf is shf's direction and mode.
	ShfLeft, ShfClamp bool
	// ShiftAmt is bfind.shiftamt: the left shift that brings the bit to
	// the top rather than its position.
	ShiftAmt bool
	// Wmma describes a wmma instruction. load: Dst[0] the fragment (a
	// vector of 8 registers), Src[0] the address, Src[1] the stride in
	// elements (16 when absent); store: Src[0] the address, Src[1] the
	// fragment, Src[2] the stride; mma: Dst[0] D, Src[0] A, Src[1] B,
	// Src[2] C.
	Wmma *Wmma
}

// Wmma is a wmma instruction's form (the PTX manual's "Warp Level Matrix
// Multiply-Accumulate Instructions"): shapes m16n16k16, m32n8k16 and
// m8n32k16 with A and B of .f16 or .bf16, m16n16k8 with .tf32; C and D of
// .f32, or of .f16 with .f16 A and B.
//
// The same struct describes mma.sync (Op 'M': m16n8k16 and m16n8k8 with
// .f16 or .bf16 A and B, m16n8k8 and m16n8k4 with .tf32, .row.col, C and D
// of .f32 (or .f16 with .f16 A and B); Dst[0] D, Src[0] A, Src[1] B,
// Src[2] C as vectors) and ldmatrix (Op 'L': .sync.aligned.m8n8,
// .x1/.x2/.x4 in N, optional .trans, .shared.b16; Dst[0] the vector of N
// registers, Src[0] the address).
type Wmma struct {
	Op      byte // 'l' load, 's' store, 'm' mma; 'M' mma.sync, 'L' ldmatrix
	Frag    byte // load/store: 'a', 'b', 'c' or 'd'
	ColMaj  bool // load/store: .col (the matrix in memory column-major)
	Elem    Type // load/store: the elements' storage type (F16, B16 for bf16, B32 for tf32, F32)
	Mat     MatType
	M, N, K int     // the shape (ldmatrix: N is the number of matrices, 1, 2 or 4)
	AB      MatType // mma: A's and B's format
	C, D    MatType // mma: C's and D's format
	Trans   bool    // ldmatrix: .trans
}

// HalfKind is the packing of a 16-bit float instruction.
type HalfKind uint8

// .f16x2, .bf16 and .bf16x2.
const (
	HalfNone HalfKind = iota
	HalfF16x2
	HalfBF16
	HalfBF16x2
)

// MatType is the format of a tensor-core matrix's elements.
type MatType uint8

// The formats: IEEE binary16, bfloat16 (a float's upper half), TensorFloat-32
// (a float whose low 13 mantissa bits the tensor core ignores), float.
const (
	MatNone MatType = iota
	MatF16
	MatBF16
	MatTF32
	MatF32
)

// String spells the format as PTX does.
func (m MatType) String() string {
	names := [...]string{"?", "f16", "bf16", "tf32", "f32"}
	if int(m) < len(names) {
		return names[m]
	}
	return "?"
}

// Bits is the width of one element in a register or in memory.
func (m MatType) Bits() int {
	switch m {
	case MatF16, MatBF16:
		return 16
	}
	return 32
}

// FragRegs is the number of 32-bit registers of a wmma fragment (frag 'a',
// 'b', 'c' or 'd') of format m and shape (M, N, K), as the PTX manual lists
// them; 0 for a combination it does not define.
func FragRegs(frag byte, m MatType, M, N, K int) int {
	switch frag {
	case 'c', 'd':
		switch m {
		case MatF32:
			return 8
		case MatF16:
			return 4
		}
		return 0
	}
	switch m {
	case MatF16:
		if K == 16 {
			return 8
		}
	case MatTF32:
		if M == 16 && N == 16 && K == 8 {
			return 4
		}
	case MatBF16:
		if K != 16 {
			return 0
		}
		rows := M // A is M×K, B K×N: 16 bits an element, two a register
		if frag == 'b' {
			rows = N
		}
		return rows * 16 / 64
	}
	return 0
}

// RedOp is the reduction of redux.sync and bar.red.
type RedOp uint8

// The reductions.
const (
	RedNone RedOp = iota
	RedAdd
	RedMin
	RedMax
	RedAnd
	RedOr
	RedXor
	RedPopc
)

// MatchMode is match.sync's mode.
type MatchMode uint8

// The match modes.
const (
	MatchNone MatchMode = iota
	MatchAny
	MatchAll
)

// AsyncOp is cp.async's form.
type AsyncOp uint8

// The cp.async forms.
const (
	AsyncNone AsyncOp = iota
	AsyncCopy
	AsyncCommit
	AsyncWait
	AsyncWaitAll
)

// CalleeIndirect is Call.Callee of a call through a register.
const CalleeIndirect = -2

// FuncAddrBase is where the addresses of a module's functions begin:
// function i of Module.Funcs is at FuncAddrBase + 16·i, an address no
// memory of the simulator uses, so a function pointer read back from
// memory or a register is recognised at the call.
const FuncAddrBase = 0xF000_0000

// FuncAddr is function i's address.
func FuncAddr(i int32) uint64 { return FuncAddrBase + 16*uint64(i) }

// Builtin is a function the simulator provides itself: the CUDA runtime's
// device-side functions that nvcc calls by name.
type Builtin uint8

// The built-in functions.
const (
	BuiltinNone    Builtin = iota
	BuiltinVprintf         // vprintf(format, args): printf
	BuiltinAssert          // __assertfail(message, file, line, function, charSize): a failed assert()
	BuiltinMalloc          // malloc(size): the device heap (sim/ptxheap.go)
	BuiltinFree            // free(p)
)

// Call is a call instruction's target and arguments. Rets and Args are
// the caller's .param variables (indices into Kernel.Vars) that carry the
// return value and the arguments, in order; the callee reads its own
// parameters (Kernel.ParamVars) and writes its return values
// (Kernel.RetVars), and the call copies between the two.
type Call struct {
	Func    string  // the callee's name
	Callee  int32   // index into Module.Funcs (in a flattened kernel: into Kernel.Funcs); -1 for a built-in; CalleeIndirect for a call through a register
	Builtin Builtin // the built-in called, when Callee is -1
	// Reg is an indirect call's register, which holds the function's
	// address (FuncAddr: from an initializer such as a vtable's, or a mov
	// of the function's name).
	Reg  int32
	Rets []int32
	Args []int32
}

// Reg is a declared register.
type Reg struct {
	Name string // %r12, %p3, %fd7, %SP
	Type Type
}

// Var is a variable: module-scope .global/.const/.shared, a kernel's own
// .shared or .local array, or an .extern .shared array (dynamic shared memory).
type Var struct {
	Name   string
	Space  Space
	Type   Type // element type as declared (.b8 for byte arrays)
	Align  int
	Size   int // bytes; 0 for an .extern .shared array sized at launch
	Extern bool
	Init   []byte // initializer bytes (little-endian), nil if none
	Line   int32
}

// Param is a kernel parameter. Offsets follow the PTX rule: each parameter
// at the next multiple of its alignment.
type Param struct {
	Name   string
	Type   Type
	Size   int // bytes (Type's size, or the .b8 array's length)
	Align  int
	Offset int
	Ptr    bool // declared .ptr (a pointer parameter)
}

// Kernel is one .entry, decoded.
type Kernel struct {
	Name       string
	Line       int32
	Params     []Param
	ParamBytes int // total size of the parameter buffer
	Regs       []Reg
	Vars       []*Var // the module-scope variables its instructions name (in module order), then its own (in declaration order)
	Instrs     []Instr
	ReqNTid    [3]int // .reqntid, zeros if absent
	MaxNTid    [3]int // .maxntid, zeros if absent
	// A device function (.func) is a Kernel with IsFunc set. Its
	// parameters and return values are variables of the .param space in
	// Vars (ParamVars, RetVars, in declaration order), which its ld.param
	// and st.param address; Params and Rets describe them.
	IsFunc    bool
	Rets      []Param
	ParamVars []int32
	RetVars   []int32
	// Flatten fills the rest: the kernel's own code is Instrs[:CodeEnd],
	// each function it reaches follows (Funcs), and VarFunc says, by
	// variable, whose frame a .local or .param variable lives in (0: the
	// kernel's, i+1: Funcs[i]'s).
	CodeEnd int32
	Funcs   []FuncCode
	VarFunc []int32
	// Err lists what in the body the simulator cannot run (each error
	// with its PTX line and .cu line); nil for a kernel that runs. Only
	// ParseKernels returns a module with such kernels: they fail at their
	// own launch, and the module's other kernels run.
	Err ErrorList
}

// FuncCode is one device function's place in a flattened kernel: its
// instructions [Start, End), its registers [RegLo, RegHi) and its
// parameter and return variables.
type FuncCode struct {
	Name         string
	ModIdx       int32 // its index in Module.Funcs (its address: FuncAddr)
	Start, End   int32
	RegLo, RegHi int32
	ParamVars    []int32
	RetVars      []int32
	Recursive    bool // it can call itself, directly or through others
}

// Module is a parsed and checked PTX module.
type Module struct {
	Name        string   // as given to Parse (a file name, for messages)
	Version     string   // .version, e.g. "7.8"
	Target      string   // .target, e.g. "sm_75"
	AddressSize int      // .address_size (64)
	Compiler    string   // from nvcc's header comment, e.g. "Cuda compilation tools, release 11.8, V11.8.89"; "" if absent
	Files       []string // .file paths by index (index 0 unused)
	Vars        []*Var   // module-scope variables
	Kernels     []*Kernel
	Funcs       []*Kernel // device functions (.func) with a body
	// AddrTaken lists the functions (indices into Funcs) whose address
	// the module takes (an initializer, a mov): what an indirect call may
	// reach.
	AddrTaken []int32
}

// typeNames spells each Type as PTX writes it, without the dot.
var typeNames = [...]string{
	TypeNone: "", B8: "b8", B16: "b16", B32: "b32", B64: "b64",
	U8: "u8", U16: "u16", U32: "u32", U64: "u64",
	S8: "s8", S16: "s16", S32: "s32", S64: "s64",
	F16: "f16", F32: "f32", F64: "f64", Pred: "pred",
}

// String returns the type as PTX spells it ("u32"), so messages read like PTX.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "type?"
}

// Size is the type's width in bytes (0 for Pred and TypeNone): what a load
// or store of the type moves, and how wide its register is.
func (t Type) Size() int {
	switch t {
	case B8, U8, S8:
		return 1
	case B16, U16, S16, F16:
		return 2
	case B32, U32, S32, F32:
		return 4
	case B64, U64, S64, F64:
		return 8
	}
	return 0
}

// IsFloat reports whether t is f16, f32 or f64.
func (t Type) IsFloat() bool { return t == F16 || t == F32 || t == F64 }

// IsSigned reports whether t is a signed integer type (sign-extends when widened).
func (t Type) IsSigned() bool { return t == S8 || t == S16 || t == S32 || t == S64 }

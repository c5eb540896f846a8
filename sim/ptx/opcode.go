package ptx

import (
	"fmt"
	"strings"
)

// opNames maps an opcode's base name (the text before its first dot) to
// the Opcode. A base name not here is an unsupported instruction.
var opNames = map[string]Opcode{
	"mov": OpMov, "ld": OpLd, "st": OpSt, "cvta": OpCvta, "cvt": OpCvt,
	"add": OpAdd, "sub": OpSub, "mul": OpMul, "mad": OpMad, "fma": OpFma,
	"div": OpDiv, "rem": OpRem, "min": OpMin, "max": OpMax, "abs": OpAbs,
	"neg": OpNeg, "rcp": OpRcp, "sqrt": OpSqrt, "rsqrt": OpRsqrt,
	"ex2": OpEx2, "lg2": OpLg2, "shl": OpShl, "shr": OpShr, "and": OpAnd,
	"or": OpOr, "xor": OpXor, "not": OpNot, "popc": OpPopc, "clz": OpClz,
	"brev": OpBrev, "bfe": OpBfe, "bfi": OpBfi, "setp": OpSetp,
	"selp": OpSelp, "bra": OpBra, "ret": OpRet, "exit": OpExit,
	"bar": OpBar, "barrier": OpBar, "shfl": OpShfl, "vote": OpVote,
	"atom": OpAtom, "red": OpRed, "membar": OpMembar, "fence": OpMembar,
	"trap": OpTrap, "call": OpCall, "shf": OpShf, "activemask": OpActivemask,
	"nanosleep": OpNanosleep, "match": OpMatch, "redux": OpRedux,
	"sin": OpSin, "cos": OpCos, "bfind": OpBfind, "prmt": OpPrmt, "sad": OpSad,
}

// opText spells each Opcode (the base name; OpBar as "bar", OpMembar as "membar").
var opText = func() []string {
	s := make([]string, numOps)
	for name, op := range opNames {
		if s[op] == "" || name == "bar" || name == "membar" {
			s[op] = name
		}
	}
	s[OpInvalid] = "invalid"
	return s
}()

// String returns the opcode's PTX base name, for messages and listings.
func (o Opcode) String() string {
	if int(o) < len(opText) {
		return opText[o]
	}
	return "op?"
}

var typeByName = map[string]Type{
	"b8": B8, "b16": B16, "b32": B32, "b64": B64,
	"u8": U8, "u16": U16, "u32": U32, "u64": U64,
	"s8": S8, "s16": S16, "s32": S32, "s64": S64,
	"f16": F16, "f32": F32, "f64": F64, "pred": Pred,
}

var cmpByName = map[string]Cmp{
	"eq": CmpEq, "ne": CmpNe, "lt": CmpLt, "le": CmpLe, "gt": CmpGt, "ge": CmpGe,
	"lo": CmpLo, "ls": CmpLs, "hi": CmpHi, "hs": CmpHs,
	"equ": CmpEqu, "neu": CmpNeu, "ltu": CmpLtu, "leu": CmpLeu, "gtu": CmpGtu, "geu": CmpGeu,
	"num": CmpNum, "nan": CmpNan,
}

var roundByName = map[string]Round{
	"rn": RoundRN, "rz": RoundRZ, "rm": RoundRM, "rp": RoundRP,
	"rni": RoundRNI, "rzi": RoundRZI, "rmi": RoundRMI, "rpi": RoundRPI,
}

var atomByName = map[string]AtomOp{
	"add": AtomAdd, "min": AtomMin, "max": AtomMax, "inc": AtomInc, "dec": AtomDec,
	"cas": AtomCAS, "exch": AtomExch, "and": AtomAnd, "or": AtomOr, "xor": AtomXor,
}

var spaceByName = map[string]Space{
	"global": SpaceGlobal, "shared": SpaceShared, "shared::cta": SpaceShared,
	"local": SpaceLocal, "param": SpaceParam, "const": SpaceConst,
}

func isInt(t Type) bool  { return t >= U8 && t <= S64 }
func isBits(t Type) bool { return t >= B8 && t <= B64 }

// typeIn reports whether t is one of ts.
func typeIn(t Type, ts ...Type) bool {
	for _, u := range ts {
		if t == u {
			return true
		}
	}
	return false
}

// Type sets the checks below accept.
var (
	intTypes   = []Type{U16, U32, U64, S16, S32, S64}
	arithTypes = []Type{U16, U32, U64, S16, S32, S64, F32, F64}
	bitTypes   = []Type{B16, B32, B64}
	allTypes   = []Type{B16, B32, B64, U16, U32, U64, S16, S32, S64, F32, F64}
)

// decodeOpcode fills in's opcode, types and modifiers from the dotted
// opcode text. It returns "" or the message that refuses the instruction:
// everything the executor does not implement is refused here, by name, so
// that nothing is ever skipped silently.
func decodeOpcode(in *Instr, text string) string {
	switch text {
	case "cp.async.commit_group":
		in.Op, in.Async = OpCpAsync, AsyncCommit
		return ""
	case "cp.async.wait_group":
		in.Op, in.Async = OpCpAsync, AsyncWait
		return ""
	case "cp.async.wait_all":
		in.Op, in.Async = OpCpAsync, AsyncWaitAll
		return ""
	case "cvt.rna.tf32.f32": // wmma::__float_to_tf32
		in.Op, in.Type, in.SrcType, in.Narrow = OpCvt, B32, F32, MatTF32
		return ""
	case "cvt.rn.bf16.f32": // __float2bfloat16
		in.Op, in.Type, in.SrcType, in.Round, in.Narrow = OpCvt, B16, F32, RoundRN, MatBF16
		return ""
	case "cvt.f32.bf16": // __bfloat162float (sm_90)
		in.Op, in.Type, in.SrcType, in.Narrow = OpCvt, F32, B16, MatBF16
		return ""
	case "cvt.rn.f16x2.f32": // __floats2half2_rn
		in.Op, in.Type, in.SrcType, in.Round, in.Narrow, in.Pair = OpCvt, B32, F32, RoundRN, MatF16, true
		return ""
	case "cvt.rn.bf16x2.f32": // __floats2bfloat162_rn
		in.Op, in.Type, in.SrcType, in.Round, in.Narrow, in.Pair = OpCvt, B32, F32, RoundRN, MatBF16, true
		return ""
	}
	if strings.HasPrefix(text, "cp.async.") {
		return decodeCpAsync(in, text)
	}
	if strings.HasPrefix(text, "wmma.") {
		return decodeWmma(in, text)
	}
	if strings.HasPrefix(text, "mma.") || strings.HasPrefix(text, "ldmatrix.") {
		return decodeMma(in, text)
	}
	if strings.HasPrefix(text, "prefetch.") || strings.HasPrefix(text, "prefetchu.") {
		// A cache hint: no value changes, so nothing to run (executed as
		// membar, which without .sync does nothing either).
		in.Op, in.Prefetch = OpMembar, true
		return ""
	}
	if text == "bar.warp.sync" {
		// __syncwarp: the lanes of a simulated warp run in step, so it
		// orders nothing that is not ordered already; executed as membar.
		in.Op, in.Sync, in.Scope = OpMembar, true, ".warp"
		return ""
	}
	parts := strings.Split(text, ".")
	switch parts[0] {
	case "addc", "subc", "madc": // the carry flag's readers (alu_carry.go)
		in.CarryIn = true
		parts[0] = parts[0][:3]
	}
	op, ok := opNames[parts[0]]
	if !ok {
		return fmt.Sprintf("unsupported instruction %q", text)
	}
	in.Op = op
	var types []Type
	var bad string
	for _, m := range parts[1:] {
		if m == "cc" && (op == OpAdd || op == OpSub || op == OpMad) && !in.CarryOut {
			in.CarryOut = true
			continue
		}
		if t, ok := typeByName[m]; ok {
			types = append(types, t)
			continue
		}
		if h, ok := halfByName[m]; ok && in.Half == HalfNone {
			in.Half = h
			types = append(types, map[HalfKind]Type{HalfF16x2: B32, HalfBF16: B16, HalfBF16x2: B32}[h])
			continue
		}
		if !applyMod(in, m) {
			bad = m
			break
		}
	}
	if bad != "" {
		return fmt.Sprintf("unsupported instruction %q (modifier .%s)", text, bad)
	}
	if in.Half != HalfNone {
		if msg := checkHalf(in, types); msg != "" {
			return fmt.Sprintf("unsupported instruction %q (%s)", text, msg)
		}
		return ""
	}
	if msg := checkTypes(in, types); msg != "" {
		return fmt.Sprintf("%s in %q", msg, text)
	}
	if (in.CarryIn || in.CarryOut) && (!typeIn(in.Type, U32, S32, U64, S64) || in.Sat || in.Op == OpMad && in.Mul != MulLo && in.Mul != MulHi) {
		return fmt.Sprintf("unsupported instruction %q (the carry forms take .u32, .s32, .u64 or .s64; mad .lo or .hi)", text)
	}
	switch in.Op {
	case OpLd, OpSt, OpCvta, OpBra, OpRet, OpExit, OpBar, OpShfl, OpVote, OpAtom, OpRed, OpMembar, OpTrap, OpCall,
		OpActivemask, OpNanosleep, OpMatch, OpRedux, OpCpAsync, OpWmma:
		// The executor implements these itself.
	default:
		// Per-lane arithmetic runs through Eval (alu.go): refuse here, with
		// the line, any form Eval does not implement.
		if msg := checkALU(in); msg != "" {
			return fmt.Sprintf("unsupported instruction %q (%s)", text, msg)
		}
	}
	return ""
}

// setOnce sets *f to v if it is still zero; a modifier given twice (or two
// of one kind, .rn.rz) is refused.
func setOnce[T comparable](f *T, v T) bool {
	var zero T
	if *f != zero {
		return false
	}
	*f = v
	return true
}

// applyMod applies one modifier to in, reporting whether the opcode takes it.
func applyMod(in *Instr, m string) bool {
	switch in.Op {
	case OpLd, OpSt:
		if s, ok := spaceByName[m]; ok {
			return setOnce(&in.Space, s)
		}
		switch m {
		case "nc":
			if in.Op != OpLd || in.NC {
				return false
			}
			in.NC = true
			return true
		case "v2":
			return setOnce(&in.Vec, 2)
		case "v4":
			return setOnce(&in.Vec, 4)
		case "weak", "volatile", "relaxed", "acquire", "release",
			"ca", "cg", "cs", "lu", "cv", "wb", "wt":
			return true
		case "cta", "gpu", "sys":
			return setOnce(&in.Scope, "."+m)
		}
		// Eviction and prefetch hints change no value; .L2::cache_hint
		// would add an operand, so it is refused.
		return (strings.HasPrefix(m, "L1::") || strings.HasPrefix(m, "L2::")) && m != "L2::cache_hint"
	case OpCvta:
		if m == "to" {
			return setOnce(&in.CvtaTo, true)
		}
		s, ok := spaceByName[m]
		if !ok || s == SpaceParam {
			return false
		}
		return setOnce(&in.Space, s)
	case OpAtom, OpRed:
		if s, ok := spaceByName[m]; ok && (s == SpaceGlobal || s == SpaceShared) {
			return setOnce(&in.Space, s)
		}
		if m == "noftz" { // 16-bit float adds keep subnormals, as the simulator does anyway
			return true
		}
		if a, ok := atomByName[m]; ok {
			return setOnce(&in.Atom, a)
		}
		switch m {
		case "relaxed", "acquire", "release", "acq_rel":
			return true
		case "cta", "gpu", "sys":
			return setOnce(&in.Scope, "."+m)
		}
		return false
	case OpSetp:
		if c, ok := cmpByName[m]; ok && in.Cmp == CmpNone {
			in.Cmp = c
			return true
		}
		switch m {
		case "and":
			return setOnce(&in.Bool, BoolAnd)
		case "or":
			return setOnce(&in.Bool, BoolOr)
		case "xor":
			return setOnce(&in.Bool, BoolXor)
		case "ftz":
			return setOnce(&in.Ftz, true)
		}
		return false
	case OpBra, OpCall:
		return m == "uni" && setOnce(&in.Uni, true)
	case OpRet:
		return m == "uni" && setOnce(&in.Uni, true)
	case OpBar:
		switch m {
		case "sync":
			return setOnce(&in.Sync, true)
		case "aligned", "cta":
			return true
		case "red":
			return setOnce(&in.Red, RedPopc) // the operation follows
		case "popc", "and", "or":
			if in.Red != RedPopc {
				return false
			}
			in.Red = map[string]RedOp{"popc": RedPopc, "and": RedAnd, "or": RedOr}[m]
			in.Sync = true
			return true
		}
		return false
	case OpShf:
		switch m {
		case "l":
			return setOnce(&in.ShfLeft, true)
		case "r":
			return true
		case "wrap":
			return true
		case "clamp":
			return setOnce(&in.ShfClamp, true)
		}
		return false
	case OpActivemask, OpNanosleep:
		return false
	case OpMatch:
		switch m {
		case "sync":
			return setOnce(&in.Sync, true)
		case "any":
			return setOnce(&in.Match, MatchAny)
		case "all":
			return setOnce(&in.Match, MatchAll)
		}
		return false
	case OpRedux:
		if m == "sync" {
			return setOnce(&in.Sync, true)
		}
		r, ok := map[string]RedOp{"add": RedAdd, "min": RedMin, "max": RedMax, "and": RedAnd, "or": RedOr, "xor": RedXor}[m]
		return ok && setOnce(&in.Red, r)
	case OpShfl:
		switch m {
		case "sync":
			return setOnce(&in.Sync, true)
		case "up":
			return setOnce(&in.Shfl, ShflUp)
		case "down":
			return setOnce(&in.Shfl, ShflDown)
		case "bfly":
			return setOnce(&in.Shfl, ShflBfly)
		case "idx":
			return setOnce(&in.Shfl, ShflIdx)
		}
		return false
	case OpVote:
		switch m {
		case "sync":
			return setOnce(&in.Sync, true)
		case "all":
			return setOnce(&in.Vote, VoteAll)
		case "any":
			return setOnce(&in.Vote, VoteAny)
		case "uni":
			return setOnce(&in.Vote, VoteUni)
		case "ballot":
			return setOnce(&in.Vote, VoteBallot)
		}
		return false
	case OpMembar:
		switch m {
		case "cta", "gl", "sys", "gpu", "cluster":
			return setOnce(&in.Scope, "."+m)
		case "sc", "acq_rel":
			return true
		}
		return false
	}
	if in.Op == OpBfind {
		return m == "shiftamt" && setOnce(&in.ShiftAmt, true)
	}
	// Arithmetic: rounding, .ftz, .sat, .approx, .full, and mul/mad's half.
	switch in.Op {
	case OpCvt, OpAdd, OpSub, OpMul, OpMad, OpFma, OpDiv, OpMin, OpMax,
		OpAbs, OpNeg, OpRcp, OpSqrt, OpRsqrt, OpEx2, OpLg2, OpSin, OpCos:
	default:
		return false
	}
	if r, ok := roundByName[m]; ok {
		return setOnce(&in.Round, r)
	}
	switch m {
	case "ftz":
		return setOnce(&in.Ftz, true)
	case "sat":
		return setOnce(&in.Sat, true)
	case "approx":
		return setOnce(&in.Approx, true)
	case "full":
		return in.Op == OpDiv && setOnce(&in.Full, true)
	case "lo", "hi", "wide":
		if in.Op != OpMul && in.Op != OpMad {
			return false
		}
		return setOnce(&in.Mul, map[string]MulMode{"lo": MulLo, "hi": MulHi, "wide": MulWide}[m])
	}
	return false
}

// checkTypes sets in.Type (and SrcType) from the types written in the
// opcode and checks them, and the modifiers that depend on them, against
// what the opcode takes. It returns "" or why the form is refused.
func checkTypes(in *Instr, types []Type) string {
	want := 1
	switch in.Op {
	case OpCvt:
		want = 2
	case OpBra, OpRet, OpExit, OpBar, OpMembar, OpTrap, OpCall, OpCpAsync:
		want = 0
		if in.Op == OpBar && in.Red != RedNone {
			want = 1 // bar.red.popc.u32, bar.red.and.pred
		}
	}
	if len(types) != want {
		return fmt.Sprintf("%d types where %s takes %d", len(types), in.Op, want)
	}
	if want > 0 {
		in.Type = types[0]
	}
	if want > 1 {
		in.SrcType = types[1]
	}
	t := in.Type
	isF := t == F32 || t == F64
	if t == F16 {
		// The scalar half arithmetic (alu_f16.go): to nearest, no .ftz or
		// .sat.
		switch in.Op {
		case OpAdd, OpSub, OpMul, OpFma, OpMin, OpMax, OpNeg, OpAbs:
			if in.Ftz || in.Sat || in.Approx || in.Mul != MulNone || in.Round > RoundRN {
				return "only round-to-nearest .f16 arithmetic without .ftz or .sat"
			}
			if in.Op == OpFma && in.Round != RoundRN {
				return "fma needs a rounding modifier"
			}
			return ""
		case OpSetp:
			if in.Ftz {
				return ".ftz on .f16 not implemented"
			}
			if in.Cmp == CmpNone {
				return "setp needs a comparison"
			}
			if in.Cmp >= CmpLo && in.Cmp <= CmpHs {
				return "unsigned comparisons apply to integers only"
			}
			return ""
		case OpCvt:
		case OpAtom, OpRed: // atomicAdd on __half (ptxmem.go)
			if in.Atom != AtomAdd {
				return "16-bit float atomics are implemented for add"
			}
			if in.Space == SpaceNone {
				in.Space = SpaceGeneric
			}
			return ""
		default:
			return fmt.Sprintf("type .%s not supported", t)
		}
	}
	bad := func() string { return fmt.Sprintf("type .%s not supported", t) }
	floatRound := func() string { // .rn .rz .rm .rp only
		if in.Round > RoundRP {
			return "integer rounding does not apply"
		}
		if !isF && (in.Round != RoundNone || in.Ftz || in.Approx) {
			return "rounding, .ftz and .approx apply to floats only"
		}
		if in.Ftz && t != F32 {
			return ".ftz applies to .f32 only"
		}
		return ""
	}
	switch in.Op {
	case OpMov:
		if !typeIn(t, append(allTypes, Pred)...) {
			return bad()
		}
	case OpLd, OpSt:
		if t == Pred || t == TypeNone {
			return bad()
		}
		if in.Space == SpaceNone {
			in.Space = SpaceGeneric
		}
		if in.NC && in.Space != SpaceGlobal {
			return ".nc applies to ld.global only"
		}
		if in.Vec == 0 {
			in.Vec = 1
		}
	case OpCvta:
		if in.Space == SpaceNone {
			return "cvta needs a state space"
		}
		if t != U32 && t != U64 {
			return bad()
		}
	case OpCvt:
		for _, u := range types {
			if !typeIn(u, U8, U16, U32, U64, S8, S16, S32, S64, F16, F32, F64) {
				return fmt.Sprintf("type .%s not supported", u)
			}
		}
		if (t == F16 || in.SrcType == F16) && (in.Ftz || in.Sat) {
			return ".ftz and .sat on an .f16 cvt not implemented"
		}
		fi, fo := in.SrcType.IsFloat(), t.IsFloat()
		switch {
		case in.Round >= RoundRNI && !(fi && (!fo || in.SrcType == t)):
			return "integer rounding applies to conversions from floats to integers (or float to same float)"
		case in.Round != RoundNone && in.Round <= RoundRP && !(fo && (!fi || in.SrcType.Size() > t.Size())):
			return "float rounding applies to conversions to a narrower float or from an integer"
		case in.Approx || in.Mul != MulNone:
			return "modifier does not apply"
		case fi && !fo && in.Round < RoundRNI:
			return "a float-to-integer cvt needs .rni, .rzi, .rmi or .rpi"
		case fo && (!fi || in.SrcType.Size() > t.Size()) && in.Round == RoundNone:
			return "this cvt needs .rn, .rz, .rm or .rp"
		}
	case OpAdd, OpSub:
		if !typeIn(t, arithTypes...) {
			return bad()
		}
		if msg := floatRound(); msg != "" {
			return msg
		}
		if in.Sat && !(t == S32 || t == F32) {
			return ".sat applies to .s32 and .f32"
		}
	case OpMul, OpMad:
		if !typeIn(t, arithTypes...) {
			return bad()
		}
		if isF != (in.Mul == MulNone) {
			return "integer mul and mad need .lo, .hi or .wide; float ones take none"
		}
		if in.Mul == MulWide && !typeIn(t, U16, U32, S16, S32) {
			return ".wide applies to 16- and 32-bit integers"
		}
		if msg := floatRound(); msg != "" {
			return msg
		}
		if in.Sat && !(t == F32 || (in.Op == OpMad && in.Mul == MulHi && t == S32)) {
			return ".sat does not apply"
		}
	case OpFma:
		if !isF {
			return bad()
		}
		if in.Round == RoundNone {
			return "fma needs a rounding modifier"
		}
		if msg := floatRound(); msg != "" {
			return msg
		}
		if in.Sat && t != F32 {
			return ".sat applies to .f32 only"
		}
	case OpDiv:
		if !typeIn(t, arithTypes...) {
			return bad()
		}
		if msg := floatRound(); msg != "" {
			return msg
		}
		if in.Sat {
			return ".sat does not apply"
		}
		if t == F64 && (in.Approx || in.Full || in.Round == RoundNone) {
			return "div.f64 needs .rn, .rz, .rm or .rp"
		}
		if t == F32 && in.Round == RoundNone && !in.Approx && !in.Full {
			return "div.f32 needs .approx, .full or a rounding modifier"
		}
		if (in.Approx || in.Full) && in.Round != RoundNone {
			return "rounding does not apply to div.approx and div.full"
		}
	case OpRem:
		if !typeIn(t, intTypes...) {
			return bad()
		}
	case OpMin, OpMax:
		if !typeIn(t, arithTypes...) {
			return bad()
		}
		if in.Round != RoundNone || in.Sat || in.Approx {
			return "rounding, .sat and .approx do not apply"
		}
		if msg := floatRound(); msg != "" {
			return msg
		}
	case OpAbs, OpNeg:
		if !typeIn(t, S16, S32, S64, F32, F64) {
			return bad()
		}
		if in.Round != RoundNone || in.Sat || in.Approx {
			return "rounding, .sat and .approx do not apply"
		}
		if msg := floatRound(); msg != "" {
			return msg
		}
	case OpRcp, OpSqrt:
		if !isF {
			return bad()
		}
		if in.Op == OpRcp && in.Approx && t == F64 && in.Ftz {
			break // rcp.approx.ftz.f64, the one f64 approximation
		}
		if msg := floatRound(); msg != "" {
			return msg
		}
		if in.Sat {
			return ".sat does not apply"
		}
		if in.Approx == (in.Round != RoundNone) {
			return "needs exactly one of .approx or .rn, .rz, .rm, .rp"
		}
		if in.Approx && t == F64 {
			return "the only f64 approximation is rcp.approx.ftz.f64"
		}
	case OpRsqrt, OpEx2, OpLg2:
		if !(t == F32 || (in.Op == OpRsqrt && t == F64)) {
			return bad()
		}
		if !in.Approx || in.Round != RoundNone || in.Sat {
			return "needs .approx and takes no rounding or .sat"
		}
		if in.Ftz && t != F32 && in.Op != OpRsqrt {
			return ".ftz applies to .f32 only (and rsqrt.approx.ftz.f64)"
		}
	case OpShl:
		if !typeIn(t, bitTypes...) {
			return bad()
		}
	case OpShr:
		if !typeIn(t, append(bitTypes, intTypes...)...) {
			return bad()
		}
	case OpAnd, OpOr, OpXor, OpNot:
		if !typeIn(t, B16, B32, B64, Pred) {
			return bad()
		}
	case OpPopc, OpClz, OpBrev:
		if !typeIn(t, B32, B64) {
			return bad()
		}
	case OpBfe:
		if !typeIn(t, U32, U64, S32, S64) {
			return bad()
		}
	case OpBfi:
		if !typeIn(t, B32, B64) {
			return bad()
		}
	case OpSelp:
		if !typeIn(t, allTypes...) {
			return bad()
		}
	case OpSetp:
		if !typeIn(t, allTypes...) {
			return bad()
		}
		switch c := in.Cmp; {
		case c == CmpNone:
			return "setp needs a comparison"
		case c >= CmpEqu && !isF:
			return "unordered comparisons apply to floats only"
		case c >= CmpLo && c <= CmpHs && isF:
			return "unsigned comparisons apply to integers only"
		case c >= CmpLt && c <= CmpGe && isBits(t):
			return "bit-size types compare with eq and ne only"
		}
		if in.Ftz && t != F32 {
			return ".ftz applies to .f32 only"
		}
	case OpBar:
		if !in.Sync {
			return "only bar.sync, barrier.sync and bar.red are supported"
		}
		if in.Red == RedPopc && t != U32 || (in.Red == RedAnd || in.Red == RedOr) && t != Pred {
			return "bar.red.popc takes .u32, bar.red.and and .or take .pred"
		}
	case OpShf:
		if t != B32 {
			return bad()
		}
	case OpSin, OpCos:
		if t != F32 || !in.Approx || in.Round != RoundNone || in.Sat {
			return "only the .approx{.ftz}.f32 form"
		}
	case OpBfind:
		if !typeIn(t, U32, U64, S32, S64) {
			return bad()
		}
	case OpPrmt:
		if t != B32 {
			return bad()
		}
	case OpSad:
		if !typeIn(t, intTypes...) {
			return bad()
		}
	case OpActivemask:
		if t != B32 {
			return bad()
		}
	case OpNanosleep:
		if t != U32 {
			return bad()
		}
	case OpMatch:
		if !in.Sync || in.Match == MatchNone {
			return "match needs .sync and a mode (any, all)"
		}
		if t != B32 && t != B64 {
			return bad()
		}
	case OpRedux:
		if !in.Sync || in.Red == RedNone {
			return "redux needs .sync and an operation"
		}
		switch in.Red {
		case RedAdd, RedMin, RedMax:
			if t != U32 && t != S32 {
				return bad()
			}
		default:
			if t != B32 {
				return bad()
			}
		}
	case OpShfl:
		if !in.Sync || in.Shfl == ShflNone {
			return "shfl needs .sync and a mode (up, down, bfly, idx)"
		}
		if t != B32 {
			return bad()
		}
	case OpVote:
		if !in.Sync || in.Vote == VoteNone {
			return "vote needs .sync and a mode (all, any, uni, ballot)"
		}
		if (in.Vote == VoteBallot) != (t == B32) || (in.Vote != VoteBallot && t != Pred) {
			return bad()
		}
	case OpAtom, OpRed:
		if in.Space == SpaceNone {
			in.Space = SpaceGeneric
		}
		var ok []Type
		switch in.Atom {
		case AtomNone:
			return "needs an operation"
		case AtomAdd:
			ok = []Type{U32, S32, U64, F32, F64}
		case AtomMin, AtomMax:
			ok = []Type{U32, S32, U64, S64}
		case AtomInc, AtomDec:
			ok = []Type{U32}
		case AtomCAS:
			ok = []Type{B16, B32, B64, U32, U64, S32, S64}
			if in.Op == OpRed {
				return "red has no .cas"
			}
		case AtomExch:
			ok = []Type{B32, B64, U32, U64, S32, S64}
			if in.Op == OpRed {
				return "red has no .exch"
			}
		case AtomAnd, AtomOr, AtomXor:
			ok = []Type{B32, B64}
		}
		if !typeIn(t, ok...) {
			return bad()
		}
	}
	return ""
}

// decodeCpAsync reads cp.async.ca.shared.global (or .cg, with the
// optional .L2:: hints): a copy of 4, 8 or 16 bytes from global to shared
// memory that completes by the next cp.async.wait_group or wait_all.
func decodeCpAsync(in *Instr, text string) string {
	in.Op, in.Async = OpCpAsync, AsyncCopy
	parts := strings.Split(text, ".")[2:]
	var spaces []string
	for _, m := range parts {
		switch {
		case m == "ca":
		case m == "cg":
			in.CpCG = true
		case m == "shared" || m == "global" || m == "shared::cta":
			spaces = append(spaces, m)
		case strings.HasPrefix(m, "L2::") && m != "L2::cache_hint":
		default:
			return fmt.Sprintf("unsupported instruction %q (modifier .%s)", text, m)
		}
	}
	if len(spaces) != 2 || spaces[1] != "global" {
		return fmt.Sprintf("unsupported instruction %q (cp.async copies .shared.global)", text)
	}
	in.Space = SpaceShared
	return ""
}

// halfByName reads the packed and bfloat16 types of the 16-bit float
// arithmetic (alu_half.go).
var halfByName = map[string]HalfKind{"f16x2": HalfF16x2, "bf16": HalfBF16, "bf16x2": HalfBF16x2}

// checkHalf accepts the .f16x2, .bf16 and .bf16x2 arithmetic Eval
// implements: add, sub, mul, fma (round to nearest), neg, abs, min, max,
// without .ftz, .sat, .relu or .NaN.
func checkHalf(in *Instr, types []Type) string {
	if len(types) != 1 {
		return "one type"
	}
	in.Type = types[0]
	switch in.Op {
	case OpAtom, OpRed: // atomicAdd on __half2, __nv_bfloat16(2): ptxmem.go
		if in.Atom != AtomAdd {
			return "16-bit float atomics are implemented for add"
		}
		if in.Space == SpaceNone {
			in.Space = SpaceGeneric
		}
		return ""
	case OpAdd, OpSub, OpMul, OpFma, OpNeg, OpAbs, OpMin, OpMax:
	default:
		return ".f16x2, .bf16 and .bf16x2 are implemented for add, sub, mul, fma, neg, abs, min and max"
	}
	if in.Ftz || in.Sat || in.Approx || in.Mul != MulNone || in.Round > RoundRN || in.Op == OpFma && in.Round != RoundRN {
		return "only round-to-nearest arithmetic without .ftz or .sat"
	}
	return ""
}

// matByName reads a tensor-core element format.
var matByName = map[string]MatType{"f16": MatF16, "bf16": MatBF16, "tf32": MatTF32, "f32": MatF32}

// decodeWmma reads wmma.load.{a,b,c}, wmma.store.d and wmma.mma of the
// floating-point forms the PTX manual lists: m16n16k16, m32n8k16 and
// m8n32k16 with .f16 A and B and .f16 or .f32 C and D, or .bf16 A and B and
// .f32 C and D; m16n16k8 with .tf32 A and B and .f32 C and D. Integer,
// .f64 and sub-byte forms are refused.
func decodeWmma(in *Instr, text string) string {
	in.Op = OpWmma
	w := &Wmma{}
	in.Wmma = w
	parts := strings.Split(text, ".")[1:]
	refuse := func(why string) string {
		return fmt.Sprintf("unsupported instruction %q (%s)", text, why)
	}
	const only = "the simulator runs m16n16k16, m32n8k16 and m8n32k16 with .f16 A and B and .f16 or .f32 C and D or with .bf16 A and B and .f32 C and D, and m16n16k8 with .tf32 A and B and .f32 C and D"
	if len(parts) == 0 {
		return refuse("wmma needs load, store or mma")
	}
	switch parts[0] {
	case "load":
		w.Op = 'l'
	case "store":
		w.Op = 's'
	case "mma":
		w.Op = 'm'
	default:
		return refuse("wmma needs load, store or mma")
	}
	sync, layouts := false, 0
	var types []MatType
	for _, m := range parts[1:] {
		switch {
		case m == "a" || m == "b" || m == "c" || m == "d":
			if w.Op == 'm' || w.Frag != 0 {
				return refuse("modifier ." + m)
			}
			w.Frag = m[0]
		case m == "sync":
			sync = true
		case m == "aligned":
		case m == "row" || m == "col":
			layouts++
			if w.Op != 'm' {
				w.ColMaj = m == "col"
			}
		case m == "m16n16k16" || m == "m32n8k16" || m == "m8n32k16" || m == "m16n16k8":
			if w.M != 0 {
				return refuse(only)
			}
			fmt.Sscanf(m, "m%dn%dk%d", &w.M, &w.N, &w.K)
		case m == "global" || m == "shared":
			in.Space = spaceByName[m]
		case matByName[m] != MatNone:
			types = append(types, matByName[m])
		default:
			return refuse(only + "; modifier ." + m)
		}
	}
	if !sync || w.M == 0 {
		return refuse(only)
	}
	if in.Space == SpaceNone {
		in.Space = SpaceGeneric
	}
	tf32Shape := w.K == 8
	switch w.Op {
	case 'l', 's':
		if w.Frag == 0 || (w.Op == 's') != (w.Frag == 'd') || layouts != 1 || len(types) != 1 {
			return refuse(only)
		}
		w.Mat = types[0]
		ab := w.Frag == 'a' || w.Frag == 'b'
		if ab && w.Mat == MatF32 || !ab && w.Mat != MatF32 && w.Mat != MatF16 || ab && (w.Mat == MatTF32) != tf32Shape || FragRegs(w.Frag, w.Mat, w.M, w.N, w.K) == 0 {
			return refuse(only)
		}
		w.Elem = map[MatType]Type{MatF16: F16, MatBF16: B16, MatTF32: B32, MatF32: F32}[w.Mat]
	case 'm':
		if layouts != 2 {
			return refuse(only)
		}
		switch len(types) {
		case 2: // .dtype.ctype, A and B .f16
			w.D, w.AB, w.C = types[0], MatF16, types[1]
			if tf32Shape || w.D == MatBF16 || w.D == MatTF32 || w.C == MatBF16 || w.C == MatTF32 {
				return refuse(only)
			}
		case 4: // .f32.atype.btype.f32
			w.D, w.AB, w.C = types[0], types[1], types[3]
			if types[2] != w.AB || w.D != MatF32 || w.C != MatF32 || (w.AB == MatTF32) != tf32Shape || w.AB != MatBF16 && w.AB != MatTF32 {
				return refuse(only)
			}
		default:
			return refuse(only)
		}
	}
	return ""
}

// decodeMma reads mma.sync.aligned.m16n8k16 (and m16n8k8) .row.col
// .f32.f16.f16.f32, and ldmatrix.sync.aligned.m8n8.x1/.x2/.x4[.trans]
// .shared.b16: the warp-level matrix instructions whose fragment layouts
// the PTX manual fixes.
func decodeMma(in *Instr, text string) string {
	in.Op = OpWmma
	w := &Wmma{Op: 'M'}
	in.Wmma = w
	parts := strings.Split(text, ".")
	const only = "the simulator runs mma.sync.aligned .row.col m16n8k16 and m16n8k8 with .f16 A and B (.f16 or .f32 C and D) or .bf16 (.f32 C and D), m16n8k8 and m16n8k4 with .tf32 (.f32 C and D), and ldmatrix.sync.aligned.m8n8.x1/.x2/.x4[.trans].shared.b16"
	refuse := func() string { return fmt.Sprintf("unsupported instruction %q (%s)", text, only) }
	if parts[0] == "ldmatrix" {
		w.Op = 'L'
		want := map[string]bool{"sync": false, "aligned": false, "m8n8": false, "shared": false, "b16": false}
		for _, m := range parts[1:] {
			switch {
			case m == "x1" || m == "x2" || m == "x4":
				if w.N != 0 {
					return refuse()
				}
				w.N = int(m[1] - '0')
			case m == "trans":
				w.Trans = true
			case m == "shared::cta":
				want["shared"] = true
			default:
				if seen, ok := want[m]; !ok || seen {
					return refuse()
				}
				want[m] = true
			}
		}
		for _, seen := range want {
			if !seen {
				return refuse()
			}
		}
		if w.N == 0 {
			return refuse()
		}
		in.Space = SpaceShared
		w.Elem = B16
		return ""
	}
	// sync.aligned.shape.row.col.dtype.atype.btype.ctype
	f := parts[1:]
	if len(f) != 9 || f[0] != "sync" || f[1] != "aligned" || f[3] != "row" || f[4] != "col" || f[6] != f[7] {
		return refuse()
	}
	w.M, w.N = 16, 8
	w.D, w.AB, w.C = matByName[f[5]], matByName[f[6]], matByName[f[8]]
	switch {
	case w.AB == MatF16 && (f[2] == "m16n8k16" || f[2] == "m16n8k8") && (w.D == MatF32 || w.D == MatF16) && (w.C == MatF32 || w.C == MatF16):
	case w.AB == MatBF16 && (f[2] == "m16n8k16" || f[2] == "m16n8k8") && w.D == MatF32 && w.C == MatF32:
	case w.AB == MatTF32 && (f[2] == "m16n8k8" || f[2] == "m16n8k4") && w.D == MatF32 && w.C == MatF32:
	default:
		return refuse()
	}
	w.K = int(f[2][len("m16n8k")] - '0')
	if f[2] == "m16n8k16" {
		w.K = 16
	}
	return ""
}

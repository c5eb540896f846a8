package ptx

import (
	"errors"
	"fmt"
)

// CheckALU reports whether Eval implements in's (opcode, type, modifiers)
// combination, as nil or an error saying what is not implemented, so that
// the parser's checker refuses such an instruction with its PTX line instead
// of letting Eval compute something the manual does not say. It looks only
// at the opcode, types and modifiers, not at operands. Opcodes that are not
// per-lane arithmetic (ld, st, cvta, bra, ret, exit, bar, shfl, vote, atom,
// red, membar) are errors here: the executor handles them itself.
func CheckALU(in *Instr) error {
	msg := checkALU(in)
	if msg == "" {
		return nil
	}
	name := in.Text
	if name == "" {
		name = fmt.Sprintf("opcode %d .%s", in.Op, in.Type)
	}
	return errors.New(name + ": " + msg)
}

// Supported is CheckALU(in) == nil.
func Supported(in *Instr) bool { return checkALU(in) == "" }

// Type classes of the checks.
func isInt16to64(t Type) bool {
	switch t {
	case B16, B32, B64, U16, U32, U64, S16, S32, S64:
		return true
	}
	return false
}

func isCvtType(t Type) bool { return t >= U8 && t <= F64 }

func isFloat3264(t Type) bool { return t == F32 || t == F64 }

// checkALU is CheckALU's reason, "" when implemented.
func checkALU(in *Instr) string {
	t := in.Type
	if t == F16 && in.Op != OpCvt {
		// The scalar half arithmetic of alu_f16.go.
		switch in.Op {
		case OpAdd, OpSub, OpMul, OpFma, OpMin, OpMax, OpNeg, OpAbs, OpSetp:
		default:
			return ".f16 is implemented for add, sub, mul, fma, min, max, neg, abs, setp and cvt"
		}
		if in.Ftz || in.Sat || in.Approx || in.Mul != MulNone || in.Round > RoundRN || in.Op == OpFma && in.Round != RoundRN {
			return "only round-to-nearest .f16 arithmetic without .ftz or .sat"
		}
		if in.Op == OpSetp && (in.Cmp == CmpNone || in.Cmp >= CmpLo && in.Cmp <= CmpHs) {
			return "setp.f16 needs a float comparison"
		}
		return ""
	}
	// Modifiers that belong to a few opcodes only.
	if in.Cmp != CmpNone && in.Op != OpSetp || in.Bool != BoolNone && in.Op != OpSetp {
		return "comparison modifiers outside setp"
	}
	if in.Mul != MulNone && in.Op != OpMul && in.Op != OpMad {
		return ".lo/.hi/.wide outside mul and mad"
	}
	if in.Full && !(in.Op == OpDiv && t == F32) {
		return ".full is only div.full.f32"
	}
	if in.Approx {
		switch in.Op {
		case OpDiv, OpRcp, OpSqrt, OpRsqrt, OpEx2, OpLg2, OpSin, OpCos:
		default:
			return ".approx on an instruction that has no approximate form"
		}
	}
	if in.Ftz && in.Op != OpCvt && t != F32 && !(t == F64 && in.Approx && (in.Op == OpRcp || in.Op == OpRsqrt)) {
		return ".ftz applies to .f32 only (and rcp/rsqrt.approx.ftz.f64)"
	}
	if in.Op != OpCvt && in.Round >= RoundRNI {
		return "integer rounding (.rni/.rzi/.rmi/.rpi) outside cvt"
	}

	switch in.Op {
	case OpShf:
		if t != B32 {
			return "shf is .b32"
		}
		return ""
	case OpSin, OpCos:
		if t != F32 || !in.Approx {
			return "only sin/cos.approx{.ftz}.f32"
		}
		return ""
	case OpBfind, OpPrmt, OpSad:
		return ""
	case OpMov:
		if t == TypeNone || int(t) >= len(aluMask) {
			return "mov without a type"
		}
		return noFloatMods(in)

	case OpAdd, OpSub, OpMul, OpMad, OpFma:
		if isFloat3264(t) {
			if in.Mul != MulNone {
				return ".lo/.hi/.wide on a float type"
			}
			if t == F64 && in.Sat {
				return ".sat on .f64"
			}
			if in.Op == OpFma && in.Round == RoundNone {
				return "fma needs a rounding modifier"
			}
			if in.Op == OpMad && in.Round == RoundNone {
				// mad.f32 without one is the sm_1x truncating mad, not fma.
				return "mad.f32/.f64 needs a rounding modifier (sm_20 and later)"
			}
			return ""
		}
		if in.Op == OpFma {
			return "fma is for .f32 and .f64"
		}
		if !isInt16to64(t) {
			return "type not implemented (16/32/64-bit integers, .f32, .f64)"
		}
		if in.Round != RoundNone {
			return "rounding modifier on an integer type"
		}
		if in.Sat && !(t == S32 && (in.Op == OpAdd || in.Op == OpSub)) {
			return "integer .sat is only add.sat.s32 and sub.sat.s32"
		}
		if in.Mul == MulWide && widthOf(t) == 64 {
			return ".wide of a 64-bit type"
		}
		if (in.Op == OpAdd || in.Op == OpSub) && in.Mul != MulNone {
			return ".lo/.hi/.wide on add or sub"
		}
		return ""

	case OpDiv:
		if isFloat3264(t) {
			if in.Sat {
				return ".sat on div"
			}
			if t == F32 {
				n := 0
				if in.Approx {
					n++
				}
				if in.Full {
					n++
				}
				if in.Round != RoundNone {
					n++
				}
				if n != 1 {
					return "div.f32 needs exactly one of .approx, .full, .rn/.rz/.rm/.rp"
				}
				return ""
			}
			if in.Approx || in.Round == RoundNone {
				return "div.f64 needs .rn/.rz/.rm/.rp"
			}
			return ""
		}
		return intOnly(in)

	case OpRem:
		return intOnly(in)

	case OpMin, OpMax:
		if isFloat3264(t) {
			if in.Sat || in.Round != RoundNone {
				return "modifier not implemented on min/max"
			}
			return ""
		}
		return intOnly(in)

	case OpAbs, OpNeg:
		if isFloat3264(t) {
			if in.Sat || in.Round != RoundNone {
				return "modifier not implemented on abs/neg"
			}
			return ""
		}
		if t != S16 && t != S32 && t != S64 {
			return "abs/neg on integers take .s16, .s32, .s64"
		}
		return noFloatMods(in)

	case OpRcp, OpSqrt:
		if in.Sat {
			return ".sat on rcp/sqrt"
		}
		switch t {
		case F32:
			if in.Approx == (in.Round != RoundNone) {
				return "needs exactly one of .approx, .rn/.rz/.rm/.rp"
			}
			return ""
		case F64:
			if in.Approx {
				if in.Op == OpRcp && in.Ftz && in.Round == RoundNone {
					return "" // rcp.approx.ftz.f64
				}
				return "the only approximate .f64 form here is rcp.approx.ftz.f64"
			}
			if in.Round == RoundNone {
				return "needs .rn/.rz/.rm/.rp"
			}
			return ""
		}
		return "type not implemented (.f32, .f64)"

	case OpRsqrt:
		if !in.Approx || in.Round != RoundNone || in.Sat || !isFloat3264(t) {
			return "only rsqrt.approx{.ftz}.f32 and rsqrt.approx{.ftz}.f64"
		}
		return ""

	case OpEx2, OpLg2:
		if !in.Approx || in.Round != RoundNone || in.Sat || t != F32 {
			return "only the .approx{.ftz}.f32 form is implemented"
		}
		return ""

	case OpShl, OpShr:
		if !isInt16to64(t) {
			return "type not implemented (16/32/64-bit integers)"
		}
		return noFloatMods(in)

	case OpAnd, OpOr, OpXor, OpNot:
		if t != Pred && !isInt16to64(t) {
			return "type not implemented (.pred, 16/32/64-bit)"
		}
		return noFloatMods(in)

	case OpPopc, OpClz, OpBrev:
		if t != B32 && t != B64 {
			return "type not implemented (.b32, .b64)"
		}
		return noFloatMods(in)

	case OpBfe:
		switch t {
		case U32, U64, S32, S64:
			return noFloatMods(in)
		}
		return "bfe takes .u32, .u64, .s32, .s64"

	case OpBfi:
		if t != B32 && t != B64 {
			return "bfi takes .b32, .b64"
		}
		return noFloatMods(in)

	case OpSetp:
		if in.Sat || in.Round != RoundNone {
			return "modifier not implemented on setp"
		}
		switch {
		case isFloat3264(t):
			switch in.Cmp {
			case CmpLo, CmpLs, CmpHi, CmpHs, CmpNone:
				return "comparison not defined on floats"
			}
			return ""
		case isInt16to64(t):
			if in.Ftz {
				return ".ftz on an integer setp"
			}
			if in.Cmp == CmpNone || in.Cmp >= CmpEqu {
				return "comparison not defined on integers"
			}
			if (t == B16 || t == B32 || t == B64) && in.Cmp != CmpEq && in.Cmp != CmpNe {
				return ".b types compare only eq and ne"
			}
			return ""
		}
		return "type not implemented (16/32/64-bit integers, .f32, .f64)"

	case OpSelp:
		if !isInt16to64(t) && !isFloat3264(t) {
			return "type not implemented (16/32/64-bit, .f32, .f64)"
		}
		return noFloatMods(in)

	case OpCvt:
		return checkCvt(in)
	}
	return "not a per-lane arithmetic instruction"
}

// intOnly checks an integer-only form (div, rem, min, max on integers).
func intOnly(in *Instr) string {
	if !isInt16to64(in.Type) {
		return "type not implemented (16/32/64-bit integers, or .f32/.f64 where defined)"
	}
	return noFloatMods(in)
}

// noFloatMods refuses float modifiers on an instruction that has none.
func noFloatMods(in *Instr) string {
	if in.Round != RoundNone || in.Sat || in.Ftz || in.Approx {
		return "rounding/.sat/.ftz/.approx not defined here"
	}
	return ""
}

// checkCvt is cvt's part of checkALU.
func checkCvt(in *Instr) string {
	st, dt := in.SrcType, in.Type
	if !isCvtType(st) || !isCvtType(dt) {
		return "cvt types not implemented (.u8-.s64, .f16, .f32, .f64)"
	}
	sf, df := st.IsFloat(), dt.IsFloat()
	if in.Ftz && st != F32 && dt != F32 {
		return ".ftz needs an .f32 source or destination"
	}
	switch {
	case !sf && !df:
		if in.Round != RoundNone || in.Ftz {
			return "rounding or .ftz on an integer-to-integer cvt"
		}
	case !sf:
		if in.Round >= RoundRNI {
			return "integer rounding on an integer-to-float cvt"
		}
	case !df:
		if in.Round < RoundRNI {
			return "float-to-integer cvt needs .rni/.rzi/.rmi/.rpi"
		}
	case st == dt:
		if in.Round != RoundNone && in.Round < RoundRNI {
			return "same-type float cvt takes only .rni/.rzi/.rmi/.rpi"
		}
	case widthOf(dt) > widthOf(st):
		if in.Round != RoundNone {
			return "rounding on a widening float cvt"
		}
	default:
		if in.Round >= RoundRNI {
			return "integer rounding on a narrowing float cvt"
		}
	}
	return ""
}

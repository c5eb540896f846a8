package ptx

import (
	"math"
	"math/bits"
)

// This file is the per-lane arithmetic of the PTX executor: Eval computes
// one lane's result of one decoded instruction from its source operands'
// bits, exactly as the PTX ISA manual defines the instruction, so that the
// simulator's outputs are the GPU's bit for bit wherever the manual pins the
// result down.
//
// Register-bit convention (the executor and Eval agree on it):
//
//   - A register is a 64-bit slot. A value of type T lives in its low
//     8*T.Size() bits and the bits above are zero, for signed types too: an
//     .s32 -1 is 0x00000000_FFFFFFFF, an .s16 -1 is 0xFFFF. An .f32 is its
//     IEEE bits in the low 32 bits, an .f16 in the low 16, an .f64 fills the
//     slot. A .pred is 0 or 1.
//   - Eval reads each source at the width PTX gives it and ignores the bits
//     above (PTX's relaxed rule for a source register wider than the
//     instruction type: the value is truncated). Signed sources are
//     sign-extended internally from their own width.
//   - Eval's results are canonical: masked to the destination type's width
//     (popc and clz: .u32; mul.wide and mad.wide: twice the type's width;
//     cvt: the destination type; setp: 0 or 1), so the executor writes d0 as
//     is. The one case where PTX wants more is an .s8 result (cvt.s8.*) in a
//     wider register: PTX sign-extends it to the register's width, which
//     Widen does.
//   - NaN results have the bits an H200 gives (the manual leaves them open):
//     .f32 and .f16 arithmetic writes the canonical NaN (0x7FFFFFFF,
//     0x7FFF) whatever the operands' payloads; .f64 arithmetic passes a NaN
//     operand on, quieted, and makes 0xFFF80000_00000000 itself (see
//     out64, cvtNaN). mov, selp and the bitwise instructions move bits
//     untouched.
//
// Which (opcode, type, modifier) combinations Eval implements is CheckALU's
// business; Eval assumes it was asked only for those and returns zeros for
// anything else rather than panicking.

// aluWidth is each type's width in bits (Pred: 1), by Type.
var aluWidth = [...]uint8{
	TypeNone: 0, B8: 8, B16: 16, B32: 32, B64: 64,
	U8: 8, U16: 16, U32: 32, U64: 64,
	S8: 8, S16: 16, S32: 32, S64: 64,
	F16: 16, F32: 32, F64: 64, Pred: 1,
}

// aluMask is each type's value mask, by Type, so canonicalising a result
// is one AND.
var aluMask = [...]uint64{
	TypeNone: 0, B8: 0xff, B16: 0xffff, B32: 0xffffffff, B64: ^uint64(0),
	U8: 0xff, U16: 0xffff, U32: 0xffffffff, U64: ^uint64(0),
	S8: 0xff, S16: 0xffff, S32: 0xffffffff, S64: ^uint64(0),
	F16: 0xffff, F32: 0xffffffff, F64: ^uint64(0), Pred: 1,
}

// maskOf returns t's value mask (0 for a type out of range, so a bad Type
// yields zeros instead of an index panic).
func maskOf(t Type) uint64 {
	if int(t) < len(aluMask) {
		return aluMask[t]
	}
	return 0
}

// widthOf returns t's width in bits (0 for a type out of range).
func widthOf(t Type) uint {
	if int(t) < len(aluWidth) {
		return uint(aluWidth[t])
	}
	return 0
}

// sext sign-extends the low w bits of v (1 <= w <= 64).
func sext(v uint64, w uint) int64 {
	s := 64 - w
	return int64(v<<s) >> s
}

// Widen extends a result v of type t to a destination register of regSize
// bytes, as PTX's relaxed type rule for destinations says: a signed result
// is sign-extended to the register's width, anything else zero-extended
// (which v already is). Only a narrower-than-register signed result (cvt or
// ld of .s8 into a 16-bit %rs register) changes.
func Widen(v uint64, t Type, regSize int) uint64 {
	if !t.IsSigned() || regSize <= t.Size() {
		return v
	}
	w := uint(regSize) * 8
	x := uint64(sext(v, widthOf(t)))
	if w < 64 {
		x &= 1<<w - 1
	}
	return x
}

// b2u is a predicate's register value.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Eval computes one lane's result of in, a non-memory, non-control,
// non-warp instruction that CheckALU accepts, from its sources' bits a, b,
// c, d (in.Src[0..3] in PTX order; a predicate source is 0 or 1, already
// negated for !%p). d0 is the destination's new bits; d1 is setp's second
// predicate (the q of p|q), !cmp combined with c. See the register-bit
// convention above.
//
// It is called once per active lane per instruction, so it is one flat
// switch with no allocation on the paths nvcc emits; only directed rounding
// of .f64 (.rz/.rm/.rp, rare in compiled CUDA) goes through math/big.
func Eval(in *Instr, a, b, c, d uint64) (d0, d1 uint64) {
	t := in.Type
	if in.Half != HalfNone {
		return evalHalf(in, a, b, c), 0 // alu_half.go
	}
	if in.CarryIn || in.CarryOut {
		return evalCarry(in, a, b, c, d) // alu_carry.go
	}
	if t == F16 && in.Op != OpSetp && in.Op != OpCvt && in.Op != OpMov && in.Op != OpSelp {
		return evalF16(in, a, b, c), 0 // alu_f16.go
	}
	switch in.Op {
	case OpMov:
		return a & maskOf(t), 0

	case OpAdd:
		switch t {
		case F32:
			return addF32(in, a, b), 0
		case F64:
			return addF64(in, a, b, false), 0
		case S32:
			if in.Sat {
				return satS32(int64(int32(a)) + int64(int32(b))), 0
			}
		}
		return (a + b) & maskOf(t), 0

	case OpSub:
		switch t {
		case F32:
			return addF32(in, a, b^0x80000000), 0
		case F64:
			return addF64(in, a, b, true), 0
		case S32:
			if in.Sat {
				return satS32(int64(int32(a)) - int64(int32(b))), 0
			}
		}
		return (a - b) & maskOf(t), 0

	case OpMul:
		switch t {
		case F32:
			return mulF32(in, a, b), 0
		case F64:
			return mulF64(in, a, b), 0
		}
		return mulInt(in.Mul, t, a, b), 0

	case OpMad:
		switch t {
		case F32:
			return fmaF32(in, a, b, c), 0
		case F64:
			return fmaF64(in, a, b, c), 0
		}
		if in.Mul == MulWide {
			return (mulInt(MulWide, t, a, b) + c) & wideMask(t), 0
		}
		return (mulInt(in.Mul, t, a, b) + c) & maskOf(t), 0

	case OpFma:
		switch t {
		case F32:
			return fmaF32(in, a, b, c), 0
		case F64:
			return fmaF64(in, a, b, c), 0
		}
		return 0, 0

	case OpDiv:
		switch t {
		case F32:
			return divF32(in, a, b), 0
		case F64:
			return divF64(in, a, b), 0
		}
		return divInt(t, a, b, false), 0

	case OpRem:
		return divInt(t, a, b, true), 0

	case OpMin, OpMax:
		return minMax(in, a, b), 0

	case OpAbs:
		switch t {
		case F32:
			return out32(abs32(f32in(a, in.Ftz)), in.Ftz, false), 0
		case F64:
			return out64(abs64(f64in(a)), a, 0, 0), 0 // a NaN stays as it is, sign too (H200)
		}
		w := widthOf(t)
		v := sext(a, w)
		if v < 0 {
			v = -v
		}
		return uint64(v) & maskOf(t), 0

	case OpNeg:
		switch t {
		case F32:
			return out32(-f32in(a, in.Ftz), in.Ftz, false), 0
		case F64:
			return out64(-f64in(a), a, 0, 0), 0
		}
		return -a & maskOf(t), 0

	case OpRcp, OpSqrt, OpRsqrt, OpEx2, OpLg2:
		return unaryFloat(in, a), 0

	case OpShl:
		w := widthOf(t)
		if s := uint32(b); uint(s) < w {
			return (a << s) & maskOf(t), 0
		}
		return 0, 0

	case OpShr:
		w := widthOf(t)
		s := uint(uint32(b))
		if t.IsSigned() {
			// Arithmetic: a shift of the width or more leaves only the sign.
			if s >= w {
				s = w - 1
			}
			return uint64(sext(a, w)>>s) & maskOf(t), 0
		}
		if s >= w {
			return 0, 0
		}
		return (a & maskOf(t)) >> s, 0

	case OpAnd:
		return a & b & maskOf(t), 0
	case OpOr:
		return (a | b) & maskOf(t), 0
	case OpXor:
		return (a ^ b) & maskOf(t), 0
	case OpNot:
		return ^a & maskOf(t), 0

	case OpPopc:
		return uint64(bits.OnesCount64(a & maskOf(t))), 0
	case OpClz:
		if t == B64 || t == U64 || t == S64 {
			return uint64(bits.LeadingZeros64(a)), 0
		}
		return uint64(bits.LeadingZeros32(uint32(a))), 0
	case OpBrev:
		if t == B64 || t == U64 || t == S64 {
			return bits.Reverse64(a), 0
		}
		return uint64(bits.Reverse32(uint32(a))), 0

	case OpSin, OpCos:
		// Within the manual's bound (absolute 2^-20.9 in -pi..pi, growing
		// beyond): the correctly rounded sine or cosine of the input.
		x := f32in(a, in.Ftz)
		r := math.Sin(float64(x))
		if in.Op == OpCos {
			r = math.Cos(float64(x))
		}
		return out32(float32(r), in.Ftz, false), 0

	case OpBfind:
		// The position of the most significant bit that is not a sign
		// bit (.s: of the complement of a negative value), 0xffffffff when
		// there is none; .shiftamt: the left shift that brings it to the
		// top.
		w := widthOf(t)
		v := a & maskOf(t)
		if t == S32 || t == S64 {
			if v>>(w-1)&1 == 1 {
				v = ^v & maskOf(t)
			}
		}
		if v == 0 {
			return 0xffffffff, 0
		}
		pos := uint64(63 - bits.LeadingZeros64(v))
		if in.ShiftAmt {
			return uint64(w-1) - pos, 0
		}
		return pos, 0

	case OpPrmt:
		// The default mode: each of c's four low nibbles picks a byte of
		// b:a (0-3 from a, 4-7 from b) by its low three bits; with its
		// fourth bit set, the picked byte's sign fills the result byte.
		src := b<<32 | a&0xffffffff
		var r uint64
		for i := 0; i < 4; i++ {
			sel := c >> (4 * i) & 0xf
			by := src >> (8 * (sel & 7)) & 0xff
			if sel&8 != 0 {
				by = 0
				if src>>(8*(sel&7)+7)&1 == 1 {
					by = 0xff
				}
			}
			r |= by << (8 * i)
		}
		return r, 0

	case OpSad:
		// c + |a - b|, the difference taken at the type's signedness.
		m := maskOf(t)
		var diff uint64
		if t.IsSigned() {
			x, y := sext(a, widthOf(t)), sext(b, widthOf(t))
			if x > y {
				diff = uint64(x - y)
			} else {
				diff = uint64(y - x)
			}
		} else if a&m > b&m {
			diff = a&m - b&m
		} else {
			diff = b&m - a&m
		}
		return (c + diff) & m, 0

	case OpShf:
		// The funnel shift of the 64-bit b:a (b the upper half): .l keeps
		// the upper 32 bits of b:a << n, .r the lower of b:a >> n; n is
		// c mod 32 (.wrap) or c clamped to 32 (.clamp).
		n := uint32(c)
		if in.ShfClamp {
			n = min(n, 32)
		} else {
			n &= 31
		}
		v := b<<32 | a&0xffffffff
		if in.ShfLeft {
			return (v << n) >> 32 & 0xffffffff, 0
		}
		return v >> n & 0xffffffff, 0

	case OpBfe:
		return bfe(t, a, b, c), 0
	case OpBfi:
		return bfi(t, a, b, c, d), 0

	case OpSetp:
		r := compare(in, a, b)
		return boolCombine(in.Bool, r, c), boolCombine(in.Bool, !r, c)

	case OpSelp:
		if c&1 != 0 {
			return a & maskOf(t), 0
		}
		return b & maskOf(t), 0

	case OpCvt:
		if in.Pair {
			return narrow2(in.Narrow, a, b), 0
		}
		return cvt(in, a), 0
	}
	return 0, 0
}

// boolCombine is setp's "cmp BOOL c" (c the third, predicate operand).
func boolCombine(op BoolOp, r bool, c uint64) uint64 {
	x := b2u(r)
	switch op {
	case BoolAnd:
		return x & c & 1
	case BoolOr:
		return (x | c) & 1
	case BoolXor:
		return (x ^ c) & 1
	}
	return x
}

// satS32 clamps an exact sum to .s32's range (add.sat.s32, sub.sat.s32).
func satS32(v int64) uint64 {
	if v > 1<<31-1 {
		v = 1<<31 - 1
	} else if v < -1<<31 {
		v = -1 << 31
	}
	return uint64(uint32(v))
}

// wideMask is the mask of mul.wide's and mad.wide's destination, twice t's
// width (16 -> 32, 32 -> 64).
func wideMask(t Type) uint64 {
	if widthOf(t) >= 32 {
		return ^uint64(0)
	}
	return 1<<(2*widthOf(t)) - 1
}

// mulInt is integer mul's .lo, .hi and .wide (mode MulNone: .lo). The .hi
// of a signed product is the high half of the two's-complement 2n-bit
// product; .wide is the whole 2n-bit product (n = 16 or 32).
func mulInt(mode MulMode, t Type, a, b uint64) uint64 {
	m := maskOf(t)
	switch mode {
	case MulHi:
		w := widthOf(t)
		if w == 64 {
			hi, _ := bits.Mul64(a, b)
			if t.IsSigned() {
				// Signed high half from the unsigned one: subtract b when
				// a < 0 and a when b < 0 (mod 2^64).
				if int64(a) < 0 {
					hi -= b
				}
				if int64(b) < 0 {
					hi -= a
				}
			}
			return hi
		}
		if t.IsSigned() {
			return uint64(sext(a, w)*sext(b, w)>>w) & m
		}
		return ((a & m) * (b & m) >> w) & m
	case MulWide:
		w := widthOf(t)
		if t.IsSigned() {
			return uint64(sext(a, w)*sext(b, w)) & wideMask(t)
		}
		return (a & m) * (b & m) & wideMask(t)
	}
	return a * b & m
}

// divInt is integer div and rem (rem: the remainder, whose sign follows the
// dividend, as C's %). The manual leaves division by zero "unspecified,
// machine-specific"; we give what an H200 gives (nvcc 13.0, every width,
// signed and unsigned, positive and negative dividends): x/0 and x%0 are
// both all ones (-1 for signed types, the maximum for unsigned). The one
// signed overflow, MIN/-1, wraps to MIN (remainder 0), as two's-complement
// hardware does.
func divInt(t Type, a, b uint64, rem bool) uint64 {
	m := maskOf(t)
	if b&m == 0 {
		return m
	}
	if t.IsSigned() {
		w := widthOf(t)
		x, y := sext(a, w), sext(b, w)
		if y == -1 {
			// Go's MinInt64 / -1 is MinInt64 too, but spell it out: the
			// wrap is the point, not an accident of the host.
			if rem {
				return 0
			}
			return uint64(-x) & m
		}
		if rem {
			return uint64(x%y) & m
		}
		return uint64(x/y) & m
	}
	if rem {
		return (a & m) % (b & m)
	}
	return (a & m) / (b & m)
}

// bfe is the manual's bit-field extract: the len bits of a from pos,
// zero-extended for .u32/.u64 and sign-extended for .s32/.s64 from the
// field's top bit, or from a's top bit when the field runs past it; a len
// of 0 gives 0, a pos past the top gives the replicated sign bit (0 for
// unsigned). The manual restricts pos (b) and len (c) to 0..255 and its
// pseudocode takes their low 8 bits; an H200 does that for the 32-bit types
// but uses the whole .u32 values for the 64-bit ones (bfe.u64 with pos
// 0x7f800001 gives 0, not a>>1; bfe.s64 likewise; TestEvalAgainstGPU), so
// we do too.
func bfe(t Type, a, b, c uint64) uint64 {
	msb := uint(31)
	pos, ln := uint(b&0xff), uint(c&0xff)
	if t == U64 || t == S64 || t == B64 {
		msb = 63
		pos, ln = uint(uint32(b)), uint(uint32(c))
	}
	a &= maskOf(t)
	var sbit uint64
	if t.IsSigned() && ln != 0 {
		top := pos + ln - 1
		if top > msb {
			top = msb
		}
		sbit = a >> top & 1
	}
	// Field bits that exist: i < len and pos+i <= msb.
	var f uint64
	n := uint(0) // number of field bits taken from a
	if pos <= msb {
		n = msb - pos + 1
		if ln < n {
			n = ln
		}
		f = a >> pos
		if n < 64 {
			f &= 1<<n - 1
		}
	}
	if sbit != 0 && n <= msb {
		f |= ^uint64(0) << n
	}
	return f & maskOf(t)
}

// bfi is the manual's bit-field insert: b with its bits [pos, pos+len)
// (pos = c, len = d, clipped at the type's top bit) replaced by a's low len
// bits. As with bfe, .b32 takes the low 8 bits of pos and len, as the
// manual's pseudocode does, and .b64 the whole .u32 values, as an H200 does
// (TestEvalAgainstGPU).
func bfi(t Type, a, b, c, d uint64) uint64 {
	msb := uint(31)
	pos, ln := uint(c&0xff), uint(d&0xff)
	if t == B64 || t == U64 || t == S64 {
		msb = 63
		pos, ln = uint(uint32(c)), uint(uint32(d))
	}
	b &= maskOf(t)
	if ln == 0 || pos > msb {
		return b
	}
	n := msb - pos + 1
	if ln < n {
		n = ln
	}
	fm := ^uint64(0)
	if n < 64 {
		fm = 1<<n - 1
	}
	fm <<= pos
	return (b&^fm | a<<pos&fm) & maskOf(t)
}

// compare is setp's comparison of a and b at in.Type: signed or unsigned
// for integers (lo/ls/hi/hs always unsigned), IEEE for floats (-0 == +0;
// the ordered comparisons are false and the unordered ones true when either
// operand is NaN; .ftz flushes .f32 subnormal inputs first).
func compare(in *Instr, a, b uint64) bool {
	t := in.Type
	switch t {
	case F16:
		return cmpFloat(in.Cmp, halfVal(a), halfVal(b))
	case F32:
		return cmpFloat(in.Cmp, float64(f32in(a, in.Ftz)), float64(f32in(b, in.Ftz)))
	case F64:
		return cmpFloat(in.Cmp, f64in(a), f64in(b))
	}
	m := maskOf(t)
	ua, ub := a&m, b&m
	if t.IsSigned() {
		w := widthOf(t)
		sa, sb := sext(a, w), sext(b, w)
		switch in.Cmp {
		case CmpLt:
			return sa < sb
		case CmpLe:
			return sa <= sb
		case CmpGt:
			return sa > sb
		case CmpGe:
			return sa >= sb
		}
	}
	switch in.Cmp {
	case CmpEq:
		return ua == ub
	case CmpNe:
		return ua != ub
	case CmpLt, CmpLo:
		return ua < ub
	case CmpLe, CmpLs:
		return ua <= ub
	case CmpGt, CmpHi:
		return ua > ub
	case CmpGe, CmpHs:
		return ua >= ub
	}
	return false
}

// cmpFloat is setp's float comparison on exactly widened values.
func cmpFloat(c Cmp, x, y float64) bool {
	nan := x != x || y != y
	switch c {
	case CmpEq:
		return !nan && x == y
	case CmpNe:
		return !nan && x != y
	case CmpLt:
		return x < y
	case CmpLe:
		return x <= y
	case CmpGt:
		return x > y
	case CmpGe:
		return x >= y
	case CmpEqu:
		return nan || x == y
	case CmpNeu:
		return nan || x != y
	case CmpLtu:
		return nan || x < y
	case CmpLeu:
		return nan || x <= y
	case CmpGtu:
		return nan || x > y
	case CmpGeu:
		return nan || x >= y
	case CmpNum:
		return !nan
	case CmpNan:
		return nan
	}
	return false
}

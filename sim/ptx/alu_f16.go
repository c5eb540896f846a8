package ptx

import "math"

// Scalar .f16 arithmetic (cuda_fp16.h's __hadd, __hmul, __hfma, __hlt,
// __float2half, __half2float, ...): add, sub, mul, fma (round to nearest,
// the only rounding the manual gives them), min, max, neg, abs, setp, and
// cvt between .f16 and the other types. A half's value is exact in a
// float64, and so are the sum, difference and product of two halves; the
// result is rounded once to a half (fma: a·b+c is rounded to a float64
// first, so in rare cases twice). .ftz and .sat on .f16 are refused; the
// .f16x2 pairs and bfloat16 are alu_half.go's.

// halfBitsOf rounds x to binary16 by r (RoundNone, RoundRN: to nearest
// even; RZ, RM, RP as named), as cvt and the arithmetic do. NaN gives the
// canonical 0x7fff.
func halfBitsOf(x float64, r Round) uint64 {
	if math.IsNaN(x) {
		return 0x7fff
	}
	var sign uint64
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	if x == 0 {
		return sign
	}
	// away reports whether rounding by r moves a magnitude up.
	away := func(q float64) float64 {
		switch r {
		case RoundRZ:
			return math.Trunc(q)
		case RoundRM:
			if sign != 0 {
				return math.Ceil(q)
			}
			return math.Trunc(q)
		case RoundRP:
			if sign == 0 {
				return math.Ceil(q)
			}
			return math.Trunc(q)
		}
		return math.RoundToEven(q)
	}
	maxFinite := func() uint64 {
		// Past the largest half: infinity, or the largest finite value
		// when the rounding goes toward zero.
		if r == RoundRZ || r == RoundRM && sign == 0 || r == RoundRP && sign != 0 {
			return sign | 0x7bff
		}
		return sign | 0x7c00
	}
	if math.IsInf(x, 0) {
		return sign | 0x7c00
	}
	e := math.Ilogb(x)
	if e < -14 {
		// Subnormal: units of 2^-24; 1024 of them is the smallest normal.
		m := uint64(away(math.Ldexp(x, 24)))
		return sign | m
	}
	m := uint64(away(math.Ldexp(x, 10-e))) // 1024..2048
	if m == 2048 {
		m, e = 1024, e+1
	}
	if e > 15 {
		return maxFinite()
	}
	return sign | uint64(e+15)<<10 | (m - 1024)
}

// halfVal is a half's value.
func halfVal(v uint64) float64 {
	h := uint16(v)
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	var x float64
	switch exp {
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		x = math.Inf(1)
	case 0:
		x = math.Ldexp(frac, -24)
	default:
		x = math.Ldexp(1024+frac, exp-25)
	}
	if h&0x8000 != 0 {
		x = -x
	}
	return x
}

// evalF16 is Eval for the .f16 arithmetic.
func evalF16(in *Instr, a, b, c uint64) uint64 {
	x, y := halfVal(a), halfVal(b)
	switch in.Op {
	case OpAdd:
		return halfBitsOf(x+y, RoundRN)
	case OpSub:
		return halfBitsOf(x-y, RoundRN)
	case OpMul:
		return halfBitsOf(x*y, RoundRN)
	case OpFma, OpMad:
		return halfBitsOf(math.FMA(x, y, halfVal(c)), RoundRN)
	case OpNeg:
		return a&0xffff ^ 0x8000
	case OpAbs:
		return a & 0x7fff
	case OpMin, OpMax:
		// As min/max.f32: a NaN operand gives the other; both NaN, NaN.
		switch {
		case math.IsNaN(x) && math.IsNaN(y):
			return 0x7fff
		case math.IsNaN(x):
			return b & 0xffff
		case math.IsNaN(y):
			return a & 0xffff
		}
		if x == y { // -0 < +0 for min, as the f32 forms
			if (in.Op == OpMin) == (a&0x8000 != 0) {
				return a & 0xffff
			}
			return b & 0xffff
		}
		if (x < y) == (in.Op == OpMin) {
			return a & 0xffff
		}
		return b & 0xffff
	}
	return 0
}

package ptx

import "math"

// The 16-bit float arithmetic beside scalar .f16 (alu_f16.go): .f16x2
// (cuda_fp16.h's __half2: __hadd2, __hmul2, __hfma2, ...), .bf16 and
// .bf16x2 (cuda_bf16.h: nvcc 11.8 compiles __hmul and __hadd of bfloat16s
// for sm_80 to fma.rn.bf16 with a -0.0 addend or a 1.0 factor). A pair is
// two independent lanes, the low half and the high half. The value of a
// half or a bfloat16 is exact in a float64, and so are the sum, difference
// and product of two; the result is rounded once to the format (fma: a·b+c
// is rounded to a float64 first, which decides the result the same way
// except in rare cases of a second rounding, as for .f16).

// evalHalf is Eval for in.Half's arithmetic.
func evalHalf(in *Instr, a, b, c uint64) uint64 {
	bf := in.Half != HalfF16x2
	if in.Half == HalfBF16 {
		return halfOp(in.Op, a&0xffff, b&0xffff, c&0xffff, bf)
	}
	lo := halfOp(in.Op, a&0xffff, b&0xffff, c&0xffff, bf)
	hi := halfOp(in.Op, a>>16&0xffff, b>>16&0xffff, c>>16&0xffff, bf)
	return lo | hi<<16
}

// val16 is the value of a half (bf false) or a bfloat16.
func val16(v uint64, bf bool) float64 {
	if bf {
		return float64(math.Float32frombits(uint32(v) << 16))
	}
	return halfVal(v)
}

// bits16 rounds x to nearest even in the format, NaN to its canonical NaN.
func bits16(x float64, bf bool) uint64 {
	if bf {
		return bf16BitsOf(x)
	}
	return halfBitsOf(x, RoundRN)
}

// halfOp is one 16-bit lane of op.
func halfOp(op Opcode, a, b, c uint64, bf bool) uint64 {
	x, y := val16(a, bf), val16(b, bf)
	nan := uint64(0x7fff)
	switch op {
	case OpAdd:
		return bits16(x+y, bf)
	case OpSub:
		return bits16(x-y, bf)
	case OpMul:
		return bits16(x*y, bf)
	case OpFma:
		return bits16(math.FMA(x, y, val16(c, bf)), bf)
	case OpNeg:
		return a ^ 0x8000
	case OpAbs:
		return a & 0x7fff
	case OpMin, OpMax:
		// As min/max.f32: a NaN operand gives the other; both NaN, NaN.
		switch {
		case math.IsNaN(x) && math.IsNaN(y):
			return nan
		case math.IsNaN(x):
			return b
		case math.IsNaN(y):
			return a
		}
		if x == y { // -0 < +0 for min
			if (op == OpMin) == (a&0x8000 != 0) {
				return a
			}
			return b
		}
		if (x < y) == (op == OpMin) {
			return a
		}
		return b
	}
	return 0
}

// bf16BitsOf rounds x to a bfloat16, to nearest even (overflow to
// infinity, subnormals kept), NaN to the canonical 0x7fff.
func bf16BitsOf(x float64) uint64 {
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
	if math.IsInf(x, 0) {
		return sign | 0x7f80
	}
	_, e := math.Frexp(x) // x = f·2^e, f in [0.5, 1): the leading bit is 2^(e-1)
	e--
	if e < -126 { // subnormal: quantum 2^-133
		e = -126
	}
	// Eight significant bits: the quantum is 2^(e-7).
	q := math.RoundToEven(math.Ldexp(x, 7-e))
	if q >= 256 { // carried into the next binade
		q /= 2
		e++
	}
	if e > 127 {
		return sign | 0x7f80
	}
	if q < 128 { // subnormal
		return sign | uint64(q)
	}
	return sign | uint64(e+127)<<7 | (uint64(q) - 128)
}

// narrow2 is cvt.rn.f16x2.f32 and cvt.rn.bf16x2.f32 d, a, b: a rounded
// into d's upper half, b into its lower (both float bits).
func narrow2(m MatType, a, b uint64) uint64 {
	bf := m == MatBF16
	hi := bits16(float64(math.Float32frombits(uint32(a))), bf)
	lo := bits16(float64(math.Float32frombits(uint32(b))), bf)
	return lo | hi<<16
}

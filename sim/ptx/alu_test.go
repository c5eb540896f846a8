package ptx

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// Helpers: register bits of a float, and the float of register bits.
func f32b(f float32) uint64 { return uint64(math.Float32bits(f)) }
func f64b(f float64) uint64 { return math.Float64bits(f) }
func bf32(u uint64) float32 { return math.Float32frombits(uint32(u)) }

var (
	negZero32 = uint64(0x80000000)
	negZero64 = uint64(1) << 63
	inf32     = f32b(float32(math.Inf(1)))
	ninf32    = f32b(float32(math.Inf(-1)))
	nan32     = uint64(0x7fc00001) // a NaN with a payload, to see it canonicalised
	inf64     = f64b(math.Inf(1))
	ninf64    = f64b(math.Inf(-1))
	nan64     = uint64(0x7ff8000000000123)
	sub32     = uint64(0x00000001) // smallest positive .f32 subnormal
	nsub32    = uint64(0x80000010) // a negative .f32 subnormal
	max32     = f32b(math.MaxFloat32)
	max64     = f64b(math.MaxFloat64)
)

// i32 and i64 are a signed value's register bits (zero-extended).
func i32(v int32) uint64 { return uint64(uint32(v)) }
func i16(v int16) uint64 { return uint64(uint16(v)) }
func i64(v int64) uint64 { return uint64(v) }

type aluCase struct {
	name       string
	in         Instr
	a, b, c, d uint64
	want       uint64
	want1      uint64 // setp's q; checked only for OpSetp
}

func runALU(t *testing.T, cases []aluCase) {
	t.Helper()
	for _, tc := range cases {
		in := tc.in
		if err := CheckALU(&in); err != nil {
			t.Errorf("%s: CheckALU refuses a case the test expects to run: %v", tc.name, err)
			continue
		}
		d0, d1 := Eval(&in, tc.a, tc.b, tc.c, tc.d)
		if d0 != tc.want {
			t.Errorf("%s: d0 = %#x, want %#x", tc.name, d0, tc.want)
		}
		if in.Op == OpSetp && d1 != tc.want1 {
			t.Errorf("%s: d1 = %#x, want %#x", tc.name, d1, tc.want1)
		}
	}
}

func TestEvalIntArith(t *testing.T) {
	runALU(t, []aluCase{
		{"mov.u32 truncates a wide source", Instr{Op: OpMov, Type: U32}, 0x1_2345_6789, 0, 0, 0, 0x2345_6789, 0},
		{"mov.pred", Instr{Op: OpMov, Type: Pred}, 1, 0, 0, 0, 1, 0},
		{"mov.f64 keeps NaN payload", Instr{Op: OpMov, Type: F64}, nan64, 0, 0, 0, nan64, 0},
		{"add.s32 wraps", Instr{Op: OpAdd, Type: S32}, i32(math.MaxInt32), 1, 0, 0, i32(math.MinInt32), 0},
		{"add.s32 negative", Instr{Op: OpAdd, Type: S32}, i32(-5), i32(3), 0, 0, i32(-2), 0},
		{"add.u16 wraps", Instr{Op: OpAdd, Type: U16}, 0xffff, 2, 0, 0, 1, 0},
		{"add.s16 ignores high bits", Instr{Op: OpAdd, Type: S16}, 0xdead_0001, 0xbeef_ffff, 0, 0, 0, 0},
		{"add.u64", Instr{Op: OpAdd, Type: U64}, ^uint64(0), 2, 0, 0, 1, 0},
		{"add.sat.s32 high", Instr{Op: OpAdd, Type: S32, Sat: true}, i32(math.MaxInt32), 5, 0, 0, i32(math.MaxInt32), 0},
		{"add.sat.s32 low", Instr{Op: OpAdd, Type: S32, Sat: true}, i32(math.MinInt32), i32(-1), 0, 0, i32(math.MinInt32), 0},
		{"sub.sat.s32", Instr{Op: OpSub, Type: S32, Sat: true}, i32(math.MinInt32), 1, 0, 0, i32(math.MinInt32), 0},
		{"sub.s32", Instr{Op: OpSub, Type: S32}, 3, 5, 0, 0, i32(-2), 0},
		{"sub.u64", Instr{Op: OpSub, Type: U64}, 0, 1, 0, 0, ^uint64(0), 0},
		{"mul.lo.s32", Instr{Op: OpMul, Type: S32, Mul: MulLo}, i32(-3), 7, 0, 0, i32(-21), 0},
		{"mul.lo.u32 wraps", Instr{Op: OpMul, Type: U32, Mul: MulLo}, 0x10000, 0x10000, 0, 0, 0, 0},
		{"mul.hi.u32", Instr{Op: OpMul, Type: U32, Mul: MulHi}, 0xffffffff, 0xffffffff, 0, 0, 0xfffffffe, 0},
		{"mul.hi.s32", Instr{Op: OpMul, Type: S32, Mul: MulHi}, i32(-1), i32(-1), 0, 0, 0, 0},
		{"mul.hi.s32 negative", Instr{Op: OpMul, Type: S32, Mul: MulHi}, i32(-2), 3, 0, 0, i32(-1), 0},
		{"mul.hi.s16", Instr{Op: OpMul, Type: S16, Mul: MulHi}, i16(math.MinInt16), i16(math.MinInt16), 0, 0, 0x4000, 0},
		{"mul.hi.u16", Instr{Op: OpMul, Type: U16, Mul: MulHi}, 0xffff, 0xffff, 0, 0, 0xfffe, 0},
		{"mul.hi.u64", Instr{Op: OpMul, Type: U64, Mul: MulHi}, ^uint64(0), ^uint64(0), 0, 0, ^uint64(0) - 1, 0},
		{"mul.hi.s64", Instr{Op: OpMul, Type: S64, Mul: MulHi}, i64(math.MinInt64), i64(math.MinInt64), 0, 0, 1 << 62, 0},
		{"mul.hi.s64 -1*-1", Instr{Op: OpMul, Type: S64, Mul: MulHi}, i64(-1), i64(-1), 0, 0, 0, 0},
		{"mul.hi.s64 -1*1", Instr{Op: OpMul, Type: S64, Mul: MulHi}, i64(-1), 1, 0, 0, ^uint64(0), 0},
		{"mul.wide.s32", Instr{Op: OpMul, Type: S32, Mul: MulWide}, i32(-2), i32(math.MaxInt32), 0, 0, i64(-2 * math.MaxInt32), 0},
		{"mul.wide.u32", Instr{Op: OpMul, Type: U32, Mul: MulWide}, 0xffffffff, 0xffffffff, 0, 0, 0xfffffffe_00000001, 0},
		{"mul.wide.s16", Instr{Op: OpMul, Type: S16, Mul: MulWide}, i16(-1), i16(math.MinInt16), 0, 0, 0x8000, 0},
		{"mul.wide.u16", Instr{Op: OpMul, Type: U16, Mul: MulWide}, 0xffff, 0xffff, 0, 0, 0xfffe0001, 0},
		{"mul.wide.s16 negative", Instr{Op: OpMul, Type: S16, Mul: MulWide}, i16(-3), 5, 0, 0, i32(-15), 0},
		{"mad.lo.s32", Instr{Op: OpMad, Type: S32, Mul: MulLo}, i32(-3), 7, 100, 0, 79, 0},
		{"mad.hi.u32", Instr{Op: OpMad, Type: U32, Mul: MulHi}, 0xffffffff, 0xffffffff, 3, 0, 1, 0},
		{"mad.wide.s32", Instr{Op: OpMad, Type: S32, Mul: MulWide}, i32(-4), 1 << 30, i64(-1), 0, i64(-(1 << 32) - 1), 0},
		{"mad.wide.u32", Instr{Op: OpMad, Type: U32, Mul: MulWide}, 0xffffffff, 2, 1 << 40, 0, 1<<40 + 0x1_ffff_fffe, 0},
		{"mad.lo.u64", Instr{Op: OpMad, Type: U64, Mul: MulLo}, 1 << 32, 1 << 32, 5, 0, 5, 0},

		// Division: by zero gives all ones / the dividend; MIN / -1 wraps.
		{"div.s32", Instr{Op: OpDiv, Type: S32}, i32(-7), 2, 0, 0, i32(-3), 0},
		{"div.s32 by zero", Instr{Op: OpDiv, Type: S32}, 7, 0, 0, 0, i32(-1), 0},
		{"div.s32 negative by zero", Instr{Op: OpDiv, Type: S32}, i32(-7), 0, 0, 0, i32(-1), 0},
		{"div.u32 by zero", Instr{Op: OpDiv, Type: U32}, 7, 0, 0, 0, 0xffffffff, 0},
		{"div.u64 by zero", Instr{Op: OpDiv, Type: U64}, 7, 0, 0, 0, ^uint64(0), 0},
		{"div.s32 MIN/-1", Instr{Op: OpDiv, Type: S32}, i32(math.MinInt32), i32(-1), 0, 0, i32(math.MinInt32), 0},
		{"div.s64 MIN/-1", Instr{Op: OpDiv, Type: S64}, i64(math.MinInt64), i64(-1), 0, 0, i64(math.MinInt64), 0},
		{"div.s16 MIN/-1", Instr{Op: OpDiv, Type: S16}, i16(math.MinInt16), i16(-1), 0, 0, i16(math.MinInt16), 0},
		{"div.u32 large", Instr{Op: OpDiv, Type: U32}, 0xffffffff, 2, 0, 0, 0x7fffffff, 0},
		{"div.u16", Instr{Op: OpDiv, Type: U16}, 0xfffe, 0xffff, 0, 0, 0, 0},
		{"rem.s32 sign of dividend", Instr{Op: OpRem, Type: S32}, i32(-7), 2, 0, 0, i32(-1), 0},
		{"rem.s32 positive", Instr{Op: OpRem, Type: S32}, 7, i32(-2), 0, 0, 1, 0},
		{"rem.s32 MIN%-1", Instr{Op: OpRem, Type: S32}, i32(math.MinInt32), i32(-1), 0, 0, 0, 0},
		{"rem.u32 by zero", Instr{Op: OpRem, Type: U32}, 7, 0, 0, 0, 0xffffffff, 0},
		{"rem.s64 by zero", Instr{Op: OpRem, Type: S64}, i64(-7), 0, 0, 0, ^uint64(0), 0},
		{"rem.u64", Instr{Op: OpRem, Type: U64}, ^uint64(0), 10, 0, 0, 5, 0},

		{"min.s32", Instr{Op: OpMin, Type: S32}, i32(-1), 1, 0, 0, i32(-1), 0},
		{"min.u32", Instr{Op: OpMin, Type: U32}, i32(-1), 1, 0, 0, 1, 0},
		{"max.s32", Instr{Op: OpMax, Type: S32}, i32(-1), 1, 0, 0, 1, 0},
		{"max.u32", Instr{Op: OpMax, Type: U32}, i32(-1), 1, 0, 0, 0xffffffff, 0},
		{"max.s16", Instr{Op: OpMax, Type: S16}, i16(-5), i16(-7), 0, 0, i16(-5), 0},
		{"min.s64", Instr{Op: OpMin, Type: S64}, i64(math.MinInt64), 0, 0, 0, i64(math.MinInt64), 0},
		{"max.u64", Instr{Op: OpMax, Type: U64}, 1 << 63, 5, 0, 0, 1 << 63, 0},
		{"abs.s32", Instr{Op: OpAbs, Type: S32}, i32(-5), 0, 0, 0, 5, 0},
		{"abs.s32 MIN stays MIN", Instr{Op: OpAbs, Type: S32}, i32(math.MinInt32), 0, 0, 0, i32(math.MinInt32), 0},
		{"abs.s16", Instr{Op: OpAbs, Type: S16}, i16(-300), 0, 0, 0, 300, 0},
		{"abs.s64", Instr{Op: OpAbs, Type: S64}, i64(-1), 0, 0, 0, 1, 0},
		{"neg.s32", Instr{Op: OpNeg, Type: S32}, 5, 0, 0, 0, i32(-5), 0},
		{"neg.s64 MIN", Instr{Op: OpNeg, Type: S64}, i64(math.MinInt64), 0, 0, 0, i64(math.MinInt64), 0},
		{"neg.s16", Instr{Op: OpNeg, Type: S16}, 1, 0, 0, 0, 0xffff, 0},
	})
}

func TestEvalBits(t *testing.T) {
	runALU(t, []aluCase{
		{"shl.b32", Instr{Op: OpShl, Type: B32}, 0x8000_0001, 1, 0, 0, 2, 0},
		{"shl.b32 by 31", Instr{Op: OpShl, Type: B32}, 1, 31, 0, 0, 0x80000000, 0},
		{"shl.b32 by 32 clamps to 0", Instr{Op: OpShl, Type: B32}, 0xffffffff, 32, 0, 0, 0, 0},
		{"shl.b32 by 2^32+1 reads u32 amount", Instr{Op: OpShl, Type: B32}, 1, 1<<32 + 1, 0, 0, 2, 0},
		{"shl.b32 by 0xffffffff", Instr{Op: OpShl, Type: B32}, 1, 0xffffffff, 0, 0, 0, 0},
		{"shl.b16 by 16", Instr{Op: OpShl, Type: B16}, 1, 16, 0, 0, 0, 0},
		{"shl.b64 by 63", Instr{Op: OpShl, Type: B64}, 1, 63, 0, 0, 1 << 63, 0},
		{"shl.b64 by 64", Instr{Op: OpShl, Type: B64}, 1, 64, 0, 0, 0, 0},
		{"shr.u32", Instr{Op: OpShr, Type: U32}, 0x80000000, 31, 0, 0, 1, 0},
		{"shr.b32 by 40", Instr{Op: OpShr, Type: B32}, 0xffffffff, 40, 0, 0, 0, 0},
		{"shr.s32 arithmetic", Instr{Op: OpShr, Type: S32}, i32(-8), 1, 0, 0, i32(-4), 0},
		{"shr.s32 by 32 fills sign", Instr{Op: OpShr, Type: S32}, i32(-8), 32, 0, 0, 0xffffffff, 0},
		{"shr.s32 positive by 100", Instr{Op: OpShr, Type: S32}, 0x7fffffff, 100, 0, 0, 0, 0},
		{"shr.s16 by 20", Instr{Op: OpShr, Type: S16}, 0x8000, 20, 0, 0, 0xffff, 0},
		{"shr.s64 by 64", Instr{Op: OpShr, Type: S64}, 1 << 63, 64, 0, 0, ^uint64(0), 0},
		{"shr.u64 by 64", Instr{Op: OpShr, Type: U64}, 1 << 63, 64, 0, 0, 0, 0},
		{"shr.u16 ignores high bits", Instr{Op: OpShr, Type: U16}, 0x1_8000, 15, 0, 0, 1, 0},
		{"and.b32", Instr{Op: OpAnd, Type: B32}, 0xff00ff00, 0x0ff00ff0, 0, 0, 0x0f000f00, 0},
		{"or.b16", Instr{Op: OpOr, Type: B16}, 0xf000, 0x1_000f, 0, 0, 0xf00f, 0},
		{"xor.b64", Instr{Op: OpXor, Type: B64}, ^uint64(0), 1, 0, 0, ^uint64(1), 0},
		{"not.b32", Instr{Op: OpNot, Type: B32}, 0, 0, 0, 0, 0xffffffff, 0},
		{"not.b16", Instr{Op: OpNot, Type: B16}, 0xff, 0, 0, 0, 0xff00, 0},
		{"and.pred", Instr{Op: OpAnd, Type: Pred}, 1, 0, 0, 0, 0, 0},
		{"or.pred", Instr{Op: OpOr, Type: Pred}, 1, 0, 0, 0, 1, 0},
		{"xor.pred", Instr{Op: OpXor, Type: Pred}, 1, 1, 0, 0, 0, 0},
		{"not.pred", Instr{Op: OpNot, Type: Pred}, 1, 0, 0, 0, 0, 0},
		{"not.pred of 0", Instr{Op: OpNot, Type: Pred}, 0, 0, 0, 0, 1, 0},
		{"popc.b32", Instr{Op: OpPopc, Type: B32}, 0x1_ffff_ffff, 0, 0, 0, 32, 0},
		{"popc.b64", Instr{Op: OpPopc, Type: B64}, ^uint64(0), 0, 0, 0, 64, 0},
		{"clz.b32 of 0", Instr{Op: OpClz, Type: B32}, 0, 0, 0, 0, 32, 0},
		{"clz.b32", Instr{Op: OpClz, Type: B32}, 0x1_0000_0001, 0, 0, 0, 31, 0},
		{"clz.b64 of 0", Instr{Op: OpClz, Type: B64}, 0, 0, 0, 0, 64, 0},
		{"clz.b64", Instr{Op: OpClz, Type: B64}, 1 << 40, 0, 0, 0, 23, 0},
		{"brev.b32", Instr{Op: OpBrev, Type: B32}, 0x1_0000_0001, 0, 0, 0, 0x80000000, 0},
		{"brev.b64", Instr{Op: OpBrev, Type: B64}, 3, 0, 0, 0, 0xc000000000000000, 0},

		{"bfe.u32", Instr{Op: OpBfe, Type: U32}, 0x12345678, 8, 8, 0, 0x56, 0},
		{"bfe.s32 sign from field", Instr{Op: OpBfe, Type: S32}, 0x0000f000, 12, 4, 0, 0xffffffff, 0},
		{"bfe.s32 positive field", Instr{Op: OpBfe, Type: S32}, 0x00007000, 12, 4, 0, 7, 0},
		{"bfe.u32 len 0", Instr{Op: OpBfe, Type: U32}, 0xffffffff, 4, 0, 0, 0, 0},
		{"bfe.s32 len 0", Instr{Op: OpBfe, Type: S32}, 0xffffffff, 4, 0, 0, 0, 0},
		{"bfe.u32 pos 32", Instr{Op: OpBfe, Type: U32}, 0xffffffff, 32, 8, 0, 0, 0},
		{"bfe.s32 pos 40 negative", Instr{Op: OpBfe, Type: S32}, 0x80000000, 40, 8, 0, 0xffffffff, 0},
		{"bfe.s32 pos 40 positive", Instr{Op: OpBfe, Type: S32}, 0x7fffffff, 40, 8, 0, 0, 0},
		{"bfe.s32 field past msb takes msb", Instr{Op: OpBfe, Type: S32}, 0x80000000, 28, 10, 0, 0xfffffff8, 0},
		{"bfe.u32 field past msb", Instr{Op: OpBfe, Type: U32}, 0xf0000000, 28, 10, 0, 0xf, 0},
		{"bfe.u32 pos/len use low 8 bits", Instr{Op: OpBfe, Type: U32}, 0x12345678, 0x108, 0x208, 0, 0x56, 0},
		{"bfe.u32 len 32", Instr{Op: OpBfe, Type: U32}, 0x12345678, 0, 32, 0, 0x12345678, 0},
		{"bfe.s64", Instr{Op: OpBfe, Type: S64}, 1 << 63, 60, 4, 0, 0xfffffffffffffff8, 0},
		{"bfe.u64 len 64", Instr{Op: OpBfe, Type: U64}, ^uint64(0), 0, 64, 0, ^uint64(0), 0},
		{"bfe.u64 len 255", Instr{Op: OpBfe, Type: U64}, 1 << 63, 63, 255, 0, 1, 0},
		{"bfe.u64 pos not masked to 8 bits", Instr{Op: OpBfe, Type: U64}, ^uint64(0), 0x101, 8, 0, 0, 0},
		{"bfe.u64 len not masked to 8 bits", Instr{Op: OpBfe, Type: U64}, ^uint64(0), 4, 0x100, 0, 0x0fffffffffffffff, 0},
		{"bfe.s64 pos past msb", Instr{Op: OpBfe, Type: S64}, 1 << 63, 0x1000, 8, 0, ^uint64(0), 0},
		{"bfi.b32", Instr{Op: OpBfi, Type: B32}, 0xab, 0xffffffff, 8, 8, 0xffffabff, 0},
		{"bfi.b32 len 0", Instr{Op: OpBfi, Type: B32}, 0xab, 0x12345678, 8, 0, 0x12345678, 0},
		{"bfi.b32 pos 32", Instr{Op: OpBfi, Type: B32}, 0xab, 0x12345678, 32, 8, 0x12345678, 0},
		{"bfi.b32 clipped at msb", Instr{Op: OpBfi, Type: B32}, 0xff, 0, 28, 8, 0xf0000000, 0},
		{"bfi.b32 len 32", Instr{Op: OpBfi, Type: B32}, 0xdeadbeef, 0, 0, 32, 0xdeadbeef, 0},
		{"bfi.b64", Instr{Op: OpBfi, Type: B64}, 1, 0, 63, 1, 1 << 63, 0},
		{"bfi.b32 pos/len low 8 bits", Instr{Op: OpBfi, Type: B32}, 0xf, 0, 0x104, 0x204, 0xf0, 0},
	})
}

// refBfe and refBfi are the manual's pseudocode, bit by bit.
func refBfe(t Type, a, b, c uint64) uint64 {
	msb := uint64(31)
	pos, ln := b&0xff, c&0xff
	if t == U64 || t == S64 {
		msb = 63
		pos, ln = b&0xffffffff, c&0xffffffff // as an H200 does
	}
	var sbit uint64
	if t.IsSigned() && ln != 0 {
		i := pos + ln - 1
		if i > msb {
			i = msb
		}
		sbit = a >> i & 1
	}
	var d uint64
	for i := uint64(0); i <= msb; i++ {
		bit := sbit
		if i < ln && pos <= msb && pos+i <= msb {
			bit = a >> (pos + i) & 1
		}
		d |= bit << i
	}
	return d
}

func refBfi(t Type, a, b, c, d uint64) uint64 {
	msb := uint64(31)
	pos, ln := c&0xff, d&0xff
	if t == B64 {
		msb = 63
		pos, ln = c&0xffffffff, d&0xffffffff // as an H200 does
	}
	f := b & maskOf(t)
	for i := uint64(0); i < ln && pos+i <= msb; i++ {
		f = f&^(1<<(pos+i)) | (a>>i&1)<<(pos+i)
	}
	return f
}

func TestEvalBfeBfiAgainstManual(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 20000; i++ {
		a := r.Uint64()
		p, l := uint64(r.Intn(80)), uint64(r.Intn(80))
		if i%7 == 0 {
			p, l = uint64(r.Intn(256)), uint64(r.Intn(256))
		}
		for _, ty := range []Type{U32, S32, U64, S64} {
			aa := a & maskOf(ty)
			got, _ := Eval(&Instr{Op: OpBfe, Type: ty}, aa, p, l, 0)
			if want := refBfe(ty, aa, p, l); got != want {
				t.Fatalf("bfe.%s a=%#x pos=%d len=%d: %#x, want %#x", ty, aa, p, l, got, want)
			}
		}
		for _, ty := range []Type{B32, B64} {
			bb := r.Uint64() & maskOf(ty)
			got, _ := Eval(&Instr{Op: OpBfi, Type: ty}, a, bb, p, l)
			if want := refBfi(ty, a, bb, p, l); got != want {
				t.Fatalf("bfi.%s a=%#x b=%#x pos=%d len=%d: %#x, want %#x", ty, a, bb, p, l, got, want)
			}
		}
	}
}

// TestEvalMulHiWideAgainstBig checks mul.hi, mul.wide and mad on random and
// extreme operands of every integer width against math/big.
func TestEvalMulHiWideAgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	edges := []uint64{0, 1, 2, ^uint64(0), 1 << 63, 1<<63 - 1, 1 << 31, 1<<31 - 1, 1 << 15, 1<<15 - 1, 0xffff, 0xffffffff}
	val := func(ty Type, u uint64) *big.Int {
		w := widthOf(ty)
		if ty.IsSigned() {
			return big.NewInt(sext(u, w))
		}
		return new(big.Int).SetUint64(u & maskOf(ty))
	}
	bitsOf := func(x *big.Int, w uint) uint64 { // two's complement, low w bits
		m := new(big.Int).Lsh(big.NewInt(1), w)
		y := new(big.Int).Mod(x, m) // Euclidean: non-negative
		return y.Uint64()
	}
	for i := 0; i < 5000; i++ {
		a, b, c := r.Uint64(), r.Uint64(), r.Uint64()
		if i < len(edges)*len(edges) {
			a, b = edges[i%len(edges)], edges[i/len(edges)]
		}
		for _, ty := range []Type{U16, S16, U32, S32, U64, S64} {
			w := widthOf(ty)
			p := new(big.Int).Mul(val(ty, a), val(ty, b))
			hi := new(big.Int).Rsh(p, w) // floor shift: the two's-complement high half
			if got, _ := Eval(&Instr{Op: OpMul, Type: ty, Mul: MulHi}, a, b, 0, 0); got != bitsOf(hi, w) {
				t.Fatalf("mul.hi.%s %#x %#x = %#x, want %#x", ty, a, b, got, bitsOf(hi, w))
			}
			if got, _ := Eval(&Instr{Op: OpMul, Type: ty, Mul: MulLo}, a, b, 0, 0); got != bitsOf(p, w) {
				t.Fatalf("mul.lo.%s %#x %#x = %#x", ty, a, b, got)
			}
			madHi := new(big.Int).Add(hi, val(ty, c))
			if got, _ := Eval(&Instr{Op: OpMad, Type: ty, Mul: MulHi}, a, b, c, 0); got != bitsOf(madHi, w) {
				t.Fatalf("mad.hi.%s = %#x, want %#x", ty, got, bitsOf(madHi, w))
			}
			if w < 64 {
				if got, _ := Eval(&Instr{Op: OpMul, Type: ty, Mul: MulWide}, a, b, 0, 0); got != bitsOf(p, 2*w) {
					t.Fatalf("mul.wide.%s %#x %#x = %#x, want %#x", ty, a, b, got, bitsOf(p, 2*w))
				}
				cw := c & wideMask(ty)
				var cv *big.Int
				if ty.IsSigned() {
					cv = big.NewInt(sext(cw, 2*w))
				} else {
					cv = new(big.Int).SetUint64(cw)
				}
				sum := new(big.Int).Add(p, cv)
				if got, _ := Eval(&Instr{Op: OpMad, Type: ty, Mul: MulWide}, a, b, cw, 0); got != bitsOf(sum, 2*w) {
					t.Fatalf("mad.wide.%s = %#x, want %#x", ty, got, bitsOf(sum, 2*w))
				}
			}
		}
	}
}

func TestEvalSetp(t *testing.T) {
	setp := func(ty Type, c Cmp) Instr { return Instr{Op: OpSetp, Type: ty, Cmp: c} }
	one := f32b(1)
	two := f32b(2)
	runALU(t, []aluCase{
		{"setp.lt.s32", setp(S32, CmpLt), i32(-1), 1, 0, 0, 1, 0},
		{"setp.lt.u32", setp(U32, CmpLt), i32(-1), 1, 0, 0, 0, 1},
		{"setp.lo.u32", setp(U32, CmpLo), 1, i32(-1), 0, 0, 1, 0},
		{"setp.ls.u32 equal", setp(U32, CmpLs), 5, 5, 0, 0, 1, 0},
		{"setp.hi.u64", setp(U64, CmpHi), 1 << 63, 1, 0, 0, 1, 0},
		{"setp.hs.u16", setp(U16, CmpHs), 0xffff, 0xffff, 0, 0, 1, 0},
		{"setp.gt.s64", setp(S64, CmpGt), i64(-1), i64(-2), 0, 0, 1, 0},
		{"setp.ge.s16", setp(S16, CmpGe), i16(-1), 0, 0, 0, 0, 1},
		{"setp.le.s32", setp(S32, CmpLe), i32(-3), i32(-3), 0, 0, 1, 0},
		{"setp.eq.s32 ignores high bits", setp(S32, CmpEq), 0xff_0000_0005, 5, 0, 0, 1, 0},
		{"setp.ne.b32", setp(B32, CmpNe), 1, 2, 0, 0, 1, 0},
		{"setp.eq.b64", setp(B64, CmpEq), 7, 7, 0, 0, 1, 0},

		{"setp.eq.f32 -0 == +0", setp(F32, CmpEq), negZero32, 0, 0, 0, 1, 0},
		{"setp.lt.f32 -0 < +0 false", setp(F32, CmpLt), negZero32, 0, 0, 0, 0, 1},
		{"setp.eq.f32 NaN", setp(F32, CmpEq), nan32, nan32, 0, 0, 0, 1},
		{"setp.ne.f32 NaN is ordered", setp(F32, CmpNe), nan32, one, 0, 0, 0, 1},
		{"setp.neu.f32 NaN", setp(F32, CmpNeu), nan32, one, 0, 0, 1, 0},
		{"setp.equ.f32 NaN", setp(F32, CmpEqu), one, nan32, 0, 0, 1, 0},
		{"setp.equ.f32 equal", setp(F32, CmpEqu), one, one, 0, 0, 1, 0},
		{"setp.ltu.f32 NaN", setp(F32, CmpLtu), nan32, one, 0, 0, 1, 0},
		{"setp.ltu.f32 ordered false", setp(F32, CmpLtu), two, one, 0, 0, 0, 1},
		{"setp.leu.f32", setp(F32, CmpLeu), one, one, 0, 0, 1, 0},
		{"setp.gtu.f32", setp(F32, CmpGtu), one, two, 0, 0, 0, 1},
		{"setp.geu.f32 NaN", setp(F32, CmpGeu), one, nan32, 0, 0, 1, 0},
		{"setp.lt.f32 NaN", setp(F32, CmpLt), nan32, one, 0, 0, 0, 1},
		{"setp.ge.f32 NaN", setp(F32, CmpGe), one, nan32, 0, 0, 0, 1},
		{"setp.gt.f32 inf", setp(F32, CmpGt), inf32, max32, 0, 0, 1, 0},
		{"setp.le.f32", setp(F32, CmpLe), ninf32, one, 0, 0, 1, 0},
		{"setp.num.f32", setp(F32, CmpNum), one, two, 0, 0, 1, 0},
		{"setp.num.f32 NaN", setp(F32, CmpNum), one, nan32, 0, 0, 0, 1},
		{"setp.nan.f32", setp(F32, CmpNan), nan32, one, 0, 0, 1, 0},
		{"setp.nan.f64", setp(F64, CmpNan), f64b(1), f64b(2), 0, 0, 0, 1},
		{"setp.gt.f32 subnormal", setp(F32, CmpGt), sub32, 0, 0, 0, 1, 0},
		{"setp.gt.ftz.f32 subnormal flushed", Instr{Op: OpSetp, Type: F32, Cmp: CmpGt, Ftz: true}, sub32, 0, 0, 0, 0, 1},
		{"setp.eq.f64 -0", setp(F64, CmpEq), negZero64, 0, 0, 0, 1, 0},
		{"setp.lt.f64", setp(F64, CmpLt), f64b(1), f64b(math.Nextafter(1, 2)), 0, 0, 1, 0},
		{"setp.ne.f64 NaN", setp(F64, CmpNe), nan64, f64b(1), 0, 0, 0, 1},
		{"setp.neu.f64 NaN", setp(F64, CmpNeu), nan64, f64b(1), 0, 0, 1, 0},

		// p = cmp BOOL c, q = !cmp BOOL c.
		{"setp.lt.and.s32 c=1", Instr{Op: OpSetp, Type: S32, Cmp: CmpLt, Bool: BoolAnd}, 1, 2, 1, 0, 1, 0},
		{"setp.lt.and.s32 c=0", Instr{Op: OpSetp, Type: S32, Cmp: CmpLt, Bool: BoolAnd}, 1, 2, 0, 0, 0, 0},
		{"setp.lt.or.s32 c=1", Instr{Op: OpSetp, Type: S32, Cmp: CmpLt, Bool: BoolOr}, 3, 2, 1, 0, 1, 1},
		{"setp.lt.or.s32 c=0", Instr{Op: OpSetp, Type: S32, Cmp: CmpLt, Bool: BoolOr}, 3, 2, 0, 0, 0, 1},
		{"setp.lt.xor.s32 c=1", Instr{Op: OpSetp, Type: S32, Cmp: CmpLt, Bool: BoolXor}, 1, 2, 1, 0, 0, 1},
		{"setp.lt.xor.s32 c=0", Instr{Op: OpSetp, Type: S32, Cmp: CmpLt, Bool: BoolXor}, 1, 2, 0, 0, 1, 0},
		{"setp.nan.and.f32", Instr{Op: OpSetp, Type: F32, Cmp: CmpNan, Bool: BoolAnd}, nan32, one, 1, 0, 1, 0},

		{"selp.s32 true", Instr{Op: OpSelp, Type: S32}, 1, 2, 1, 0, 1, 0},
		{"selp.s32 false", Instr{Op: OpSelp, Type: S32}, 1, 2, 0, 0, 2, 0},
		{"selp.f32 keeps NaN bits", Instr{Op: OpSelp, Type: F32}, nan32, 0, 1, 0, nan32, 0},
		{"selp.u16 masks", Instr{Op: OpSelp, Type: U16}, 0x12345, 0, 1, 0, 0x2345, 0},
		{"selp.f64", Instr{Op: OpSelp, Type: F64}, 0, nan64, 0, 0, nan64, 0},
	})
}

func TestEvalFloatBasics(t *testing.T) {
	f := func(x float32) uint64 { return f32b(x) }
	d := func(x float64) uint64 { return f64b(x) }
	add32 := Instr{Op: OpAdd, Type: F32, Round: RoundRN}
	add32ftz := Instr{Op: OpAdd, Type: F32, Round: RoundRN, Ftz: true}
	fma32 := Instr{Op: OpFma, Type: F32, Round: RoundRN}
	mul32 := Instr{Op: OpMul, Type: F32, Round: RoundRN}
	runALU(t, []aluCase{
		{"add.f32", add32, f(1.5), f(2.25), 0, 0, f(3.75), 0},
		{"add.f32 no rounding modifier", Instr{Op: OpAdd, Type: F32}, f(1), f(0x1p-24), 0, 0, f(1), 0},
		{"add.rn.f32 tie to even up", add32, f(1 + 0x1p-23), f(0x1p-24), 0, 0, f(1 + 0x1p-22), 0},
		{"add.f32 inf-inf NaN canonical", add32, inf32, ninf32, 0, 0, canonNaN32, 0},
		{"add.f32 NaN payload not kept", add32, nan32, f(1), 0, 0, canonNaN32, 0},
		{"add.f32 -0 + -0", add32, negZero32, negZero32, 0, 0, negZero32, 0},
		{"add.f32 -0 + +0", add32, negZero32, 0, 0, 0, 0, 0},
		{"add.rm.f32 x - x = -0", Instr{Op: OpAdd, Type: F32, Round: RoundRM}, f(1), f(-1), 0, 0, negZero32, 0},
		{"add.rz.f32 x - x = +0", Instr{Op: OpAdd, Type: F32, Round: RoundRZ}, f(1), f(-1), 0, 0, 0, 0},
		{"add.rm.f32 +0 + +0", Instr{Op: OpAdd, Type: F32, Round: RoundRM}, 0, 0, 0, 0, 0, 0},
		{"add.f32 overflow", add32, max32, max32, 0, 0, inf32, 0},
		{"add.rz.f32 overflow stays finite", Instr{Op: OpAdd, Type: F32, Round: RoundRZ}, max32, max32, 0, 0, max32, 0},
		{"add.rm.f32 overflow", Instr{Op: OpAdd, Type: F32, Round: RoundRM}, max32, max32, 0, 0, max32, 0},
		{"add.rp.f32 neg overflow", Instr{Op: OpAdd, Type: F32, Round: RoundRP}, max32 | 1<<31, max32 | 1<<31, 0, 0, max32 | 1<<31, 0},
		{"add.rp.f32 tiny", Instr{Op: OpAdd, Type: F32, Round: RoundRP}, f(1), f(0x1p-60), 0, 0, f(1 + 0x1p-23), 0},
		{"add.rm.f32 tiny negative", Instr{Op: OpAdd, Type: F32, Round: RoundRM}, f(1), f(-0x1p-60), 0, 0, f(1 - 0x1p-24), 0},
		{"add.rz.f32 tiny negative", Instr{Op: OpAdd, Type: F32, Round: RoundRZ}, f(-1), f(-0x1p-60), 0, 0, f(-1), 0},
		{"add.f32 subnormals", add32, sub32, sub32, 0, 0, 2, 0},
		{"add.ftz.f32 subnormal inputs flush", add32ftz, sub32, sub32, 0, 0, 0, 0},
		{"add.ftz.f32 subnormal result flushes", add32ftz, f(0x1.8p-126), f(-0x1p-126), 0, 0, 0, 0},
		{"add.ftz.f32 negative subnormal result keeps sign", add32ftz, f(-0x1.8p-126), f(0x1p-126), 0, 0, negZero32, 0},
		{"add.f32 subnormal result", add32, f(-0x1.8p-126), f(0x1p-126), 0, 0, f(-0x1p-127), 0},
		{"add.ftz.f32 normal + flushed input", add32ftz, f(1), nsub32, 0, 0, f(1), 0},
		{"add.sat.f32 clamps high", Instr{Op: OpAdd, Type: F32, Sat: true}, f(1), f(1), 0, 0, f(1), 0},
		{"add.sat.f32 clamps low", Instr{Op: OpAdd, Type: F32, Sat: true}, f(-1), f(0.5), 0, 0, 0, 0},
		{"add.sat.f32 NaN to 0", Instr{Op: OpAdd, Type: F32, Sat: true}, inf32, ninf32, 0, 0, 0, 0},
		{"add.sat.f32 -0 to +0", Instr{Op: OpAdd, Type: F32, Sat: true}, negZero32, negZero32, 0, 0, 0, 0},
		{"add.sat.f32 inside", Instr{Op: OpAdd, Type: F32, Sat: true}, f(0.25), f(0.5), 0, 0, f(0.75), 0},
		{"sub.f32", Instr{Op: OpSub, Type: F32, Round: RoundRN}, f(1), f(3), 0, 0, f(-2), 0},
		{"sub.f32 +0 - +0", Instr{Op: OpSub, Type: F32}, 0, 0, 0, 0, 0, 0},
		{"sub.rm.f32 +0 - +0", Instr{Op: OpSub, Type: F32, Round: RoundRM}, 0, 0, 0, 0, negZero32, 0},
		{"sub.f32 NaN", Instr{Op: OpSub, Type: F32}, f(1), nan32, 0, 0, canonNaN32, 0},
		{"mul.f32", mul32, f(3), f(-0.5), 0, 0, f(-1.5), 0},
		{"mul.f32 0*inf", mul32, 0, inf32, 0, 0, canonNaN32, 0},
		{"mul.f32 -0", mul32, f(-2), 0, 0, 0, negZero32, 0},
		{"mul.f32 underflow to subnormal", mul32, f(0x1p-100), f(0x1p-40), 0, 0, f(0x1p-140), 0},
		{"mul.ftz.f32 underflow flushes", Instr{Op: OpMul, Type: F32, Ftz: true}, f(0x1p-100), f(0x1p-40), 0, 0, 0, 0},
		{"mul.rz.f32", Instr{Op: OpMul, Type: F32, Round: RoundRZ}, f(1 + 0x1p-23), f(1 + 0x1p-23), 0, 0, f(1 + 0x1p-22), 0},
		{"mul.rp.f32", Instr{Op: OpMul, Type: F32, Round: RoundRP}, f(1 + 0x1p-23), f(1 + 0x1p-23), 0, 0, f(1 + 0x1p-22 + 0x1p-23), 0},
		{"mul.rm.f32 negative", Instr{Op: OpMul, Type: F32, Round: RoundRM}, f(1 + 0x1p-23), f(-1 - 0x1p-23), 0, 0, f(-1 - 0x1p-22 - 0x1p-23), 0},
		{"mul.rz.f32 smallest subnormal * 0.5", Instr{Op: OpMul, Type: F32, Round: RoundRZ}, sub32, f(0.5), 0, 0, 0, 0},
		{"mul.rp.f32 smallest subnormal * 0.5", Instr{Op: OpMul, Type: F32, Round: RoundRP}, sub32, f(0.5), 0, 0, sub32, 0},
		{"mul.rn.f32 smallest subnormal * 0.5 ties to 0", mul32, sub32, f(0.5), 0, 0, 0, 0},
		{"mul.rn.f32 smallest subnormal * 1.5", mul32, sub32, f(1.5), 0, 0, 2, 0},
		{"mul.sat.f32", Instr{Op: OpMul, Type: F32, Sat: true}, f(4), f(4), 0, 0, f(1), 0},

		// fma: one rounding. (1+2^-23)(1-2^-23) - 1 = -2^-46 exactly, where
		// mul then add gives 0.
		{"fma.rn.f32 vs mul+add", fma32, f(1 + 0x1p-23), f(1 - 0x1p-23), f(-1), 0, f(-0x1p-46), 0},
		// (1+2^-12)^2 + 2^-80 lies just above the halfway point between two
		// f32s: float32(math.FMA(...)) rounds twice and lands on the even
		// neighbour below; the once-rounded result is the one above.
		{"fma.rn.f32 double-rounding trap", fma32, 0x3f800800, 0x3f800800, 0x17800000, 0, 0x3f801001, 0},
		{"fma.rn.f32 0*inf+1", fma32, 0, inf32, f(1), 0, canonNaN32, 0},
		{"fma.rn.f32 inf + -inf", fma32, inf32, f(1), ninf32, 0, canonNaN32, 0},
		{"fma.rn.f32 -0*1 + -0", fma32, negZero32, f(1), negZero32, 0, negZero32, 0},
		{"fma.rn.f32 -0*1 + +0", fma32, negZero32, f(1), 0, 0, 0, 0},
		{"fma.rm.f32 exact cancel", Instr{Op: OpFma, Type: F32, Round: RoundRM}, f(2), f(3), f(-6), 0, negZero32, 0},
		{"fma.rn.f32 overflow", fma32, max32, f(2), f(-1), 0, inf32, 0},
		{"fma.rz.f32 overflow", Instr{Op: OpFma, Type: F32, Round: RoundRZ}, max32, f(2), f(-1), 0, max32, 0},
		{"fma.rn.ftz.f32 subnormal addend flushed", Instr{Op: OpFma, Type: F32, Round: RoundRN, Ftz: true}, f(1), f(1), sub32, 0, f(1), 0},
		{"fma.rn.sat.f32", Instr{Op: OpFma, Type: F32, Round: RoundRN, Sat: true}, f(2), f(2), f(-5), 0, 0, 0},
		{"mad.rn.f32 is fused", Instr{Op: OpMad, Type: F32, Round: RoundRN}, f(1 + 0x1p-23), f(1 - 0x1p-23), f(-1), 0, f(-0x1p-46), 0},
		{"mul.rn then add.rn differ", mul32, f(1 + 0x1p-23), f(1 - 0x1p-23), 0, 0, f(1), 0},

		{"fma.rn.f64 vs mul+add", Instr{Op: OpFma, Type: F64, Round: RoundRN}, d(1 + 0x1p-52), d(1 - 0x1p-52), d(-1), 0, d(-0x1p-104), 0},
		{"mad.rn.f64", Instr{Op: OpMad, Type: F64, Round: RoundRN}, d(2), d(3), d(4), 0, d(10), 0},
		{"add.f64 NaN propagates", Instr{Op: OpAdd, Type: F64}, nan64, d(1), 0, 0, nan64, 0},
		{"add.f64 inf-inf default NaN", Instr{Op: OpAdd, Type: F64}, inf64, ninf64, 0, 0, defaultNaN64, 0},
		{"add.rn.f64", Instr{Op: OpAdd, Type: F64, Round: RoundRN}, d(0.1), d(0.2), 0, 0, d(0.30000000000000004), 0},
		{"add.rz.f64", Instr{Op: OpAdd, Type: F64, Round: RoundRZ}, d(1), d(0x1p-60), 0, 0, d(1), 0},
		{"add.rp.f64", Instr{Op: OpAdd, Type: F64, Round: RoundRP}, d(1), d(0x1p-60), 0, 0, d(1 + 0x1p-52), 0},
		{"add.rm.f64 x-x", Instr{Op: OpAdd, Type: F64, Round: RoundRM}, d(3), d(-3), 0, 0, negZero64, 0},
		{"add.rz.f64 overflow", Instr{Op: OpAdd, Type: F64, Round: RoundRZ}, max64, max64, 0, 0, max64, 0},
		{"add.rp.f64 overflow", Instr{Op: OpAdd, Type: F64, Round: RoundRP}, max64, max64, 0, 0, inf64, 0},
		{"add.rp.f64 inf", Instr{Op: OpAdd, Type: F64, Round: RoundRP}, inf64, d(1), 0, 0, inf64, 0},
		{"sub.f64", Instr{Op: OpSub, Type: F64}, d(1), d(3), 0, 0, d(-2), 0},
		{"mul.rm.f64 subnormal", Instr{Op: OpMul, Type: F64, Round: RoundRM}, d(0x1p-1074), d(-0.5), 0, 0, d(-0x1p-1074), 0},
		{"mul.rz.f64 subnormal", Instr{Op: OpMul, Type: F64, Round: RoundRZ}, d(0x1p-1074), d(-0.5), 0, 0, negZero64, 0},
		{"mul.rn.f64 subnormal tie", Instr{Op: OpMul, Type: F64, Round: RoundRN}, d(0x1p-1074), d(1.5), 0, 0, d(0x1p-1073), 0},
		{"mul.rp.f64 tiny", Instr{Op: OpMul, Type: F64, Round: RoundRP}, d(0x1p-600), d(0x1p-600), 0, 0, d(0x1p-1074), 0},
		{"fma.rz.f64", Instr{Op: OpFma, Type: F64, Round: RoundRZ}, d(1 + 0x1p-52), d(1 + 0x1p-52), d(0), 0, d(1 + 0x1p-51), 0},
		{"fma.rp.f64", Instr{Op: OpFma, Type: F64, Round: RoundRP}, d(1 + 0x1p-52), d(1 + 0x1p-52), d(0), 0, d(1 + 0x1p-51 + 0x1p-52), 0},
		{"fma.rm.f64 cancel", Instr{Op: OpFma, Type: F64, Round: RoundRM}, d(2), d(3), d(-6), 0, negZero64, 0},
		{"fma.rp.f64 tiny addend", Instr{Op: OpFma, Type: F64, Round: RoundRP}, d(1), d(1), d(0x1p-1074), 0, d(1 + 0x1p-52), 0},

		{"min.f32", Instr{Op: OpMin, Type: F32}, f(1), f(-2), 0, 0, f(-2), 0},
		{"min.f32 NaN gives other", Instr{Op: OpMin, Type: F32}, nan32, f(3), 0, 0, f(3), 0},
		{"max.f32 NaN gives other", Instr{Op: OpMax, Type: F32}, f(3), nan32, 0, 0, f(3), 0},
		{"max.f32 both NaN", Instr{Op: OpMax, Type: F32}, nan32, nan32, 0, 0, canonNaN32, 0},
		{"min.f32 -0 +0", Instr{Op: OpMin, Type: F32}, 0, negZero32, 0, 0, negZero32, 0},
		{"max.f32 -0 +0", Instr{Op: OpMax, Type: F32}, negZero32, 0, 0, 0, 0, 0},
		{"min.ftz.f32 subnormal", Instr{Op: OpMin, Type: F32, Ftz: true}, nsub32, f(1), 0, 0, negZero32, 0},
		{"min.f32 subnormal", Instr{Op: OpMin, Type: F32}, nsub32, f(1), 0, 0, nsub32, 0},
		{"max.f64", Instr{Op: OpMax, Type: F64}, d(-1), d(-2), 0, 0, d(-1), 0},
		{"max.f64 NaN", Instr{Op: OpMax, Type: F64}, nan64, d(-2), 0, 0, d(-2), 0},
		{"min.f64 inf", Instr{Op: OpMin, Type: F64}, ninf64, d(-2), 0, 0, ninf64, 0},
		{"abs.f32", Instr{Op: OpAbs, Type: F32}, f(-2), 0, 0, 0, f(2), 0},
		{"abs.f32 -0", Instr{Op: OpAbs, Type: F32}, negZero32, 0, 0, 0, 0, 0},
		{"abs.ftz.f32 subnormal", Instr{Op: OpAbs, Type: F32, Ftz: true}, nsub32, 0, 0, 0, 0, 0},
		{"abs.f32 subnormal", Instr{Op: OpAbs, Type: F32}, nsub32, 0, 0, 0, nsub32 &^ (1 << 31), 0},
		{"neg.f32", Instr{Op: OpNeg, Type: F32}, f(2), 0, 0, 0, f(-2), 0},
		{"neg.f32 0", Instr{Op: OpNeg, Type: F32}, 0, 0, 0, 0, negZero32, 0},
		{"neg.f32 NaN", Instr{Op: OpNeg, Type: F32}, nan32, 0, 0, 0, canonNaN32, 0},
		{"neg.f64", Instr{Op: OpNeg, Type: F64}, d(2), 0, 0, 0, d(-2), 0},
		{"abs.f64", Instr{Op: OpAbs, Type: F64}, ninf64, 0, 0, 0, inf64, 0},
	})
}

func TestEvalDivSqrtRcp(t *testing.T) {
	f := func(x float32) uint64 { return f32b(x) }
	d := func(x float64) uint64 { return f64b(x) }
	div := func(r Round) Instr { return Instr{Op: OpDiv, Type: F32, Round: r} }
	third := float32(1) / 3
	runALU(t, []aluCase{
		{"div.rn.f32", div(RoundRN), f(1), f(3), 0, 0, f(third), 0},
		{"div.rz.f32", div(RoundRZ), f(1), f(3), 0, 0, f(math.Nextafter32(third, 0)), 0},
		{"div.rp.f32", div(RoundRP), f(1), f(3), 0, 0, f(third), 0},
		{"div.rm.f32 negative", div(RoundRM), f(-1), f(3), 0, 0, f(-third), 0},
		{"div.rp.f32 negative", div(RoundRP), f(-1), f(3), 0, 0, f(-math.Nextafter32(third, 0)), 0},
		{"div.rp.f32 exact", div(RoundRP), f(1), f(4), 0, 0, f(0.25), 0},
		{"div.rn.f32 by 0", div(RoundRN), f(1), 0, 0, 0, inf32, 0},
		{"div.rn.f32 by -0", div(RoundRN), f(1), negZero32, 0, 0, ninf32, 0},
		{"div.rn.f32 0/0", div(RoundRN), 0, 0, 0, 0, canonNaN32, 0},
		{"div.rz.f32 inf/inf", div(RoundRZ), inf32, inf32, 0, 0, canonNaN32, 0},
		{"div.rn.f32 x/inf", div(RoundRN), f(-1), inf32, 0, 0, negZero32, 0},
		{"div.rn.f32 subnormal result", div(RoundRN), f(0x1p-126), f(4), 0, 0, f(0x1p-128), 0},
		{"div.rn.ftz.f32 subnormal result", Instr{Op: OpDiv, Type: F32, Round: RoundRN, Ftz: true}, f(0x1p-126), f(4), 0, 0, 0, 0},
		{"div.rn.ftz.f32 subnormal divisor flushes to 0", Instr{Op: OpDiv, Type: F32, Round: RoundRN, Ftz: true}, f(1), sub32, 0, 0, inf32, 0},
		{"div.rz.f32 overflow", div(RoundRZ), max32, f(0.5), 0, 0, max32, 0},
		{"div.full.f32", Instr{Op: OpDiv, Type: F32, Full: true}, f(1), f(3), 0, 0, f(third), 0},
		{"div.approx.f32", Instr{Op: OpDiv, Type: F32, Approx: true}, f(1), f(3), 0, 0, f(third), 0},
		// The manual: for 2^126 < |b| < 2^128 div.approx.f32 gives 0, or
		// NaN when a is infinite.
		{"div.approx.f32 huge divisor", Instr{Op: OpDiv, Type: F32, Approx: true}, f(0x1p127), f(0x1p127), 0, 0, 0, 0},
		{"div.approx.f32 huge divisor negative", Instr{Op: OpDiv, Type: F32, Approx: true}, f(1), f(-0x1p127), 0, 0, negZero32, 0},
		{"div.approx.f32 inf / huge", Instr{Op: OpDiv, Type: F32, Approx: true}, inf32, f(0x1p127), 0, 0, canonNaN32, 0},
		{"div.approx.f32 NaN / huge", Instr{Op: OpDiv, Type: F32, Approx: true}, nan32, f(0x1p127), 0, 0, canonNaN32, 0},
		{"div.approx.f32 at 2^126 is IEEE", Instr{Op: OpDiv, Type: F32, Approx: true}, f(1), f(0x1p126), 0, 0, f(0x1p-126), 0},
		{"div.full.f32 huge divisor is IEEE", Instr{Op: OpDiv, Type: F32, Full: true}, f(0x1p127), f(0x1p127), 0, 0, f(1), 0},
		{"div.rn.f64", Instr{Op: OpDiv, Type: F64, Round: RoundRN}, d(1), d(3), 0, 0, d(1.0 / 3), 0},
		{"div.rz.f64", Instr{Op: OpDiv, Type: F64, Round: RoundRZ}, d(1), d(3), 0, 0, d(1.0 / 3), 0},
		{"div.rp.f64", Instr{Op: OpDiv, Type: F64, Round: RoundRP}, d(1), d(3), 0, 0, d(math.Nextafter(1.0/3, 1)), 0},
		{"div.rm.f64 exact", Instr{Op: OpDiv, Type: F64, Round: RoundRM}, d(-1), d(4), 0, 0, d(-0.25), 0},
		{"div.rn.f64 by 0", Instr{Op: OpDiv, Type: F64, Round: RoundRN}, d(-1), 0, 0, 0, ninf64, 0},
		{"div.rp.f64 underflow", Instr{Op: OpDiv, Type: F64, Round: RoundRP}, d(0x1p-1074), d(3), 0, 0, d(0x1p-1074), 0},
		{"div.rn.f64 underflow", Instr{Op: OpDiv, Type: F64, Round: RoundRN}, d(0x1p-1074), d(3), 0, 0, 0, 0},
		{"div.rz.f64 overflow", Instr{Op: OpDiv, Type: F64, Round: RoundRZ}, max64, d(0.5), 0, 0, max64, 0},

		{"rcp.rn.f32", Instr{Op: OpRcp, Type: F32, Round: RoundRN}, f(3), 0, 0, 0, f(third), 0},
		{"rcp.rp.f32", Instr{Op: OpRcp, Type: F32, Round: RoundRP}, f(3), 0, 0, 0, f(third), 0},
		{"rcp.rz.f32", Instr{Op: OpRcp, Type: F32, Round: RoundRZ}, f(3), 0, 0, 0, f(math.Nextafter32(third, 0)), 0},
		{"rcp.rn.f32 -0", Instr{Op: OpRcp, Type: F32, Round: RoundRN}, negZero32, 0, 0, 0, ninf32, 0},
		{"rcp.rn.f32 inf", Instr{Op: OpRcp, Type: F32, Round: RoundRN}, inf32, 0, 0, 0, 0, 0},
		{"rcp.rn.f64", Instr{Op: OpRcp, Type: F64, Round: RoundRN}, d(3), 0, 0, 0, d(1.0 / 3), 0},
		{"rcp.rm.f64", Instr{Op: OpRcp, Type: F64, Round: RoundRM}, d(-3), 0, 0, 0, d(-math.Nextafter(1.0/3, 1)), 0},
		{"rcp.approx.ftz.f64 subnormal input", Instr{Op: OpRcp, Type: F64, Approx: true, Ftz: true}, d(0x1p-1070), 0, 0, 0, inf64, 0},
		{"rcp.approx.ftz.f64 subnormal result", Instr{Op: OpRcp, Type: F64, Approx: true, Ftz: true}, d(0x1p1023), 0, 0, 0, 0, 0},
		{"rcp.approx.ftz.f64 2", Instr{Op: OpRcp, Type: F64, Approx: true, Ftz: true}, d(2), 0, 0, 0, d(0.5), 0},
		{"rcp.approx.ftz.f64 -inf", Instr{Op: OpRcp, Type: F64, Approx: true, Ftz: true}, ninf64, 0, 0, 0, negZero64, 0},
		{"sqrt.rn.f32", Instr{Op: OpSqrt, Type: F32, Round: RoundRN}, f(2), 0, 0, 0, f(float32(math.Sqrt(2))), 0},
		{"sqrt.rz.f32", Instr{Op: OpSqrt, Type: F32, Round: RoundRZ}, f(2), 0, 0, 0, f(float32(math.Sqrt(2))), 0},
		{"sqrt.rp.f32", Instr{Op: OpSqrt, Type: F32, Round: RoundRP}, f(2), 0, 0, 0, f(math.Nextafter32(float32(math.Sqrt(2)), 2)), 0},
		{"sqrt.rp.f32 exact", Instr{Op: OpSqrt, Type: F32, Round: RoundRP}, f(4), 0, 0, 0, f(2), 0},
		{"sqrt.rn.f32 -0", Instr{Op: OpSqrt, Type: F32, Round: RoundRN}, negZero32, 0, 0, 0, negZero32, 0},
		{"sqrt.rn.f32 -1", Instr{Op: OpSqrt, Type: F32, Round: RoundRN}, f(-1), 0, 0, 0, canonNaN32, 0},
		{"sqrt.rn.f32 inf", Instr{Op: OpSqrt, Type: F32, Round: RoundRN}, inf32, 0, 0, 0, inf32, 0},
		{"sqrt.rn.f32 subnormal", Instr{Op: OpSqrt, Type: F32, Round: RoundRN}, f(0x1p-148), 0, 0, 0, f(0x1p-74), 0},
		{"sqrt.rn.ftz.f32 subnormal", Instr{Op: OpSqrt, Type: F32, Round: RoundRN, Ftz: true}, f(0x1p-148), 0, 0, 0, 0, 0},
		{"sqrt.rn.f64", Instr{Op: OpSqrt, Type: F64, Round: RoundRN}, d(2), 0, 0, 0, d(math.Sqrt2), 0},
		{"sqrt.rp.f64 (RN rounds up here)", Instr{Op: OpSqrt, Type: F64, Round: RoundRP}, d(2), 0, 0, 0, d(math.Sqrt2), 0},
		{"sqrt.rm.f64", Instr{Op: OpSqrt, Type: F64, Round: RoundRM}, d(2), 0, 0, 0, d(math.Nextafter(math.Sqrt2, 0)), 0},
		{"sqrt.rm.f64 exact", Instr{Op: OpSqrt, Type: F64, Round: RoundRM}, d(9), 0, 0, 0, d(3), 0},
		{"sqrt.rz.f64 -0", Instr{Op: OpSqrt, Type: F64, Round: RoundRZ}, negZero64, 0, 0, 0, negZero64, 0},
		{"rsqrt.approx.f32 +0", Instr{Op: OpRsqrt, Type: F32, Approx: true}, 0, 0, 0, 0, inf32, 0},
		{"rsqrt.approx.f32 -0", Instr{Op: OpRsqrt, Type: F32, Approx: true}, negZero32, 0, 0, 0, ninf32, 0},
		{"rsqrt.approx.f32 inf", Instr{Op: OpRsqrt, Type: F32, Approx: true}, inf32, 0, 0, 0, 0, 0},
		{"rsqrt.approx.f32 -1", Instr{Op: OpRsqrt, Type: F32, Approx: true}, f(-1), 0, 0, 0, canonNaN32, 0},
		{"rsqrt.approx.f32 4", Instr{Op: OpRsqrt, Type: F32, Approx: true}, f(4), 0, 0, 0, f(0.5), 0},
		{"rsqrt.approx.f64 4", Instr{Op: OpRsqrt, Type: F64, Approx: true}, d(4), 0, 0, 0, d(0.5), 0},
		{"ex2.approx.f32 -inf", Instr{Op: OpEx2, Type: F32, Approx: true}, ninf32, 0, 0, 0, 0, 0},
		{"ex2.approx.f32 inf", Instr{Op: OpEx2, Type: F32, Approx: true}, inf32, 0, 0, 0, inf32, 0},
		{"ex2.approx.f32 10", Instr{Op: OpEx2, Type: F32, Approx: true}, f(10), 0, 0, 0, f(1024), 0},
		{"ex2.approx.f32 -130 subnormal", Instr{Op: OpEx2, Type: F32, Approx: true}, f(-130), 0, 0, 0, f(0x1p-130), 0},
		{"ex2.approx.ftz.f32 -130 flushes", Instr{Op: OpEx2, Type: F32, Approx: true, Ftz: true}, f(-130), 0, 0, 0, 0, 0},
		{"ex2.approx.f32 NaN", Instr{Op: OpEx2, Type: F32, Approx: true}, nan32, 0, 0, 0, canonNaN32, 0},
		{"lg2.approx.f32 0", Instr{Op: OpLg2, Type: F32, Approx: true}, 0, 0, 0, 0, ninf32, 0},
		{"lg2.approx.f32 -0", Instr{Op: OpLg2, Type: F32, Approx: true}, negZero32, 0, 0, 0, ninf32, 0},
		{"lg2.approx.f32 -1", Instr{Op: OpLg2, Type: F32, Approx: true}, f(-1), 0, 0, 0, canonNaN32, 0},
		{"lg2.approx.f32 inf", Instr{Op: OpLg2, Type: F32, Approx: true}, inf32, 0, 0, 0, inf32, 0},
		{"lg2.approx.f32 8", Instr{Op: OpLg2, Type: F32, Approx: true}, f(8), 0, 0, 0, f(3), 0},
		{"lg2.approx.ftz.f32 subnormal", Instr{Op: OpLg2, Type: F32, Approx: true, Ftz: true}, sub32, 0, 0, 0, ninf32, 0},
		{"lg2.approx.f32 subnormal", Instr{Op: OpLg2, Type: F32, Approx: true}, sub32, 0, 0, 0, f(-149), 0},
	})
}

// ulpDiff32 is the distance between two finite f32 in units in the last place.
func ulpDiff32(x, y float32) int64 {
	ord := func(f float32) int64 {
		u := int64(math.Float32bits(f))
		if u&0x80000000 != 0 {
			return -(u & 0x7fffffff)
		}
		return u
	}
	d := ord(x) - ord(y)
	if d < 0 {
		d = -d
	}
	return d
}

// TestEvalApproxBounds checks each .approx instruction against the exact
// function (computed in float64) within the error the PTX ISA manual allows
// it. Bounds used, as the manual states them:
//
//	rcp.approx.f32    max 1 ulp
//	sqrt.approx.f32   max relative error 2^-23
//	rsqrt.approx.f32  max relative error 2^-22.9
//	ex2.approx.f32    max 2 ulp (full range)
//	lg2.approx.f32    max absolute error 2^-22.6 (for the mantissa range)
//	div.approx.f32    max 2 ulp for |b| in [2^-126, 2^126]
//	div.full.f32      max 2 ulp over the full range
//
// Our implementation returns the correctly rounded (or one extra rounding
// off) value, so it meets all of them with room.
func TestEvalApproxBounds(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		x := math.Float32frombits(r.Uint32() & 0x7fffffff) // positive, any exponent
		if x != x || math.IsInf(float64(x), 0) || x == 0 {
			continue
		}
		fx := float64(x)
		ev := func(in Instr) float32 { v, _ := Eval(&in, f32b(x), 0, 0, 0); return bf32(v) }

		if got, want := ev(Instr{Op: OpRcp, Type: F32, Approx: true}), float32(1/fx); !math.IsInf(float64(want), 0) && ulpDiff32(got, want) > 1 {
			t.Fatalf("rcp.approx.f32(%g) = %g, want within 1 ulp of %g", x, got, want)
		}
		if got, want := float64(ev(Instr{Op: OpSqrt, Type: F32, Approx: true})), math.Sqrt(fx); math.Abs(got-want)/want > 0x1p-23 {
			t.Fatalf("sqrt.approx.f32(%g) = %g, relative error over 2^-23", x, got)
		}
		if got, want := float64(ev(Instr{Op: OpRsqrt, Type: F32, Approx: true})), 1/math.Sqrt(fx); math.Abs(got-want)/want > math.Exp2(-22.9) {
			t.Fatalf("rsqrt.approx.f32(%g) = %g, relative error over 2^-22.9", x, got)
		}
		if got, want := ev(Instr{Op: OpLg2, Type: F32, Approx: true}), math.Log2(fx); math.Abs(float64(got)-want) > math.Exp2(-22.6)*math.Max(1, math.Abs(want)) {
			t.Fatalf("lg2.approx.f32(%g) = %g, want %g within 2^-22.6", x, got, want)
		}
		e := (r.Float64() - 0.5) * 300 // ex2 over its whole range, into subnormals and overflow
		in := Instr{Op: OpEx2, Type: F32, Approx: true}
		v, _ := Eval(&in, f32b(float32(e)), 0, 0, 0)
		want := float32(math.Exp2(float64(float32(e))))
		if got := bf32(v); got != want && (math.IsInf(float64(want), 0) || ulpDiff32(got, want) > 2) {
			t.Fatalf("ex2.approx.f32(%g) = %g, want within 2 ulp of %g", float32(e), got, want)
		}
		y := math.Float32frombits(r.Uint32() & 0x7fffffff)
		if y == y && y >= 0x1p-126 && y <= 0x1p126 {
			exact := float32(fx / float64(y))
			for _, in := range []Instr{{Op: OpDiv, Type: F32, Approx: true}, {Op: OpDiv, Type: F32, Full: true}} {
				v, _ := Eval(&in, f32b(x), f32b(y), 0, 0)
				if got := bf32(v); !math.IsInf(float64(exact), 0) && ulpDiff32(got, exact) > 2 {
					t.Fatalf("div(%v) %g/%g = %g, want within 2 ulp of %g", in, x, y, got, exact)
				}
			}
		}
	}
}

// bigRef computes the exact result of op on float64 operands with math/big
// and rounds it to prec bits in mode r, or reports false when the result is
// outside the normal range of the format (those cases are in the tables).
func bigRef(op Opcode, r Round, prec uint, emin, emax int, x ...float64) (float64, bool) {
	var z *big.Float
	bx := func(i int) *big.Float { return new(big.Float).SetPrec(60).SetFloat64(x[i]) }
	switch op {
	case OpAdd:
		z = new(big.Float).SetPrec(3000).Add(bx(0), bx(1))
	case OpSub:
		z = new(big.Float).SetPrec(3000).Sub(bx(0), bx(1))
	case OpMul:
		z = new(big.Float).SetPrec(200).Mul(bx(0), bx(1))
	case OpFma, OpMad:
		p := new(big.Float).SetPrec(200).Mul(bx(0), bx(1))
		z = new(big.Float).SetPrec(5000).Add(p, bx(2))
	case OpDiv:
		z = new(big.Float).SetPrec(prec).SetMode(bigMode(r)).Quo(bx(0), bx(1))
	case OpSqrt:
		return 0, false // checked by squaring instead, below
	}
	if z.Sign() == 0 {
		return 0, false
	}
	if e := z.MantExp(nil) - 1; e < emin || e > emax {
		return 0, false
	}
	z2 := new(big.Float).SetPrec(prec).SetMode(bigMode(r)).Set(z)
	if e := z2.MantExp(nil) - 1; e > emax {
		return 0, false
	}
	v, _ := z2.Float64()
	return v, true
}

// TestEvalDirectedAgainstBig checks add, sub, mul, fma and div in all four
// IEEE modes, .f32 and .f64, on random operands (with close exponents, so
// that rounding and cancellation happen) against math/big.
func TestEvalDirectedAgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	rf32 := func() float32 {
		m := 1 + r.Float64()
		if r.Intn(2) == 0 {
			m = -m
		}
		return float32(math.Ldexp(m, r.Intn(60)-30))
	}
	rf64 := func() float64 {
		m := 1 + r.Float64()
		if r.Intn(2) == 0 {
			m = -m
		}
		return math.Ldexp(m, r.Intn(200)-100)
	}
	modes := []Round{RoundRN, RoundRZ, RoundRM, RoundRP}
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		for _, mode := range modes {
			a, b, c := rf32(), rf32(), rf32()
			if i%3 == 0 {
				c = -float32(float64(a) * float64(b)) // near cancellation
			}
			args := []float64{float64(a), float64(b), float64(c)}
			for _, op := range []Opcode{OpAdd, OpSub, OpMul, OpFma, OpMad, OpDiv} {
				want, ok := bigRef(op, mode, 24, -126, 127, args...)
				if !ok {
					continue
				}
				in := Instr{Op: op, Type: F32, Round: mode}
				v, _ := Eval(&in, f32b(a), f32b(b), f32b(c), 0)
				if got := bf32(v); float64(got) != want {
					t.Fatalf("%v.f32 mode %d (%g, %g, %g) = %g, want %g", op, mode, a, b, c, got, want)
				}
			}
			x, y, z := rf64(), rf64(), rf64()
			if i%3 == 0 {
				z = -x * y
			}
			args = []float64{x, y, z}
			for _, op := range []Opcode{OpAdd, OpSub, OpMul, OpFma, OpMad, OpDiv} {
				want, ok := bigRef(op, mode, 53, -1022, 1023, args...)
				if !ok {
					continue
				}
				in := Instr{Op: op, Type: F64, Round: mode}
				v, _ := Eval(&in, f64b(x), f64b(y), f64b(z), 0)
				if got := f64in(v); got != want {
					t.Fatalf("%v.f64 mode %d (%g, %g, %g) = %g, want %g", op, mode, x, y, z, got, want)
				}
			}
			// sqrt: the result s must bracket the root as the mode says.
			for _, ty := range []Type{F32, F64} {
				xs := math.Abs(x)
				if ty == F32 {
					xs = math.Abs(float64(a))
				}
				in := Instr{Op: OpSqrt, Type: ty, Round: mode}
				var s, lo, hi float64
				if ty == F32 {
					v, _ := Eval(&in, f32b(float32(xs)), 0, 0, 0)
					s = float64(bf32(v))
					lo = float64(math.Nextafter32(float32(s), 0))
					hi = float64(math.Nextafter32(float32(s), float32(math.Inf(1))))
				} else {
					v, _ := Eval(&in, f64b(xs), 0, 0, 0)
					s = f64in(v)
					lo, hi = math.Nextafter(s, 0), math.Nextafter(s, math.Inf(1))
				}
				sqb := func(v *big.Float) int { // sign of v^2 - xs, exactly
					p := new(big.Float).SetPrec(600).Mul(v, v)
					return p.Cmp(big.NewFloat(xs))
				}
				sq := func(v float64) int { return sqb(big.NewFloat(v)) }
				mid := func(u, v float64) *big.Float { // exact midpoint
					m := new(big.Float).SetPrec(200).Add(big.NewFloat(u), big.NewFloat(v))
					return m.Quo(m, big.NewFloat(2))
				}
				switch mode {
				case RoundRZ, RoundRM:
					if sq(s) > 0 || sq(hi) <= 0 {
						t.Fatalf("sqrt.%s mode %d (%g) = %g is not the root rounded down", ty, mode, xs, s)
					}
				case RoundRP:
					if sq(s) < 0 || sq(lo) >= 0 {
						t.Fatalf("sqrt.%s mode %d (%g) = %g is not the root rounded up", ty, mode, xs, s)
					}
				case RoundRN:
					// Nearest: the midpoints on either side bracket the root.
					if sqb(mid(lo, s)) > 0 || sqb(mid(s, hi)) < 0 {
						t.Fatalf("sqrt.%s.rn (%g) = %g is not the nearest", ty, xs, s)
					}
				}
			}
		}
	}
}

// TestEvalFmaF32Exhaustive checks the one-rounding fma.rn.f32 on operands
// built to hit halfway cases (products landing on f32 midpoints plus tiny
// addends) against math/big.
func TestEvalFmaF32Halfway(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	in := Instr{Op: OpFma, Type: F32, Round: RoundRN}
	bad := 0
	for i := 0; i < 20000; i++ {
		a := float32(1 + float64(r.Intn(1<<12))*0x1p-12)
		b := float32(1 + float64(r.Intn(1<<12))*0x1p-12)
		c := float32(math.Ldexp(1+r.Float64(), -40-r.Intn(60)))
		if r.Intn(2) == 0 {
			c = -c
		}
		want, ok := bigRef(OpFma, RoundRN, 24, -126, 127, float64(a), float64(b), float64(c))
		if !ok {
			continue
		}
		v, _ := Eval(&in, f32b(a), f32b(b), f32b(c), 0)
		if float64(bf32(v)) != want {
			t.Fatalf("fma.rn.f32(%g, %g, %g) = %g, want %g", a, b, c, bf32(v), want)
		}
		if float64(float32(math.FMA(float64(a), float64(b), float64(c)))) != want {
			bad++
		}
	}
	if bad == 0 {
		t.Errorf("no case where float32(math.FMA) double-rounds: the test does not reach the halfway cases")
	}
}

func TestEvalCvt(t *testing.T) {
	f := func(x float32) uint64 { return f32b(x) }
	d := func(x float64) uint64 { return f64b(x) }
	cv := func(dt, st Type, r Round) Instr { return Instr{Op: OpCvt, Type: dt, SrcType: st, Round: r} }
	runALU(t, []aluCase{
		// Integer to integer.
		{"cvt.s32.s16 sign-extends", cv(S32, S16, 0), 0xfffe, 0, 0, 0, i32(-2), 0},
		{"cvt.u32.u16 zero-extends", cv(U32, U16, 0), 0xfffe, 0, 0, 0, 0xfffe, 0},
		{"cvt.u32.s16 sign-extends by source", cv(U32, S16, 0), 0xfffe, 0, 0, 0, 0xfffffffe, 0},
		{"cvt.s64.s32", cv(S64, S32, 0), i32(-1), 0, 0, 0, ^uint64(0), 0},
		{"cvt.u64.u32", cv(U64, U32, 0), 0xffffffff, 0, 0, 0, 0xffffffff, 0},
		{"cvt.s64.u32", cv(S64, U32, 0), 0xffffffff, 0, 0, 0, 0xffffffff, 0},
		{"cvt.u16.u32 truncates", cv(U16, U32, 0), 0x12345, 0, 0, 0, 0x2345, 0},
		{"cvt.s8.s32 truncates", cv(S8, S32, 0), 0x1ff, 0, 0, 0, 0xff, 0},
		{"cvt.s32.s8 sign-extends", cv(S32, S8, 0), 0x80, 0, 0, 0, 0xffffff80, 0},
		{"cvt.u32.u8 ignores high bits", cv(U32, U8, 0), 0xff80, 0, 0, 0, 0x80, 0},
		{"cvt.sat.s8.s32 high", Instr{Op: OpCvt, Type: S8, SrcType: S32, Sat: true}, 300, 0, 0, 0, 0x7f, 0},
		{"cvt.sat.s8.s32 low", Instr{Op: OpCvt, Type: S8, SrcType: S32, Sat: true}, i32(-300), 0, 0, 0, 0x80, 0},
		{"cvt.sat.u8.s32 negative", Instr{Op: OpCvt, Type: U8, SrcType: S32, Sat: true}, i32(-1), 0, 0, 0, 0, 0},
		{"cvt.sat.u16.u32", Instr{Op: OpCvt, Type: U16, SrcType: U32, Sat: true}, 0x10000, 0, 0, 0, 0xffff, 0},
		{"cvt.sat.s32.u32", Instr{Op: OpCvt, Type: S32, SrcType: U32, Sat: true}, 0x80000000, 0, 0, 0, 0x7fffffff, 0},
		{"cvt.sat.u32.s64", Instr{Op: OpCvt, Type: U32, SrcType: S64, Sat: true}, i64(-5), 0, 0, 0, 0, 0},
		{"cvt.sat.u64.s64", Instr{Op: OpCvt, Type: U64, SrcType: S64, Sat: true}, i64(-5), 0, 0, 0, 0, 0},
		{"cvt.sat.s64.u64", Instr{Op: OpCvt, Type: S64, SrcType: U64, Sat: true}, ^uint64(0), 0, 0, 0, 1<<63 - 1, 0},
		{"cvt.sat.s32.s64 in range", Instr{Op: OpCvt, Type: S32, SrcType: S64, Sat: true}, i64(-5), 0, 0, 0, i32(-5), 0},
		{"cvt.s32.u64 truncates", cv(S32, U64, 0), 0xffffffff_80000000, 0, 0, 0, 0x80000000, 0},

		// Float to integer: rounding, clamping, NaN.
		{"cvt.rni.s32.f32 0.5", cv(S32, F32, RoundRNI), f(0.5), 0, 0, 0, 0, 0},
		{"cvt.rni.s32.f32 1.5", cv(S32, F32, RoundRNI), f(1.5), 0, 0, 0, 2, 0},
		{"cvt.rni.s32.f32 2.5", cv(S32, F32, RoundRNI), f(2.5), 0, 0, 0, 2, 0},
		{"cvt.rni.s32.f32 -2.5", cv(S32, F32, RoundRNI), f(-2.5), 0, 0, 0, i32(-2), 0},
		{"cvt.rni.s32.f32 -1.5", cv(S32, F32, RoundRNI), f(-1.5), 0, 0, 0, i32(-2), 0},
		{"cvt.rzi.s32.f32 -1.9", cv(S32, F32, RoundRZI), f(-1.9), 0, 0, 0, i32(-1), 0},
		{"cvt.rmi.s32.f32 -1.1", cv(S32, F32, RoundRMI), f(-1.1), 0, 0, 0, i32(-2), 0},
		{"cvt.rpi.s32.f32 -1.9", cv(S32, F32, RoundRPI), f(-1.9), 0, 0, 0, i32(-1), 0},
		{"cvt.rpi.s32.f32 1.1", cv(S32, F32, RoundRPI), f(1.1), 0, 0, 0, 2, 0},
		{"cvt.rzi.s32.f32 3e9 clamps", cv(S32, F32, RoundRZI), f(3e9), 0, 0, 0, 0x7fffffff, 0},
		{"cvt.rzi.s32.f32 -3e9 clamps", cv(S32, F32, RoundRZI), f(-3e9), 0, 0, 0, 0x80000000, 0},
		{"cvt.rzi.s32.f32 2^31 clamps", cv(S32, F32, RoundRZI), f(0x1p31), 0, 0, 0, 0x7fffffff, 0},
		{"cvt.rzi.s32.f32 -2^31 fits", cv(S32, F32, RoundRZI), f(-0x1p31), 0, 0, 0, 0x80000000, 0},
		{"cvt.rzi.u32.f32 3e9 fits", cv(U32, F32, RoundRZI), f(3e9), 0, 0, 0, 3000000000, 0},
		{"cvt.rzi.u32.f32 -1 clamps to 0", cv(U32, F32, RoundRZI), f(-1), 0, 0, 0, 0, 0},
		{"cvt.rzi.u32.f32 -0.9 is 0", cv(U32, F32, RoundRZI), f(-0.9), 0, 0, 0, 0, 0},
		{"cvt.rzi.s32.f32 NaN is 0", cv(S32, F32, RoundRZI), nan32, 0, 0, 0, 0, 0},
		{"cvt.rzi.u64.f64 NaN (H200: 1<<63)", cv(U64, F64, RoundRZI), nan64, 0, 0, 0, 1 << 63, 0},
		{"cvt.rzi.s32.f32 inf clamps", cv(S32, F32, RoundRZI), inf32, 0, 0, 0, 0x7fffffff, 0},
		{"cvt.rzi.s32.f32 -inf clamps", cv(S32, F32, RoundRZI), ninf32, 0, 0, 0, 0x80000000, 0},
		{"cvt.rzi.s64.f64 1e19 clamps", cv(S64, F64, RoundRZI), d(1e19), 0, 0, 0, 1<<63 - 1, 0},
		{"cvt.rzi.s64.f64 -2^63 fits", cv(S64, F64, RoundRZI), d(-0x1p63), 0, 0, 0, 1 << 63, 0},
		{"cvt.rzi.u64.f64 1e19 fits", cv(U64, F64, RoundRZI), d(1e19), 0, 0, 0, 10000000000000000000, 0},
		{"cvt.rzi.u64.f64 2^64 clamps", cv(U64, F64, RoundRZI), d(0x1p64), 0, 0, 0, ^uint64(0), 0},
		{"cvt.rni.s16.f32 clamps", cv(S16, F32, RoundRNI), f(40000), 0, 0, 0, 0x7fff, 0},
		{"cvt.rni.u8.f32 clamps", cv(U8, F32, RoundRNI), f(300), 0, 0, 0, 0xff, 0},
		{"cvt.rni.s8.f32 clamps low", cv(S8, F32, RoundRNI), f(-300), 0, 0, 0, 0x80, 0},
		{"cvt.rzi.s32.f64", cv(S32, F64, RoundRZI), d(-123.9), 0, 0, 0, i32(-123), 0},
		{"cvt.rzi.ftz.s32.f32 subnormal", Instr{Op: OpCvt, Type: S32, SrcType: F32, Round: RoundRPI, Ftz: true}, sub32, 0, 0, 0, 0, 0},
		{"cvt.rpi.s32.f32 subnormal", cv(S32, F32, RoundRPI), sub32, 0, 0, 0, 1, 0},

		// Integer to float.
		{"cvt.rn.f32.s32", cv(F32, S32, RoundRN), i32(-3), 0, 0, 0, f(-3), 0},
		{"cvt.rn.f32.u32 max", cv(F32, U32, RoundRN), 0xffffffff, 0, 0, 0, f(0x1p32), 0},
		{"cvt.rz.f32.u32 max", cv(F32, U32, RoundRZ), 0xffffffff, 0, 0, 0, f(0x1p32 - 0x1p8), 0},
		{"cvt.rm.f32.u32 max", cv(F32, U32, RoundRM), 0xffffffff, 0, 0, 0, f(0x1p32 - 0x1p8), 0},
		{"cvt.rp.f32.u32 max", cv(F32, U32, RoundRP), 0xffffffff, 0, 0, 0, f(0x1p32), 0},
		{"cvt.rn.f32.s32 halfway to even", cv(F32, S32, RoundRN), 16777217, 0, 0, 0, f(16777216), 0},
		{"cvt.rn.f32.s32 halfway to even up", cv(F32, S32, RoundRN), 16777219, 0, 0, 0, f(16777220), 0},
		{"cvt.rp.f32.s32 halfway", cv(F32, S32, RoundRP), 16777217, 0, 0, 0, f(16777218), 0},
		{"cvt.rm.f32.s32 negative", cv(F32, S32, RoundRM), i32(-16777217), 0, 0, 0, f(-16777218), 0},
		{"cvt.rz.f32.s32 negative", cv(F32, S32, RoundRZ), i32(-16777217), 0, 0, 0, f(-16777216), 0},
		{"cvt.rn.f32.s32 MIN", cv(F32, S32, RoundRN), i32(math.MinInt32), 0, 0, 0, f(-0x1p31), 0},
		{"cvt.rn.f32.s16", cv(F32, S16, RoundRN), 0x8000, 0, 0, 0, f(-32768), 0},
		{"cvt.rn.f32.u64", cv(F32, U64, RoundRN), ^uint64(0), 0, 0, 0, f(0x1p64), 0},
		{"cvt.rz.f32.u64", cv(F32, U64, RoundRZ), ^uint64(0), 0, 0, 0, f(0x1p64 - 0x1p40), 0},
		{"cvt.rn.f64.s64 halfway", cv(F64, S64, RoundRN), 1<<53 + 1, 0, 0, 0, d(0x1p53), 0},
		{"cvt.rp.f64.s64 halfway", cv(F64, S64, RoundRP), 1<<53 + 1, 0, 0, 0, d(0x1p53 + 2), 0},
		{"cvt.rm.f64.s64 negative", cv(F64, S64, RoundRM), i64(-(1<<53 + 1)), 0, 0, 0, d(-0x1p53 - 2), 0},
		{"cvt.rn.f64.u64 max", cv(F64, U64, RoundRN), ^uint64(0), 0, 0, 0, d(0x1p64), 0},
		{"cvt.rz.f64.u64 max", cv(F64, U64, RoundRZ), ^uint64(0), 0, 0, 0, d(0x1p64 - 0x1p11), 0},
		{"cvt.rn.f64.s32", cv(F64, S32, RoundRN), i32(-7), 0, 0, 0, d(-7), 0},
		{"cvt.rn.f64.u32 zero", cv(F64, U32, RoundRZ), 0, 0, 0, 0, 0, 0},
		{"cvt.rn.f32.s32 no rounding given", cv(F32, S32, 0), 16777217, 0, 0, 0, f(16777216), 0},
		{"cvt.rz.f32.s64 zero", cv(F32, S64, RoundRZ), 0, 0, 0, 0, 0, 0},
		{"cvt.rn.f16.s32", cv(F16, S32, RoundRN), 2049, 0, 0, 0, 0x6800, 0},
		{"cvt.rn.f16.s32 overflow", cv(F16, S32, RoundRN), 70000, 0, 0, 0, 0x7c00, 0},
		{"cvt.rz.f16.s32 overflow", cv(F16, S32, RoundRZ), 70000, 0, 0, 0, 0x7bff, 0},
		{"cvt.rn.sat.f32.s32", Instr{Op: OpCvt, Type: F32, SrcType: S32, Round: RoundRN, Sat: true}, 5, 0, 0, 0, f(1), 0},

		// Float to float.
		{"cvt.f64.f32", cv(F64, F32, 0), f(0.1), 0, 0, 0, d(float64(float32(0.1))), 0},
		{"cvt.f64.f32 subnormal exact", cv(F64, F32, 0), sub32, 0, 0, 0, d(0x1p-149), 0},
		{"cvt.ftz.f64.f32 subnormal flushes", Instr{Op: OpCvt, Type: F64, SrcType: F32, Ftz: true}, nsub32, 0, 0, 0, negZero64, 0},
		{"cvt.f64.f32 NaN keeps payload", cv(F64, F32, 0), nan32, 0, 0, 0, 0x7ff8000020000000, 0},
		{"cvt.f64.f32 -inf", cv(F64, F32, 0), ninf32, 0, 0, 0, ninf64, 0},
		{"cvt.rn.f32.f64", cv(F32, F64, RoundRN), d(0.1), 0, 0, 0, f(0.1), 0},
		{"cvt.rn.f32.f64 halfway even down", cv(F32, F64, RoundRN), d(1 + 0x1p-24), 0, 0, 0, f(1), 0},
		{"cvt.rn.f32.f64 halfway even up", cv(F32, F64, RoundRN), d(1 + 0x1p-24 + 0x1p-23), 0, 0, 0, f(1 + 0x1p-22), 0},
		{"cvt.rn.f32.f64 negative halfway", cv(F32, F64, RoundRN), d(-1 - 0x1p-24), 0, 0, 0, f(-1), 0},
		{"cvt.rz.f32.f64", cv(F32, F64, RoundRZ), d(1 - 0x1p-40), 0, 0, 0, f(1 - 0x1p-24), 0},
		{"cvt.rp.f32.f64", cv(F32, F64, RoundRP), d(1 + 0x1p-40), 0, 0, 0, f(1 + 0x1p-23), 0},
		{"cvt.rm.f32.f64 negative", cv(F32, F64, RoundRM), d(-1 - 0x1p-40), 0, 0, 0, f(-1 - 0x1p-23), 0},
		{"cvt.rm.f32.f64 positive", cv(F32, F64, RoundRM), d(1 + 0x1p-40), 0, 0, 0, f(1), 0},
		{"cvt.rn.f32.f64 overflow", cv(F32, F64, RoundRN), d(1e300), 0, 0, 0, inf32, 0},
		{"cvt.rz.f32.f64 overflow", cv(F32, F64, RoundRZ), d(1e300), 0, 0, 0, max32, 0},
		{"cvt.rm.f32.f64 overflow", cv(F32, F64, RoundRM), d(-1e300), 0, 0, 0, ninf32, 0},
		{"cvt.rp.f32.f64 negative overflow", cv(F32, F64, RoundRP), d(-1e300), 0, 0, 0, max32 | 1<<31, 0},
		{"cvt.rn.f32.f64 underflow to subnormal", cv(F32, F64, RoundRN), d(0x1.8p-149), 0, 0, 0, 2, 0},
		{"cvt.rz.f32.f64 underflow", cv(F32, F64, RoundRZ), d(0x1p-160), 0, 0, 0, 0, 0},
		{"cvt.rp.f32.f64 underflow", cv(F32, F64, RoundRP), d(0x1p-160), 0, 0, 0, 1, 0},
		{"cvt.rm.f32.f64 underflow negative", cv(F32, F64, RoundRM), d(-0x1p-160), 0, 0, 0, 0x80000001, 0},
		{"cvt.rn.ftz.f32.f64 subnormal result flushes", Instr{Op: OpCvt, Type: F32, SrcType: F64, Round: RoundRN, Ftz: true}, d(-0x1p-140), 0, 0, 0, negZero32, 0},
		{"cvt.rn.f32.f64 NaN keeps the top payload bits", cv(F32, F64, RoundRN), nan64, 0, 0, 0, 0x7fc00000, 0},
		{"cvt.rni.f32.f32 2.5", cv(F32, F32, RoundRNI), f(2.5), 0, 0, 0, f(2), 0},
		{"cvt.rni.f32.f32 -0.5 keeps sign", cv(F32, F32, RoundRNI), f(-0.5), 0, 0, 0, negZero32, 0},
		{"cvt.rzi.f32.f32 -1.7", cv(F32, F32, RoundRZI), f(-1.7), 0, 0, 0, f(-1), 0},
		{"cvt.rmi.f32.f32 -1.2", cv(F32, F32, RoundRMI), f(-1.2), 0, 0, 0, f(-2), 0},
		{"cvt.rpi.f32.f32 1.2", cv(F32, F32, RoundRPI), f(1.2), 0, 0, 0, f(2), 0},
		{"cvt.rpi.f32.f32 -0.2", cv(F32, F32, RoundRPI), f(-0.2), 0, 0, 0, negZero32, 0},
		{"cvt.rzi.f32.f32 large", cv(F32, F32, RoundRZI), f(0x1p30 + 64), 0, 0, 0, f(0x1p30 + 64), 0},
		{"cvt.rni.f32.f32 NaN", cv(F32, F32, RoundRNI), nan32, 0, 0, 0, canonNaN32, 0},
		{"cvt.rni.f64.f64", cv(F64, F64, RoundRNI), d(3.5), 0, 0, 0, d(4), 0},
		{"cvt.rmi.f64.f64 inf", cv(F64, F64, RoundRMI), ninf64, 0, 0, 0, ninf64, 0},
		{"cvt.ftz.f32.f32 flushes", Instr{Op: OpCvt, Type: F32, SrcType: F32, Ftz: true}, nsub32, 0, 0, 0, negZero32, 0},
		{"cvt.sat.f32.f32", Instr{Op: OpCvt, Type: F32, SrcType: F32, Sat: true}, f(1.5), 0, 0, 0, f(1), 0},
		{"cvt.sat.f32.f32 NaN", Instr{Op: OpCvt, Type: F32, SrcType: F32, Sat: true}, nan32, 0, 0, 0, 0, 0},
		{"cvt.f32.f16", cv(F32, F16, 0), 0x3c00, 0, 0, 0, f(1), 0},
		{"cvt.f32.f16 subnormal", cv(F32, F16, 0), 0x0001, 0, 0, 0, f(0x1p-24), 0},
		{"cvt.f32.f16 -inf", cv(F32, F16, 0), 0xfc00, 0, 0, 0, ninf32, 0},
		{"cvt.f32.f16 NaN", cv(F32, F16, 0), 0x7e01, 0, 0, 0, canonNaN32, 0},
		{"cvt.f64.f16 max", cv(F64, F16, 0), 0x7bff, 0, 0, 0, d(65504), 0},
		{"cvt.rn.f16.f32", cv(F16, F32, RoundRN), f(1), 0, 0, 0, 0x3c00, 0},
		{"cvt.rn.f16.f32 halfway even", cv(F16, F32, RoundRN), f(1 + 0x1p-11), 0, 0, 0, 0x3c00, 0},
		{"cvt.rp.f16.f32", cv(F16, F32, RoundRP), f(1 + 0x1p-20), 0, 0, 0, 0x3c01, 0},
		{"cvt.rn.f16.f32 overflow", cv(F16, F32, RoundRN), f(65520), 0, 0, 0, 0x7c00, 0},
		{"cvt.rn.f16.f32 below overflow", cv(F16, F32, RoundRN), f(65519), 0, 0, 0, 0x7bff, 0},
		{"cvt.rz.f16.f32 inf stays inf", cv(F16, F32, RoundRZ), inf32, 0, 0, 0, 0x7c00, 0},
		{"cvt.rn.f16.f32 subnormal", cv(F16, F32, RoundRN), f(0x1p-24), 0, 0, 0, 0x0001, 0},
		{"cvt.rn.f16.f32 tiny ties to 0", cv(F16, F32, RoundRN), f(0x1p-25), 0, 0, 0, 0, 0},
		{"cvt.rn.f16.f32 -tiny", cv(F16, F32, RoundRN), f(-0x1p-26), 0, 0, 0, 0x8000, 0},
		{"cvt.rm.f16.f32 -tiny", cv(F16, F32, RoundRM), f(-0x1p-26), 0, 0, 0, 0x8001, 0},
		{"cvt.rn.f16.f32 NaN", cv(F16, F32, RoundRN), nan32, 0, 0, 0, canonNaN16, 0},
		{"cvt.rn.f16.f64", cv(F16, F64, RoundRN), d(-2.5), 0, 0, 0, 0xc100, 0},
		{"cvt.rni.s32.f16", cv(S32, F16, RoundRNI), 0xc100, 0, 0, 0, i32(-2), 0},
	})
}

// TestEvalCvtIntToFloatAgainstBig checks int -> f32/f64 in all modes.
func TestEvalCvtIntToFloatAgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for i := 0; i < 3000; i++ {
		u := r.Uint64() >> uint(r.Intn(64))
		for _, st := range []Type{S32, U32, S64, U64} {
			a := u & maskOf(st)
			x := new(big.Float).SetPrec(64)
			if st.IsSigned() {
				x.SetInt64(sext(a, widthOf(st)))
			} else {
				x.SetUint64(a)
			}
			for _, mode := range []Round{RoundRN, RoundRZ, RoundRM, RoundRP} {
				for _, dt := range []Type{F32, F64} {
					prec := uint(24)
					if dt == F64 {
						prec = 53
					}
					want, _ := new(big.Float).SetPrec(prec).SetMode(bigMode(mode)).Set(x).Float64()
					in := Instr{Op: OpCvt, Type: dt, SrcType: st, Round: mode}
					v, _ := Eval(&in, a, 0, 0, 0)
					got := f64in(v)
					if dt == F32 {
						got = float64(bf32(v))
					}
					if got != want {
						t.Fatalf("cvt mode %d .%s.%s %#x = %g, want %g", mode, dt, st, a, got, want)
					}
				}
			}
		}
	}
}

func TestEvalWiden(t *testing.T) {
	if got := Widen(0x80, S8, 2); got != 0xff80 {
		t.Errorf("Widen(.s8 -128 into 16 bits) = %#x", got)
	}
	if got := Widen(0x80, U8, 2); got != 0x80 {
		t.Errorf("Widen(.u8 into 16 bits) = %#x", got)
	}
	if got := Widen(0xffff, S16, 4); got != 0xffffffff {
		t.Errorf("Widen(.s16 -1 into 32 bits) = %#x", got)
	}
	if got := Widen(0x7f, S8, 8); got != 0x7f {
		t.Errorf("Widen(.s8 127 into 64 bits) = %#x", got)
	}
}

// TestCheckALU checks that the combinations Eval implements are accepted
// and that those it does not are refused with a reason.
func TestCheckALU(t *testing.T) {
	ok := []Instr{
		{Op: OpAdd, Type: S32}, {Op: OpAdd, Type: F32, Round: RoundRZ, Ftz: true, Sat: true},
		{Op: OpMul, Type: U32, Mul: MulWide}, {Op: OpMad, Type: S32, Mul: MulHi},
		{Op: OpFma, Type: F64, Round: RoundRN}, {Op: OpDiv, Type: F32, Full: true},
		{Op: OpDiv, Type: F32, Approx: true, Ftz: true}, {Op: OpRcp, Type: F64, Approx: true, Ftz: true},
		{Op: OpSqrt, Type: F32, Approx: true}, {Op: OpRsqrt, Type: F64, Approx: true},
		{Op: OpEx2, Type: F32, Approx: true, Ftz: true}, {Op: OpSetp, Type: F32, Cmp: CmpGeu, Bool: BoolAnd},
		{Op: OpSetp, Type: U64, Cmp: CmpLo}, {Op: OpCvt, Type: F32, SrcType: F64, Round: RoundRM},
		{Op: OpCvt, Type: S32, SrcType: F32, Round: RoundRZI, Ftz: true}, {Op: OpCvt, Type: F32, SrcType: F32, Round: RoundRNI},
		{Op: OpCvt, Type: U8, SrcType: S32, Sat: true}, {Op: OpMov, Type: Pred}, {Op: OpNot, Type: Pred},
		{Op: OpBfe, Type: S64}, {Op: OpShr, Type: S16}, {Op: OpSelp, Type: F64},
	}
	for i := range ok {
		if err := CheckALU(&ok[i]); err != nil {
			t.Errorf("refused %+v: %v", ok[i], err)
		}
	}
	bad := []Instr{
		{Op: OpLd, Type: U32}, {Op: OpBra}, {Op: OpRcp, Type: F16}, {Op: OpAdd, Type: F16, Sat: true}, {Op: OpAdd, Type: S32, Round: RoundRN},
		{Op: OpAdd, Type: U32, Sat: true}, {Op: OpAdd, Type: F64, Ftz: true}, {Op: OpFma, Type: F32},
		{Op: OpFma, Type: S32}, {Op: OpMul, Type: S64, Mul: MulWide}, {Op: OpDiv, Type: F32},
		{Op: OpDiv, Type: F64, Approx: true}, {Op: OpSqrt, Type: F64, Approx: true}, {Op: OpEx2, Type: F32},
		{Op: OpEx2, Type: F64, Approx: true}, {Op: OpSetp, Type: S32, Cmp: CmpEqu}, {Op: OpSetp, Type: F32, Cmp: CmpLo},
		{Op: OpSetp, Type: S32}, {Op: OpCvt, Type: S32, SrcType: F32, Round: RoundRN},
		{Op: OpCvt, Type: F32, SrcType: S32, Round: RoundRNI}, {Op: OpCvt, Type: S32, SrcType: S16, Round: RoundRN},
		{Op: OpCvt, Type: F64, SrcType: F32, Round: RoundRZ}, {Op: OpPopc, Type: B16}, {Op: OpBfi, Type: B16},
		{Op: OpAbs, Type: U32}, {Op: OpMin, Type: F32, Sat: true}, {Op: OpShl, Type: F32},
		{Op: OpAnd, Type: F32}, {Op: OpRsqrt, Type: F32}, {Op: OpMov}, {Op: OpRem, Type: F32},
		{Op: OpSelp, Type: Pred}, {Op: OpAdd, Type: S32, Cmp: CmpEq}, {Op: OpMul, Type: F32, Mul: MulHi},
		{Op: OpCvt, Type: F32, SrcType: F64, Round: RoundRNI}, {Op: OpAdd, Type: U8}, {Op: OpMad, Type: F32},
	}
	for i := range bad {
		if err := CheckALU(&bad[i]); err == nil {
			t.Errorf("accepted %+v", bad[i])
		} else if Supported(&bad[i]) {
			t.Errorf("Supported disagrees with CheckALU on %+v", bad[i])
		}
	}
	in := Instr{Op: OpRcp, Type: F16, Text: "rcp.f16 %h1, %h2"}
	if err := CheckALU(&in); err == nil || err.Error()[:7] != "rcp.f16" {
		t.Errorf("error should name the instruction: %v", err)
	}
}

// TestEvalNoPanic runs every opcode on every type and modifier mix with
// random bits: Eval must not panic even on combinations CheckALU refuses.
func TestEvalNoPanic(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for op := OpInvalid; op <= OpMembar; op++ {
		for ty := TypeNone; ty <= Pred+1; ty++ {
			for i := 0; i < 20; i++ {
				in := Instr{Op: op, Type: ty, SrcType: Type(r.Intn(18)), Round: Round(r.Intn(9)),
					Mul: MulMode(r.Intn(4)), Cmp: Cmp(r.Intn(19)), Bool: BoolOp(r.Intn(4)),
					Ftz: r.Intn(2) == 0, Sat: r.Intn(2) == 0, Approx: r.Intn(2) == 0}
				Eval(&in, r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
				_ = CheckALU(&in)
			}
		}
	}
}

// TestEvalCanonicalResults checks that every accepted combination writes
// only bits inside its destination's width, on random inputs.
func TestEvalCanonicalResults(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	n := 0
	for op := OpMov; op <= OpSelp; op++ {
		for ty := B8; ty <= Pred; ty++ {
			for _, mul := range []MulMode{MulNone, MulLo, MulHi, MulWide} {
				in := Instr{Op: op, Type: ty, Mul: mul, Cmp: CmpLt}
				if op == OpCvt {
					in.SrcType, in.Cmp = S32, CmpNone
				}
				if op != OpSetp {
					in.Cmp = CmpNone
				}
				if CheckALU(&in) != nil {
					continue
				}
				n++
				dm := maskOf(ty)
				switch {
				case op == OpSetp:
					dm = 1
				case op == OpPopc || op == OpClz:
					dm = 0xffffffff
				case mul == MulWide:
					dm = wideMask(ty)
				}
				for i := 0; i < 200; i++ {
					d0, d1 := Eval(&in, r.Uint64(), r.Uint64()&0x3f, r.Uint64(), r.Uint64())
					if d0&^dm != 0 || d1&^1 != 0 && op == OpSetp {
						t.Fatalf("%v.%s mul %d: result %#x outside mask %#x", op, ty, mul, d0, dm)
					}
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d combinations checked", n)
	}
}

func BenchmarkEvalAddS32(b *testing.B) {
	in := &Instr{Op: OpAdd, Type: S32}
	var s uint64
	for i := 0; i < b.N; i++ {
		d0, _ := Eval(in, uint64(i), 7, 0, 0)
		s += d0
	}
	aluSink = s
}

func BenchmarkEvalFmaRnF32(b *testing.B) {
	in := &Instr{Op: OpFma, Type: F32, Round: RoundRN}
	x, y, z := f32b(1.0001), f32b(0.9999), f32b(-1)
	var s uint64
	for i := 0; i < b.N; i++ {
		d0, _ := Eval(in, x, y, z^uint64(i&1), 0)
		s += d0
	}
	aluSink = s
}

func BenchmarkEvalSetpLtF32(b *testing.B) {
	in := &Instr{Op: OpSetp, Type: F32, Cmp: CmpLt}
	var s uint64
	for i := 0; i < b.N; i++ {
		d0, _ := Eval(in, uint64(i), 0x3f800000, 0, 0)
		s += d0
	}
	aluSink = s
}

func BenchmarkEvalCvtRnF32S32(b *testing.B) {
	in := &Instr{Op: OpCvt, Type: F32, SrcType: S32, Round: RoundRN}
	var s uint64
	for i := 0; i < b.N; i++ {
		d0, _ := Eval(in, uint64(i), 0, 0, 0)
		s += d0
	}
	aluSink = s
}

func BenchmarkEvalMulWideS32(b *testing.B) {
	in := &Instr{Op: OpMul, Type: S32, Mul: MulWide}
	var s uint64
	for i := 0; i < b.N; i++ {
		d0, _ := Eval(in, uint64(i), 4, 0, 0)
		s += d0
	}
	aluSink = s
}

func BenchmarkEvalAddRzF64(b *testing.B) {
	in := &Instr{Op: OpAdd, Type: F64, Round: RoundRZ}
	var s uint64
	for i := 0; i < b.N; i++ {
		d0, _ := Eval(in, f64b(1), f64b(0x1p-60)+uint64(i&7), 0, 0)
		s += d0
	}
	aluSink = s
}

var aluSink uint64

// roundScaled rounds z to a multiple of 2^-k in mode r, independently of
// the code under test: the reference for results in the subnormal range
// (and the first normal binade), where the grid is uniform.
func roundScaled(z *big.Float, k int, r Round) float64 {
	y := new(big.Float).SetPrec(z.Prec()+64).SetMantExp(z, k)
	t, acc := y.Int(nil) // toward zero
	if acc != big.Exact {
		switch r {
		case RoundRM:
			if y.Sign() < 0 {
				t.Sub(t, big.NewInt(1))
			}
		case RoundRP:
			if y.Sign() > 0 {
				t.Add(t, big.NewInt(1))
			}
		case RoundRN:
			frac := new(big.Float).SetPrec(y.Prec()).Sub(y, new(big.Float).SetInt(t))
			c := frac.Abs(frac).Cmp(big.NewFloat(0.5))
			if c > 0 || c == 0 && t.Bit(0) == 1 {
				t.Add(t, big.NewInt(int64(y.Sign())))
			}
		}
	}
	v := math.Ldexp(float64(t.Int64()), -k)
	if v == 0 && z.Signbit() {
		v = math.Copysign(0, -1)
	}
	return v
}

// TestEvalDirectedSubnormal checks mul, fma and div whose results fall in
// the subnormal range, .f32 and .f64, all four modes, against roundScaled.
func TestEvalDirectedSubnormal(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	m := func() float64 {
		v := 1 + r.Float64()
		if r.Intn(2) == 0 {
			v = -v
		}
		return v
	}
	checked := 0
	defer func() {
		if checked < 10000 {
			t.Errorf("only %d subnormal results checked", checked)
		}
	}()
	for i := 0; i < 2000; i++ {
		for _, mode := range []Round{RoundRN, RoundRZ, RoundRM, RoundRP} {
			// .f32: exponents summing into [-152, -127].
			e1 := -60 - r.Intn(40)
			e2 := -127 - r.Intn(26) - e1
			a, b := float32(math.Ldexp(m(), e1)), float32(math.Ldexp(m(), e2))
			c := float32(math.Ldexp(m(), -127-r.Intn(20)))
			exact := new(big.Float).SetPrec(200).Mul(big.NewFloat(float64(a)), big.NewFloat(float64(b)))
			check32 := func(op Opcode, z *big.Float, args ...uint64) {
				if e := z.MantExp(nil) - 1; z.Sign() == 0 || e >= -126 {
					return
				}
				checked++
				want := roundScaled(z, 149, mode)
				in := Instr{Op: op, Type: F32, Round: mode}
				args = append(args, 0, 0)
				v, _ := Eval(&in, args[0], args[1], args[2], 0)
				if got := float64(bf32(v)); got != want || math.Signbit(got) != math.Signbit(want) {
					t.Fatalf("%v.f32 mode %d (%g %g %g) = %g, want %g", op, mode, a, b, c, got, want)
				}
			}
			check32(OpMul, exact, f32b(a), f32b(b))
			check32(OpFma, new(big.Float).SetPrec(400).Add(exact, big.NewFloat(float64(c))), f32b(a), f32b(b), f32b(c))
			// div by d = 1/b: a 400-bit quotient stands in for the exact one
			// (the 2^-149 grid needs fewer than 30 of its bits).
			d := 1 / b
			check32(OpDiv, new(big.Float).SetPrec(400).Quo(big.NewFloat(float64(a)), big.NewFloat(float64(d))), f32b(a), f32b(d))
			check32(OpAdd, new(big.Float).SetPrec(400).Add(big.NewFloat(float64(c)), big.NewFloat(float64(-c*1.5))), f32b(c), f32b(-c*1.5))

			// .f64: exponents summing into [-1076, -1023].
			x := math.Ldexp(m(), -500-r.Intn(20))
			y := math.Ldexp(m(), -523-r.Intn(53))
			z := math.Ldexp(m(), -1023-r.Intn(40))
			p := new(big.Float).SetPrec(200).Mul(big.NewFloat(x), big.NewFloat(y))
			check64 := func(op Opcode, w *big.Float, args ...uint64) {
				if e := w.MantExp(nil) - 1; w.Sign() == 0 || e >= -1022 {
					return
				}
				checked++
				want := roundScaled(w, 1074, mode)
				in := Instr{Op: op, Type: F64, Round: mode}
				args = append(args, 0, 0)
				v, _ := Eval(&in, args[0], args[1], args[2], 0)
				if got := f64in(v); got != want || math.Signbit(got) != math.Signbit(want) {
					t.Fatalf("%v.f64 mode %d (%g %g %g) = %g, want %g", op, mode, x, y, z, got, want)
				}
			}
			check64(OpMul, p, f64b(x), f64b(y))
			check64(OpFma, new(big.Float).SetPrec(2000).Add(p, big.NewFloat(z)), f64b(x), f64b(y), f64b(z))
			// div: x / (1/y) is x*y exactly when 1/y is exact; otherwise
			// compare with a 400-bit quotient (a 2^-1074 grid needs < 60 bits).
			dy := 1 / y
			qq := new(big.Float).SetPrec(400).Quo(big.NewFloat(x), big.NewFloat(dy))
			check64(OpDiv, qq, f64b(x), f64b(dy))
		}
	}
}

// TestEvalAsMeasured holds what an H200 (driver 580, nvcc 13.0 -O3,
// sm_90) gave for the cases the manual leaves to the hardware, from
// testdata/aluprobe: NaN bits, integer division by zero, signed zeros in
// min/max and .sat, .ftz's tininess rule, NaN to integer, and
// rcp.approx.ftz.f64's truncated result.
func TestEvalAsMeasured(t *testing.T) {
	const (
		nA32, nB32 = 0x7fc00001, 0x7fc00002
		sN32       = 0x7f800001
		nA64, nB64 = 0x7ff8000000000123, 0x7ff8000000000456
		sN64       = 0x7ff0000000000001
		negN64     = 0xfff8000000000789
		one32      = 0x3f800000
		one64      = 0x3ff0000000000000
	)
	rn := func(op Opcode, ty Type) Instr { return Instr{Op: op, Type: ty, Round: RoundRN} }
	ftzA, ftzB := f32b(float32(math.Ldexp(1-0x1p-23, -63))), f32b(float32(math.Ldexp(1+0x1p-23, -63)))
	runALU(t, []aluCase{
		{"add.f32 NaN payload", Instr{Op: OpAdd, Type: F32}, nA32, one32, 0, 0, canonNaN32, 0},
		{"add.f32 sNaN", Instr{Op: OpAdd, Type: F32}, sN32, one32, 0, 0, canonNaN32, 0},
		{"neg.f32 NaN", Instr{Op: OpNeg, Type: F32}, nA32, 0, 0, 0, canonNaN32, 0},
		{"abs.f32 NaN", Instr{Op: OpAbs, Type: F32}, nA32, 0, 0, 0, canonNaN32, 0},
		{"min.f32 two NaNs", Instr{Op: OpMin, Type: F32}, nA32, nB32, 0, 0, canonNaN32, 0},
		{"max.f32 NaN,1", Instr{Op: OpMax, Type: F32}, nA32, one32, 0, 0, one32, 0},
		{"add.f64 A,B", Instr{Op: OpAdd, Type: F64}, nA64, nB64, 0, 0, nB64, 0},
		{"add.f64 B,A", Instr{Op: OpAdd, Type: F64}, nB64, nA64, 0, 0, nA64, 0},
		{"add.f64 sNaN quieted", Instr{Op: OpAdd, Type: F64}, sN64, one64, 0, 0, 0x7ff8000000000001, 0},
		{"mul.f64 keeps NaN sign", Instr{Op: OpMul, Type: F64}, one64, negN64, 0, 0, negN64, 0},
		{"sub.f64 does not negate a NaN", Instr{Op: OpSub, Type: F64}, one64, nA64, 0, 0, nA64, 0},
		{"fma.rn.f64 1,1,A", rn(OpFma, F64), one64, one64, nA64, 0, nA64, 0},
		{"fma.rn.f64 A,1,B", rn(OpFma, F64), nA64, one64, nB64, 0, nB64, 0},
		{"fma.rn.f64 1,A,B", rn(OpFma, F64), one64, nA64, nB64, 0, nA64, 0},
		{"fma.rn.f64 B,A,1", rn(OpFma, F64), nB64, nA64, one64, 0, nA64, 0},
		{"min.f64 A,B", Instr{Op: OpMin, Type: F64}, nA64, nB64, 0, 0, nB64, 0},
		{"min.f64 B,A", Instr{Op: OpMin, Type: F64}, nB64, nA64, 0, 0, nA64, 0},
		{"neg.f64 NaN unchanged", Instr{Op: OpNeg, Type: F64}, negN64, 0, 0, 0, negN64, 0},
		{"abs.f64 NaN unchanged", Instr{Op: OpAbs, Type: F64}, negN64, 0, 0, 0, negN64, 0},
		{"sqrt.rn.f64 NaN", rn(OpSqrt, F64), negN64, 0, 0, 0, negN64, 0},
		{"sqrt.rn.f64 -1", rn(OpSqrt, F64), f64b(-1), 0, 0, 0, defaultNaN64, 0},
		{"div.rn.f64 0/0", rn(OpDiv, F64), 0, 0, 0, 0, defaultNaN64, 0},
		{"div.rn.f64 A/1", rn(OpDiv, F64), nA64, one64, 0, 0, nA64, 0},
		{"rcp.rn.f64 A", rn(OpRcp, F64), nA64, 0, 0, 0, nA64, 0},
		{"rsqrt.approx.f64 A", Instr{Op: OpRsqrt, Type: F64, Approx: true}, nA64, 0, 0, 0, nA64, 0},
		{"cvt.rn.f32.f64 negative NaN", Instr{Op: OpCvt, Type: F32, SrcType: F64, Round: RoundRN}, negN64, 0, 0, 0, 0xffc00000, 0},
		{"cvt.rn.f32.f64 payload", Instr{Op: OpCvt, Type: F32, SrcType: F64, Round: RoundRN}, 0x7ff8000123456789, 0, 0, 0, 0x7fc00009, 0},
		{"cvt.rn.f32.f64 sNaN", Instr{Op: OpCvt, Type: F32, SrcType: F64, Round: RoundRN}, sN64, 0, 0, 0, 0x7fc00000, 0},
		{"cvt.f64.f32 negative NaN", Instr{Op: OpCvt, Type: F64, SrcType: F32}, 0xffc00005, 0, 0, 0, 0xfff80000a0000000, 0},
		{"cvt.f64.f32 sNaN", Instr{Op: OpCvt, Type: F64, SrcType: F32}, sN32, 0, 0, 0, 0x7ff8000020000000, 0},
		{"cvt.rn.f16.f32 NaN", Instr{Op: OpCvt, Type: F16, SrcType: F32, Round: RoundRN}, nA32, 0, 0, 0, 0x7fff, 0},
		{"cvt.f32.f16 NaN", Instr{Op: OpCvt, Type: F32, SrcType: F16}, 0x7e01, 0, 0, 0, canonNaN32, 0},
		{"cvt.rni.f32.f32 NaN", Instr{Op: OpCvt, Type: F32, SrcType: F32, Round: RoundRNI}, nA32, 0, 0, 0, canonNaN32, 0},
		{"cvt.rni.f64.f64 NaN", Instr{Op: OpCvt, Type: F64, SrcType: F64, Round: RoundRNI}, nA64, 0, 0, 0, nA64, 0},
		{"cvt.rni.f64.f64 sNaN", Instr{Op: OpCvt, Type: F64, SrcType: F64, Round: RoundRNI}, sN64, 0, 0, 0, 0x7ff8000000000001, 0},
		{"cvt.rzi.s32.f32 NaN", Instr{Op: OpCvt, Type: S32, SrcType: F32, Round: RoundRZI}, nA32, 0, 0, 0, 0, 0},
		{"cvt.rzi.u32.f32 NaN", Instr{Op: OpCvt, Type: U32, SrcType: F32, Round: RoundRZI}, nA32, 0, 0, 0, 0, 0},
		{"cvt.rzi.s16.f32 NaN", Instr{Op: OpCvt, Type: S16, SrcType: F32, Round: RoundRZI}, nA32, 0, 0, 0, 0, 0},
		{"cvt.rzi.u16.f32 NaN", Instr{Op: OpCvt, Type: U16, SrcType: F32, Round: RoundRZI}, nA32, 0, 0, 0, 0, 0},
		{"cvt.rzi.s64.f32 NaN", Instr{Op: OpCvt, Type: S64, SrcType: F32, Round: RoundRZI}, nA32, 0, 0, 0, 1 << 63, 0},
		{"cvt.rzi.u64.f32 NaN", Instr{Op: OpCvt, Type: U64, SrcType: F32, Round: RoundRZI}, nA32, 0, 0, 0, 1 << 63, 0},
		{"cvt.rzi.s32.f64 NaN", Instr{Op: OpCvt, Type: S32, SrcType: F64, Round: RoundRZI}, nA64, 0, 0, 0, 0x80000000, 0},
		{"cvt.rzi.u32.f64 NaN", Instr{Op: OpCvt, Type: U32, SrcType: F64, Round: RoundRZI}, nA64, 0, 0, 0, 0x80000000, 0},
		{"cvt.rni.s64.f64 NaN", Instr{Op: OpCvt, Type: S64, SrcType: F64, Round: RoundRNI}, nA64, 0, 0, 0, 1 << 63, 0},
		{"cvt.rzi.s64.f64 -NaN", Instr{Op: OpCvt, Type: S64, SrcType: F64, Round: RoundRZI}, negN64, 0, 0, 0, 1 << 63, 0},
		{"cvt.rzi.u64.f64 -1", Instr{Op: OpCvt, Type: U64, SrcType: F64, Round: RoundRZI}, f64b(-1), 0, 0, 0, 0, 0},
		{"cvt.rzi.u64.f64 +inf", Instr{Op: OpCvt, Type: U64, SrcType: F64, Round: RoundRZI}, inf64, 0, 0, 0, ^uint64(0), 0},
		{"div.s32 7/0", Instr{Op: OpDiv, Type: S32}, 7, 0, 0, 0, 0xffffffff, 0},
		{"div.s32 -7/0", Instr{Op: OpDiv, Type: S32}, i32(-7), 0, 0, 0, 0xffffffff, 0},
		{"rem.s32 -7%0", Instr{Op: OpRem, Type: S32}, i32(-7), 0, 0, 0, 0xffffffff, 0},
		{"rem.u32 7%0", Instr{Op: OpRem, Type: U32}, 7, 0, 0, 0, 0xffffffff, 0},
		{"div.s64 -7/0", Instr{Op: OpDiv, Type: S64}, i64(-7), 0, 0, 0, ^uint64(0), 0},
		{"rem.u64 7%0", Instr{Op: OpRem, Type: U64}, 7, 0, 0, 0, ^uint64(0), 0},
		{"rem.s16 -7%0", Instr{Op: OpRem, Type: S16}, i16(-7), 0, 0, 0, 0xffff, 0},
		{"div.u16 7/0", Instr{Op: OpDiv, Type: U16}, 7, 0, 0, 0, 0xffff, 0},
		{"min.f32 -0,+0", Instr{Op: OpMin, Type: F32}, negZero32, 0, 0, 0, negZero32, 0},
		{"min.f32 +0,-0", Instr{Op: OpMin, Type: F32}, 0, negZero32, 0, 0, negZero32, 0},
		{"max.f32 -0,+0", Instr{Op: OpMax, Type: F32}, negZero32, 0, 0, 0, 0, 0},
		{"max.f32 +0,-0", Instr{Op: OpMax, Type: F32}, 0, negZero32, 0, 0, 0, 0},
		{"min.f64 +0,-0", Instr{Op: OpMin, Type: F64}, 0, negZero64, 0, 0, negZero64, 0},
		{"max.f64 -0,+0", Instr{Op: OpMax, Type: F64}, negZero64, 0, 0, 0, 0, 0},
		{"add.sat.f32 -0", Instr{Op: OpAdd, Type: F32, Sat: true}, negZero32, negZero32, 0, 0, 0, 0},
		{"cvt.sat.f32.f32 -0", Instr{Op: OpCvt, Type: F32, SrcType: F32, Sat: true}, negZero32, 0, 0, 0, 0, 0},
		{"add.sat.f32 NaN", Instr{Op: OpAdd, Type: F32, Sat: true}, nA32, one32, 0, 0, 0, 0},
		// .ftz: (1-2^-24)*2^-126 is below 2^-126 at 24 bits: flushed, though
		// it rounds to 2^-126 among the subnormals; 2^-126(1-2^-46) rounds to
		// 2^-126 at 24 bits: kept.
		{"mul.rn.ftz.f32 2^-126-2^-150", rn(OpMul, F32), 0x3f7fffff, 0x00800000, 0, 0, 0x00800000, 0},
		{"mul.rn.ftz.f32 2^-126-2^-150 flushed", Instr{Op: OpMul, Type: F32, Round: RoundRN, Ftz: true}, 0x3f7fffff, 0x00800000, 0, 0, 0, 0},
		{"mul.rn.ftz.f32 2^-126(1-2^-46) kept", Instr{Op: OpMul, Type: F32, Round: RoundRN, Ftz: true}, ftzA, ftzB, 0, 0, 0x00800000, 0},
		{"mul.rz.ftz.f32 2^-126(1-2^-46) flushed", Instr{Op: OpMul, Type: F32, Round: RoundRZ, Ftz: true}, ftzA, ftzB, 0, 0, 0, 0},
		{"mul.rp.ftz.f32 2^-126(1-2^-46) kept", Instr{Op: OpMul, Type: F32, Round: RoundRP, Ftz: true}, ftzA, ftzB, 0, 0, 0x00800000, 0},
		{"div.approx.f32 1/2^127", Instr{Op: OpDiv, Type: F32, Approx: true}, one32, 0x7f000000, 0, 0, 0, 0},
		{"div.approx.f32 inf/2^127", Instr{Op: OpDiv, Type: F32, Approx: true}, inf32, 0x7f000000, 0, 0, canonNaN32, 0},
		{"div.approx.f32 NaN/2^127", Instr{Op: OpDiv, Type: F32, Approx: true}, nA32, 0x7f000000, 0, 0, canonNaN32, 0},
		{"div.full.f32 1/2^127", Instr{Op: OpDiv, Type: F32, Full: true}, one32, 0x7f000000, 0, 0, 0x400000, 0},
		{"fma.rn.f32 double-rounding trap", rn(OpFma, F32), 0x3f800800, 0x3f800800, 0x17800000, 0, 0x3f801001, 0},
		{"rcp.approx.ftz.f64 3", Instr{Op: OpRcp, Type: F64, Approx: true, Ftz: true}, 0x4008000000000000, 0, 0, 0, 0x3fd5555500000000, 0},
		{"rcp.approx.ftz.f64 pi", Instr{Op: OpRcp, Type: F64, Approx: true, Ftz: true}, 0x400921fb54442d18, 0, 0, 0, 0x3fd45f3000000000, 0},
		{"rcp.approx.ftz.f64 NaN", Instr{Op: OpRcp, Type: F64, Approx: true, Ftz: true}, nA64, 0, 0, 0, 0x7fffffff00000000, 0},
		{"rsqrt.approx.f64 2", Instr{Op: OpRsqrt, Type: F64, Approx: true}, 0x4000000000000000, 0, 0, 0, 0x3fe6a09e667f3bcd, 0},
		{"rcp.approx.f32 3", Instr{Op: OpRcp, Type: F32, Approx: true}, 0x40400000, 0, 0, 0, 0x3eaaaaab, 0},
		{"sqrt.approx.f32 3", Instr{Op: OpSqrt, Type: F32, Approx: true}, 0x40400000, 0, 0, 0, 0x3fddb3d7, 0},
		{"rsqrt.approx.f32 3", Instr{Op: OpRsqrt, Type: F32, Approx: true}, 0x40400000, 0, 0, 0, 0x3f13cd3a, 0},
		{"ex2.approx.f32 0.5", Instr{Op: OpEx2, Type: F32, Approx: true}, 0x3f000000, 0, 0, 0, 0x3fb504f3, 0},
		{"lg2.approx.f32 3", Instr{Op: OpLg2, Type: F32, Approx: true}, 0x40400000, 0, 0, 0, 0x3fcae00d, 0},
		{"bfe.s32 0x80000000,28,10", Instr{Op: OpBfe, Type: S32}, 0x80000000, 28, 10, 0, 0xfffffff8, 0},
		{"bfe.s32 0x80000000,40,8", Instr{Op: OpBfe, Type: S32}, 0x80000000, 40, 8, 0, 0xffffffff, 0},
	})
}

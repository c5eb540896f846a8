package ptx

import (
	"math"
	"testing"
)

// TestNarrow: cvt.rna.tf32.f32 rounds to nearest with ties away from zero
// and cvt.rn.bf16.f32 to nearest even, as the PTX manual defines them.
func TestNarrow(t *testing.T) {
	f := math.Float32bits
	cases := []struct {
		m    MatType
		in   uint32
		want uint64
	}{
		{MatTF32, f(1), uint64(f(1))},
		{MatTF32, f(1 + 0x1p-11), uint64(f(1 + 0x1p-10))},       // a tie: away from zero
		{MatTF32, f(-(1 + 0x1p-11)), uint64(f(-(1 + 0x1p-10)))}, // and for negatives
		{MatTF32, f(1 + 0x1p-11 - 0x1p-23), uint64(f(1))},       // below the tie
		{MatTF32, f(1 + 3*0x1p-11), uint64(f(1 + 2*0x1p-10))},   // a tie from an odd tf32: away, not to even
		{MatTF32, 0x7f7fffff, uint64(f(float32(math.Inf(1))))},  // past the largest tf32
		{MatTF32, 0x7fc00001, 0x7fffffff},                       // NaN
		{MatBF16, f(1 + 0x1p-8), uint64(f(1) >> 16)},            // a tie: to even (down)
		{MatBF16, f(1 + 3*0x1p-8), uint64(f(1+4*0x1p-8) >> 16)}, // a tie: to even (up)
		{MatBF16, f(-(1 + 0x1p-8 + 0x1p-20)), uint64(f(-(1 + 0x1p-7)) >> 16)},
		{MatBF16, 0xff800001, 0x7fff},
	}
	for _, c := range cases {
		if got := narrow(c.m, c.in); got != c.want {
			t.Errorf("narrow(%v, %#08x) = %#x, want %#x", c.m, c.in, got, c.want)
		}
	}
}

// TestFragRegs: the fragment sizes the PTX manual lists for wmma.
func TestFragRegs(t *testing.T) {
	cases := []struct {
		frag    byte
		m       MatType
		M, N, K int
		want    int
	}{
		{'a', MatF16, 16, 16, 16, 8}, {'b', MatF16, 32, 8, 16, 8}, {'c', MatF16, 16, 16, 16, 4}, {'d', MatF32, 8, 32, 16, 8},
		{'a', MatBF16, 16, 16, 16, 4}, {'a', MatBF16, 8, 32, 16, 2}, {'a', MatBF16, 32, 8, 16, 8},
		{'b', MatBF16, 16, 16, 16, 4}, {'b', MatBF16, 8, 32, 16, 8}, {'b', MatBF16, 32, 8, 16, 2},
		{'a', MatTF32, 16, 16, 8, 4}, {'b', MatTF32, 16, 16, 8, 4}, {'a', MatTF32, 16, 16, 16, 0},
		{'c', MatBF16, 16, 16, 16, 0}, {'a', MatF16, 16, 16, 8, 0},
	}
	for _, c := range cases {
		if got := FragRegs(c.frag, c.m, c.M, c.N, c.K); got != c.want {
			t.Errorf("FragRegs(%c, %v, m%dn%dk%d) = %d, want %d", c.frag, c.m, c.M, c.N, c.K, got, c.want)
		}
	}
}

// TestBF16Bits: bf16BitsOf (from a float64) agrees with cvt.rn.bf16.f32's
// bit trick (narrow) on floats across the range, subnormals, overflow and
// ties included; and a value between a tie and the next float rounds up.
func TestBF16Bits(t *testing.T) {
	x := uint32(12345)
	for i := range 200000 {
		x = x*1664525 + 1013904223
		f := x
		if i%4 == 0 {
			f = x&0x807f0000 | 0x8000 // ties, small exponents
		}
		if f&0x7fffffff > 0x7f800000 {
			continue // NaN payloads: both give the canonical NaN, checked below
		}
		want := narrow(MatBF16, f)
		if got := bf16BitsOf(float64(math.Float32frombits(f))); got != want {
			t.Fatalf("bf16BitsOf(%#08x) = %#04x, want %#04x", f, got, want)
		}
	}
	if got := bf16BitsOf(math.NaN()); got != 0x7fff {
		t.Errorf("NaN: %#x", got)
	}
	if got := bf16BitsOf(1 + 0x1p-8 + 0x1p-40); got != 0x3f81 {
		t.Errorf("just above a tie: %#x, want 0x3f81", got)
	}
}

// TestEvalHalf: the packed and bfloat16 arithmetic lane by lane.
func TestEvalHalf(t *testing.T) {
	h := func(f float64) uint64 { return halfBitsOf(f, RoundRN) }
	b := func(f float64) uint64 { return bf16BitsOf(f) }
	pair := func(lo, hi uint64) uint64 { return lo | hi<<16 }
	cases := []struct {
		in      Instr
		a, b, c uint64
		want    uint64
	}{
		{Instr{Op: OpAdd, Half: HalfF16x2}, pair(h(1.5), h(-2)), pair(h(0.25), h(3)), 0, pair(h(1.75), h(1))},
		{Instr{Op: OpFma, Half: HalfF16x2, Round: RoundRN}, pair(h(2), h(3)), pair(h(4), h(-1)), pair(h(1), h(1)), pair(h(9), h(-2))},
		{Instr{Op: OpMul, Half: HalfF16x2}, pair(h(1+0x1p-10), 0), pair(h(1+0x1p-10), 0), 0, pair(h(1+0x1p-9), 0)}, // 1+2^-9+2^-20 rounds down
		{Instr{Op: OpMax, Half: HalfF16x2}, pair(0x7e00, h(-1)), pair(h(2), h(-3)), 0, pair(h(2), h(-1))},          // a NaN gives the other
		{Instr{Op: OpNeg, Half: HalfBF16x2}, pair(b(1), b(-2)), 0, 0, pair(b(-1), b(2))},
		{Instr{Op: OpFma, Half: HalfBF16, Round: RoundRN}, b(3), b(1.5), b(-0.5), b(4)},
		{Instr{Op: OpFma, Half: HalfBF16, Round: RoundRN}, b(1 + 0x1p-7), b(1 + 0x1p-7), 0x8000, b(1 + 0x1p-6)}, // 1+2^-6+2^-14: down
	}
	for _, c := range cases {
		if got := evalHalf(&c.in, c.a, c.b, c.c); got != c.want {
			t.Errorf("%v %v: %#x, want %#x", c.in.Op, c.in.Half, got, c.want)
		}
	}
}

// TestEvalCarry: the carry forms' results and carry (borrow) flags.
func TestEvalCarry(t *testing.T) {
	cases := []struct {
		in         Instr
		a, b, c, d uint64
		want, cf   uint64
	}{
		{Instr{Op: OpAdd, Type: U32, CarryOut: true}, 0xffffffff, 1, 0, 0, 0, 1},
		{Instr{Op: OpAdd, Type: U32, CarryIn: true, CarryOut: true}, 0xfffffffe, 1, 1, 0, 0, 1},
		{Instr{Op: OpAdd, Type: U64, CarryIn: true}, 1 << 63, 1 << 63, 1, 0, 1, 1},
		{Instr{Op: OpSub, Type: U32, CarryOut: true}, 0, 1, 0, 0, 0xffffffff, 1},
		{Instr{Op: OpSub, Type: U32, CarryIn: true}, 5, 2, 1, 0, 2, 0},
		{Instr{Op: OpSub, Type: S64, CarryIn: true, CarryOut: true}, 0, 0, 1, 0, ^uint64(0), 1},
		{Instr{Op: OpMad, Type: U32, Mul: MulLo, CarryOut: true}, 0x10000, 0x10000, 5, 0, 5, 0},                // 2^32 + 5: low word 5
		{Instr{Op: OpMad, Type: U32, Mul: MulLo, CarryOut: true}, 0xffffffff, 0xffffffff, 0xffffffff, 0, 0, 1}, // 1 + (2^32-1): a carry
		{Instr{Op: OpMad, Type: U32, Mul: MulHi, CarryIn: true}, 0xffffffff, 0xffffffff, 1, 1, 0, 1},           // 0xfffffffe + 1 + 1
		{Instr{Op: OpMad, Type: S32, Mul: MulHi, CarryOut: true}, uint64(0xfffffffe), 3, 0, 0, 0xffffffff, 0},  // -2*3 = -6: high word -1
		{Instr{Op: OpMad, Type: S64, Mul: MulHi}, ^uint64(1), 3, 0, 0, ^uint64(0), 0},
	}
	for i, c := range cases {
		got, cf := evalCarry(&c.in, c.a, c.b, c.c, c.d)
		if got != c.want || cf != c.cf {
			t.Errorf("case %d (%v %v): %#x carry %d, want %#x carry %d", i, c.in.Op, c.in.Type, got, cf, c.want, c.cf)
		}
	}
}

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

package ptx

import (
	"os"
	"testing"
)

// TestFlattenCalls: a kernel's calls resolve to the module's functions and
// built-ins; Flatten appends the functions it reaches with their registers
// and variables renumbered.
func TestFlattenCalls(t *testing.T) {
	src, err := os.ReadFile("../testdata/corpus/calls.ptx")
	if err != nil {
		t.Skip(err)
	}
	m, err := Parse("calls.ptx", string(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range m.Kernels {
		flat, err := m.Flatten(k)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		for i := range flat.Instrs {
			in := &flat.Instrs[i]
			if in.Guard >= int32(len(flat.Regs)) {
				t.Errorf("%s: guard out of range", k.Name)
			}
			if c := in.Call; c != nil && c.Callee >= int32(len(flat.Funcs)) {
				t.Errorf("%s: callee out of range", k.Name)
			}
			if in.Op == OpBra && (in.Target > int32(len(flat.Instrs)) || in.Reconv > int32(len(flat.Instrs))) {
				t.Errorf("%s: branch out of range", k.Name)
			}
		}
		t.Logf("%s: %d instructions (%d its own), %d functions", k.Name, len(flat.Instrs), flat.CodeEnd, len(flat.Funcs))
	}
}

// TestShf: the funnel shift, both directions and modes, at the edges.
func TestShf(t *testing.T) {
	cases := []struct {
		left, clamp bool
		a, b, n     uint64
		want        uint64
	}{
		{true, false, 0x80000001, 0x00000003, 4, 0x00000038},
		{true, false, 0x80000001, 0x00000003, 36, 0x00000038}, // wrap: 36 mod 32
		{true, true, 0x80000001, 0x00000003, 36, 0x80000001},  // clamp: 32, the low word
		{true, false, 0xdeadbeef, 0x12345678, 0, 0x12345678},
		{false, false, 0x80000001, 0x00000003, 4, 0x38000000},
		{false, true, 0x80000001, 0x00000003, 40, 0x00000003}, // clamp: 32, the high word
		{false, false, 0xffffffff, 0, 31, 1},
	}
	for _, c := range cases {
		in := &Instr{Op: OpShf, Type: B32, ShfLeft: c.left, ShfClamp: c.clamp}
		if got, _ := Eval(in, c.a, c.b, c.n, 0); got != c.want {
			t.Errorf("shf left=%v clamp=%v %#x:%#x by %d = %#x, want %#x", c.left, c.clamp, c.b, c.a, c.n, got, c.want)
		}
	}
}

// TestBfindPrmtSad: bfind, prmt's default mode and sad at their edges, by
// the PTX manual's definitions.
func TestBfindPrmtSad(t *testing.T) {
	cases := []struct {
		in      Instr
		a, b, c uint64
		want    uint64
	}{
		{Instr{Op: OpBfind, Type: U32}, 0, 0, 0, 0xffffffff},
		{Instr{Op: OpBfind, Type: U32}, 1, 0, 0, 0},
		{Instr{Op: OpBfind, Type: U32}, 0x80000000, 0, 0, 31},
		{Instr{Op: OpBfind, Type: U32, ShiftAmt: true}, 1, 0, 0, 31},
		{Instr{Op: OpBfind, Type: S32}, 0xffffffff, 0, 0, 0xffffffff}, // -1: no non-sign bit
		{Instr{Op: OpBfind, Type: S32}, 0xfffffff0, 0, 0, 3},          // -16: ~x = 15
		{Instr{Op: OpBfind, Type: U64}, 1 << 40, 0, 0, 40},
		{Instr{Op: OpPrmt, Type: B32}, 0x33221100, 0x77665544, 0x3210, 0x33221100},
		{Instr{Op: OpPrmt, Type: B32}, 0x33221100, 0x77665544, 0x7654, 0x77665544},
		{Instr{Op: OpPrmt, Type: B32}, 0x33221100, 0x77665544, 0x0123, 0x00112233},
		{Instr{Op: OpPrmt, Type: B32}, 0x800000ff, 0, 0x0b03, 0xffffff80}, // nibbles 3, 0, 0xb (the sign of byte 3, 0x80), 0
		{Instr{Op: OpSad, Type: U32}, 3, 10, 5, 12},
		{Instr{Op: OpSad, Type: S32}, 0xfffffffd, 4, 1, 8}, // |-3 - 4| + 1
	}
	for _, c := range cases {
		if got, _ := Eval(&c.in, c.a, c.b, c.c, 0); got != c.want {
			t.Errorf("%v %s %#x %#x %#x = %#x, want %#x", c.in.Op, c.in.Type, c.a, c.b, c.c, got, c.want)
		}
	}
}

// TestF16: the scalar half arithmetic, rounded once to nearest even.
func TestF16(t *testing.T) {
	cases := []struct {
		in      Instr
		a, b, c uint64
		want    uint64
	}{
		{Instr{Op: OpAdd, Type: F16}, 0x3c00, 0x3c00, 0, 0x4000},                      // 1 + 1 = 2
		{Instr{Op: OpAdd, Type: F16}, 0x3c00, 0x1000, 0, 0x3c00},                      // 1 + 2^-11: a tie, to even (1)
		{Instr{Op: OpAdd, Type: F16}, 0x3c01, 0x1000, 0, 0x3c02},                      // 1+2^-10 + 2^-11: a tie, to even (up)
		{Instr{Op: OpMul, Type: F16}, 0x7bff, 0x4000, 0, 0x7c00},                      // 65504 · 2 = inf
		{Instr{Op: OpSub, Type: F16}, 0x0001, 0x0001, 0, 0x0000},                      // subnormals: +0
		{Instr{Op: OpMul, Type: F16}, 0x0200, 0x3800, 0, 0x0100},                      // a subnormal halved
		{Instr{Op: OpFma, Type: F16, Round: RoundRN}, 0x4200, 0x4200, 0xbc00, 0x4800}, // 3·3 - 1 = 8
		{Instr{Op: OpNeg, Type: F16}, 0x3c00, 0, 0, 0xbc00},
		{Instr{Op: OpAbs, Type: F16}, 0xfc00, 0, 0, 0x7c00},
		{Instr{Op: OpMin, Type: F16}, 0x7e00, 0x3c00, 0, 0x3c00}, // NaN and 1: 1
		{Instr{Op: OpMax, Type: F16}, 0xbc00, 0x3c00, 0, 0x3c00},
		{Instr{Op: OpAdd, Type: F16}, 0x7c00, 0xfc00, 0, 0x7fff}, // inf - inf: the canonical NaN
		{Instr{Op: OpSetp, Type: F16, Cmp: CmpLt}, 0xbc00, 0x3c00, 0, 1},
		{Instr{Op: OpSetp, Type: F16, Cmp: CmpGtu}, 0x7e00, 0x3c00, 0, 1},
	}
	for _, c := range cases {
		if got, _ := Eval(&c.in, c.a, c.b, c.c, 0); got != c.want {
			t.Errorf("%v.%v(%v) %#x %#x %#x = %#x, want %#x", c.in.Op, c.in.Type, c.in.Cmp, c.a, c.b, c.c, got, c.want)
		}
	}
}

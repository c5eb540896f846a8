package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// TestPTXFastPathMatchesEval runs every instruction of the lessons' PTX and
// the test PTX that has a fast path (ptxalu.go) on random and corner-case
// register values, with random active masks, and checks each lane against
// ptx.Eval, and that inactive lanes keep their values.
func TestPTXFastPathMatchesEval(t *testing.T) {
	corners := []uint64{0, 1, 2, 31, 32, 33, 0x7f, 0x80, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe,
		0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x00800000, 0x7f7fffff,
		1 << 63, 1<<63 - 1, ^uint64(0), 0x3ff0000000000000, 0x7ff0000000000000, 0x7ff8000000000000, 0x000fffffffffffff}
	r := rand.New(rand.NewPCG(11, 12))
	tested := map[uint8]int{}
	for _, lk := range lessonKernels(t) {
		f, pk, k := lk.file, lk.pk, lk.pk.k
		e := &ptxWorker{l: &ptxLaunch{pk: pk}}
		wp := &pwarp{regs: make([][32]uint64, pk.nregs)}
		for i := range pk.code {
			x := &pk.code[i]
			if x.fast == fNone {
				continue
			}
			for round := range 6 {
				for reg := range wp.regs {
					w := k.Regs[reg].Type.Size()
					for l := range 32 {
						v := r.Uint64()
						if r.IntN(3) == 0 {
							v = corners[r.IntN(len(corners))]
						}
						switch {
						case k.Regs[reg].Type == ptx.Pred:
							v &= 1
						case w < 8:
							v &= 1<<(8*w) - 1
						}
						wp.regs[reg][l] = v
					}
				}
				mask := r.Uint32()
				if round%2 == 0 {
					mask = fullMask
				}
				if mask == 0 {
					mask = 1
				}
				var a, b, c, d [32]uint64
				a, b, c, d = *e.src(wp, &x.src[0], 0), *e.src(wp, &x.src[1], 1), *e.src(wp, &x.src[2], 2), *e.src(wp, &x.src[3], 3)
				before := append([][32]uint64(nil), wp.regs...)
				if f := e.alu(wp, x, mask); f != nil {
					t.Fatal(f)
				}
				tested[x.fast]++
				for l := range 32 {
					want0, want1 := ptxEval(x.in, a[l], b[l], c[l], d[l])
					for j := 0; j < int(x.in.NDst); j++ {
						o := x.dst[j]
						if o.kind != oReg {
							continue
						}
						got := wp.regs[o.idx][l]
						want := want0
						if j == 1 {
							want = want1
						}
						if mask&(1<<l) == 0 {
							want = before[o.idx][l]
						}
						if got != want {
							t.Fatalf("%s line %d %q lane %d (mask %032b): fast %#x, Eval %#x (sources %#x %#x %#x)",
								f, x.in.Line, x.in.Text, l, mask, got, want, a[l], b[l], c[l])
						}
					}
				}
			}
		}
	}
	if len(tested) < 15 {
		t.Errorf("only %d fast classes exercised: %v", len(tested), tested)
	}
	_ = bits.OnesCount32
}

// TestPTXAtomOps checks every atomic operation's new value against the PTX
// manual on each type the issue lists.
func TestPTXAtomOps(t *testing.T) {
	f32 := func(v float32) uint64 { return uint64(math.Float32bits(v)) }
	for _, tc := range []struct {
		op        ptx.AtomOp
		typ       ptx.Type
		old, b, c uint64
		want      uint64
	}{
		{ptx.AtomAdd, ptx.U32, 7, 5, 0, 12},
		{ptx.AtomAdd, ptx.S32, 0xffffffff, 1, 0, 0x100000000}, // the 4-byte store keeps 0
		{ptx.AtomAdd, ptx.U64, 1 << 40, 3, 0, 1<<40 + 3},
		{ptx.AtomAdd, ptx.F32, f32(1.5), f32(2.25), 0, f32(3.75)},
		{ptx.AtomMin, ptx.S32, 3, 0xfffffffe, 0, 0xfffffffe}, // -2 < 3
		{ptx.AtomMin, ptx.U32, 3, 0xfffffffe, 0, 3},
		{ptx.AtomMax, ptx.S32, 3, 0xfffffffe, 0, 3},
		{ptx.AtomMax, ptx.U32, 3, 0xfffffffe, 0, 0xfffffffe},
		{ptx.AtomMax, ptx.U64, 1 << 40, 5, 0, 1 << 40},
		{ptx.AtomMin, ptx.U64, 1 << 40, 5, 0, 5},
		{ptx.AtomMin, ptx.F32, f32(1), f32(-2), 0, f32(-2)},
		{ptx.AtomInc, ptx.U32, 4, 9, 0, 5},
		{ptx.AtomInc, ptx.U32, 9, 9, 0, 0},
		{ptx.AtomDec, ptx.U32, 0, 9, 0, 9},
		{ptx.AtomDec, ptx.U32, 12, 9, 0, 9},
		{ptx.AtomDec, ptx.U32, 5, 9, 0, 4},
		{ptx.AtomCAS, ptx.B32, 4, 4, 8, 8},
		{ptx.AtomCAS, ptx.B32, 4, 5, 8, 4},
		{ptx.AtomCAS, ptx.B64, 1 << 33, 1 << 33, 2, 2},
		{ptx.AtomExch, ptx.B32, 4, 6, 0, 6},
		{ptx.AtomAnd, ptx.B32, 0b1100, 0b1010, 0, 0b1000},
		{ptx.AtomOr, ptx.B32, 0b1100, 0b1010, 0, 0b1110},
		{ptx.AtomXor, ptx.B32, 0b1100, 0b1010, 0, 0b0110},
	} {
		got, ok := atomOp(tc.op, tc.typ, tc.old, tc.b, tc.c)
		if !ok || got != tc.want {
			t.Errorf("atom op %d .%s old %#x b %#x c %#x: %#x (%v), want %#x", tc.op, tc.typ, tc.old, tc.b, tc.c, got, ok, tc.want)
		}
	}
}

// TestPTXSetpPredicateCache runs every one-destination integer setp of the
// lessons' PTX on random rows, masks and cache states, and checks that
// whenever the warp's predicate-bit cache (pwarp.pbits) says it is valid
// after the setp, it holds the register's lanes as predMask reads them.
func TestPTXSetpPredicateCache(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 0
	for _, lk := range lessonKernels(t) {
		f, pk, k := lk.file, lk.pk, lk.pk.k
		e := &ptxWorker{l: &ptxLaunch{pk: pk}}
		wp := &pwarp{regs: make([][32]uint64, pk.nregs), pbits: make([]uint32, pk.nregs), pvalid: make([]bool, pk.nregs)}
		for i := range pk.code {
			x := &pk.code[i]
			if x.fast != fSetpI || x.in.NDst != 1 || x.dst[0].kind != oReg {
				continue
			}
			p := x.dst[0].idx
			for round := range 16 {
				for reg := range wp.regs {
					for l := range 32 {
						v := r.Uint64() >> (r.IntN(4) * 16)
						if k.Regs[reg].Type == ptx.Pred {
							v &= 1
						}
						wp.regs[reg][l] = v
					}
				}
				// The cache before: valid (and right) or not.
				wp.pvalid[p] = round%2 == 0
				wp.pbits[p] = predMask(&wp.regs[p], false)
				mask := r.Uint32()
				switch round % 4 {
				case 0, 1:
					mask = fullMask
				case 2:
					mask = 0xffff
				}
				if mask == 0 {
					mask = 1
				}
				if f := e.alu(wp, x, mask); f != nil {
					t.Fatal(f)
				}
				n++
				if wp.pvalid[p] && wp.pbits[p] != predMask(&wp.regs[p], false) {
					t.Fatalf("%s line %d %q (mask %032b): cached bits %032b, register %032b",
						f, x.in.Line, x.in.Text, mask, wp.pbits[p], predMask(&wp.regs[p], false))
				}
				if mask == fullMask && !wp.pvalid[p] {
					t.Fatalf("%s line %d %q: a full-warp setp left no cached bits", f, x.in.Line, x.in.Text)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no setp tested")
	}
}

// TestPTXSinkUnread checks sinkUnread on warp-per-row SpMV: the shuffles'
// predicates, which nothing reads, become sinks, and the reduction's
// shuffles keep their value destinations.
func TestPTXSinkUnread(t *testing.T) {
	pk, err := NewPTXKernel(parsePTXFile(t, "../lessons/spmv/spmv.ptx"), "spmvCsrWarpPerRow")
	if err != nil {
		t.Fatal(err)
	}
	shfl := 0
	for i := range pk.code {
		x := &pk.code[i]
		if x.op != ptx.OpShfl {
			continue
		}
		shfl++
		if x.dead || x.dst[0].kind != oReg || x.dst[1].kind != oNone {
			t.Errorf("line %d %q: dead %v, destinations %d and %d; want a register and a sink", x.in.Line, x.in.Text, x.dead, x.dst[0].kind, x.dst[1].kind)
		}
	}
	if shfl != 5 {
		t.Errorf("%d shuffles, want 5", shfl)
	}
}

// lessonKernel is a decoded kernel and the PTX file it came from.
type lessonKernel struct {
	file string
	pk   *PTXKernel
}

// lessonKernels is every kernel of the test PTX and the lessons' PTX, for
// the tests that run each decoded instruction against its reference.
func lessonKernels(t *testing.T) []lessonKernel {
	t.Helper()
	var out []lessonKernel
	for _, f := range []string{"testdata/ptx/basic.ptx", "../lessons/spmv/spmv.ptx", "../lessons/tiling/tiling.ptx", "../lessons/cg/cg.ptx"} {
		m := parsePTXFile(t, f)
		for _, k := range m.Kernels {
			pk, err := NewPTXKernel(m, k.Name)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, lessonKernel{f, pk})
		}
	}
	return out
}

// parsePTXFile reads and parses the PTX file at path.
func parsePTXFile(t testing.TB, path string) *ptx.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ptx.Parse(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

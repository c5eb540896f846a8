package lanes

import (
	"bytes"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// corners are values where the forms could go wrong: sign bits of both
// widths, shift counts at and past the width, float zeros, infinities,
// NaNs, denormals and the largest finite values.
var corners = []uint64{
	0, 1, 2, 31, 32, 33, 63, 64, 65, 0x7f, 0x80, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 1 << 63, 1<<63 - 1, ^uint64(0),
	0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
	0x00000001, 0x80000001, 0x00800000, 0x7f7fffff, 0xff7fffff,
	0x3ff0000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
	0x000fffffffffffff, 0x0000000000000001, 0x7fefffffffffffff,
}

// operands gives n random lanes, a third of them corner values; with w32
// they are 32-bit values, zero-extended as the executor keeps them.
func operands(r *rand.Rand, n int, w32 bool) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = r.Uint64()
		if r.IntN(3) == 0 {
			v[i] = corners[r.IntN(len(corners))]
		}
		if w32 {
			v[i] &= math.MaxUint32
		}
	}
	return v
}

func f32(v uint64) float32 { return math.Float32frombits(uint32(v)) }

// Each case's want is the scalar definition of one lane.
var cases = []struct {
	name   string
	w32    bool // 32-bit operands
	counts bool // b is a shift count (kept below 70: below, at and past the width)
	form   func(d, a, b, c []uint64) int
	want   func(a, b, c uint64) uint64
	skips  bool // may stop before a NaN result (float forms)
}{
	{name: "Add32", w32: true, form: func(d, a, b, _ []uint64) int { return Int(Add, d, a, b, math.MaxUint32) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a + b)) }},
	{name: "Add64", form: func(d, a, b, _ []uint64) int { return Int(Add, d, a, b, ^uint64(0)) },
		want: func(a, b, _ uint64) uint64 { return a + b }},
	{name: "Sub32", w32: true, form: func(d, a, b, _ []uint64) int { return Int(Sub, d, a, b, math.MaxUint32) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a - b)) }},
	{name: "Sub64", form: func(d, a, b, _ []uint64) int { return Int(Sub, d, a, b, ^uint64(0)) },
		want: func(a, b, _ uint64) uint64 { return a - b }},
	{name: "AddK", form: func(d, a, _, _ []uint64) int { return Const(Add, d, a, 1<<40+7, 1<<48-1) },
		want: func(a, _, _ uint64) uint64 { return (a + 1<<40 + 7) & (1<<48 - 1) }},
	{name: "Not32", w32: true, form: func(d, a, _, _ []uint64) int { return Const(Xor, d, a, ^uint64(0), math.MaxUint32) },
		want: func(a, _, _ uint64) uint64 { return uint64(^uint32(a)) }},
	{name: "And", form: func(d, a, b, _ []uint64) int { return Int(And, d, a, b, ^uint64(0)) },
		want: func(a, b, _ uint64) uint64 { return a & b }},
	{name: "Or32", w32: true, form: func(d, a, b, _ []uint64) int { return Int(Or, d, a, b, math.MaxUint32) },
		want: func(a, b, _ uint64) uint64 { return a | b }},
	{name: "Xor", form: func(d, a, b, _ []uint64) int { return Int(Xor, d, a, b, ^uint64(0)) },
		want: func(a, b, _ uint64) uint64 { return a ^ b }},
	{name: "Shl32", w32: true, counts: true, form: func(d, a, b, _ []uint64) int { return Int(Shl, d, a, b, math.MaxUint32) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a) << uint32(b)) }},
	{name: "Shl64", w32: true, counts: true, form: func(d, a, b, _ []uint64) int { return Int(Shl, d, a, b, ^uint64(0)) },
		want: func(a, b, _ uint64) uint64 { return a << uint32(b) }},
	{name: "ShrU32", w32: true, counts: true, form: func(d, a, b, _ []uint64) int { return Int(ShrU, d, a, b, math.MaxUint32) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a) >> uint32(b)) }},
	{name: "MulLo32", w32: true, form: func(d, a, b, _ []uint64) int { return Int(MulLo32, d, a, b, 0) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a) * uint32(b)) }},
	{name: "MulWideS32", w32: true, form: func(d, a, b, _ []uint64) int { return Int(MulWideS32, d, a, b, 0) },
		want: func(a, b, _ uint64) uint64 { return uint64(int64(int32(a)) * int64(int32(b))) }},
	{name: "MulWideU32", w32: true, form: func(d, a, b, _ []uint64) int { return Int(MulWideU32, d, a, b, 0) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a)) * uint64(uint32(b)) }},
	{name: "AddF32", w32: true, skips: true, form: func(d, a, b, _ []uint64) int { return Float32(Add, d, a, b) },
		want: func(a, b, _ uint64) uint64 { return uint64(math.Float32bits(f32(a) + f32(b))) }},
	{name: "MulF32", w32: true, skips: true, form: func(d, a, b, _ []uint64) int { return Float32(Mul, d, a, b) },
		want: func(a, b, _ uint64) uint64 { return uint64(math.Float32bits(f32(a) * f32(b))) }},
	{name: "FmaF32", w32: true, skips: true, form: func(d, a, b, c []uint64) int { return Fma32(d, a, b, c) },
		want: func(a, b, c uint64) uint64 { return uint64(math.Float32bits(ptx.FmaRN32(f32(a), f32(b), f32(c)))) }},
	{name: "AddF64", skips: true, form: func(d, a, b, _ []uint64) int { return Float64(Add, d, a, b) },
		want: func(a, b, _ uint64) uint64 {
			return math.Float64bits(math.Float64frombits(a) + math.Float64frombits(b))
		}},
	{name: "MulF64", skips: true, form: func(d, a, b, _ []uint64) int { return Float64(Mul, d, a, b) },
		want: func(a, b, _ uint64) uint64 {
			return math.Float64bits(math.Float64frombits(a) * math.Float64frombits(b))
		}},
	{name: "FmaF64", skips: true, form: func(d, a, b, c []uint64) int { return Fma64(d, a, b, c) },
		want: func(a, b, c uint64) uint64 {
			return math.Float64bits(math.FMA(math.Float64frombits(a), math.Float64frombits(b), math.Float64frombits(c)))
		}},
}

func isNaN(v uint64, w32 bool) bool {
	if w32 {
		return f32(v) != f32(v)
	}
	return math.IsNaN(math.Float64frombits(v))
}

// TestForms runs every form on lengths 0 to 33 against its scalar
// definition: the lanes it reports done must match, it must do the longest
// multiple of four it may (stopping only before a NaN result), and it must
// not touch the lanes after them. A third of the runs write over a source.
func TestForms(t *testing.T) {
	if !vector {
		t.Skip("no vector instructions on this CPU or build: every form does 0 lanes")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 400 {
				n := round % 34
				a, b, c := operands(r, n, tc.w32), operands(r, n, tc.w32), operands(r, n, tc.w32)
				if tc.counts {
					for i := range b {
						b[i] %= 70
					}
				}
				wantAll := make([]uint64, n)
				for i := range wantAll {
					wantAll[i] = tc.want(a[i], b[i], c[i])
				}
				d := operands(r, n, false)
				before := append([]uint64(nil), d...)
				alias := round%3 == 0
				if alias {
					d = a // d = a op b, written over a
					before = append([]uint64(nil), a...)
				}
				done := tc.form(d, a, b, c)
				limit := n &^ 3
				if done > limit || done%4 != 0 || (!tc.skips && done != limit) {
					t.Fatalf("n=%d: did %d lanes, want %d", n, done, limit)
				}
				if done < limit {
					// It stopped: the next group must hold a NaN result.
					nan := false
					for i := done; i < done+4; i++ {
						nan = nan || isNaN(wantAll[i], tc.w32)
					}
					if !nan {
						t.Fatalf("n=%d: stopped at lane %d with no NaN in its group (%#x)", n, done, wantAll[done:done+4])
					}
				}
				for i := range n {
					want := before[i]
					if i < done {
						want = wantAll[i]
					}
					if d[i] != want {
						t.Fatalf("n=%d alias=%v lane %d of %d done: got %#x, want %#x (a %#x b %#x c %#x)",
							n, alias, i, done, d[i], want, before[i], b[i], c[i])
					}
				}
			}
		})
	}
}

// TestSetp checks each comparison, width and signedness against Go's own
// comparison of the typed values.
func TestSetp(t *testing.T) {
	if !vector {
		t.Skip("no vector instructions on this CPU or build")
	}
	r := rand.New(rand.NewPCG(5, 6))
	cmp := func(kind int, a, b uint64, width int, signed bool) bool {
		var lt, eq bool
		switch {
		case width == 4 && signed:
			lt, eq = int32(a) < int32(b), int32(a) == int32(b)
		case width == 4:
			lt, eq = uint32(a) < uint32(b), uint32(a) == uint32(b)
		case signed:
			lt, eq = int64(a) < int64(b), a == b
		default:
			lt, eq = a < b, a == b
		}
		switch kind {
		case Eq:
			return eq
		case Ne:
			return !eq
		case Lt:
			return lt
		}
		return lt || eq
	}
	for kind := Eq; kind <= Le; kind++ {
		for _, width := range []int{4, 8} {
			for _, signed := range []bool{false, true} {
				for round := range 100 {
					n := round % 34
					a, b := operands(r, n, width == 4), operands(r, n, width == 4)
					if round%4 == 0 && n > 0 {
						copy(b[:n/2], a[:n/2]) // equal lanes
					}
					d := operands(r, n, false)
					before := append([]uint64(nil), d...)
					mask, done := Setp(d, a, b, NewCmp(kind, width, signed))
					if done != n&^3 {
						t.Fatalf("did %d lanes of %d", done, n)
					}
					for i := range n {
						want := before[i]
						if i < done {
							want = 0
							if cmp(kind, a[i], b[i], width, signed) {
								want = 1
							}
						}
						bit := uint64(mask >> i & 1)
						if d[i] != want || (i < done && bit != want) || (i >= done && bit != 0) {
							t.Fatalf("kind %d width %d signed %v lane %d: d %d mask bit %d, want %d (a %#x b %#x)",
								kind, width, signed, i, d[i], bit, want, a[i], b[i])
						}
					}
				}
			}
		}
	}
}

// TestBit0 checks the gathered mask against each lane's bit 0, with the
// other bits of the lanes set at random.
func TestBit0(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		var row [32]uint64
		var want uint32
		for l := range row {
			row[l] = r.Uint64()
			want |= uint32(row[l]&1) << l
		}
		if got := Bit0(&row); got != want {
			t.Fatalf("Bit0 = %032b, want %032b", got, want)
		}
	}
}

// TestSteps checks Steps on rows on a line with lanes knocked off it, with
// steps that wrap, against its definition; and Zext32 against a loop.
func TestStepsZext32(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, step := range []uint64{0, 1, 4, 8, 1 << 63, ^uint64(3)} {
		for range 50 {
			b0 := r.Uint64()
			var row [32]uint64
			var want uint32
			for l := range row {
				row[l] = b0 + uint64(l)*step
				if r.IntN(4) == 0 {
					row[l] += 1 + uint64(r.IntN(3))
				} else {
					want |= 1 << l
				}
			}
			if got := Steps(&row, b0, step); got != want {
				t.Fatalf("step %#x: Steps = %032b, want %032b", step, got, want)
			}
		}
	}
	if !vector {
		return
	}
	for n := range 34 {
		s := make([]uint32, n)
		for i := range s {
			s[i] = r.Uint32()
		}
		d := make([]uint64, n)
		for i := range d {
			d[i] = r.Uint64()
		}
		before := append([]uint64(nil), d...)
		done := Zext32(d, s)
		if done != n&^3 {
			t.Fatalf("n=%d: did %d", n, done)
		}
		for i := range d {
			want := before[i]
			if i < done {
				want = uint64(s[i])
			}
			if d[i] != want {
				t.Fatalf("n=%d lane %d: %#x, want %#x", n, i, d[i], want)
			}
		}
	}
}

// TestSame checks Same on masks of one lane, none, some and all, with rows
// that differ from the first active lane in an active or inactive lane.
func TestSame(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 500 {
		var row [32]uint64
		v := r.Uint64()
		fill := func() {
			for l := range row {
				row[l] = v
			}
		}
		fill()
		mask := r.Uint32()
		switch r.IntN(4) {
		case 0:
			mask = 1 << r.IntN(32)
		case 1:
			mask = ^uint32(0)
		}
		odd := r.IntN(32)
		if r.IntN(2) == 0 {
			row[odd] ^= 1 << r.IntN(64)
		}
		want := true
		for l := range row {
			if mask>>l&1 != 0 && row[l] != row[bits.TrailingZeros32(mask)&31] {
				want = false
			}
		}
		if got := Same(&row, mask); got != want {
			t.Fatalf("Same(mask %032b, lane %d changed) = %v, want %v", mask, odd, got, want)
		}
	}
}

// TestGenerated checks that lanes_amd64.s is what gen_amd64.go writes: the
// assembly is edited through its generator, never by hand.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator with go run")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out := filepath.Join(t.TempDir(), "lanes_amd64.s")
	if b, err := exec.Command(goTool, "run", "gen_amd64.go", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_amd64.go: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("lanes_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("lanes_amd64.s differs from gen_amd64.go's output: run go generate ./sim/internal/lanes")
	}
}

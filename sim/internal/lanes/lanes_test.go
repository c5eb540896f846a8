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

// row gives 32 random lanes, a third of them corner values; with w32 they
// are 32-bit values, zero-extended as the executor keeps them.
func row(r *rand.Rand, w32 bool) *[32]uint64 {
	return (*[32]uint64)(operands(r, 32, w32))
}

// masks gives a mask of the shapes the executor runs: the whole warp, none,
// one lane, a run (a divergent branch's half) and random lanes.
func masks(r *rand.Rand, round int) uint32 {
	switch round % 5 {
	case 0:
		return ^uint32(0)
	case 1:
		return 0
	case 2:
		return 1 << r.IntN(32)
	case 3:
		lo, hi := r.IntN(32), r.IntN(33)
		return uint32(uint64(1)<<max(lo, hi)-1) &^ uint32(uint64(1)<<min(lo, hi)-1)
	}
	return r.Uint32()
}

// Each case's want is the scalar definition of one lane.
var cases = []struct {
	name   string
	w32    bool // 32-bit operands
	counts bool // b is a shift count (kept below 70: below, at and past the width)
	form   func(d, a, b, c *[32]uint64, mask uint32) uint32
	want   func(a, b, c uint64) uint64
	skips  bool // may leave the groups with a NaN result (float forms)
}{
	{name: "Add32", w32: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Add(d, a, b, math.MaxUint32, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a + b)) }},
	{name: "Add64", form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Add(d, a, b, ^uint64(0), m) },
		want: func(a, b, _ uint64) uint64 { return a + b }},
	{name: "Sub32", w32: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Sub(d, a, b, math.MaxUint32, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a - b)) }},
	{name: "Sub64", form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Sub(d, a, b, ^uint64(0), m) },
		want: func(a, b, _ uint64) uint64 { return a - b }},
	{name: "AddK", form: func(d, a, _, _ *[32]uint64, m uint32) uint32 { return AddK(d, a, 1<<40+7, 1<<48-1, m) },
		want: func(a, _, _ uint64) uint64 { return (a + 1<<40 + 7) & (1<<48 - 1) }},
	{name: "Not32", w32: true, form: func(d, a, _, _ *[32]uint64, m uint32) uint32 { return XorK(d, a, ^uint64(0), math.MaxUint32, m) },
		want: func(a, _, _ uint64) uint64 { return uint64(^uint32(a)) }},
	{name: "And", form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return And(d, a, b, ^uint64(0), m) },
		want: func(a, b, _ uint64) uint64 { return a & b }},
	{name: "Or32", w32: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Or(d, a, b, math.MaxUint32, m) },
		want: func(a, b, _ uint64) uint64 { return a | b }},
	{name: "Xor", form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Xor(d, a, b, ^uint64(0), m) },
		want: func(a, b, _ uint64) uint64 { return a ^ b }},
	{name: "Shl32", w32: true, counts: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Shl(d, a, b, math.MaxUint32, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a) << uint32(b)) }},
	{name: "Shl64", w32: true, counts: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return Shl(d, a, b, ^uint64(0), m) },
		want: func(a, b, _ uint64) uint64 { return a << uint32(b) }},
	{name: "ShrU32", w32: true, counts: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return ShrU(d, a, b, math.MaxUint32, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a) >> uint32(b)) }},
	{name: "MulLo32", w32: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return MulLo32(d, a, b, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a) * uint32(b)) }},
	{name: "MulWideS32", w32: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return MulWideS32(d, a, b, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(int64(int32(a)) * int64(int32(b))) }},
	{name: "MulWideU32", w32: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return MulWideU32(d, a, b, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(uint32(a)) * uint64(uint32(b)) }},
	{name: "AddF32", w32: true, skips: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return AddF32(d, a, b, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(math.Float32bits(f32(a) + f32(b))) }},
	{name: "MulF32", w32: true, skips: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return MulF32(d, a, b, m) },
		want: func(a, b, _ uint64) uint64 { return uint64(math.Float32bits(f32(a) * f32(b))) }},
	{name: "FmaF32", w32: true, skips: true, form: func(d, a, b, c *[32]uint64, m uint32) uint32 { return FmaF32(d, a, b, c, m) },
		want: func(a, b, c uint64) uint64 { return uint64(math.Float32bits(ptx.FmaRN32(f32(a), f32(b), f32(c)))) }},
	{name: "AddF64", skips: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return AddF64(d, a, b, m) },
		want: func(a, b, _ uint64) uint64 {
			return math.Float64bits(math.Float64frombits(a) + math.Float64frombits(b))
		}},
	{name: "MulF64", skips: true, form: func(d, a, b, _ *[32]uint64, m uint32) uint32 { return MulF64(d, a, b, m) },
		want: func(a, b, _ uint64) uint64 {
			return math.Float64bits(math.Float64frombits(a) * math.Float64frombits(b))
		}},
	{name: "FmaF64", skips: true, form: func(d, a, b, c *[32]uint64, m uint32) uint32 { return FmaF64(d, a, b, c, m) },
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

// TestForms runs every form on rows under masks of each shape against its
// scalar definition. The lanes it left must be within the mask: none for
// an integer form, and for a float form exactly the mask's lanes of the
// groups of four with a NaN result. It must set the other lanes of the
// mask and touch no lane outside it. A third of the runs write over a
// source.
func TestForms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 400 {
				mask := masks(r, round)
				a, b, c := row(r, tc.w32), row(r, tc.w32), row(r, tc.w32)
				if tc.counts {
					for i := range b {
						b[i] %= 70
					}
				}
				var want [32]uint64
				for i := range want {
					want[i] = tc.want(a[i], b[i], c[i])
				}
				d := row(r, false)
				alias := round%3 == 0
				if alias {
					d = a // d = a op b, written over a
				}
				before := *d
				rest := tc.form(d, a, b, c, mask)
				wantRest := uint32(0)
				switch {
				case !vector:
					wantRest = mask
				case tc.skips:
					for g := range 8 {
						for i := 4 * g; i < 4*g+4; i++ {
							if isNaN(want[i], tc.w32) {
								wantRest |= 0xf << (4 * g)
							}
						}
					}
					wantRest &= mask
				}
				if rest != wantRest {
					t.Fatalf("mask %032b: left %032b, want %032b", mask, rest, wantRest)
				}
				for i := range 32 {
					w := before[i]
					if (mask&^rest)>>i&1 != 0 {
						w = want[i]
					}
					if d[i] != w {
						t.Fatalf("mask %032b alias=%v lane %d: got %#x, want %#x (a %#x b %#x c %#x)",
							mask, alias, i, d[i], w, before[i], b[i], c[i])
					}
				}
			}
		})
	}
}

// TestSetp checks each comparison, width and signedness against Go's own
// comparison of the typed values, under masks of each shape.
func TestSetp(t *testing.T) {
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
					mask := masks(r, round)
					a, b := row(r, width == 4), row(r, width == 4)
					if round%4 == 0 {
						copy(b[:16], a[:16]) // equal lanes
					}
					d := row(r, false)
					before := *d
					res, rest := Setp(d, a, b, NewCmp(kind, width, signed), mask)
					if want := map[bool]uint32{true: 0, false: mask}[vector]; rest != want {
						t.Fatalf("left %032b of mask %032b, want %032b", rest, mask, want)
					}
					for i := range 32 {
						want, wantBit := before[i], uint64(0)
						if (mask&^rest)>>i&1 != 0 {
							want = 0
							if cmp(kind, a[i], b[i], width, signed) {
								want = 1
							}
							wantBit = want
						}
						if bit := uint64(res >> i & 1); d[i] != want || bit != wantBit {
							t.Fatalf("kind %d width %d signed %v mask %032b lane %d: d %d bit %d, want %d, %d (a %#x b %#x)",
								kind, width, signed, mask, i, d[i], bit, want, wantBit, a[i], b[i])
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

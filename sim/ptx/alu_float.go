package ptx

import (
	"math"
	"math/big"
)

// Floating-point semantics. Go computes float32 and float64 arithmetic in
// IEEE round-to-nearest-even with subnormals, which is PTX's .rn; the
// directed roundings (.rz .rm .rp) and the once-rounded .f32 fma are built
// here:
//
//   - .f32: the operation is carried out in float64, where it is exact (a
//     product of two .f32) or off by an error term that is computed exactly
//     (TwoSum for sums, an fma residual for quotients and square roots). The
//     float64 is then made "round-to-odd" (nudged to its odd neighbour on the
//     exact value's side when inexact), which keeps the exact value's
//     rounding to 24 bits in every mode (53 >= 24+2), and rounded to .f32 in
//     the instruction's mode. No allocation, a few ns.
//   - .f64 directed: math/big, exactly (sums, products and fma are exact at
//     the precisions used; quotients and roots carry a sticky bit), rounded
//     by roundBig with subnormals and overflow done as IEEE says.
//
// .ftz flushes .f32 subnormal inputs and results to zero of the same sign
// (results after rounding); .sat clamps an .f32 result to [0, 1] with NaN
// (and -0) giving +0.

// NaN results, as an H200 gives them (measured with nvcc 13.0 -O3, see
// TestEvalNaNsAsMeasured): every .f32 and .f16 NaN result is the canonical
// NaN, whatever the operands' payloads; .f64 arithmetic instead propagates
// a NaN operand (quieted, sign and payload kept; with several NaN operands
// the b operand first, then c, then a) and generates 0xFFF8000000000000
// (Inf-Inf, 0/0, sqrt(-1)). The manual leaves NaN payloads unspecified.
const (
	canonNaN16   = 0x7fff
	canonNaN32   = 0x7fffffff
	defaultNaN64 = 0xfff8000000000000
	quietBit64   = 1 << 51
)

// f32in reads an .f32 source, flushing a subnormal to a same-signed zero
// under .ftz.
func f32in(v uint64, ftz bool) float32 {
	u := uint32(v)
	if ftz && u&0x7f800000 == 0 {
		u &= 0x80000000
	}
	return math.Float32frombits(u)
}

// f64in reads an .f64 source.
func f64in(v uint64) float64 { return math.Float64frombits(v) }

// out32 writes an .f32 result: canonical NaN, .ftz, .sat.
func out32(f float32, ftz, sat bool) uint64 {
	if f != f {
		if sat {
			return 0
		}
		return canonNaN32
	}
	u := math.Float32bits(f)
	if ftz && u&0x7f800000 == 0 {
		u &= 0x80000000
	}
	if sat {
		if f <= 0 {
			return 0
		}
		if f >= 1 {
			return 0x3f800000
		}
	}
	return uint64(u)
}

// out64 writes an .f64 result computed from operands a, b, c (0 for an
// absent one): a NaN result is the first NaN operand in the order b, c, a,
// quieted, or the default NaN when the operation made it.
func out64(f float64, a, b, c uint64) uint64 {
	if f != f {
		return nan64From(a, b, c)
	}
	return math.Float64bits(f)
}

// isNaN64 reports whether bits v are an .f64 NaN.
func isNaN64(v uint64) bool { return v&^(1<<63) > 0x7ff0000000000000 }

// nan64From is the NaN an .f64 operation returns: see out64.
func nan64From(a, b, c uint64) uint64 {
	switch {
	case isNaN64(b):
		return b | quietBit64
	case isNaN64(c):
		return c | quietBit64
	case isNaN64(a):
		return a | quietBit64
	}
	return defaultNaN64
}

// ftzTiny reports whether an .f32 result that rounded to the smallest
// normal (±2^-126) is tiny for .ftz: .ftz flushes a result whose rounding
// to 24 bits with an unbounded exponent is below 2^-126 (IEEE's tininess
// after rounding), so 2^-126 - 2^-150, which rounds to 2^-126 among the
// subnormals, still flushes, while 2^-126(1 - 2^-46) does not (both
// measured on an H200). v is the float64 stand-in (exact or round-to-odd)
// of the exact result, r the rounding mode.
func ftzTiny(v float64, r Round) bool {
	av := math.Abs(v)
	if av >= 0x1p-126 || av == 0 {
		return false
	}
	if av < 0x1p-127 {
		return true
	}
	s := av * 0x1p150 // the 24-bit grid below 2^-126 is 2^-150: s in [2^23, 2^24)
	switch {
	case r == RoundRZ, r == RoundRM && v > 0, r == RoundRP && v < 0:
		s = math.Floor(s)
	case r == RoundRM, r == RoundRP:
		s = math.Ceil(s)
	default:
		s = math.RoundToEven(s)
	}
	return s < 0x1p24
}

// ftzMin applies ftzTiny to f, the rounded result: the only rounded value
// whose flushing depends on more than f itself is ±2^-126.
func ftzMin(f float32, v float64, r Round) float32 {
	if abs32(f) == 0x1p-126 && ftzTiny(v, r) {
		return f * 0 // a zero of f's sign
	}
	return f
}

func abs32(f float32) float32 {
	return math.Float32frombits(math.Float32bits(f) &^ 0x80000000)
}

func abs64(f float64) float64 { return math.Abs(f) }

// directed reports whether r asks for a rounding other than to nearest.
func directed(r Round) bool { return r == RoundRZ || r == RoundRM || r == RoundRP }

// toOdd turns v, the float64 nearest an exact value v+err (err's sign is
// all that matters), into the round-to-odd value: v when exact or when its
// last significand bit is already 1, else v's neighbour on err's side. Any
// later rounding of the result to 51 bits or fewer equals that rounding of
// the exact value. v is finite and nonzero whenever err is nonzero.
func toOdd(v, err float64) float64 {
	if err == 0 {
		return v
	}
	u := math.Float64bits(v)
	if u&1 != 0 {
		return v
	}
	if (err > 0) == (v > 0) {
		u++ // away from zero
	} else {
		u--
	}
	return math.Float64frombits(u)
}

// rnd32 rounds v (exact, or round-to-odd) to .f32 in mode r (RoundNone and
// RoundRN: to nearest even). Overflow gives Inf or the largest finite
// value as the mode says.
func rnd32(v float64, r Round) float32 {
	f := float32(v)
	if !directed(r) {
		return f
	}
	fv := float64(f)
	if fv == v || v != v {
		return f
	}
	switch r {
	case RoundRZ:
		if math.Abs(fv) > math.Abs(v) {
			f = math.Nextafter32(f, 0)
		}
	case RoundRM:
		if fv > v {
			f = math.Nextafter32(f, float32(math.Inf(-1)))
		}
	case RoundRP:
		if fv < v {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
	}
	return f
}

// twoSumErr is the exact error of s = x + y (Knuth's TwoSum): x + y = s + err.
func twoSumErr(x, y, s float64) float64 {
	bb := s - x
	return (x - (s - bb)) + (y - bb)
}

// zeroSum is the sign IEEE gives an exactly zero sum x + y: the operands'
// sign when both are zeros of one sign, else +0, or -0 when rounding down.
func zeroSum(x, y float64, r Round) float64 {
	if x == 0 && y == 0 && math.Signbit(x) == math.Signbit(y) {
		return x
	}
	if r == RoundRM {
		return math.Copysign(0, -1)
	}
	return 0
}

// addF32 is add.f32 (and sub, with b's sign flipped by the caller). An
// add.f32 or mul.f32 without a rounding modifier is .rn here; the manual
// lets ptxas contract such a mul/add pair into an fma on the GPU, which the
// simulator, executing the PTX as written, does not do (nvcc already emits
// the fma.rn.f32 it wants, so such pairs are rare).
func addF32(in *Instr, a, b uint64) uint64 {
	x, y := f32in(a, in.Ftz), f32in(b, in.Ftz)
	var f float32
	if !directed(in.Round) {
		f = x + y
	} else {
		f = rnd32(sumOdd(float64(x), float64(y), in.Round), in.Round)
	}
	if in.Ftz {
		f = ftzMin(f, sumOdd(float64(x), float64(y), in.Round), in.Round)
	}
	return out32(f, in.Ftz, in.Sat)
}

// sumOdd is x + y (float64s holding .f32 values, or an exact product and an
// .f32) as a float64 that stands for the exact sum: round-to-odd, with
// IEEE's sign of an exact zero in mode r.
func sumOdd(x, y float64, r Round) float64 {
	s := x + y
	switch {
	case s != s || math.IsInf(s, 0):
		// Only Inf or NaN operands get here (these sums cannot overflow
		// a float64); the result is exact.
	case s == 0:
		s = zeroSum(x, y, r)
	default:
		s = toOdd(s, twoSumErr(x, y, s))
	}
	return s
}

// mulF32 is mul.f32: the product of two .f32 is exact in float64.
func mulF32(in *Instr, a, b uint64) uint64 {
	x, y := f32in(a, in.Ftz), f32in(b, in.Ftz)
	var f float32
	if !directed(in.Round) {
		f = x * y
	} else {
		f = rnd32(float64(x)*float64(y), in.Round)
	}
	if in.Ftz {
		f = ftzMin(f, float64(x)*float64(y), in.Round)
	}
	return out32(f, in.Ftz, in.Sat)
}

// fmaF32 is fma.f32 and mad.f32 (on sm_20 and later mad.rnd.f32 is fma:
// the product and the sum at infinite precision, one rounding). The product
// is exact in float64; the sum's error comes from TwoSum, and round-to-odd
// carries it into the one rounding to .f32. float32(math.FMA(...)) would
// round twice and is wrong when the float64 sum lands on an .f32 halfway
// point.
func fmaF32(in *Instr, a, b, c uint64) uint64 {
	x, y, z := f32in(a, in.Ftz), f32in(b, in.Ftz), f32in(c, in.Ftz)
	s := sumOdd(float64(x)*float64(y), float64(z), in.Round)
	f := rnd32(s, in.Round)
	if in.Ftz {
		f = ftzMin(f, s, in.Round)
	}
	return out32(f, in.Ftz, in.Sat)
}

// FmaRN32 is fma.rn.f32 on float32 values: x*y+z with one rounding, to
// nearest even, as fma.rn.f32 without .ftz or .sat computes it (a NaN
// result is Go's NaN, not the GPU's canonical one, which Eval gives).
// The simulator's fast path and its vector forms are held to it.
//
// It is fmaF32's computation for .rn without the modes' branches, cheap
// enough to inline: the product is exact in float64, TwoSum gives the sum's
// rounding error, and round-to-odd makes the one rounding to float32
// correct (float64 carries more than 24+1 bits).
func FmaRN32(x, y, z float32) float32 {
	p, c := float64(x)*float64(y), float64(z)
	s := p + c
	if math.IsInf(s, 0) || s != s {
		return float32(s)
	}
	return float32(toOdd(s, twoSumErr(p, c, s)))
}

// divF32 is div.f32. .rn (and the directed modes) are IEEE division;
// .full (at most 2 ulp off per the manual) and .approx (2 ulp for |b| in
// [2^-126, 2^126]) are computed as the exact IEEE quotient, which is within
// those bounds. .approx keeps the one deviation the manual spells out: for
// 2^126 < |b| < 2^128 it gives 0 (NaN when a is infinite), because it
// computes a * (1/b) and 1/b flushes to zero there.
func divF32(in *Instr, a, b uint64) uint64 {
	x, y := f32in(a, in.Ftz), f32in(b, in.Ftz)
	if in.Approx {
		if ay := abs32(y); ay > 0x1p126 && ay < float32(math.Inf(1)) {
			if x != x || math.IsInf(float64(x), 0) {
				return canonNaN32 // Inf * 0 and NaN * 0
			}
			if math.Signbit(float64(x)) != math.Signbit(float64(y)) {
				return 0x80000000
			}
			return 0
		}
	}
	var f float32
	if !directed(in.Round) {
		f = x / y
	} else {
		f = rnd32(quoOdd(float64(x), float64(y)), in.Round)
	}
	if in.Ftz {
		f = ftzMin(f, quoOdd(float64(x), float64(y)), in.Round)
	}
	return out32(f, in.Ftz, false)
}

// quoOdd is x/y (float64s holding .f32 values) as a float64 that stands
// for the exact quotient (round-to-odd).
func quoOdd(x, y float64) float64 {
	q := x / y
	if q != 0 && !math.IsInf(q, 0) && q == q {
		// x - q*y is exact in float64 here; its sign and y's give the
		// side of the exact quotient relative to q.
		res := math.FMA(-q, y, x)
		if y < 0 {
			res = -res
		}
		q = toOdd(q, res)
	}
	return q
}

// sqrt32 is the .f32 square root of x rounded in mode r.
func sqrt32(x float64, r Round) float32 {
	q := math.Sqrt(x)
	if !directed(r) {
		// Double rounding through float64 is harmless for sqrt (53 >= 2*24+2).
		return float32(q)
	}
	if q > 0 && !math.IsInf(q, 0) {
		q = toOdd(q, math.FMA(-q, q, x))
	}
	return rnd32(q, r)
}

// addF64 is add.f64, and sub.f64 when sub is set (a NaN b is returned as
// it is, not negated).
func addF64(in *Instr, a, b uint64, sub bool) uint64 {
	x, y := f64in(a), f64in(b)
	if sub {
		y = -y
	}
	s := x + y
	if !directed(in.Round) || !isFinite(x) || !isFinite(y) {
		return out64(s, a, b, 0)
	}
	z := new(big.Float).SetPrec(2200) // wide enough for any exact f64 sum
	z.Add(big.NewFloat(x), big.NewFloat(y))
	if z.Sign() == 0 {
		return out64(zeroSum(x, y, in.Round), 0, 0, 0)
	}
	return out64(roundBig(z, in.Round, fmtF64), 0, 0, 0)
}

// mulF64 is mul.f64.
func mulF64(in *Instr, a, b uint64) uint64 {
	x, y := f64in(a), f64in(b)
	if !directed(in.Round) || !isFinite(x) || !isFinite(y) || x == 0 || y == 0 {
		return out64(x*y, a, b, 0)
	}
	z := new(big.Float).SetPrec(106)
	z.Mul(big.NewFloat(x), big.NewFloat(y))
	return out64(roundBig(z, in.Round, fmtF64), 0, 0, 0)
}

// fmaF64 is fma.f64 and mad.f64: one rounding of x*y+z.
func fmaF64(in *Instr, a, b, c uint64) uint64 {
	x, y, z := f64in(a), f64in(b), f64in(c)
	if !directed(in.Round) || !isFinite(x) || !isFinite(y) || !isFinite(z) {
		return out64(math.FMA(x, y, z), a, b, c)
	}
	p := new(big.Float).SetPrec(106)
	p.Mul(big.NewFloat(x), big.NewFloat(y))
	s := new(big.Float).SetPrec(4400) // exact: exponents span at most ~4300 bits
	s.Add(p, big.NewFloat(z))
	if s.Sign() == 0 {
		pz := 0.0
		if math.Signbit(x) != math.Signbit(y) {
			pz = math.Copysign(0, -1)
		}
		if x != 0 && y != 0 {
			pz = 1 // a nonzero product cancelled: not a sum of zeros
		}
		return out64(zeroSum(pz, z, in.Round), 0, 0, 0)
	}
	return out64(roundBig(s, in.Round, fmtF64), 0, 0, 0)
}

// divF64 is div.f64 (.rn and directed; the manual has no approximate f64
// division).
func divF64(in *Instr, a, b uint64) uint64 {
	x, y := f64in(a), f64in(b)
	if !directed(in.Round) || !isFinite(x) || !isFinite(y) || x == 0 || y == 0 {
		return out64(x/y, a, b, 0)
	}
	return out64(quoBig(x, y, in.Round), 0, 0, 0)
}

// quoBig is x/y (finite, nonzero) rounded in mode r to .f64: the quotient
// truncated to 200 bits plus a sticky bit below them stands in for the exact
// one in any rounding to 53 bits or fewer.
func quoBig(x, y float64, r Round) float64 {
	z := new(big.Float).SetPrec(200).SetMode(big.ToZero)
	z.Quo(big.NewFloat(x), big.NewFloat(y))
	return roundBig(sticky(z, z.Acc()), r, fmtF64)
}

// sticky returns z (a value truncated to its precision) with one more bit
// set half an ulp below it on the exact value's side when acc says z is
// inexact (Below: the exact value is larger).
func sticky(z *big.Float, acc big.Accuracy) *big.Float {
	if acc == big.Exact {
		return z
	}
	e := z.MantExp(nil)
	h := new(big.Float).SetMantExp(big.NewFloat(1), e-int(z.Prec())-1)
	if acc == big.Above {
		h.Neg(h)
	}
	w := new(big.Float).SetPrec(z.Prec() + 1).Set(z)
	return w.Add(w, h)
}

// sqrtF64Dir is the .f64 square root of x (finite, > 0) in a directed mode:
// a 200-bit root, whose square against x says on which side the exact root
// lies.
func sqrtF64Dir(x float64, r Round) float64 {
	bx := big.NewFloat(x)
	z := new(big.Float).SetPrec(200)
	z.Sqrt(bx)
	sq := new(big.Float).SetPrec(400)
	sq.Mul(z, z)
	acc := big.Exact
	switch sq.Cmp(bx) {
	case -1:
		acc = big.Below
	case 1:
		acc = big.Above
	}
	return roundBig(sticky(z, acc), r, fmtF64)
}

// floatFmt is an IEEE binary format: significand bits after the point and
// the normal exponent range.
type floatFmt struct{ mbits, emin, emax int }

var (
	fmtF16 = floatFmt{10, -14, 15}
	fmtF32 = floatFmt{23, -126, 127}
	fmtF64 = floatFmt{52, -1022, 1023}
)

// maxFinite is the format's largest finite value.
func (f floatFmt) maxFinite() float64 {
	return math.Ldexp(2-math.Ldexp(1, -f.mbits), f.emax)
}

// overflow is the result of a rounding whose magnitude exceeds the format:
// Inf or the largest finite value as IEEE's rounding direction says.
func (f floatFmt) overflow(neg bool, r Round) float64 {
	inf := r == RoundRN || r == RoundNone || r == RoundRP && !neg || r == RoundRM && neg
	v := f.maxFinite()
	if inf {
		v = math.Inf(1)
	}
	if neg {
		v = -v
	}
	return v
}

// bigMode is r as math/big's rounding mode.
func bigMode(r Round) big.RoundingMode {
	switch r {
	case RoundRZ:
		return big.ToZero
	case RoundRM:
		return big.ToNegativeInf
	case RoundRP:
		return big.ToPositiveInf
	}
	return big.ToNearestEven
}

// roundBig rounds x (finite, nonzero, standing for the exact value) to
// format f in mode r, with f's subnormals and overflow; the result is a
// float64 holding the format's value exactly.
func roundBig(x *big.Float, r Round, f floatFmt) float64 {
	neg := x.Signbit()
	e := x.MantExp(nil) - 1 // 2^e <= |x| < 2^(e+1)
	q := e
	if q < f.emin {
		q = f.emin
	}
	q -= f.mbits // the quantum (ulp exponent) at x's magnitude
	p := e - q + 1
	if p <= 0 {
		// |x| < 2^q, the smallest subnormal: 0 or 2^q.
		var up bool
		switch r {
		case RoundRZ:
		case RoundRP:
			up = !neg
		case RoundRM:
			up = neg
		default:
			// Above half of 2^q rounds up; exactly half ties to 0 (even).
			if p == 0 {
				m := new(big.Float)
				x.MantExp(m)
				up = m.Abs(m).Cmp(big.NewFloat(0.5)) != 0
			}
		}
		v := 0.0
		if up {
			v = math.Ldexp(1, q)
		}
		if neg {
			v = -v
			if v == 0 {
				v = math.Copysign(0, -1)
			}
		}
		return v
	}
	z := new(big.Float).SetPrec(uint(p)).SetMode(bigMode(r)).Set(x)
	if z.MantExp(nil)-1 > f.emax {
		return f.overflow(neg, r)
	}
	v, _ := z.Float64()
	return v
}

// roundFmt rounds a float64 v (exact, or round-to-odd when f is narrower
// than 51 bits) to format f in mode r, returning the format's value as a
// float64. It is the cheap path for narrow formats (.f16).
func roundFmt(v float64, r Round, f floatFmt) float64 {
	if v == 0 || !isFinite(v) {
		return v
	}
	_, exp := math.Frexp(v)
	e := exp - 1
	if e < f.emin {
		e = f.emin
	}
	q := e - f.mbits
	s := math.Ldexp(v, -q)
	switch r {
	case RoundRZ:
		s = math.Trunc(s)
	case RoundRM:
		s = math.Floor(s)
	case RoundRP:
		s = math.Ceil(s)
	default:
		s = math.RoundToEven(s)
	}
	out := math.Ldexp(s, q)
	if math.Abs(out) > f.maxFinite() {
		return f.overflow(v < 0, r)
	}
	return out
}

func isFinite(f float64) bool { return !math.IsInf(f, 0) && f == f }

// minMax is min and max: signed or unsigned integers; for floats the
// manual's rule that a NaN operand yields the other operand (canonical NaN
// when both are NaN), with -0 ordered below +0. .ftz flushes .f32
// subnormal inputs.
func minMax(in *Instr, a, b uint64) uint64 {
	isMax := in.Op == OpMax
	switch in.Type {
	case F32:
		x, y := f32in(a, in.Ftz), f32in(b, in.Ftz)
		return out32(float32(fminmax(float64(x), float64(y), isMax)), in.Ftz, false)
	case F64:
		return out64(fminmax(f64in(a), f64in(b), isMax), a, b, 0)
	}
	t := in.Type
	var less bool // a < b
	if t.IsSigned() {
		w := widthOf(t)
		less = sext(a, w) < sext(b, w)
	} else {
		m := maskOf(t)
		less = a&m < b&m
	}
	if less != isMax {
		return a & maskOf(t)
	}
	return b & maskOf(t)
}

// fminmax is min or max of two floats with PTX's NaN and signed-zero rules.
func fminmax(x, y float64, isMax bool) float64 {
	switch {
	case x != x:
		return y // NaN if both are: out32/out64 make it canonical
	case y != y:
		return x
	case x == 0 && y == 0:
		// -0 < +0: min takes a negative zero, max a positive one.
		if math.Signbit(x) != isMax {
			return x
		}
		return y
	case (x < y) != isMax:
		return x
	}
	return y
}

// unaryFloat is rcp, sqrt, rsqrt, ex2 and lg2.
//
// Exact ones (.rn .rz .rm .rp) are IEEE. The .approx ones return the
// correctly rounded value, or a value within an ulp of it, of the exact
// function, which is inside every bound the manual states for them (the
// tests say which): rcp.approx.f32 (1 ulp), sqrt.approx.f32 (relative
// 2^-23), rsqrt.approx.f32 (relative 2^-22.9), ex2.approx.f32 (2 ulp),
// lg2.approx.f32 (absolute 2^-22.6 on the mantissa), and rcp.approx.ftz.f64
// and rsqrt.approx.f64, which the manual allows to be far coarser. Special
// values follow the manual's tables: rcp(±0) = ±Inf, sqrt(-0) = -0,
// sqrt(x<0) = NaN, rsqrt(±0) = ±Inf, ex2(-Inf) = +0, lg2(±0) = -Inf,
// lg2(x<0) = NaN.
func unaryFloat(in *Instr, a uint64) uint64 {
	if in.Type == F64 {
		if in.Op == OpRcp && in.Approx {
			return rcpApproxF64(a)
		}
		x := f64in(a)
		ftz := in.Ftz // rsqrt.approx.ftz.f64
		if ftz && x != 0 && math.Abs(x) < 0x1p-1022 {
			x = math.Copysign(0, x)
		}
		var r float64
		switch in.Op {
		case OpRcp:
			if directed(in.Round) && isFinite(x) && x != 0 {
				r = quoBig(1, x, in.Round)
			} else {
				r = 1 / x
			}
		case OpSqrt:
			if directed(in.Round) && isFinite(x) && x > 0 {
				r = sqrtF64Dir(x, in.Round)
			} else {
				r = math.Sqrt(x)
			}
		case OpRsqrt:
			r = rsqrtF64(x)
		default:
			return 0
		}
		if ftz && r != 0 && math.Abs(r) < 0x1p-1022 {
			r = math.Copysign(0, r)
		}
		return out64(r, a, 0, 0)
	}
	x := f32in(a, in.Ftz)
	fx := float64(x)
	var r float32
	switch in.Op {
	case OpRcp:
		v := quoOdd(1, fx)
		r = rnd32(v, in.Round)
		if in.Ftz {
			r = ftzMin(r, v, in.Round)
		}
	case OpSqrt:
		r = sqrt32(fx, in.Round)
	case OpRsqrt:
		r = float32(1 / math.Sqrt(fx))
	case OpEx2:
		r = float32(math.Exp2(fx))
	case OpLg2:
		r = float32(math.Log2(fx))
	}
	return out32(r, in.Ftz, false)
}

// rcpApproxF64 is rcp.approx.ftz.f64, which the manual describes as a gross
// approximation: it reads only the upper 32 bits of a (sign, exponent, 20
// significand bits) and returns a reciprocal whose lower 32 bits are zero.
// We return the reciprocal of that truncated input, truncated the same way,
// which matches an H200 on 3 (0x3FD5555500000000) and pi
// (0x3FD45F3000000000) and on all but 8 of 256 random inputs, which differ
// by one in the last kept bit (the hardware's approximation is not quite a
// truncation). A NaN upper word gives 0x7FFFFFFF00000000 there, so here
// too; a NaN whose payload is all in the lower word reads as Inf and gives
// 0. Subnormal inputs and results flush to zero of the same sign.
func rcpApproxF64(a uint64) uint64 {
	const hi = 0xffffffff00000000
	x := f64in(a & hi)
	if x != x {
		return 0x7fffffff00000000
	}
	if x != 0 && math.Abs(x) < 0x1p-1022 {
		x = math.Copysign(0, x)
	}
	r := 1 / x
	if r != 0 && math.Abs(r) < 0x1p-1022 {
		r = math.Copysign(0, r)
	}
	return math.Float64bits(r) & hi
}

// rsqrtF64 is rsqrt.approx.f64. The manual allows a coarse approximation;
// the H200 returned the correctly rounded 1/sqrt(2), which 1/math.Sqrt(x)
// (two roundings) misses, so finite positive x go through a 128-bit root
// and quotient (math/big: rsqrt.approx.f64 is rare in compiled CUDA).
func rsqrtF64(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1 / math.Sqrt(x) // ±0 -> ±Inf, x < 0 and NaN -> NaN, Inf -> 0
	}
	z := new(big.Float).SetPrec(128).Sqrt(big.NewFloat(x))
	z.Quo(new(big.Float).SetPrec(128).SetInt64(1), z)
	r, _ := z.Float64()
	return r
}

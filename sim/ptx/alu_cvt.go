package ptx

import (
	"math"
	"math/big"
)

// cvt converts a, of type in.SrcType, to in.Type, as the manual's cvt:
//
//   - integer to integer: sign- or zero-extend by the source's signedness,
//     then truncate to the destination; .sat clamps the source value to the
//     destination's range instead of truncating;
//   - float to integer: round to an integral value by .rni .rzi .rmi .rpi,
//     then clamp to the destination's range (always: the manual makes .sat
//     redundant here); NaN gives 0 as the manual says, except where an
//     H200 gives otherwise (nanToInt);
//   - integer to float, and a float to a narrower float: round by .rn .rz
//     .rm .rp (none given: to nearest);
//   - a float to a wider float: exact;
//   - a float to the same float type: .rni .rzi .rmi .rpi round to an
//     integral value in that type; without them the value is kept;
//   - .ftz flushes an .f32 subnormal source and an .f32 subnormal result to
//     a zero of the same sign; .sat on a float destination clamps to [0, 1]
//     (NaN gives +0).
func cvt(in *Instr, a uint64) uint64 {
	if in.Narrow != MatNone {
		if in.Type == F32 { // cvt.f32.bf16: exact
			return uint64(uint32(a&0xffff) << 16)
		}
		return narrow(in.Narrow, uint32(a))
	}
	st, dt := in.SrcType, in.Type
	sf, df := st.IsFloat(), dt.IsFloat()
	switch {
	case !sf && !df:
		return cvtIntInt(in.Sat, st, dt, a)

	case !sf: // integer to float
		w := widthOf(st)
		if dt == F32 && !directed(in.Round) {
			// The hot case (cvt.rn.f32.s32/u32): Go's conversion is IEEE
			// round-to-nearest.
			var f float32
			if st.IsSigned() {
				f = float32(sext(a, w))
			} else {
				f = float32(a & maskOf(st))
			}
			return out32(f, in.Ftz, in.Sat)
		}
		if dt == F64 && !directed(in.Round) {
			var f float64
			if st.IsSigned() {
				f = float64(sext(a, w))
			} else {
				f = float64(a & maskOf(st))
			}
			return floatOut(f, dt, in)
		}
		x := new(big.Float).SetPrec(64)
		if st.IsSigned() {
			x.SetInt64(sext(a, w))
		} else {
			x.SetUint64(a & maskOf(st))
		}
		if x.Sign() == 0 {
			return floatOut(0, dt, in)
		}
		return floatOut(roundBig(x, in.Round, fmtOf(dt)), dt, in)
	}

	// Float source, read exactly as a float64.
	var x float64
	switch st {
	case F16:
		x = f16to64(uint16(a))
	case F32:
		x = float64(f32in(a, in.Ftz))
	default:
		x = f64in(a)
	}

	if !df { // float to integer
		if x != x {
			return nanToInt(st, dt)
		}
		return cvtFloatInt(x, in.Round, dt)
	}
	if x != x {
		if in.Sat {
			return 0
		}
		if in.Ftz && st == F32 {
			a = canonNaN32 // .ftz passes the source through the f32 pipe: canonical (H200)
		}
		return cvtNaN(a, st, dt)
	}

	if st == dt || in.Round >= RoundRNI {
		if in.Round >= RoundRNI {
			x = roundIntegral(x, in.Round)
		}
		return floatOut(x, dt, in)
	}
	if widthOf(dt) > widthOf(st) {
		return floatOut(x, dt, in) // widening is exact
	}
	// Narrowing: f64 -> f32, f64 -> f16, f32 -> f16. x is exact.
	if dt == F32 {
		f := rnd32(x, in.Round)
		if in.Ftz {
			f = ftzMin(f, x, in.Round)
		}
		return out32(f, in.Ftz, in.Sat)
	}
	return floatOut(roundFmt(x, in.Round, fmtF16), dt, in)
}

// fmtOf is the IEEE format of a float type.
func fmtOf(t Type) floatFmt {
	switch t {
	case F16:
		return fmtF16
	case F32:
		return fmtF32
	}
	return fmtF64
}

// floatOut writes v, a value representable in float type t (or one that
// only needs float64-to-t rounding to nearest), as t's bits with .ftz (f32)
// and .sat applied and NaN made canonical.
func floatOut(v float64, t Type, in *Instr) uint64 {
	switch t {
	case F32:
		return out32(float32(v), in.Ftz, in.Sat)
	case F16:
		if in.Sat {
			v = sat64(v)
		}
		return uint64(f64to16(v))
	}
	if in.Sat {
		v = sat64(v)
	}
	return out64(v, 0, 0, 0)
}

// nanToInt is cvt of a NaN to an integer type. The manual says 0; an H200
// gives 0 for an .f32 source into 8, 16 or 32 bits and for an .f16 source,
// but the bit pattern 1<<(w-1) (MIN for signed, 2^(w-1) for unsigned) for
// an .f64 source into 16, 32 or 64 bits and for an .f32 source into 64 bits
// (measured, nvcc 13.0; .f64 into 8 bits by analogy).
func nanToInt(st, dt Type) uint64 {
	w := widthOf(dt)
	if st == F64 || st == F32 && w == 64 {
		return 1 << (w - 1)
	}
	return 0
}

// cvtNaN is the NaN cvt writes for a NaN source a of type st into float
// type dt, as an H200 does: .f32 -> .f64 keeps sign and payload (shifted
// up, quieted), .f64 -> .f32 keeps the sign and the payload's top bits
// (quieted), and so do .f16 -> .f64 and .f64 -> .f16; .f64 -> .f64
// (cvt.rni and friends) quiets; into .f32 from .f32 or .f16 the canonical
// NaN; .f32 -> .f16 the canonical 0x7FFF.
func cvtNaN(a uint64, st, dt Type) uint64 {
	switch dt {
	case F16:
		if st == F64 {
			return a>>48&0x8000 | 0x7e00 | a&(1<<52-1)>>42
		}
		return canonNaN16
	case F32:
		if st == F64 {
			return a>>32&0x80000000 | 0x7fc00000 | a&(1<<52-1)>>29
		}
		return canonNaN32
	}
	switch st {
	case F32:
		return a&0x80000000<<32 | 0x7ff8000000000000 | a&0x7fffff<<29
	case F64:
		return a | quietBit64
	}
	return a&0x8000<<48 | 0x7ff8000000000000 | a&0x3ff<<42 // from .f16
}

// sat64 clamps to [0, 1], NaN and -0 giving +0.
func sat64(v float64) float64 {
	switch {
	case !(v > 0):
		return 0
	case v > 1:
		return 1
	}
	return v
}

// roundIntegral rounds x to an integral value by an integer rounding
// modifier (.rni: to nearest even).
func roundIntegral(x float64, r Round) float64 {
	switch r {
	case RoundRZI:
		return math.Trunc(x)
	case RoundRMI:
		return math.Floor(x)
	case RoundRPI:
		return math.Ceil(x)
	}
	return math.RoundToEven(x)
}

// cvtFloatInt is float to integer (x not NaN): round to integral, clamp to
// t's range.
func cvtFloatInt(x float64, r Round, t Type) uint64 {
	x = roundIntegral(x, r)
	w := widthOf(t)
	if t.IsSigned() {
		lim := math.Ldexp(1, int(w)-1) // 2^(w-1), exact
		switch {
		case x >= lim:
			return uint64(1)<<(w-1) - 1
		case x < -lim:
			return uint64(1) << (w - 1) // MIN, masked below w bits
		}
		return uint64(int64(x)) & maskOf(t)
	}
	switch {
	case x >= math.Ldexp(1, int(w)):
		return maskOf(t)
	case x <= 0:
		return 0
	}
	return uint64(x)
}

// cvtIntInt is integer to integer conversion, with .sat clamping.
func cvtIntInt(sat bool, st, dt Type, a uint64) uint64 {
	sw := widthOf(st)
	dm := maskOf(dt)
	if !sat {
		if st.IsSigned() {
			return uint64(sext(a, sw)) & dm
		}
		return a & maskOf(st) & dm
	}
	if st.IsSigned() {
		v := sext(a, sw)
		if dt.IsSigned() {
			hi := int64(dm >> 1)
			if v > hi {
				v = hi
			} else if v < -hi-1 {
				v = -hi - 1
			}
			return uint64(v) & dm
		}
		if v < 0 {
			return 0
		}
		if uint64(v) > dm {
			return dm
		}
		return uint64(v)
	}
	u := a & maskOf(st)
	hi := dm
	if dt.IsSigned() {
		hi = dm >> 1
	}
	if u > hi {
		return hi
	}
	return u
}

// f16to64 decodes IEEE half-precision bits exactly.
func f16to64(h uint16) float64 {
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	var v float64
	switch e {
	case 0:
		v = math.Ldexp(m, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	default:
		v = math.Ldexp(m+1024, e-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// f64to16 encodes v, already a half-precision value (or ±Inf or NaN), as
// its bits; NaN becomes the canonical 0x7FFF.
func f64to16(v float64) uint16 {
	if v != v {
		return canonNaN16
	}
	var s uint16
	if math.Signbit(v) {
		s = 0x8000
		v = -v
	}
	switch {
	case math.IsInf(v, 0) || v > fmtF16.maxFinite():
		return s | 0x7c00
	case v == 0:
		return s
	case v < 0x1p-14:
		return s | uint16(math.Ldexp(v, 24))
	}
	f, exp := math.Frexp(v) // v = f * 2^exp, f in [0.5, 1)
	return s | uint16(exp+14)<<10 | uint16(math.Ldexp(f, 11)-1024)
}

// narrow rounds float bits f to a tensor-core format, as the PTX manual
// defines cvt.rna.tf32.f32 (to nearest, ties away from zero, kept as a
// float whose low 13 bits are zero) and cvt.rn.bf16.f32 (to nearest even,
// the float's upper half); NaN gives the canonical NaN of the format.
func narrow(m MatType, f uint32) uint64 {
	nan := f&0x7fffffff > 0x7f800000
	switch m {
	case MatTF32:
		if nan {
			return 0x7fffffff
		}
		// Adding half an ulp of tf32 to the magnitude rounds ties away;
		// a carry into the exponent is right, up to infinity.
		return uint64((f + 0x1000) &^ 0x1fff)
	case MatBF16:
		if nan {
			return 0x7fff
		}
		return uint64((f + 0x7fff + (f >> 16 & 1)) >> 16)
	}
	return uint64(f)
}

// HalfBits rounds x to binary16, to nearest even: a tensor core's .f16 D.
func HalfBits(x float64) uint16 { return uint16(halfBitsOf(x, RoundRN)) }

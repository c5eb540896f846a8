// Package lanes applies one operation to many lanes of a warp's register at
// once, with the CPU's vector instructions where it has them (AVX2 and FMA
// on amd64: four 64-bit lanes an instruction).
//
// The PTX executor keeps a register as 32 lanes of uint64, each value in the
// low bits of its slot, zero-extended (sim/ptx's convention). Its hottest
// instructions are plain lane loops, and Go compiles those one lane at a
// time; these forms do the same work four lanes at a time and leave the
// rest to the caller.
//
// Bit0, Steps and Same read a 32-lane row. Zext32 copies words from memory
// into a run of lanes, the longest multiple of four (the caller does the
// rest; none without the vector instructions). The row forms (Add, Sub,
// ..., Setp, AddF32, ..., FmaF64) apply an operation to the lanes of a
// mask and leave the other lanes alone, so that the executor makes one
// call for an instruction, whatever lanes are active: a whole warp takes
// eight groups of four unrolled, any other mask a loop that jumps over the
// groups with no active lane and stores a partial group under a mask.
// Each returns the lanes it left to the caller, whose Go loop is the
// operation's one definition: all of them where the CPU lacks the vector
// instructions (other architectures, -tags purego), and for the float
// forms the lanes of any group of four whose result has a NaN, whose bits
// the PTX manual fixes and the caller knows (the canonical NaN for .f32,
// an operand for .f64). Destinations may alias sources: a group of four
// is read whole before it is written.
package lanes

import "math/bits"

// Setp's comparisons, after the caller has swapped the operands of the
// greater-than forms: a == b, a != b, a < b, a <= b.
const (
	Eq = iota
	Ne
	Lt
	Le
)

// Bit0 gathers bit 0 of each of a warp's 32 lanes into a mask, lane l in
// bit l: a predicate register's lanes as the warp's active mask.
func Bit0(row *[32]uint64) uint32 {
	if vector {
		return bit0Q(row)
	}
	return bit0(row)
}

func bit0(row *[32]uint64) uint32 {
	var m uint32
	for l := range 32 {
		m |= uint32(row[l]&1) << l
	}
	return m
}

// Steps is the lanes l of row that hold b0 + l*step (modulo 2^64), lane l
// in bit l: the lanes whose value lies on one line, such as the addresses
// of a load every thread makes at its own index.
func Steps(row *[32]uint64, b0, step uint64) uint32 {
	if !vector {
		return steps(row, b0, step)
	}
	return stepsQ(row, b0, step)
}

func steps(row *[32]uint64, b0, step uint64) uint32 {
	var m uint32
	for l, v := range row {
		if v == b0+uint64(l)*step {
			m |= 1 << l
		}
	}
	return m
}

// Same reports whether the lanes in mask all hold one value in row (a
// load every lane makes from one address). One lane is decided without a
// call.
func Same(row *[32]uint64, mask uint32) bool {
	if mask&(mask-1) == 0 {
		return true
	}
	return same(row, mask)
}

func same(row *[32]uint64, mask uint32) bool {
	v := row[bits.TrailingZeros32(mask)&31]
	if vector {
		return stepsQ(row, v, 0)&mask == mask
	}
	for m := mask; m != 0; m &= m - 1 {
		if row[bits.TrailingZeros32(m)&31] != v {
			return false
		}
	}
	return true
}

// Zext32 sets d[i] = uint64(s[i]): 32-bit words read from memory into
// lanes, zero-extended.
func Zext32(d []uint64, s []uint32) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return zext32(d, s)
}

func zext32(d []uint64, s []uint32) int {
	n := len(d) &^ 3
	_ = s[n-1]
	zext32Q(&d[0], &s[0], n)
	return n
}

// The row forms below apply one operation to the lanes of mask of 32-lane
// rows: lane l is in the mask where bit l is set, and lanes outside it
// keep their values in d. Each returns the lanes it left for the caller to
// do lane by lane: all of mask where the CPU lacks the vector
// instructions, none for the integer forms otherwise, and for the float
// forms the lanes of mask in any group of four (lanes 4g to 4g+3) whose
// result has a NaN. Their exported functions only check for the vector
// instructions, so that they inline into a call of the assembly.

// Add sets d = (a + b) & tm, tm being the result type's value mask
// (math.MaxUint32 for 32-bit types).
func Add(d, a, b *[32]uint64, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	addR(d, a, b, tm, mask)
	return 0
}

// Sub sets d = (a - b) & tm.
func Sub(d, a, b *[32]uint64, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	subR(d, a, b, tm, mask)
	return 0
}

// And sets d = a & b & tm.
func And(d, a, b *[32]uint64, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	andR(d, a, b, tm, mask)
	return 0
}

// Or sets d = (a | b) & tm.
func Or(d, a, b *[32]uint64, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	orR(d, a, b, tm, mask)
	return 0
}

// Xor sets d = (a ^ b) & tm.
func Xor(d, a, b *[32]uint64, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	xorR(d, a, b, tm, mask)
	return 0
}

// Shl sets d = (a << b) & tm, 0 where b > 63: shl (a 32-bit shift by 32
// or more leaves nothing in the low word).
func Shl(d, a, b *[32]uint64, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	shlR(d, a, b, tm, mask)
	return 0
}

// ShrU sets d = (a & tm) >> b, 0 where b > 63: shr.u32 and shr.u64.
func ShrU(d, a, b *[32]uint64, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	shrR(d, a, b, tm, mask)
	return 0
}

// MulLo32 sets d to the low 32 bits of uint32(a) * uint32(b): mul.lo.s32
// and mul.lo.u32.
func MulLo32(d, a, b *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	mulLoR(d, a, b, 1<<32-1, mask)
	return 0
}

// MulWideS32 sets d = int64(int32(a)) * int64(int32(b)): mul.wide.s32.
func MulWideS32(d, a, b *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	mulWideSR(d, a, b, 0, mask)
	return 0
}

// MulWideU32 sets d = uint64(uint32(a)) * uint64(uint32(b)): mul.wide.u32.
func MulWideU32(d, a, b *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	mulWideUR(d, a, b, 0, mask)
	return 0
}

// AddK sets d = (a + k) & tm: cvta's window shift, and with k = 0 a
// truncating mov or cvt.
func AddK(d, a *[32]uint64, k, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	addKR(d, a, k, tm, mask)
	return 0
}

// XorK sets d = (a ^ k) & tm: not, with k = ^0.
func XorK(d, a *[32]uint64, k, tm uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	xorKR(d, a, k, tm, mask)
	return 0
}

// A Cmp is one integer comparison for Setp: a kind (Eq, Ne, Lt or Le) at a
// width of 4 or 8 bytes, signed or not.
type Cmp uint8

// NewCmp makes the comparison of the given kind, width in bytes and
// signedness.
func NewCmp(kind, width int, signed bool) Cmp {
	c := Cmp(kind)
	if width == 4 {
		c |= cmp32
	}
	if signed {
		c |= cmpSigned
	}
	return c
}

const (
	cmpKind   Cmp = 3
	cmp32     Cmp = 4
	cmpSigned Cmp = 8
)

// Setp compares a with b lane by lane as c says and writes each result (1
// or 0) to d. It returns the results as a mask (lane 0 in bit 0, only
// lanes of mask set) and the lanes it left.
func Setp(d, a, b *[32]uint64, c Cmp, mask uint32) (res, rest uint32) {
	if !vector {
		return 0, mask
	}
	return setp(d, a, b, c, mask), 0
}

func setp(d, a, b *[32]uint64, c Cmp, mask uint32) uint32 {
	var shift, bias uint64
	if c&cmp32 != 0 {
		shift = 32 // compare the low words as the high words of 64-bit lanes
	}
	if c&cmpSigned == 0 {
		bias = 1 << 63 // an unsigned order is the signed order of a ^ 1<<63
	}
	var inv uint64
	switch c & cmpKind {
	case Eq:
		return setpEqR(d, a, b, shift, bias, 0, mask) & mask
	case Ne:
		inv = ^uint64(0)
		return setpEqR(d, a, b, shift, bias, inv, mask) & mask
	case Lt: // b > a
		return setpGtR(d, b, a, shift, bias, 0, mask) & mask
	}
	// Le: !(a > b)
	return setpGtR(d, a, b, shift, bias, ^uint64(0), mask) & mask
}

// AddF32 sets d = a + b in float32 (round to nearest even, denormals
// kept).
func AddF32(d, a, b *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	return addF32R(d, a, b, mask) & mask
}

// MulF32 sets d = a * b in float32.
func MulF32(d, a, b *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	return mulF32R(d, a, b, mask) & mask
}

// FmaF32 sets d = a*b + c in float32, rounded once (fma.rn.f32).
func FmaF32(d, a, b, c *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	return fmaF32R(d, a, b, c, mask) & mask
}

// AddF64 sets d = a + b in float64.
func AddF64(d, a, b *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	return addF64R(d, a, b, mask) & mask
}

// MulF64 sets d = a * b in float64.
func MulF64(d, a, b *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	return mulF64R(d, a, b, mask) & mask
}

// FmaF64 sets d = a*b + c in float64, rounded once (fma.rn.f64).
func FmaF64(d, a, b, c *[32]uint64, mask uint32) uint32 {
	if !vector {
		return mask
	}
	return fmaF64R(d, a, b, c, mask) & mask
}

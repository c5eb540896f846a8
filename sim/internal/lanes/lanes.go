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
// Every function takes equal-length slices (destination first), does the
// longest prefix it can (a multiple of four lanes, none where the CPU lacks
// the vector instructions) and returns its length. The exported functions
// only check that there is such a prefix, so that they inline and a run of
// fewer than four lanes costs no call; the caller runs its own
// scalar loop over what is left. Destinations may alias sources: a group of
// four is read whole before it is written. The float forms stop before a
// group whose result has a NaN, whose bits the PTX manual fixes and the
// caller knows (the canonical NaN for .f32, an operand for .f64).
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

// Add sets d = (a + b) & tm.
func Add(d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return add(d, a, b, tm)
}

func add(d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	addQ(&d[0], &a[0], &b[0], n, tm)
	return n
}

// Sub sets d = (a - b) & tm.
func Sub(d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return sub(d, a, b, tm)
}

func sub(d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	subQ(&d[0], &a[0], &b[0], n, tm)
	return n
}

// AddK sets d = (a + k) & tm: cvta's window shift, and with k = 0 a
// truncating mov or cvt.
func AddK(d, a []uint64, k, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return addK(d, a, k, tm)
}

func addK(d, a []uint64, k, tm uint64) int {
	n := len(d) &^ 3
	_ = a[n-1]
	addKQ(&d[0], &a[0], n, k, tm)
	return n
}

// XorK sets d = (a ^ k) & tm: not, with k = ^0.
func XorK(d, a []uint64, k, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return xorK(d, a, k, tm)
}

func xorK(d, a []uint64, k, tm uint64) int {
	n := len(d) &^ 3
	_ = a[n-1]
	xorKQ(&d[0], &a[0], n, k, tm)
	return n
}

// And sets d = a & b & tm.
func And(d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return and(d, a, b, tm)
}

func and(d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	andQ(&d[0], &a[0], &b[0], n, tm)
	return n
}

// Or sets d = (a | b) & tm.
func Or(d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return or(d, a, b, tm)
}

func or(d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	orQ(&d[0], &a[0], &b[0], n, tm)
	return n
}

// Xor sets d = (a ^ b) & tm.
func Xor(d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return xor(d, a, b, tm)
}

func xor(d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	xorQ(&d[0], &a[0], &b[0], n, tm)
	return n
}

// Shl sets d = (a << b) & tm, zero where b >= 64 (a shift by the lane's own
// count; PTX's shl clamps, and a 32-bit shift by 32 or more leaves nothing
// in the low word).
func Shl(d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return shl(d, a, b, tm)
}

func shl(d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	shlQ(&d[0], &a[0], &b[0], n, tm)
	return n
}

// ShrU sets d = (a & tm) >> b, zero where b >= 64: shr.u32 and shr.u64.
func ShrU(d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return shrU(d, a, b, tm)
}

func shrU(d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	shrQ(&d[0], &a[0], &b[0], n, tm)
	return n
}

// MulLo32 sets d = uint32(a) * uint32(b), the low 32 bits: mul.lo.s32 and
// mul.lo.u32.
func MulLo32(d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return mulLo32(d, a, b)
}

func mulLo32(d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	mulLo32Q(&d[0], &a[0], &b[0], n)
	return n
}

// MulWideS32 sets d = int64(int32(a)) * int64(int32(b)): mul.wide.s32.
func MulWideS32(d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return mulWideS32(d, a, b)
}

func mulWideS32(d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	mulWideS32Q(&d[0], &a[0], &b[0], n)
	return n
}

// MulWideU32 sets d = uint64(uint32(a)) * uint64(uint32(b)): mul.wide.u32.
func MulWideU32(d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return mulWideU32(d, a, b)
}

func mulWideU32(d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	mulWideU32Q(&d[0], &a[0], &b[0], n)
	return n
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

// Setp compares a with b lane by lane as c says, writes each result (1 or
// 0) to d and returns them as a mask, lane 0 in bit 0, with the number of
// lanes done.
func Setp(d, a, b []uint64, c Cmp) (mask uint32, done int) {
	if len(d) < 4 || !vector {
		return 0, 0
	}
	return setp(d, a, b, c)
}

func setp(d, a, b []uint64, c Cmp) (mask uint32, done int) {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	var shift, bias uint64
	if c&cmp32 != 0 {
		shift = 32 // compare the low words as the high words of 64-bit lanes
	}
	if c&cmpSigned == 0 {
		bias = 1 << 63 // an unsigned order is the signed order of a ^ 1<<63
	}
	pa, pb := &a[0], &b[0]
	var gt, inv uint64
	switch c & cmpKind {
	case Ne:
		inv = ^uint64(0)
	case Lt: // b > a
		gt, pa, pb = 1, pb, pa
	case Le: // !(a > b)
		gt, inv = 1, ^uint64(0)
	}
	return uint32(setpQ(&d[0], pa, pb, n, shift, bias, gt, inv)), n
}

// AddF32 sets d = a + b in float32 (round to nearest even, denormals kept).
func AddF32(d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return addF32(d, a, b)
}

func addF32(d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	return addF32Q(&d[0], &a[0], &b[0], n)
}

// MulF32 sets d = a * b in float32.
func MulF32(d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return mulF32(d, a, b)
}

func mulF32(d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	return mulF32Q(&d[0], &a[0], &b[0], n)
}

// FmaF32 sets d = a*b + c in float32, rounded once (fma.rn.f32).
func FmaF32(d, a, b, c []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return fmaF32(d, a, b, c)
}

func fmaF32(d, a, b, c []uint64) int {
	n := len(d) &^ 3
	_, _, _ = a[n-1], b[n-1], c[n-1]
	return fmaF32Q(&d[0], &a[0], &b[0], &c[0], n)
}

// AddF64 sets d = a + b in float64.
func AddF64(d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return addF64(d, a, b)
}

func addF64(d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	return addF64Q(&d[0], &a[0], &b[0], n)
}

// MulF64 sets d = a * b in float64.
func MulF64(d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return mulF64(d, a, b)
}

func mulF64(d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	return mulF64Q(&d[0], &a[0], &b[0], n)
}

// FmaF64 sets d = a*b + c in float64, rounded once (fma.rn.f64).
func FmaF64(d, a, b, c []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return fmaF64(d, a, b, c)
}

func fmaF64(d, a, b, c []uint64) int {
	n := len(d) &^ 3
	_, _, _ = a[n-1], b[n-1], c[n-1]
	return fmaF64Q(&d[0], &a[0], &b[0], &c[0], n)
}

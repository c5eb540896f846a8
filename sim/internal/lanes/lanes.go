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
// Bit0, Steps and Same read a whole 32-lane row. Every other function
// takes equal-length slices (destination first), does the
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

// An Op is the operation of Int, Float32, Float64 and Const.
type Op uint8

// The operations. Int applies each as its comment says, tm being the
// result type's value mask (math.MaxUint32 for 32-bit types); Float32 and
// Float64 take Add and Mul; Const takes Add and Xor.
const (
	Add        Op = iota // (a + b) & tm
	Sub                  // (a - b) & tm
	And                  // a & b & tm
	Or                   // (a | b) & tm
	Xor                  // (a ^ b) & tm
	Shl                  // (a << b) & tm, 0 where b > 63: shl (a 32-bit shift by 32 or more leaves nothing in the low word)
	ShrU                 // (a & tm) >> b, 0 where b > 63: shr.u32 and shr.u64
	Mul                  // Float32 and Float64 only
	MulLo32              // uint32(a) * uint32(b), the low 32 bits: mul.lo.s32 and mul.lo.u32
	MulWideS32           // int64(int32(a)) * int64(int32(b)): mul.wide.s32
	MulWideU32           // uint64(uint32(a)) * uint64(uint32(b)): mul.wide.u32
)

// Int sets d = op(a, b) lane by lane for an integer op.
func Int(op Op, d, a, b []uint64, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return intOp(op, d, a, b, tm)
}

func intOp(op Op, d, a, b []uint64, tm uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	pd, pa, pb := &d[0], &a[0], &b[0]
	switch op {
	case Add:
		addQ(pd, pa, pb, n, tm)
	case Sub:
		subQ(pd, pa, pb, n, tm)
	case And:
		andQ(pd, pa, pb, n, tm)
	case Or:
		orQ(pd, pa, pb, n, tm)
	case Xor:
		xorQ(pd, pa, pb, n, tm)
	case Shl:
		shlQ(pd, pa, pb, n, tm)
	case ShrU:
		shrQ(pd, pa, pb, n, tm)
	case MulLo32:
		mulLo32Q(pd, pa, pb, n)
	case MulWideS32:
		mulWideS32Q(pd, pa, pb, n)
	case MulWideU32:
		mulWideU32Q(pd, pa, pb, n)
	default:
		return 0
	}
	return n
}

// Const sets d = (a + k) & tm (op Add: cvta's window shift, and with k = 0
// a truncating mov or cvt) or d = (a ^ k) & tm (op Xor: not, with k = ^0).
func Const(op Op, d, a []uint64, k, tm uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return constOp(op, d, a, k, tm)
}

func constOp(op Op, d, a []uint64, k, tm uint64) int {
	n := len(d) &^ 3
	_ = a[n-1]
	switch op {
	case Add:
		addKQ(&d[0], &a[0], n, k, tm)
	case Xor:
		xorKQ(&d[0], &a[0], n, k, tm)
	default:
		return 0
	}
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

// Float32 sets d = op(a, b) in float32 (op Add or Mul; round to nearest
// even, denormals kept).
func Float32(op Op, d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return float32Op(op, d, a, b)
}

func float32Op(op Op, d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	switch op {
	case Add:
		return addF32Q(&d[0], &a[0], &b[0], n)
	case Mul:
		return mulF32Q(&d[0], &a[0], &b[0], n)
	}
	return 0
}

// Float64 sets d = op(a, b) in float64 (op Add or Mul).
func Float64(op Op, d, a, b []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return float64Op(op, d, a, b)
}

func float64Op(op Op, d, a, b []uint64) int {
	n := len(d) &^ 3
	_, _ = a[n-1], b[n-1]
	switch op {
	case Add:
		return addF64Q(&d[0], &a[0], &b[0], n)
	case Mul:
		return mulF64Q(&d[0], &a[0], &b[0], n)
	}
	return 0
}

// Fma32 sets d = a*b + c in float32, rounded once (fma.rn.f32).
func Fma32(d, a, b, c []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return fma32(d, a, b, c)
}

func fma32(d, a, b, c []uint64) int {
	n := len(d) &^ 3
	_, _, _ = a[n-1], b[n-1], c[n-1]
	return fmaF32Q(&d[0], &a[0], &b[0], &c[0], n)
}

// Fma64 sets d = a*b + c in float64, rounded once (fma.rn.f64).
func Fma64(d, a, b, c []uint64) int {
	if len(d) < 4 || !vector {
		return 0
	}
	return fma64(d, a, b, c)
}

func fma64(d, a, b, c []uint64) int {
	n := len(d) &^ 3
	_, _, _ = a[n-1], b[n-1], c[n-1]
	return fmaF64Q(&d[0], &a[0], &b[0], &c[0], n)
}

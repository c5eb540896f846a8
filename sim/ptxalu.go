package sim

import (
	"math"
	"math/bits"

	"github.com/warplab/warplab/sim/internal/lanes"
	"github.com/warplab/warplab/sim/ptx"
)

// The executor's arithmetic. The per-lane semantics of every arithmetic,
// logic, cvt, setp, selp and mov instruction live in ptx.Eval (one place,
// tested against the PTX manual). The hottest forms in lesson kernels
// (integer address arithmetic, 32-bit compares, f32 fma) also have a fast
// path here that runs the whole warp in one tight loop instead of one Eval
// call per lane; each must give Eval's bits exactly, which
// TestPTXFastPathMatchesEval checks.
//
// Register convention: ptx.Eval's (see sim/ptx/alu.go): a value sits in the
// low bits of its 64-bit slot, zero-extended for signed types too;
// predicates are 0 or 1; float NaN results are the GPU's canonical NaN.

// ptxEval is ptx.Eval, through a variable so tests can compare the fast
// paths against it.
var ptxEval = ptx.Eval

// f32res and f64res are a fast path's float result; a NaN result goes to
// ptx.Eval, which knows which NaN the hardware gives (the canonical one for
// .f32; for .f64 a propagated operand).
func f32res(v float32, in *ptx.Instr, a, b, c uint64) uint64 {
	if v != v {
		return nanRes(in, a, b, c)
	}
	return uint64(math.Float32bits(v))
}

func f64res(v float64, in *ptx.Instr, a, b, c uint64) uint64 {
	if v != v {
		return nanRes(in, a, b, c)
	}
	return math.Float64bits(v)
}

// nanRes is kept out of line so that f32res and f64res inline.
//
//go:noinline
func nanRes(in *ptx.Instr, a, b, c uint64) uint64 {
	r, _ := ptxEval(in, a, b, c, 0)
	return r
}

// Fast-path classes.
const (
	fNone uint8 = iota
	fMov
	fAdd32
	fAdd64
	fSub32
	fSub64
	fMulLo32
	fMulLo64
	fMulWideS32
	fMulWideU32
	fMadLo32
	fMadWideS32
	fMadWideU32
	fShl32
	fShl64
	fShrU32
	fShrS32
	fShrU64
	fShrS64
	fAnd
	fOr
	fXor
	fSetpI
	fSelp
	fCvtU64U32
	fCvtS64S32
	fCvtU32U64
	fAddF32
	fMulF32
	fFmaF32
	fAddF64
	fMulF64
	fFmaF64
	fNot
)

// fastClass picks the fast path for in, fNone when Eval must run it.
func fastClass(in *ptx.Instr) uint8 {
	t := in.Type
	is32 := t == ptx.S32 || t == ptx.U32 || t == ptx.B32
	is64 := t == ptx.S64 || t == ptx.U64 || t == ptx.B64
	if in.Sat || in.Ftz || in.Half != ptx.HalfNone || in.CarryIn || in.CarryOut {
		return fNone // packed and bfloat16 arithmetic: ptx.Eval only
	}
	for i := 0; i < int(in.NSrc); i++ {
		if in.Src[i].Kind == ptx.OpdVec {
			return fNone
		}
	}
	switch in.Op {
	case ptx.OpMov:
		if in.Dst[0].Kind == ptx.OpdReg && in.Src[0].Kind != ptx.OpdVec {
			return fMov
		}
	case ptx.OpAdd:
		switch {
		case is32:
			return fAdd32
		case is64:
			return fAdd64
		case t == ptx.F32 && in.Round <= ptx.RoundRN:
			return fAddF32
		case t == ptx.F64 && in.Round <= ptx.RoundRN:
			return fAddF64
		}
	case ptx.OpSub:
		switch {
		case is32:
			return fSub32
		case is64:
			return fSub64
		}
	case ptx.OpMul:
		switch {
		case is32 && in.Mul == ptx.MulLo:
			return fMulLo32
		case is64 && in.Mul == ptx.MulLo:
			return fMulLo64
		case t == ptx.S32 && in.Mul == ptx.MulWide:
			return fMulWideS32
		case t == ptx.U32 && in.Mul == ptx.MulWide:
			return fMulWideU32
		case t == ptx.F32 && in.Round <= ptx.RoundRN:
			return fMulF32
		case t == ptx.F64 && in.Round <= ptx.RoundRN:
			return fMulF64
		}
	case ptx.OpMad:
		switch {
		case is32 && in.Mul == ptx.MulLo:
			return fMadLo32
		case t == ptx.S32 && in.Mul == ptx.MulWide:
			return fMadWideS32
		case t == ptx.U32 && in.Mul == ptx.MulWide:
			return fMadWideU32
		}
	case ptx.OpFma:
		switch {
		case t == ptx.F32 && in.Round == ptx.RoundRN:
			return fFmaF32
		case t == ptx.F64 && in.Round == ptx.RoundRN:
			return fFmaF64
		}
	case ptx.OpShl:
		switch {
		case is32:
			return fShl32
		case is64:
			return fShl64
		}
	case ptx.OpShr:
		switch t {
		case ptx.U32, ptx.B32:
			return fShrU32
		case ptx.S32:
			return fShrS32
		case ptx.U64, ptx.B64:
			return fShrU64
		case ptx.S64:
			return fShrS64
		}
	case ptx.OpAnd, ptx.OpOr, ptx.OpXor, ptx.OpNot:
		if is32 || is64 || t == ptx.Pred {
			return map[ptx.Opcode]uint8{ptx.OpAnd: fAnd, ptx.OpOr: fOr, ptx.OpXor: fXor, ptx.OpNot: fNot}[in.Op]
		}
	case ptx.OpSetp:
		if in.Bool == ptx.BoolNone && (is32 || is64) && in.Cmp >= ptx.CmpEq && in.Cmp <= ptx.CmpHs {
			return fSetpI
		}
	case ptx.OpSelp:
		return fSelp
	case ptx.OpCvt:
		switch {
		case t == ptx.U64 && in.SrcType == ptx.U32, t == ptx.S64 && in.SrcType == ptx.U32:
			return fCvtU64U32
		case t == ptx.S64 && in.SrcType == ptx.S32, t == ptx.U64 && in.SrcType == ptx.S32:
			return fCvtS64S32
		case (t == ptx.U32 || t == ptx.S32) && (in.SrcType == ptx.U64 || in.SrcType == ptx.S64):
			return fCvtU32U64
		}
	}
	return fNone
}

// alu runs an arithmetic, logic, cvt, setp, selp or mov instruction on the
// lanes in mask.
//
// A fast path with a vector form hands it the whole rows and the mask
// (package lanes: one call, whatever lanes are active) and runs its Go
// loop on the lanes the form leaves: none, or a float form's groups with a
// NaN, or all of them without AVX2. That loop, and the fast paths with no
// vector form, walk the mask as runs of consecutive lanes (laneRun), each
// a plain loop over subslices that the compiler checks for bounds once,
// not once a lane.
func (e *ptxWorker) alu(wp *pwarp, x *xin, mask uint32) *Fault {
	in := x.in
	a := e.src(wp, &x.src[0], 0)
	b := e.src(wp, &x.src[1], 1)
	if x.fast == fSetpI && in.NDst == 1 && x.setpKind != setpGeneral {
		e.setpInt(wp, x, a, b, mask)
		return nil
	}
	d := e.dst(wp, &x.dst[0], 0)
	switch x.fast {
	case fMov:
		if x.movCopy {
			// The source is already canonical at the type's width.
			if mask == fullMask {
				*d = *a
				return nil
			}
			for m := mask; m != 0; {
				lo, hi, rest := laneRun(m)
				m = rest
				copy(d[lo:hi], a[lo:hi])
			}
			return nil
		}
		tm := x.tmask
		for m := lanes.AddK(d, a, 0, tm, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar := d[lo:hi], a[lo:hi]
			for i := range dr {
				dr[i] = ar[i] & tm
			}
		}
		return nil
	case fAdd32:
		for m := lanes.Add(d, a, b, math.MaxUint32, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i] + br[i]))
			}
		}
		return nil
	case fAdd64:
		for m := lanes.Add(d, a, b, ^uint64(0), mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = ar[i] + br[i]
			}
		}
		return nil
	case fSub32:
		for m := lanes.Sub(d, a, b, math.MaxUint32, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i] - br[i]))
			}
		}
		return nil
	case fSub64:
		for m := lanes.Sub(d, a, b, ^uint64(0), mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = ar[i] - br[i]
			}
		}
		return nil
	case fMulLo32:
		for m := lanes.MulLo32(d, a, b, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i]) * uint32(br[i]))
			}
		}
		return nil
	case fMulLo64:
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = ar[i] * br[i]
			}
		}
		return nil
	case fMulWideS32:
		for m := lanes.MulWideS32(d, a, b, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(int64(int32(ar[i])) * int64(int32(br[i])))
			}
		}
		return nil
	case fMulWideU32:
		for m := lanes.MulWideU32(d, a, b, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i])) * uint64(uint32(br[i]))
			}
		}
		return nil
	case fMadLo32:
		c := e.src(wp, &x.src[2], 2)
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br, cr := d[lo:hi], a[lo:hi], b[lo:hi], c[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i])*uint32(br[i]) + uint32(cr[i]))
			}
		}
		return nil
	case fMadWideS32:
		c := e.src(wp, &x.src[2], 2)
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br, cr := d[lo:hi], a[lo:hi], b[lo:hi], c[lo:hi]
			for i := range dr {
				dr[i] = uint64(int64(int32(ar[i]))*int64(int32(br[i]))) + cr[i]
			}
		}
		return nil
	case fMadWideU32:
		c := e.src(wp, &x.src[2], 2)
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br, cr := d[lo:hi], a[lo:hi], b[lo:hi], c[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i]))*uint64(uint32(br[i])) + cr[i]
			}
		}
		return nil
	case fShl32:
		for m := lanes.Shl(d, a, b, math.MaxUint32, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i]) << uint32(br[i]))
			}
		}
		return nil
	case fShl64:
		for m := lanes.Shl(d, a, b, ^uint64(0), mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = ar[i] << uint32(br[i])
			}
		}
		return nil
	case fShrU32:
		for m := lanes.ShrU(d, a, b, math.MaxUint32, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i]) >> uint32(br[i]))
			}
		}
		return nil
	case fShrS32:
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(int32(ar[i]) >> uint32(br[i])))
			}
		}
		return nil
	case fShrU64:
		for m := lanes.ShrU(d, a, b, ^uint64(0), mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = ar[i] >> uint32(br[i])
			}
		}
		return nil
	case fShrS64:
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = uint64(int64(ar[i]) >> uint32(br[i]))
			}
		}
		return nil
	case fAnd:
		tm := x.tmask
		for m := lanes.And(d, a, b, tm, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = ar[i] & br[i] & tm
			}
		}
		return nil
	case fOr:
		tm := x.tmask
		for m := lanes.Or(d, a, b, tm, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = (ar[i] | br[i]) & tm
			}
		}
		return nil
	case fXor:
		tm := x.tmask
		for m := lanes.Xor(d, a, b, tm, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = (ar[i] ^ br[i]) & tm
			}
		}
		return nil
	case fNot:
		tm := x.tmask
		for m := lanes.XorK(d, a, ^uint64(0), tm, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar := d[lo:hi], a[lo:hi]
			for i := range dr {
				dr[i] = ^ar[i] & tm
			}
		}
		return nil
	case fSelp:
		c := e.src(wp, &x.src[2], 2)
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br, cr := d[lo:hi], a[lo:hi], b[lo:hi], c[lo:hi]
			for i := range dr {
				dr[i] = selp(ar[i], br[i], cr[i])
			}
		}
		return nil
	case fCvtU64U32, fCvtU32U64:
		for m := lanes.AddK(d, a, 0, math.MaxUint32, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar := d[lo:hi], a[lo:hi]
			for i := range dr {
				dr[i] = uint64(uint32(ar[i]))
			}
		}
		return nil
	case fCvtS64S32:
		for m := mask; m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar := d[lo:hi], a[lo:hi]
			for i := range dr {
				dr[i] = uint64(int64(int32(ar[i])))
			}
		}
		return nil
	case fAddF32:
		for m := lanes.AddF32(d, a, b, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = f32res(math.Float32frombits(uint32(ar[i]))+math.Float32frombits(uint32(br[i])), in, ar[i], br[i], 0)
			}
		}
		return nil
	case fMulF32:
		for m := lanes.MulF32(d, a, b, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = f32res(math.Float32frombits(uint32(ar[i]))*math.Float32frombits(uint32(br[i])), in, ar[i], br[i], 0)
			}
		}
		return nil
	case fFmaF32:
		c := e.src(wp, &x.src[2], 2)
		for m := lanes.FmaF32(d, a, b, c, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br, cr := d[lo:hi], a[lo:hi], b[lo:hi], c[lo:hi]
			for i := range dr {
				dr[i] = f32res(ptx.FmaRN32(math.Float32frombits(uint32(ar[i])), math.Float32frombits(uint32(br[i])), math.Float32frombits(uint32(cr[i]))), in, ar[i], br[i], cr[i])
			}
		}
		return nil
	case fAddF64:
		for m := lanes.AddF64(d, a, b, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = f64res(math.Float64frombits(ar[i])+math.Float64frombits(br[i]), in, ar[i], br[i], 0)
			}
		}
		return nil
	case fMulF64:
		for m := lanes.MulF64(d, a, b, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
			for i := range dr {
				dr[i] = f64res(math.Float64frombits(ar[i])*math.Float64frombits(br[i]), in, ar[i], br[i], 0)
			}
		}
		return nil
	case fFmaF64:
		c := e.src(wp, &x.src[2], 2)
		for m := lanes.FmaF64(d, a, b, c, mask); m != 0; {
			lo, hi, rest := laneRun(m)
			m = rest
			dr, ar, br, cr := d[lo:hi], a[lo:hi], b[lo:hi], c[lo:hi]
			for i := range dr {
				dr[i] = f64res(math.FMA(math.Float64frombits(ar[i]), math.Float64frombits(br[i]), math.Float64frombits(cr[i])), in, ar[i], br[i], cr[i])
			}
		}
		return nil
	case fSetpI:
		// The general form, cmpKey: setp with a second, negated
		// destination (setp %p|%q), or a table setpKind does not reduce.
		flip, km, tbl := x.cmpFlip, x.cmpMask, x.cmpTbl
		var q *[32]uint64
		if in.NDst > 1 {
			q = e.dst(wp, &x.dst[1], 1)
		}
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			r := cmpKey(a[l], b[l], flip, km, tbl)
			d[l] = r
			if q != nil {
				q[l] = r ^ 1
			}
		}
		return nil
	}
	c := e.src(wp, &x.src[2], 2)
	s3 := e.src(wp, &x.src[3], 3)
	var d1 *[32]uint64
	if in.NDst > 1 {
		d1 = e.dst(wp, &x.dst[1], 1)
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		r0, r1 := ptxEval(in, a[l], b[l], c[l], s3[l])
		d[l] = r0
		if d1 != nil {
			d1[l] = r1
		}
	}
	return nil
}

// laneRun splits the lowest run of consecutive lanes off a mask m != 0: the
// run is lanes lo to hi-1 and rest is m without it. (A shift by 32 gives 0
// in Go, so the run that ends at lane 31 clears every bit.)
func laneRun(m uint32) (lo, hi int, rest uint32) {
	lo = bits.TrailingZeros32(m)
	hi = lo + bits.TrailingZeros32(^(m >> lo))
	return lo, hi, m &^ (uint32(1)<<hi - 1)
}

// Integer setp's comparisons after decode (setpKind); greater-than forms
// swap their operands. The four comparisons are lanes.Setp's kinds.
const (
	setpEq      uint8 = lanes.Eq
	setpNe      uint8 = lanes.Ne
	setpLt      uint8 = lanes.Lt
	setpLe      uint8 = lanes.Le
	setpGeneral uint8 = 4 // a table setpKind does not know: cmpKey
)

// setpKind reduces cmpKey's truth table to one comparison, reporting
// whether the operands swap (a > b is b < a).
func setpKind(tbl uint8) (kind uint8, swap bool) {
	const gt, eq, lt = 1, 2, 4
	switch tbl {
	case eq:
		return setpEq, false
	case gt | lt:
		return setpNe, false
	case lt:
		return setpLt, false
	case lt | eq:
		return setpLe, false
	case gt:
		return setpLt, true
	case gt | eq:
		return setpLe, true
	}
	return setpGeneral, false
}

// Operand types of an integer setp (xin.setpType): the Go type whose
// comparison is the instruction's, so a lane is one compare of the
// registers' low bits.
const (
	setpU32 uint8 = iota
	setpS32
	setpU64
	setpS64
)

// setpTypeOf is the comparison type of an integer setp: the instruction
// type's width, signed unless the type is unsigned or the comparison one
// of the unsigned ones (lo, ls, hi, hs), as in setpTable.
func setpTypeOf(in *ptx.Instr) uint8 {
	flip, km, _ := setpTable(in)
	switch {
	case km == 0xffffffff && flip == 0:
		return setpU32
	case km == 0xffffffff:
		return setpS32
	case flip == 0:
		return setpU64
	}
	return setpS64
}

// setpInt runs an integer setp with one destination: lanes.Setp, and for
// the lanes it leaves one loop per comparison and operand type
// (setpLanes), so a lane costs a compare and no table lookup. The lanes' results also go to the warp's cache of
// predicate bits (pwarp.pbits), so the guard that reads the predicate next
// need not gather them again: for a full warp always, for fewer lanes when
// the cache held the other lanes' bits before the write.
func (e *ptxWorker) setpInt(wp *pwarp, x *xin, a, b *[32]uint64, mask uint32) {
	o := &x.dst[0]
	var d *[32]uint64
	var old uint32
	cached, oldValid := false, false
	if o.kind == oReg && int(o.idx) < len(wp.pvalid) {
		// dst's work, with the cache's state before the write kept.
		cached = true
		old, oldValid = wp.pbits[o.idx], wp.pvalid[o.idx]
		wp.pvalid[o.idx] = false
		d = &wp.regs[o.idx]
	} else {
		d = e.dst(wp, o, 0)
	}
	if x.setpSwap {
		a, b = b, a
	}
	pm, left := lanes.Setp(d, a, b, x.setpCmp, mask)
	for m := left; m != 0; {
		lo, hi, rest := laneRun(m)
		m = rest
		dr, ar, br := d[lo:hi], a[lo:hi], b[lo:hi]
		var pb uint32
		switch x.setpType {
		case setpU32:
			pb = setpLanes[uint32](x.setpKind, dr, ar, br)
		case setpS32:
			pb = setpLanes[int32](x.setpKind, dr, ar, br)
		case setpU64:
			pb = setpLanes[uint64](x.setpKind, dr, ar, br)
		default:
			pb = setpLanes[int64](x.setpKind, dr, ar, br)
		}
		pm |= pb << lo
	}
	if cached && (mask == fullMask || oldValid) {
		wp.pbits[o.idx], wp.pvalid[o.idx] = old&^mask|pm, true
	}
}

// setpLanes compares ar with br lane by lane as T, writes each result (1
// or 0) to dr and returns them as a mask, lane 0 in bit 0. The mask is
// gathered from the top lane down, a shift by one a lane. Each integer
// type T is its own instantiation, with T's own compare.
func setpLanes[T int32 | uint32 | int64 | uint64](kind uint8, dr, ar, br []uint64) uint32 {
	ar, br = ar[:len(dr)], br[:len(dr)]
	var pb uint32
	switch kind {
	case setpEq:
		for i := len(dr) - 1; i >= 0; i-- {
			r := b2u(T(ar[i]) == T(br[i]))
			dr[i] = r
			pb = pb<<1 | uint32(r)
		}
	case setpNe:
		for i := len(dr) - 1; i >= 0; i-- {
			r := b2u(T(ar[i]) != T(br[i]))
			dr[i] = r
			pb = pb<<1 | uint32(r)
		}
	case setpLt:
		for i := len(dr) - 1; i >= 0; i-- {
			r := b2u(T(ar[i]) < T(br[i]))
			dr[i] = r
			pb = pb<<1 | uint32(r)
		}
	default:
		for i := len(dr) - 1; i >= 0; i-- {
			r := b2u(T(ar[i]) <= T(br[i]))
			dr[i] = r
			pb = pb<<1 | uint32(r)
		}
	}
	return pb
}

const fullMask = ^uint32(0)

func selp(a, b, c uint64) uint64 {
	if c&1 != 0 {
		return a
	}
	return b
}

// cmpKey is setp's integer comparison of a and b, 1 or 0: the operands
// masked to their width and, for signed comparisons, with the sign bit
// flipped, compare as unsigned; tbl holds the result for greater (bit 0),
// equal (bit 1) and less (bit 2).
func cmpKey(a, b, flip, km uint64, tbl uint8) uint64 {
	ka, kb := (a&km)^flip, (b&km)^flip
	var idx uint
	if ka == kb {
		idx = 1
	}
	if ka < kb {
		idx = 2
	}
	return uint64(tbl>>idx) & 1
}

// setpTable prepares cmpKey's operands for an integer setp.
func setpTable(in *ptx.Instr) (flip, km uint64, tbl uint8) {
	km = typeMask(in.Type)
	signed := in.Type.IsSigned()
	switch in.Cmp {
	case ptx.CmpLo, ptx.CmpLs, ptx.CmpHi, ptx.CmpHs:
		signed = false
	}
	if signed {
		flip = (km >> 1) + 1
	}
	const gt, eq, lt = 1, 2, 4
	switch in.Cmp {
	case ptx.CmpEq:
		tbl = eq
	case ptx.CmpNe:
		tbl = gt | lt
	case ptx.CmpLt, ptx.CmpLo:
		tbl = lt
	case ptx.CmpLe, ptx.CmpLs:
		tbl = lt | eq
	case ptx.CmpGt, ptx.CmpHi:
		tbl = gt
	case ptx.CmpGe, ptx.CmpHs:
		tbl = gt | eq
	}
	return flip, km, tbl
}

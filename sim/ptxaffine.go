package sim

import (
	"math/bits"
	"slices"
	"unsafe"

	"github.com/warplab/warplab/sim/ptx"
)

// Affine registers. Much of what a warp computes is the same on every
// lane (a row index, a parameter, a bound loaded from one address) or
// steps by a constant from lane to lane (a thread index, the address of a
// coalesced load): Collange, Defour and Tisserand measured most registers
// of GPU kernels to be uniform or affine most of the time ("Dynamic
// detection of uniform and affine vectors in GPGPU computations", 2009),
// and GPUs since Volta keep uniform values in their own registers for the
// same reason. The executor keeps such a register as two numbers, base and
// step, instead of 32 lanes: an add of two affine registers is one add of
// bases and one of steps, not 32 adds and 32 stores. The lanes are written
// out (pwarp.fill) only when an instruction that works lane by lane reads
// them.
//
// The form is an optimisation only: every counter, value and fault is the
// one the lane-by-lane path gives, which TestPTXAffineMatchesLanes checks
// by running kernels both ways.

// affv is what the executor knows about one register beyond its row.
type affv struct {
	// ok: lane l of the register holds (base + step·l) & wm, on all 32
	// lanes.
	ok bool
	// stale: the row is not written. The value is the affine form when
	// ok, else (a predicate) bits.
	stale bool
	// bitsOK: bits holds the register's lanes as a mask (lane l true
	// when bit l is set): what a guard or a branch reads of a predicate.
	// Kept as a cache of the row too, valid until the register is
	// written (every write goes through dst, setAff or setBits).
	bitsOK         bool
	bits           uint32
	base, step, wm uint64
}

// uniform reports whether a is known to hold one value on every lane.
func (a *affv) uniform() bool { return a.ok && a.step == 0 }

// fill writes register r's row when only its affine form or its predicate
// bits hold its value.
func (wp *pwarp) fill(r int32) {
	a := &wp.aff[r]
	if !a.stale {
		return
	}
	a.stale = false
	row := &wp.regs[r]
	if a.ok {
		v, s, wm := a.base, a.step, a.wm
		for l := 0; l < 32; l += 4 {
			row[l], row[l+1], row[l+2], row[l+3] = v&wm, (v+s)&wm, (v+2*s)&wm, (v+3*s)&wm
			v += 4 * s
		}
		return
	}
	b := a.bits
	for l := range row {
		row[l] = uint64(b>>l) & 1
	}
}

// written readies register r for a write lane by lane: its row holds its
// value (the lanes not written keep theirs) and no other form is claimed.
func (wp *pwarp) written(r int32) {
	if wp.aff[r].stale {
		wp.fill(r)
	}
	wp.aff[r].ok, wp.aff[r].bitsOK = false, false
}

// setBits makes predicate register r's value the mask bits (lane l true
// when bit l is set), its row left unwritten unless an instruction reads
// the register lane by lane (PTXKernel.laneRead).
func (e *ptxWorker) setBits(wp *pwarp, r int32, b uint32) {
	wasStale := wp.aff[r].stale
	wp.aff[r] = affv{stale: true, bitsOK: true, bits: b}
	e.formed(wp, r, wasStale)
}

// formed ends setAff and setBits: the register's row is written now if
// an instruction reads it lane by lane or the warp runs without forms
// (formsOn); else it is listed as unwritten (pwarp.stale).
func (e *ptxWorker) formed(wp *pwarp, r int32, wasStale bool) {
	switch {
	case e.l.pk.laneRead[r] || !e.formsOn:
		wp.fill(r)
	case !wasStale:
		*wp.stale = append(*wp.stale, r)
	}
}

// formsOff leaves no register of the warp with an unwritten row: the warp
// goes on at pc with too few lanes for forms to pay (runWarp), and with no
// row unwritten the instructions that run lane by lane need not check
// theirs. A register that no lane can read again (live neither at pc, for
// the active lanes, nor where a waiting lane resumes) is not written out
// but dropped: its next write, before any read, replaces it.
func (e *ptxWorker) formsOff(wp *pwarp, pc int32) {
	pk := e.l.pk
	need := e.need
	if pk.liveIn != nil {
		copy(need, pk.liveIn[int(pc)*pk.liveWords:][:pk.liveWords])
		for i := range len(wp.stack) - 1 {
			if en := &wp.stack[i]; en.mask&wp.live&^e.act != 0 {
				for w, v := range pk.liveIn[int(en.pc)*pk.liveWords:][:pk.liveWords] {
					need[w] |= v
				}
			}
		}
	}
	for _, r := range *wp.stale {
		switch a := &wp.aff[r]; {
		case !a.stale:
		case pk.liveIn == nil || need[r>>6]&(1<<(r&63)) != 0:
			wp.fill(r)
		default:
			*a = affv{}
		}
	}
	*wp.stale = (*wp.stale)[:0]
}

// whole reports whether an instruction on the lanes in exec may write
// register r for all 32 lanes. Lanes outside exec that may still read r
// must keep their values: those the instruction's guard turned off run
// on, and those waiting on the reconvergence stack resume where r may be
// live. Lanes that have exited read nothing.
//
// It also declines when few lanes execute: a form's arithmetic costs about
// what a few lanes' does, and a register in a form that a lane-by-lane
// instruction then reads has its 32 lanes written out (fill), so below
// minFormLanes lanes (a loop's last straggler lanes, say) the lanes are
// cheaper.
func (e *ptxWorker) whole(wp *pwarp, exec uint32, r int32) bool {
	if !e.formsOn || exec != e.act {
		return false
	}
	return exec == wp.live || e.wholeLive(wp, exec, r)
}

// minFormLanes is the fewest active lanes with which a warp keeps
// registers in forms (ptxWorker.formsOn). A form's arithmetic costs about
// what a few lanes' does, while the checks that forms need cost every
// instruction that runs lane by lane: with fewer lanes (a loop's last
// straggling lanes, say) rows alone are cheaper. Measured on the Day-37
// kernels (docs/design-notes.md): with forms on one lane, thread per row on
// the skewed seed matrix, whose loops end with one lane running, took a
// quarter longer than with rows alone.
const minFormLanes = 8

// wholeLive is whole for a warp whose other live lanes wait on its
// reconvergence stack: r must not be live where any of them resumes.
//
// The registers live where the waiting lanes resume are gathered once
// each time the active mask changes (waiting), so that a check is one
// bit test.
func (e *ptxWorker) wholeLive(wp *pwarp, exec uint32, r int32) bool {
	pk := e.l.pk
	if pk.liveIn == nil {
		return false
	}
	if !e.waitOK {
		// exec == e.act here: the lanes outside it wait on the stack.
		clear(e.waiting)
		for i := range len(wp.stack) - 1 {
			en := &wp.stack[i]
			if en.mask&wp.live&^exec == 0 {
				continue
			}
			row := pk.liveIn[int(en.pc)*pk.liveWords:][:pk.liveWords]
			for w, v := range row {
				e.waiting[w] |= v
			}
		}
		e.waitOK = true
	}
	return e.waiting[r>>6]&(1<<(r&63)) == 0
}

// setAff gives register r the affine value (base, step, wm) on all lanes,
// its row unwritten unless an instruction reads the register lane by lane
// (PTXKernel.laneRead).
func (e *ptxWorker) setAff(wp *pwarp, r int32, base, step, wm uint64) {
	a := &wp.aff[r]
	wasStale := a.stale
	a.ok, a.stale, a.bitsOK, a.base, a.step, a.wm = true, true, false, base, step, wm
	e.formed(wp, r, wasStale)
}

// prep writes the rows that only a form holds of x's registers, before x
// runs lane by lane (xin.prep): its sources, when x is one of the
// instructions that read registers in forms (aluAff's, setpAff's, cvta's;
// a register any other instruction reads always has its row written,
// setAff), and its destinations, whose lanes x does not write must keep
// their values.
func (e *ptxWorker) prep(wp *pwarp, x *xin) {
	for _, r := range x.prepRegs {
		if wp.aff[r].stale {
			wp.fill(r)
		}
	}
}

// opAff is source operand o's affine form (lane l holds (base + step·l) &
// wm), ok false when o has none.
func (e *ptxWorker) opAff(wp *pwarp, o *xopd) (base, step, wm uint64, ok bool) {
	switch o.kind {
	case oReg:
		a := &wp.aff[o.idx]
		return a.base, a.step, a.wm, a.ok && !o.neg
	case oImm:
		return o.imm, 0, wm64, true
	case oSpec:
		a := &wp.specAff[o.idx]
		return a.base, a.step, a.wm, a.ok
	}
	return 0, 0, 0, false
}

// detectAff is row's affine form, if it has one.
func detectAff(row *[32]uint64) affv {
	b, s := row[0], row[1]-row[0]
	v := b
	for l := range row {
		if row[l] != v {
			return affv{}
		}
		v += s
	}
	return affv{ok: true, base: b, step: s, wm: wm64}
}

const (
	wm32 = uint64(0xffffffff)
	wm64 = ^uint64(0)
)

// A range check (nothing wraps) on an affine result need only cover the
// executing lanes, lo to hi: the result's form holds on all 32 lanes by
// construction, and the lanes outside exec are ones whole has allowed to
// be overwritten with any value.

// run reads the lanes lo to hi of (base, step) as w-bit integers (w 32 or
// less; signed or not) and returns the value at lo and the step, or false
// when the lanes wrap around the width between them.
func run(base, step, wm uint64, w uint, signed bool, lo, hi uint64) (v0, s int64, ok bool) {
	m := uint64(1)<<w - 1
	if wm&m != m {
		return 0, 0, false
	}
	sh := 64 - w
	s = int64(step<<sh) >> sh
	v := (base + step*lo) & m
	if signed {
		v0 = int64(v<<sh) >> sh
	} else {
		v0 = int64(v)
	}
	// |s| < 2^31 and hi-lo < 32 keep this in an int64.
	v1 := v0 + s*int64(hi-lo)
	mn, mx := int64(0), int64(m)
	if signed {
		mn, mx = -1<<(w-1), 1<<(w-1)-1
	}
	return v0, s, v1 >= mn && v1 <= mx
}

// ext32 widens a 32-bit affine value to 64 bits, zero- or sign-extending
// each lane, when its lanes lo to hi do not wrap around 2^32: the widened
// lanes are then affine too.
func ext32(base, step, wm uint64, signed bool, lo, hi uint64) (b, s uint64, ok bool) {
	v0, st, ok := run(base, step, wm, 32, signed, lo, hi)
	return uint64(v0) - uint64(st)*lo, uint64(st), ok
}

// aluAff runs ALU instruction x on the lanes in exec in affine form when
// its sources have one and so does its result, and reports whether it did.
// When it reports false nothing has changed and the lane-by-lane path
// runs the instruction.
func (e *ptxWorker) aluAff(wp *pwarp, x *xin, exec uint32) bool {
	ab, as, aw, ok := e.opAff(wp, &x.src[0])
	if !ok {
		return false
	}
	var bb, bs, bw, cb, cs, cw uint64
	if x.nsrc > 1 {
		if bb, bs, bw, ok = e.opAff(wp, &x.src[1]); !ok {
			return false
		}
		if x.nsrc > 2 {
			if cb, cs, cw, ok = e.opAff(wp, &x.src[2]); !ok {
				return false
			}
		}
	}
	d := x.dst[0].idx
	if !e.whole(wp, exec, d) {
		return false
	}
	if as|bs|cs == 0 {
		// One value on every lane: the result is what the instruction
		// gives one lane, exactly (ptx.Eval is the semantics every fast
		// path is held to).
		r0, _ := ptxEval(x.in, ab&aw, bb&bw, cb&cw, 0)
		e.setAff(wp, d, r0, 0, wm64)
		return true
	}
	tm := x.tmask
	lo, hi := uint64(bits.TrailingZeros32(exec)), uint64(31-bits.LeadingZeros32(exec))
	var rb, rs, rw uint64
	ok = false
	switch x.fast {
	case fMov:
		rb, rs, rw, ok = ab, as, aw&tm, true
	case fAdd32, fAdd64:
		rb, rs, rw, ok = ab+bb, as+bs, tm, aw&bw&tm == tm
	case fSub32, fSub64:
		rb, rs, rw, ok = ab-bb, as-bs, tm, aw&bw&tm == tm
	case fMulLo32, fMulLo64, fMadLo32:
		if as != 0 {
			ab, as, bb, bs = bb, bs, ab, as
		}
		// a·b with a uniform: a's value times b's lanes.
		rb, rs, rw, ok = ab*bb, ab*bs, tm, as == 0 && aw&bw&tm == tm
		if x.fast == fMadLo32 {
			rb, rs, ok = rb+cb, rs+cs, ok && cw&tm == tm
		}
	case fMulWideS32, fMulWideU32, fMadWideS32, fMadWideU32:
		signed := x.fast == fMulWideS32 || x.fast == fMadWideS32
		var ok1, ok2 bool
		ab, as, ok1 = ext32(ab, as, aw, signed, lo, hi)
		bb, bs, ok2 = ext32(bb, bs, bw, signed, lo, hi)
		if as != 0 {
			ab, as, bb, bs = bb, bs, ab, as
		}
		rb, rs, rw, ok = ab*bb, ab*bs, wm64, ok1 && ok2 && as == 0
		if x.fast == fMadWideS32 || x.fast == fMadWideU32 {
			rb, rs, ok = rb+cb, rs+cs, ok && cw == wm64
		}
	case fShl32, fShl64:
		k := bb
		rb, rs, rw, ok = ab<<k, as<<k, tm, bs == 0 && aw&tm == tm && k < uint64(bits.Len64(tm))
	case fShrU32, fShrU64:
		if bs == 0 {
			rb, rs, ok = shrAff(ab, as, aw, bb, tm, lo, hi)
			rw = tm
		}
	case fAnd:
		if as == 0 {
			ab, as, aw, bb, bs, bw = bb, bs, bw, ab, as, aw
		}
		if bs == 0 {
			rb, rs, ok = andLowAff(ab, as, aw, bb&bw, tm, lo, hi)
			rw = tm
		}
	case fNot:
		rb, rs, rw, ok = ^ab, -as, tm, aw&tm == tm
	case fCvtU32U64:
		rb, rs, rw, ok = ab, as, aw&wm32, true
	case fCvtU64U32, fCvtS64S32:
		rb, rs, ok = ext32(ab, as, aw, x.fast == fCvtS64S32, lo, hi)
		rw = wm64
	}
	if !ok {
		return false
	}
	e.setAff(wp, d, rb, rs, rw)
	return true
}

// shrAff shifts an unsigned affine value right by k within wm's width (32
// or 64 bits): a uniform result when the lanes lo to hi all shift to one
// value, an affine one when the step is a multiple of 2^k; either only
// when those lanes do not wrap around the width.
func shrAff(base, step, awm, k, wm, lo, hi uint64) (b, s uint64, ok bool) {
	w := uint64(bits.Len64(wm))
	if k >= w || awm&wm != wm {
		return 0, 0, false
	}
	var v0, v1 uint64
	var st int64
	if w == 32 {
		s0, s1, ok := run(base, step, awm, 32, false, lo, hi)
		if !ok {
			return 0, 0, false
		}
		v0, v1, st = uint64(s0), uint64(s0+s1*int64(hi-lo)), s1
	} else {
		// 64 bits: the step read as signed, the lanes checked for
		// overflow in either direction.
		v0, st = base+step*lo, int64(step)
		n := hi - lo
		if st >= 0 {
			h, l := bits.Mul64(uint64(st), n)
			sum, carry := bits.Add64(v0, l, 0)
			if h != 0 || carry != 0 {
				return 0, 0, false
			}
			v1 = sum
		} else {
			h, l := bits.Mul64(uint64(-st), n)
			if h != 0 || l > v0 {
				return 0, 0, false
			}
			v1 = v0 - l
		}
	}
	if v0>>k == v1>>k {
		return v0 >> k, 0, true
	}
	if uint64(st)&(1<<k-1) != 0 {
		return 0, 0, false
	}
	// Lane l is v0 + st·(l-lo), so its shift is v0>>k + (st>>k)·(l-lo),
	// st>>k taken arithmetically.
	q := uint64(st >> k)
	return v0>>k - q*lo, q, true
}

// andLowAff ands affine (base, step) with c when c keeps the low bits only
// (c = 2^k - 1 within wm) and the lanes lo to hi do not carry out of them:
// then the low parts step as the value does.
func andLowAff(base, step, awm, c, wm, lo, hi uint64) (b, s uint64, ok bool) {
	m := c & wm
	if m&(m+1) != 0 || awm&wm != wm {
		return 0, 0, false
	}
	v0, st := (base+step*lo)&m, step&wm
	if st > m {
		return 0, 0, false
	}
	h, n := bits.Mul64(st, hi-lo)
	if h != 0 || n > m-v0 {
		return 0, 0, false
	}
	return v0 - st*lo, st, true
}

// Predicate registers rarely need their rows: a guard or a branch reads
// them as a mask. setp writes the mask alone (setBits), and a row is
// written if an instruction reads the register lane by lane.

// liveness computes, for each instruction, the registers some path from
// it may read before writing them (ptx.Kernel's control flow, backwards
// to a fixed point). whole uses it to let a divergent warp write a
// register's every lane when the waiting lanes will not read it.
func (pk *PTXKernel) liveness() {
	n := len(pk.code)
	words := (pk.nregs + 63) / 64
	if n == 0 || words == 0 || n*words > 1<<22 {
		return // a kernel too large to be worth the table
	}
	live := make([]uint64, (n+1)*words) // row n: after the last instruction
	succ := func(i int, f func(int)) {
		x := &pk.code[i]
		switch x.op {
		case ptx.OpRet, ptx.OpExit:
			if x.guard < 0 {
				return
			}
		case ptx.OpBra:
			f(int(x.in.Target))
			if x.guard < 0 {
				return
			}
		case ptx.OpTrap:
			if x.guard < 0 {
				return
			}
		}
		f(i + 1)
	}
	reads := func(x *xin, f func(int32)) {
		if x.guard >= 0 {
			f(x.guard)
		}
		for i := range x.src {
			o := &x.src[i]
			switch o.kind {
			case oReg:
				f(o.idx)
			case oVec:
				for _, r := range o.vec {
					if r >= 0 {
						f(r)
					}
				}
			}
		}
		if x.abase >= 0 {
			f(x.abase)
		}
	}
	tmp := make([]uint64, words)
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			clear(tmp)
			succ(i, func(s int) {
				row := live[s*words : (s+1)*words]
				for w := range tmp {
					tmp[w] |= row[w]
				}
			})
			x := &pk.code[i]
			if !x.dead {
				// A lane that runs an unguarded instruction gets its
				// destinations written; a guarded one may leave a
				// lane's value as it was, so it ends no lane's
				// interest. Then what the instruction reads is live.
				// (A dead instruction does not run: its readers read
				// its source instead.)
				if x.guard < 0 && x.op != ptx.OpBra {
					for j := 0; j < int(x.in.NDst) && j < 2; j++ {
						if o := &x.dst[j]; o.kind == oReg {
							tmp[o.idx>>6] &^= 1 << (o.idx & 63)
						}
					}
				}
				reads(x, func(r int32) { tmp[r>>6] |= 1 << (r & 63) })
			}
			row := live[i*words : (i+1)*words]
			for w := range tmp {
				if row[w] != tmp[w] {
					row[w] = tmp[w]
					changed = true
				}
			}
		}
	}
	pk.liveIn, pk.liveWords = live, words
}

// setpAff is setpInt's comparison when both sources have an affine form:
// each lane's values come from the form, no row is read or written. It
// reports false, having done nothing, when a source has none. The bits
// of lanes outside mask are not defined.
func (e *ptxWorker) setpAff(wp *pwarp, x *xin, mask uint32) (uint32, bool) {
	if !e.formsOn {
		return 0, false
	}
	ab, as, aw, ok := e.opAff(wp, &x.src[0])
	if !ok {
		return 0, false
	}
	bb, bs, bw, ok := e.opAff(wp, &x.src[1])
	if !ok {
		return 0, false
	}
	if x.setpSwap {
		ab, as, aw, bb, bs, bw = bb, bs, bw, ab, as, aw
	}
	var need uint64
	switch x.setpType {
	case setpU32, setpS32:
		need = wm32
	default:
		need = wm64
	}
	if aw&bw&need != need {
		return 0, false
	}
	lo, hi := bits.TrailingZeros32(mask), 31-bits.LeadingZeros32(mask)
	if as|bs == 0 {
		lo, hi = 0, 0 // one compare decides every lane
	} else if need == wm32 && (as == 0 || bs == 0) {
		if pb, ok := setpRun32(x.setpKind, x.setpType == setpS32, ab, as, bb, bs, lo, hi); ok {
			return pb, true
		}
	}
	var pb uint32
	switch x.setpType {
	case setpU32:
		pb = setpAffLanes[uint32](x.setpKind, ab, as, bb, bs, lo, hi)
	case setpS32:
		pb = setpAffLanes[int32](x.setpKind, ab, as, bb, bs, lo, hi)
	case setpU64:
		pb = setpAffLanes[uint64](x.setpKind, ab, as, bb, bs, lo, hi)
	default:
		pb = setpAffLanes[int64](x.setpKind, ab, as, bb, bs, lo, hi)
	}
	if as|bs == 0 {
		pb = -(pb & 1) // lane 0's result on every lane
	}
	return pb, true
}

// setpAffLanes compares lanes lo to hi of two affine values as T and
// returns the results as a mask, lane 0 in bit 0, from the top lane down.
func setpAffLanes[T int32 | uint32 | int64 | uint64](kind uint8, ab, as, bb, bs uint64, lo, hi int) uint32 {
	va, vb := ab+as*uint64(hi), bb+bs*uint64(hi)
	var pb uint32
	switch kind {
	case setpEq:
		for range hi - lo + 1 {
			pb = pb<<1 | uint32(b2u(T(va) == T(vb)))
			va, vb = va-as, vb-bs
		}
	case setpNe:
		for range hi - lo + 1 {
			pb = pb<<1 | uint32(b2u(T(va) != T(vb)))
			va, vb = va-as, vb-bs
		}
	case setpLt:
		for range hi - lo + 1 {
			pb = pb<<1 | uint32(b2u(T(va) < T(vb)))
			va, vb = va-as, vb-bs
		}
	default:
		for range hi - lo + 1 {
			pb = pb<<1 | uint32(b2u(T(va) <= T(vb)))
			va, vb = va-as, vb-bs
		}
	}
	return pb << lo
}

// ldGlobalAff is ldGlobal of a 4-byte element for an address register in
// affine form with a positive step that is a multiple of 4 (a coalesced or
// strided load): lane l reads aconst + base + step·l, so the lowest and
// highest executing lanes bound the request, the words come out distinct
// and in order, and no row is read. It reports false, having changed
// nothing, when the lanes do not all fall in one device buffer; ldGlobal
// or the general path then decides.
func (e *ptxWorker) ldGlobalAff(wp *pwarp, x *xin, mask uint32, base, step uint64) bool {
	if int64(step) <= 0 || step&3 != 0 {
		return false
	}
	lo, hi := uint64(bits.TrailingZeros32(mask)), uint64(31-bits.LeadingZeros32(mask))
	a0 := x.aconst + base + step*lo
	h, span := bits.Mul64(step, hi-lo)
	a1, carry := bits.Add64(a0, span, 0)
	if h != 0 || carry != 0 || a0&3 != 0 || a1 > ^uint64(0)-4 {
		return false
	}
	bufs := e.l.bufs
	b := e.last
	if sb := e.siteCache[x.site].buf; sb >= 0 {
		b = int(sb)
	}
	if b >= len(bufs) || a0 < bufs[b].lo || a1+4 > bufs[b].hi {
		if a0 < 1<<32 {
			return false
		}
		if b = e.l.find(a0); b < 0 || a1+4 > bufs[b].hi {
			return false
		}
		e.last = b
	}
	g := &bufs[b]
	d := e.dst(wp, &x.dst[0], 0)
	off0 := a0 - g.lo
	n := 0
	for m := mask; m != 0; m &= m - 1 {
		l := uint64(bits.TrailingZeros32(m))
		off := off0 + step*(l-lo)
		d[l&31] = uint64(*(*uint32)(unsafe.Add(g.base, off)))
		e.words[n&255] = uint32(off >> 2)
		n++
	}
	w := e.t.w
	sc := &e.siteCache[x.site]
	if sc.buf != int32(b) {
		sc.buf, sc.d = int32(b), w.explicitSite(Site(x.site), g.m4, opLd*2)
	}
	w.request(&w.sites[sc.d], e.words[:n], bits.OnesCount32(mask))
	return true
}

// setpRun32 compares a 32-bit affine value with a uniform one (either
// side) without visiting the lanes: over lanes lo to hi, where the affine
// side does not wrap, it is monotonic, so the lanes where a < b (or <=, ==,
// !=) are one run, found by a division. It reports false when the affine
// side wraps.
func setpRun32(kind uint8, signed bool, ab, as, bb, bs uint64, lo, hi int) (uint32, bool) {
	// v(i) = v0 + s·i for i = 0 .. n-1 (lane lo+i), against c; flip when
	// the affine side is b (c < v(i) is -v(i) < -c).
	flip := as == 0
	if flip {
		ab, as, bb = bb, bs, ab
	}
	v0, s, ok := run(ab, as, wm64, 32, signed, uint64(lo), uint64(hi))
	if !ok {
		return 0, false
	}
	c := int64(uint32(bb))
	if signed {
		c = int64(int32(uint32(bb)))
	}
	n := int64(hi - lo + 1)
	var first, last int64 // the lanes (i) where the compare is true
	switch kind {
	case setpEq, setpNe:
		first, last = 1, 0
		switch d := c - v0; {
		case s == 0 && d == 0:
			first, last = 0, n-1
		case s != 0 && d%s == 0 && d/s >= 0 && d/s < n:
			first, last = d/s, d/s
		}
		if kind == setpNe {
			run := lanesRun(first, last, lo)
			all := lanesRun(0, n-1, lo)
			return all &^ run, true
		}
	default:
		if kind == setpLe {
			// v <= c is v < c+1; c >= v is -v < -c+1.
			if flip {
				c--
			} else {
				c++
			}
		}
		if flip {
			v0, s, c = -v0, -s, -c
		}
		// v0 + s·i < c
		d := c - v0
		switch {
		case s == 0:
			first, last = 0, n-1
			if d <= 0 {
				first = 1
				last = 0
			}
		case s > 0:
			k := int64(0)
			if d > 0 {
				k = (d + s - 1) / s
			}
			first, last = 0, min(k, n)-1
		default:
			first = 0
			if d <= 0 {
				first = -d/(-s) + 1
			}
			last = n - 1
		}
	}
	return lanesRun(first, last, lo), true
}

// lanesRun is the mask of lanes lo+first to lo+last (none when first >
// last).
func lanesRun(first, last int64, lo int) uint32 {
	if first > last || last < 0 {
		return 0
	}
	first = max(first, 0)
	m := uint32(fullMask) >> (31 - (last - first))
	return m << (int64(lo) + first)
}

// formReads decides which registers may be left with their rows unwritten.
// aluAff, setpAff and cvta read a register's form; every other instruction
// reads its rows (the address register of a memory instruction and a
// guard's predicate are handled where they are read: mem and guardMask
// write the row first). A register some instruction reads lane by lane is
// in laneRead, and setAff and setBits write its row at once; the others
// may stay in their forms, and an instruction that reads them in a form
// but runs lane by lane after all (its operands have none, too few lanes
// run) writes their rows first (xin.prep, prep). So src need not check a
// register's row, which keeps it small enough for the compiler to inline.
func (pk *PTXKernel) formReads() {
	pk.laneRead = make([]bool, pk.nregs)
	aware := func(x *xin) bool {
		return x.affOK || x.op == ptx.OpCvta || x.fast == fSetpI && x.in.NDst == 1 && x.setpKind != setpGeneral
	}
	for i := range pk.code {
		x := &pk.code[i]
		if x.dead {
			continue // not run: its readers read its source instead
		}
		for j := range x.src {
			switch o := &x.src[j]; o.kind {
			case oReg:
				if !aware(x) || o.neg {
					pk.laneRead[o.idx] = true
				}
			case oVec:
				for _, r := range o.vec {
					if r >= 0 {
						pk.laneRead[r] = true
					}
				}
			}
		}
	}
	for i := range pk.code {
		x := &pk.code[i]
		add := func(r int32) {
			if r >= 0 && !pk.laneRead[r] && !slices.Contains(x.prepRegs, r) {
				x.prepRegs = append(x.prepRegs, r)
			}
		}
		for j := range x.src {
			if o := &x.src[j]; o.kind == oReg && aware(x) {
				add(o.idx)
			}
		}
		for j := range x.dst {
			switch o := &x.dst[j]; o.kind {
			case oReg:
				add(o.idx)
			case oVec:
				for _, r := range o.vec {
					add(r)
				}
			}
		}
		x.prep = len(x.prepRegs) > 0
	}
}

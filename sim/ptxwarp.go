package sim

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/warplab/warplab/sim/ptx"
)

// The warp- and block-level instructions of sm_70 and later that the
// executor runs itself: activemask, nanosleep, the clocks, match.sync,
// redux.sync, bar.red and cp.async.

// ptxExtra is the PTX executor's state that few kernels use, kept in the
// worker rather than in ptxWorker, whose size the executor's speed is
// sensitive to: ld.const requests and the distinct addresses they served
// (countConst), and the block's bar.red in progress.
type ptxExtra struct {
	constReq, constTx int64
	tensor            TensorOps // wmma.mma and mma.sync (tensor.go)
	redOpen           bool
	redAll, redAny    bool
	redCount          uint64
	bytes             []byteAccess // by shared-memory byte: the race check of accesses narrower than a word (raceCheckBytes)
}

// byteAccess is the last write and the last read of one byte of shared
// memory, for accesses narrower than 4 bytes: the epochs say in which
// barrier interval (sharedState.epoch) and after which of the warp's
// synchronisations (warpEp) they happened.
type byteAccess struct {
	wEp, wWarpEp, rEp, rWarpEp int64
	writer, reader             int32
}

// raceCheckBytes is the shared race check of a load or store of 1 or 2
// bytes, byte by byte: the word-level rule (sharedState.check) would take
// two threads storing the two halves of one word (a __shared__ half or
// short array) for a race, which they are not. Two accesses race when they
// touch a common byte in one barrier interval, one of them writes, and
// nothing orders them (other warps: a barrier; lanes of one warp: a
// __syncwarp or a _sync instruction). The word's write is also recorded
// for the word-level rule (a full-word access after it is checked against
// it) and for the uninitialized-read check; a narrow read is not recorded
// at word level, so a later full-word store by another thread is not
// checked against it, and a narrow read is not checked against an earlier
// full-word store (both missed races, never false ones).
func (e *ptxWorker) raceCheckBytes(wp *pwarp, off uint64, width int, write bool) {
	t := &e.t
	s := &e.t.w.sh
	x := &e.t.w.pxx
	if need := len(e.shared); len(x.bytes) < need {
		x.bytes = make([]byteAccess, need)
	}
	me, warp, wep := int32(t.tid), int32(t.warp), s.warpEp[t.warp]
	wd := off / 4
	if !write && s.wEp[wd] < e.shEp0 { // no store of this block wrote the word (initcheck.go)
		e.unwritten(wp, t.lane, off, width, wd)
	}
	ordered := func(other int32, otherWarpEp int64) bool {
		return other == me || other>>5 == warp && otherWarpEp != wep
	}
	for b := off; b < off+uint64(width); b++ {
		a := &x.bytes[b]
		other, what := int32(-1), ""
		switch {
		case a.wEp == s.epoch && !ordered(a.writer, a.wWarpEp):
			other, what = a.writer, "wrote this byte"
			if !write {
				what += ", which this thread reads"
			} else {
				what += " too"
			}
		case write && a.rEp == s.epoch && !ordered(a.reader, a.rWarpEp):
			other, what = a.reader, "read this byte, which this thread writes"
		}
		if other >= 0 {
			name, idx := e.sharedVar(off)
			e.raceOff, e.raceWidth = off, width
			t.fail(&Fault{Kind: "shared race", Buffer: name + " (shared)", Index: idx, Len: s.lenOf(name),
				Detail: fmt.Sprintf("thread %v %s; no __syncthreads between them", e.t.w.l.block.unlinear(int(other)), what)})
		}
		if write {
			a.wEp, a.wWarpEp, a.writer = s.epoch, wep, me
		} else {
			a.rEp, a.rWarpEp, a.reader = s.epoch, wep, me
		}
	}
	if write {
		s.wEp[wd], s.writer[wd], s.wWarpEp[wd] = s.epoch, me, wep
	}
}

// The clocks (%clock, %clock64, %globaltimer) are registers of their own,
// after the kernel's (PTXKernel.clockRegs), which fillClocks writes before
// an instruction that reads one runs.

// fillClocks sets the clock registers of wp for an instruction that reads
// one: the warp's issued instructions so far, which grow as a clock does
// (a deterministic stand-in: no cycles are simulated, so a kernel that
// times itself gets instruction counts, not cycles).
func (e *ptxWorker) fillClocks(wp *pwarp) {
	v := uint64(wp.instr)
	r := e.l.pk.clockReg
	fillRow(&wp.regs[r], v&0xffffffff)
	fillRow(&wp.regs[r+1], v)
	fillRow(&wp.regs[r+2], v)
}

// activemask writes the lanes executing it (__activemask()).
func (e *ptxWorker) activemask(wp *pwarp, x *xin, mask uint32) {
	d := e.dst(wp, &x.dst[0], 0)
	for m := mask; m != 0; m &= m - 1 {
		d[bits.TrailingZeros32(m)] = uint64(mask)
	}
}

// members is the lanes a warp-wide instruction combines for lane: its
// member mask and the lanes executing. A member that is not executing is
// a fault, as for shfl.sync: on hardware the result is undefined.
func (e *ptxWorker) members(wp *pwarp, x *xin, mm *[32]uint64, lane int, mask uint32) (uint32, *Fault) {
	mem := uint32(mm[lane])
	if mem&^mask != 0 || mem&(1<<lane) == 0 {
		return 0, e.fault(wp, lane, x, "bad warp mask", fmt.Sprintf(
			"lane %d's member mask %032b names lanes not executing this %s, or leaves the lane out (executing %032b)", lane, mem, x.in.Op, mask))
	}
	return mem, nil
}

// match runs match.any.sync (each lane gets the members holding its
// value) and match.all.sync (the members if all hold one value, else 0,
// and the predicate).
func (e *ptxWorker) match(wp *pwarp, x *xin, mask uint32) *Fault {
	a := e.src(wp, &x.src[0], 0)
	mm := e.src(wp, &x.src[1], 1)
	vm := typeMask(x.in.Type)
	d := e.dst(wp, &x.dst[0], 0)
	var p *[32]uint64
	if x.in.NDst > 1 {
		p = e.dst(wp, &x.dst[1], 1)
	}
	var res [32]uint64
	var pres [32]uint64
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		mem, f := e.members(wp, x, mm, lane, mask)
		if f != nil {
			return f
		}
		v := a[lane] & vm
		var same uint32
		for k := mem; k != 0; k &= k - 1 {
			l := bits.TrailingZeros32(k)
			if a[l]&vm == v {
				same |= 1 << l
			}
		}
		if x.in.Match == ptx.MatchAny {
			res[lane] = uint64(same)
		} else if same == mem {
			res[lane], pres[lane] = uint64(mem), 1
		}
	}
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = res[l]
		if p != nil {
			p[l] = pres[l]
		}
	}
	e.t.w.sh.warpSync(wp.id)
	return nil
}

// redux runs redux.sync: the members' values combined, to each of them.
func (e *ptxWorker) redux(wp *pwarp, x *xin, mask uint32) *Fault {
	a := e.src(wp, &x.src[0], 0)
	mm := e.src(wp, &x.src[1], 1)
	signed := x.in.Type == ptx.S32
	var res [32]uint64
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		mem, f := e.members(wp, x, mm, lane, mask)
		if f != nil {
			return f
		}
		first := true
		var acc uint32
		for k := mem; k != 0; k &= k - 1 {
			v := uint32(a[bits.TrailingZeros32(k)])
			if first {
				acc, first = v, false
				continue
			}
			switch x.in.Red {
			case ptx.RedAdd:
				acc += v
			case ptx.RedMin:
				if signed && int32(v) < int32(acc) || !signed && v < acc {
					acc = v
				}
			case ptx.RedMax:
				if signed && int32(v) > int32(acc) || !signed && v > acc {
					acc = v
				}
			case ptx.RedAnd:
				acc &= v
			case ptx.RedOr:
				acc |= v
			case ptx.RedXor:
				acc ^= v
			}
		}
		res[lane] = uint64(acc)
	}
	d := e.dst(wp, &x.dst[0], 0)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		d[l] = res[l]
	}
	e.t.w.sh.warpSync(wp.id)
	return nil
}

// barRedArrive adds warp wp's lanes to the block's bar.red: the count of
// true predicates (popc), whether all were true (and), whether any was
// (or). The results are written when the barrier releases (barRedRelease).
func (e *ptxWorker) barRedArrive(wp *pwarp, x *xin, exec uint32) {
	c := e.src(wp, &x.src[2], 2)
	t := predMask(c, false) & exec
	r := &e.t.w.pxx
	if !r.redOpen {
		r.redOpen, r.redCount, r.redAll, r.redAny = true, 0, true, false
	}
	r.redCount += uint64(bits.OnesCount32(t))
	r.redAll = r.redAll && t == exec
	r.redAny = r.redAny || t != 0
	wp.ext.barRed, wp.ext.barRedMask = x, exec
}

// barRedRelease writes each waiting warp's bar.red result as the barrier
// releases.
func (e *ptxWorker) barRedRelease() {
	r := &e.t.w.pxx
	if !r.redOpen {
		return
	}
	r.redOpen = false
	for i := range e.warps {
		wp := &e.warps[i]
		x := wp.ext.barRed
		if x == nil {
			continue
		}
		wp.ext.barRed = nil
		var v uint64
		switch x.in.Red {
		case ptx.RedPopc:
			v = r.redCount
		case ptx.RedAnd:
			v = b2u(r.redAll)
		case ptx.RedOr:
			v = b2u(r.redAny)
		}
		d := e.dst(wp, &x.dst[0], 0)
		for m := wp.ext.barRedMask; m != 0; m &= m - 1 {
			d[bits.TrailingZeros32(m)] = v
		}
	}
}

// cpAsync runs cp.async's copy of 4, 8 or 16 bytes a lane from global to
// shared memory. The copy is done when issued: CUDA promises its data by
// the next cp.async.wait_group (or wait_all) and no earlier, and a copy
// finished sooner is one of the orders it allows. It is counted as a
// global load at its site and a shared store at its second.
func (e *ptxWorker) cpAsync(wp *pwarp, x *xin, mask uint32) *Fault {
	e.cur = x
	size := x.size
	var dbase *[32]uint64
	if x.abase >= 0 {
		dbase = &wp.regs[x.abase]
	}
	sbase := e.src(wp, &x.src[1], 1)
	var srcSize *[32]uint64
	if x.in.NSrc > 3 {
		srcSize = e.src(wp, &x.src[3], 3)
	}
	var gmask uint32
	var buf [16]byte
	dsts := [32]uint64{}
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		src := x.aconst2 + sbase[lane]
		if src%uint64(size) != 0 {
			return e.fault(wp, lane, x, "misaligned address", fmt.Sprintf("cp.async of %d bytes from global address %#x, not a multiple of %d", size, src, size))
		}
		b := e.l.find(src)
		if b < 0 || src+uint64(size) > e.l.bufs[b].hi {
			return e.oobGlobal(wp, lane, x, src, b)
		}
		g := &e.l.bufs[b]
		n := size
		if srcSize != nil {
			n = min(size, int(uint32(srcSize[lane])))
		}
		clear(buf[:size])
		copy(buf[:n], unsafe.Slice((*byte)(unsafe.Add(g.base, src-g.lo)), n))
		e.laneBuf[lane] = int32(b)
		e.laneOff[lane] = src - g.lo
		gmask |= 1 << lane
		dst := x.aconst
		if dbase != nil {
			dst += dbase[lane]
		}
		if x.a32 {
			dst &= 0xffffffff
		}
		if dst >= sharedWin && dst < sharedWin+winSize {
			dst -= sharedWin
		}
		if dst%uint64(size) != 0 || dst+uint64(size) > uint64(len(e.shared)) {
			return e.fault(wp, lane, x, "out of bounds", fmt.Sprintf(
				"cp.async of %d bytes to shared offset %d, but the block has %d bytes of shared memory (%s)", size, dst, len(e.shared), e.sharedLayout()))
		}
		e.raceCheck(wp, lane, dst, size, true)
		copy(e.shared[dst:dst+uint64(size)], buf[:size])
		dsts[lane] = dst
	}
	e.countGlobal(x, gmask, size)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		e.laneOff[l] = dsts[l]
	}
	e.countSharedAt(x.site2, opSt, mask, size)
	return nil
}

// clockRegs gives the clocks registers of their own, after the kernel's,
// once the register passes are done (they would take a register nothing
// writes for one read before it is written): each operand that reads a
// clock reads its register, and its instruction, marked clock, runs on
// the general path, which fills them (fillClocks).
func (pk *PTXKernel) clockRegs() {
	for i := range pk.code {
		x := &pk.code[i]
		for j := range x.src {
			o := &x.src[j]
			if o.kind != oSpec || o.idx < int32(ptx.SpecialClock) {
				continue
			}
			if pk.clockReg == 0 {
				pk.clockReg = int32(pk.nregs)
				pk.nregs += 3
				if pk.initIdx != nil { // not tracked by the uninitialized-read check
					pk.initIdx = append(pk.initIdx, -1, -1, -1)
				}
			}
			*o = xopd{kind: oReg, idx: pk.clockReg + o.idx - int32(ptx.SpecialClock)}
			x.clock, x.fast = true, fNone
		}
	}
}

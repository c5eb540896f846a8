package sim

import (
	"fmt"
	"math/bits"

	"github.com/warplab/warplab/sim/ptx"
)

// The uninitialized-read sanitizer of the PTX executor: a thread that
// reads a register no instruction has written in it, or shared memory no
// thread of its block has stored to, gets whatever the hardware held
// there; the simulator would silently read 0. Both are faults naming the
// thread, the block and the line, as the other sanitizers' are.
//
// Registers. PTX leaves a register's first value undefined. A register
// only matters where some path may read it before writing it
// (maybeUndefined, pk.clearRegs): nvcc's PTX for most kernels has none
// (no kernel of the lessons or the notebooks has one), and such kernels
// keep no state and check nothing. For a kernel that
// has some, those registers and the ones computed from them (markInitCheck)
// carry, per warp, the lanes whose value is undefined, and only the
// instructions that read or write one of them (xin.initck) call initCheck
// before they run. As in Valgrind's memcheck, an undefined value moves
// through arithmetic, moves, conversions, selp (lane by lane: only the
// operand a lane selects counts), and and or (a defined operand that
// decides the result alone makes it defined) and shuffles (from the lane
// read) without a word, because nvcc's PTX for correct kernels computes
// with such registers where the result goes unused (`!have || v > best`
// compares with a best not yet set; a shuffle broadcasts from the one lane
// that wrote); it is reported where
// it changes what the thread does or leaves behind: as a guard or branch
// condition, as an address, as a value stored or given to an atomic, and
// as a shuffle's lane, clamp or mask operand or a barrier's operand. The
// fault names that instruction and, when the value came from elsewhere,
// the register that was never written and the line that first read it.
//
// Shared memory. A load, an atomic (other than exch) or a reduction of a
// shared word that no store or atomic of the block has written is a fault.
// The race check already keeps, by 4-byte word, the epoch of the word's
// last store (sharedState.wEp), and its epochs only grow, so a word was not
// stored to by this block when that epoch is older than the block's first:
// the check costs one comparison at a word's first read in a barrier
// interval, where the race check already has the epoch in hand (a per-byte
// bitmap beside it cost the tiling lesson's matmulTiled 7-8% of its time
// on one core; this, a few percent at most, within the measurements'
// noise). Atomics, which the race check
// does not see, keep their own epoch a word. The granularity is the race
// check's word: a byte stored marks its word written (a miss, never a
// false report). A read of an unwritten word that another thread of the
// block writes later in the same barrier interval is a missing
// __syncthreads, which the race check reports when the write comes, so the
// uninitialized read is held back until the warps reach the next barrier
// or the block ends (runBlockPTX), and reported then if no race came
// first; any other fault that comes later in the block gives way to it.

// uorigin says where a tracked register's undefined lanes came from: reg,
// never written in those lanes, read by the instruction at pc; pc -1 when
// the register itself is the one never written.
type uorigin struct {
	pc, reg int32
}

// markInitCheck lists the registers whose lanes carry a defined bit (the
// registers some path may read before writing them, and every register an
// instruction computes from one of them, to a fixed point) and marks the
// instructions that read or write one of them (xin.initck). Dead
// instructions never run and are left out: what they would write nobody
// reads, and a dead copy's readers read its source (forwardCopies), which
// is then tracked itself. It runs after the other passes, on the code the
// executor runs.
func (pk *PTXKernel) markInitCheck() {
	pk.initRegs, pk.initIdx = nil, nil
	if len(pk.clearRegs) == 0 {
		return
	}
	tracked := make([]bool, pk.nregs)
	for _, r := range pk.clearRegs {
		tracked[r] = true
	}
	for changed := true; changed; {
		changed = false
		for i := range pk.code {
			x := &pk.code[i]
			if x.dead {
				continue
			}
			from := false
			flowSources(x, func(r int32) { from = from || tracked[r] })
			if !from {
				continue
			}
			writes(x, func(r int32) {
				if !tracked[r] {
					tracked[r] = true
					changed = true
				}
			})
		}
	}
	pk.initIdx = make([]int32, pk.nregs)
	for r := range pk.initIdx {
		pk.initIdx[r] = -1
		if tracked[r] {
			pk.initIdx[r] = int32(len(pk.initRegs))
			pk.initRegs = append(pk.initRegs, int32(r))
		}
	}
	for i := range pk.code {
		x := &pk.code[i]
		x.initck = false
		if x.dead {
			continue
		}
		hit := func(r int32) { x.initck = x.initck || r >= 0 && tracked[r] }
		hit(x.guard)
		hit(x.abase)
		eachSource(x, hit)
		writes(x, hit)
	}
}

// eachSource calls f with every register among x's source operands.
func eachSource(x *xin, f func(r int32)) { eachReg(x.src[:], f) }

// flowSources calls f with the registers whose values flow into x's
// destinations: none for memory and control instructions (a load's value
// comes from memory; their register operands are uses, checked), the value
// operand of shfl and vote (the others are uses), every source otherwise.
func flowSources(x *xin, f func(r int32)) {
	switch x.op {
	case ptx.OpLd, ptx.OpSt, ptx.OpAtom, ptx.OpRed, ptx.OpBra, ptx.OpRet, ptx.OpExit,
		ptx.OpBar, ptx.OpMembar, ptx.OpTrap:
	case ptx.OpShfl, ptx.OpVote:
		if o := &x.src[0]; o.kind == oReg {
			f(o.idx)
		}
	default:
		eachSource(x, f)
	}
}

// resetInit readies wp's defined bits for a warp's first instruction: every
// lane of every tracked register undefined.
func (e *ptxWorker) resetInit(wp *pwarp) {
	regs := e.l.pk.initRegs
	if len(regs) == 0 {
		return
	}
	if len(wp.undef) != len(regs) {
		wp.undef = make([]uint32, len(regs))
		wp.uorig = make([]uorigin, len(regs))
	}
	for t, r := range regs {
		wp.undef[t] = ^uint32(0)
		wp.uorig[t] = uorigin{pc: -1, reg: r}
	}
}

// undefLanes is the lanes of register r whose value is undefined.
func (e *ptxWorker) undefLanes(wp *pwarp, r int32) uint32 {
	if r < 0 {
		return 0
	}
	if t := e.l.pk.initIdx[r]; t >= 0 {
		return wp.undef[t]
	}
	return 0
}

// initCheck runs before instruction x (at pc) of warp wp, whose active
// lanes are act and whose lanes executing it (guard true) are exec: it
// reports a use of an undefined value, and otherwise updates the defined
// bits of the registers x writes.
func (e *ptxWorker) initCheck(wp *pwarp, x *xin, pc int32, act, exec uint32) *Fault {
	if u := e.undefLanes(wp, x.guard) & act; u != 0 {
		what := "the guard predicate"
		if x.op == ptx.OpBra {
			what = "the branch condition"
		}
		return e.undefFault(wp, x, x.guard, u, what)
	}
	if exec == 0 {
		return nil
	}
	if u := e.undefLanes(wp, x.abase) & exec; u != 0 {
		return e.undefFault(wp, x, x.abase, u, "the address")
	}
	// The other uses.
	first := 0
	what := ""
	switch x.op {
	case ptx.OpSt:
		first, what = 1, "the value stored"
	case ptx.OpAtom, ptx.OpRed:
		first, what = 1, "an operand of the atomic"
	case ptx.OpShfl:
		first, what = 1, "a lane, clamp or mask operand of the shuffle"
	case ptx.OpBar, ptx.OpMembar:
		first, what = 0, "an operand of the barrier"
	}
	if what != "" {
		for j := first; j < len(x.src); j++ {
			bad, lanes := int32(-1), uint32(0)
			visit := func(r int32) {
				if u := e.undefLanes(wp, r) & exec; u != 0 && bad < 0 {
					bad, lanes = r, u
				}
			}
			switch o := &x.src[j]; o.kind {
			case oReg:
				visit(o.idx)
			case oVec:
				for _, r := range o.vec {
					visit(r)
				}
			}
			if bad >= 0 {
				return e.undefFault(wp, x, bad, lanes, what)
			}
		}
	}
	// What x writes: undefined in the lanes where an undefined value
	// flows in, defined in its other executing lanes.
	var u uint32
	org := uorigin{pc: -2}
	from := func(r int32, lanes uint32) {
		t := e.l.pk.initIdx[r]
		if t < 0 {
			return
		}
		if ur := wp.undef[t] & lanes; ur != 0 {
			u |= ur
			if org.pc == -2 {
				org = wp.uorig[t]
				if org.pc < 0 {
					org = uorigin{pc: pc, reg: r}
				}
			}
		}
	}
	switch x.op {
	case ptx.OpSelp:
		// d = c ? a : b, lane by lane.
		c := &x.src[2]
		p := exec
		if c.kind == oReg || c.kind == oImm {
			p = predMask(e.src(wp, c, 0), false)
		}
		if c.kind == oReg {
			from(c.idx, exec)
		}
		if a := &x.src[0]; a.kind == oReg {
			from(a.idx, exec&p)
		}
		if b := &x.src[1]; b.kind == oReg {
			from(b.idx, exec&^p)
		}
	case ptx.OpShfl:
		// Lane l takes lane j's value: undefined where lane j's is.
		if a := &x.src[0]; a.kind == oReg {
			if ua := e.undefLanes(wp, a.idx); ua&exec != 0 {
				b, c := e.src(wp, &x.src[1], 1), e.src(wp, &x.src[2], 2)
				var us uint32
				for m := exec; m != 0; m &= m - 1 {
					lane := bits.TrailingZeros32(m)
					if j, _ := shflSource(x.in.Shfl, lane, b[lane], c[lane]); ua>>j&1 != 0 {
						us |= 1 << lane
					}
				}
				if us != 0 {
					from(a.idx, ua) // for the origin
					u = us
				}
			}
		}
	case ptx.OpAnd, ptx.OpOr:
		// A defined operand that decides the result alone (0 for and,
		// all ones for or: true for a predicate) makes it defined,
		// whatever the other holds: nvcc's `!have || v > best` ors a
		// comparison with an undefined best into a defined flag.
		absorb := uint64(0)
		if x.op == ptx.OpOr {
			absorb = x.tmask
		}
		dec := e.deciding(wp, &x.src[0], exec, absorb, x.tmask, 0) | e.deciding(wp, &x.src[1], exec, absorb, x.tmask, 1)
		for j := range 2 {
			if o := &x.src[j]; o.kind == oReg {
				from(o.idx, exec&^dec)
			}
		}
	case ptx.OpSetp:
		// setp's .and/.or with a predicate c that decides alone.
		var dec uint32
		switch x.in.Bool {
		case ptx.BoolAnd:
			dec = e.deciding(wp, &x.src[2], exec, 0, 1, 2)
		case ptx.BoolOr:
			dec = e.deciding(wp, &x.src[2], exec, 1, 1, 2)
		}
		flowSources(x, func(r int32) { from(r, exec&^dec) })
	case ptx.OpVote:
		// Every lane's result depends on every executing lane's predicate.
		if a := &x.src[0]; a.kind == oReg && e.undefLanes(wp, a.idx)&exec != 0 {
			from(a.idx, exec)
			u = exec
		}
	default:
		flowSources(x, func(r int32) { from(r, exec) })
	}
	for j := range x.dst {
		set := func(r int32, lanes uint32) {
			if r < 0 {
				return
			}
			t := e.l.pk.initIdx[r]
			if t < 0 {
				return
			}
			wp.undef[t] = wp.undef[t]&^exec | lanes
			if lanes != 0 {
				wp.uorig[t] = org
			}
		}
		lanes := u
		if x.op == ptx.OpShfl && j == 1 {
			lanes = 0 // the predicate depends only on the lane operands, checked above
		}
		switch o := &x.dst[j]; o.kind {
		case oReg:
			set(o.idx, lanes)
		case oVec:
			for _, r := range o.vec {
				set(r, lanes)
			}
		}
	}
	return nil
}

// deciding is the lanes of exec where operand o is defined and holds
// absorb (under mask), the value that decides an and or an or alone.
func (e *ptxWorker) deciding(wp *pwarp, o *xopd, exec uint32, absorb, mask uint64, slot int) uint32 {
	if o.kind == oNone {
		return 0
	}
	row := e.src(wp, o, slot)
	var d uint32
	for m := exec; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if row[l]&mask == absorb {
			d |= 1 << l
		}
	}
	if o.kind == oReg {
		d &^= e.undefLanes(wp, o.idx)
	}
	return d
}

// shflSource is the lane whose value lane reads in a shuffle of mode with
// lane operand b and clamp/segment operand c (the arithmetic of shfl), and
// whether that lane is in range (shfl's predicate output); out of range,
// lane reads its own value.
func shflSource(mode ptx.ShflMode, lane int, b, c uint64) (j int, ok bool) {
	bval := int(b & 31)
	cval := int(c & 31)
	seg := int(c>>8) & 31
	maxLane := lane&seg | cval&^seg
	switch mode {
	case ptx.ShflUp:
		j = lane - bval
		ok = j >= maxLane
	case ptx.ShflDown:
		j = lane + bval
		ok = j <= maxLane
	case ptx.ShflBfly:
		j = lane ^ bval
		ok = j <= maxLane
	default:
		j = lane&seg | bval&^seg
		ok = j <= maxLane
	}
	if !ok || j < 0 || j > 31 {
		return lane, false
	}
	return j, true
}

// undefFault is the fault of instruction x using register r, undefined in
// lanes, as what.
func (e *ptxWorker) undefFault(wp *pwarp, x *xin, r int32, lanes uint32, what string) *Fault {
	pk := e.l.pk
	org := wp.uorig[pk.initIdx[r]]
	name := pk.k.Regs[r].Name
	var d string
	switch {
	case org.pc < 0:
		d = fmt.Sprintf("%s is %s, which no instruction has written in this thread", what, name)
	case org.reg == r:
		d = fmt.Sprintf("%s is %s, computed from its own first value: no instruction had written %s in this thread when %s read it",
			what, name, name, pk.where(pk.code[org.pc].in))
	default:
		d = fmt.Sprintf("%s is %s, computed from %s, which no instruction had written in this thread when %s read it",
			what, name, pk.k.Regs[org.reg].Name, pk.where(pk.code[org.pc].in))
	}
	d += "; a register's first value is undefined (the simulator would read 0, a GPU whatever the register held)"
	return e.fault(wp, bits.TrailingZeros32(lanes), x, "uninitialized register", d)
}

// initShared readies the shared-memory check when a block starts (after
// the race check's reset): a word whose last store's epoch (the race
// check's wEp) or last atomic's (atomEp) is older than the block's first
// was not written by this block.
func (e *ptxWorker) initShared() {
	e.shEp0 = e.t.w.sh.epoch
	e.shPending = nil
}

// unwritten is called by raceCheck for lane's load of width bytes at shared
// offset off whose word wd no store of the block has written: unless an
// atomic wrote it, the first such read of the block becomes e.shPending,
// reported at the next barrier or the block's end unless a race is
// reported first. raceCheck asks only at a word's first touch in a
// barrier interval: a later read in the interval, with no store between,
// finds what the first found.
func (e *ptxWorker) unwritten(wp *pwarp, lane int, off uint64, width int, wd uint64) {
	if e.shPending != nil || int(wd) < len(e.atomEp) && e.atomEp[wd] >= e.shEp0 {
		return
	}
	e.shPending = e.uninitSharedFault(wp, lane, e.cur, off, width, wd*4)
}

// atomicInit applies the rule to lane's atomic or reduction of width bytes
// at shared offset off: it reads its words (exch excepted), which a store
// or an atomic of the block must have written, and then writes them.
func (e *ptxWorker) atomicInit(wp *pwarp, lane int, off uint64, width int) {
	s := &e.t.w.sh
	if len(e.atomEp) < s.words {
		e.atomEp = append(e.atomEp, make([]int64, s.words-len(e.atomEp))...)
	}
	x := e.cur
	read := !(x.op == ptx.OpAtom && x.in.Atom == ptx.AtomExch)
	for wd := off / 4; wd <= (off+uint64(width)-1)/4; wd++ {
		if read && e.shPending == nil && s.wEp[wd] < e.shEp0 && e.atomEp[wd] < e.shEp0 {
			e.shPending = e.uninitSharedFault(wp, lane, x, off, width, wd*4)
		}
		e.atomEp[wd] = e.shEp0
	}
}

// uninitSharedFault is the fault of lane's access of width bytes at shared
// offset off, whose 4-byte word at offset unwritten no thread of the block
// has written.
func (e *ptxWorker) uninitSharedFault(wp *pwarp, lane int, x *xin, off uint64, width int, unwritten uint64) *Fault {
	verb := "load"
	switch x.op {
	case ptx.OpAtom, ptx.OpRed:
		verb = "atomic"
	}
	f := e.fault(wp, lane, x, "uninitialized shared memory", fmt.Sprintf(
		"%s of %d bytes at shared offset %d, whose word at offset %d no thread of this block has written; shared memory starts undefined in every block (the simulator would read 0, a GPU what the SM's last block left)",
		verb, width, off, unwritten))
	e.sharedElem(f, off, width)
	return f
}

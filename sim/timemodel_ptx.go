package sim

import (
	"math/bits"
	"slices"

	"github.com/warplab/warplab/sim/ptx"
	"github.com/warplab/warplab/sim/timing"
)

// What the executor records for the time model (issue 13; issue 27 split
// the model off into sim/timing): per warp, the instructions it issued by
// class, its memory requests, barriers and load rounds, handed to the
// launch's timing.Recorder when its block ends (tmEndBlock). A load round
// is a group of global loads a warp has in flight together: the warp
// waits one memory latency per round. Which loads form a round is read off
// the compiled loop once per kernel (markLoadRounds), from data
// dependences within a basic block (or a branch around one load, which
// ptxas predicates: guardedJoins): loads whose addresses are ready go out
// together, whatever order the PTX writes them in (ptxas schedules them
// so), and a load whose address needs another load's result waits for it.
// An unrolled SpMV body (four col and val loads, then four x[col]) is two
// rounds, a `#pragma unroll 1` body two rounds per element. A warp's
// timing.RoundState follows its rounds as the loads run; what a round
// waits for is the model's (sim/timing).

// Values of xin.tmRound: a timing round kind (timing.RoundKind).
const (
	tmNoLoad    = timing.NoLoad
	tmRoundJoin = timing.RoundJoin
	tmLevels    = timing.Levels
)

// markLoadRounds sets tmRound of every global load from the data
// dependences of its basic block: a load's round level is one more than
// the deepest load its address depends on within the block (1 when it
// depends on none), and never below a level already issued before a
// barrier (bar, membar, fence) in the block. Loads of one level in a block
// are one round: ptxas schedules loads whose addresses are ready ahead of
// the arithmetic that uses earlier results, so an unrolled body's col and
// val loads go out together, and its x[col] loads together after them,
// whatever order the PTX writes them in. A round spans basic blocks only
// where ptxas makes them one: a load guarded by a branch around it
// (guardedJoins). Levels past tmLevels share the last one.
func (pk *PTXKernel) markLoadRounds() {
	level := make(map[int32]int)
	var seen [tmLevels]bool
	blocks := pk.k.Blocks()
	joins := guardedJoins(pk.k.Instrs, blocks)
	base, deepest := 0, 0
	for bi, b := range blocks {
		if joins[bi] == roundsFresh {
			clear(level)
			seen = [tmLevels]bool{}
			base, deepest = 0, 0
		}
		// A guarded block's loads wait for its guard: the predicate of
		// the branch around it, which may come from a load (cgDivide's
		// num[0] is read only when den[0], loaded before, is not zero).
		guard := 0
		if joins[bi] == roundsGuarded {
			if g := pk.code[blocks[bi-1].End-1].guard; g >= 0 {
				guard = level[g]
			}
		}
		for i := b.Start; i < b.End && i < len(pk.code); i++ {
			x := &pk.code[i]
			in := 0
			read := func(r int32) {
				if r >= 0 {
					in = max(in, level[r])
				}
			}
			for _, o := range x.src {
				switch o.kind {
				case oReg:
					read(o.idx)
				case oVec:
					for _, r := range o.vec {
						read(r)
					}
				}
			}
			read(x.abase)
			store := x.op == ptx.OpSt || x.op == ptx.OpAtom || x.op == ptx.OpRed
			if store {
				// a store's value may sit in dst-less operands only
				for _, o := range x.dst {
					if o.kind == oReg {
						read(o.idx)
					}
				}
			}
			if x.op == ptx.OpBar || x.op == ptx.OpMembar {
				base = deepest
			}
			out := in
			if x.op == ptx.OpLd && (x.space == ptx.SpaceGlobal || x.space == ptx.SpaceGeneric) {
				out = max(in, base, guard) + 1
				deepest = max(deepest, out)
				slot := min(out, tmLevels) - 1
				x.tmRound = timing.RoundKind(slot+1, seen[slot])
				seen[slot] = true
			}
			if store && x.op == ptx.OpSt {
				continue
			}
			set := func(r int32) {
				if r < 0 {
					return
				}
				if out > 0 {
					level[r] = out
				} else {
					delete(level, r)
				}
			}
			for _, o := range x.dst {
				switch o.kind {
				case oReg:
					set(o.idx)
				case oVec:
					for _, r := range o.vec {
						set(r)
					}
				}
			}
		}
	}
}

// How a basic block takes the load rounds of the block before it
// (guardedJoins): afresh, as a guarded block, or as the block after one.
const (
	roundsFresh uint8 = iota
	roundsGuarded
	roundsJoined
)

// guardedLoadMax is the most instructions a block guarded by a branch
// around it may hold for guardedJoins to take it as predicated: ptxas 11.8
// for sm_90 predicates a guarded block of a dependent mad chain and one
// load up to 21 PTX instructions and branches around it from 22
// (TestGuardedLoadMaxAsPtxas holds the compiler on the machine to it).
const guardedLoadMax = 21

// guardedJoins marks the blocks that continue the load rounds of the block
// before them. nvcc writes `c ? a[i] : 0` and `if (c) v = a[i];` as a
// branch around a block of one load (`@p bra L; ld; L:`); ptxas turns
// such a block into a predicated load (@!P LDG) in the code around it, and
// schedules it with that code's other loads: stencil1D's two halo loads,
// each guarded in nvcc 11.8's PTX, are one LDG pair in its SASS for sm_90
// (a round, not two); matmulTiled's tile loads, a block of four
// instructions each, are one pair too. So a block b+1 of at most
// guardedLoadMax instructions, one global load among them and no branch,
// barrier or atomic, entered only from block b (by b's conditional branch not being
// taken) and falling through into block b+2, the target of that branch
// and entered from b and b+1 alone, is one block with b and b+2 for the
// rounds: joins[b+1] is roundsGuarded (its loads also wait for the
// branch's predicate) and joins[b+2] roundsJoined.
func guardedJoins(ins []ptx.Instr, blocks []ptx.Block) []uint8 {
	joins := make([]uint8, len(blocks))
	preds := make([]int, len(blocks))
	for _, b := range blocks {
		for _, s := range b.Succs {
			if s >= 0 {
				preds[s]++
			}
		}
	}
	for i := 0; i+2 < len(blocks); i++ {
		b, g, l := blocks[i], blocks[i+1], blocks[i+2]
		last := &ins[b.End-1]
		if last.Op != ptx.OpBra || last.Guard < 0 || int(last.Target) != l.Start ||
			preds[i+1] != 1 || preds[i+2] != 2 || g.End-g.Start > guardedLoadMax {
			continue
		}
		loads := 0
		ok := true
		for k := g.Start; k < g.End; k++ {
			switch x := &ins[k]; x.Op {
			case ptx.OpLd:
				if x.Space == ptx.SpaceGlobal || x.Space == ptx.SpaceGeneric {
					loads++
				}
			case ptx.OpBra, ptx.OpBar, ptx.OpMembar, ptx.OpAtom, ptx.OpRed, ptx.OpRet, ptx.OpExit:
				ok = false
			}
		}
		if ok && loads == 1 {
			joins[i+1], joins[i+2] = roundsGuarded, roundsJoined
		}
	}
	return joins
}

// warpTM is one warp's load rounds within a block (timing.RoundState).
type warpTM = timing.RoundState

// warpRec is what the executor counts of one warp for its record, beside
// its instructions (pwarp.instr) and rounds (pwarp.tm): the instructions
// by class, its memory requests (the worker's running totals, taken as
// the warp runs: ptxWorker.runWarp) and its barriers.
type warpRec struct {
	mix  [numClasses]int64
	mem  timing.Memory
	bars int32
	// barRounds is the load rounds it had opened at its last bar.sync
	// (flightPos counts its rounds since).
	barRounds int64
	stall     float64 // dependent-latency stall cycles (timemodel_deps.go)
	// steps are its instructions and wavefronts between barriers
	// (timing.Warp.Steps), kept across blocks for their room.
	steps []timing.Step
}

// step adds what the warp issued in one run (runWarp: up to a barrier or
// its end) to the interval it ran in, the one after its bars-th barrier.
func (r *warpRec) step(bars int32, instr int64, mem timing.Memory) {
	for int(bars) >= len(r.steps) {
		r.steps = append(r.steps, timing.Step{})
	}
	r.steps[bars].Instr += instr
	r.steps[bars].Waves += mem.SharedWaves
}

// The records carry the executor's instruction classes in its order.
var _ [timing.NumClasses]int64 = [numClasses]int64{}

// place is wp's place in its block's run for the L1's in-flight lines
// (flightPos, l1Entry.inFlight) as it executes global load x: its
// barriers and the load rounds it has opened since the last, x's own if
// x opens one.
func (wp *pwarp) place(x *xin) uint32 {
	r := wp.tm.Opened() - wp.rec.barRounds
	if wp.tm.OpensIn(x.tmRound, x.tmPass()) {
		r++
	}
	return flightPos(wp.id, wp.rec.bars, r)
}

// tmLoad notes one executed global load x of warp wp (its tmRound and its
// loop's passes as compiled): missed whether its request had a sector the
// block's L1 model lacked, capped whether it lost one to the L1's capacity.
func (e *ptxWorker) tmLoad(wp *pwarp, x *xin, missed, capped bool) {
	wp.tm.LoadIn(x.tmRound, x.tmPass(), missed, capped)
}

// recordHook, when set (by a test), sees every record too; it is called
// from all the workers' goroutines.
var recordHook func(*timing.Warp)

// tmEndBlock hands the finished block's warps to the launch's recorder,
// one record a warp, and adds their instruction classes to the worker's.
func (e *ptxWorker) tmEndBlock(b int) {
	w := e.t.w
	if w.rec == nil {
		m := &w.l.d.model
		w.rec = timing.NewBlockLog(&m.GPU, &m.Constants, 16)
	}
	for i := range e.warps {
		wp := &e.warps[i]
		r := &w.warp
		*r = timing.Warp{Block: int64(b), Warp: int32(i), Instr: wp.instr, Classes: wp.rec.mix,
			Rounds: wp.tm.End(), Memory: wp.rec.mem, Barriers: wp.rec.bars, Stall: wp.rec.stall, Steps: wp.rec.steps}
		w.rec.Warp(r)
		if recordHook != nil {
			recordHook(r)
		}
		for c, n := range wp.rec.mix {
			e.mix[c] += n
		}
		wp.rec = warpRec{steps: wp.rec.steps[:0]}
	}
	w.rec.EndBlock(int64(b))
}

// tmCollect merges the workers' block records in block order, with the
// occupancy the model's schedule uses (timing.GPU.BlocksPerSM and, for
// warps that end apart, timing.GPU.Slots, with the kernel's registers
// where they are known: timemodel_regs.go).
func (s *Stats) tmCollect(l *launch, workers []*worker) {
	if l.px == nil {
		return
	}
	regs := l.px.pk.regs
	s.tm = timing.Merge(blockLogs(workers), l.d.model.BlocksPerSM(l.nWarps, l.nThreads, l.px.shBytes, regs.n), l.nWarps)
	l.expandSampled(&s.tm)
	s.tm.Atomics = mergeAtomics(workers, l.sampleScale())
	s.tm.Registers, s.tm.RegistersFrom = regs.n, regs.from
	s.tm.WarpSlots, s.tm.BlockSlots = l.d.model.Slots(l.nWarps, l.px.shBytes, regs.n)
}

// blockLogs are the workers' time model records (their BlockLogs).
func blockLogs(workers []*worker) []*timing.BlockLog {
	logs := make([]*timing.BlockLog, 0, len(workers))
	for _, w := range workers {
		if bl, ok := w.rec.(*timing.BlockLog); ok {
			logs = append(logs, bl)
		}
	}
	return logs
}

// tmAtomic records one warp-level global atomic (atom, red) of the lanes
// in mask for the atomics term (timing.AtomicLine): per 128-byte line it
// touches, one operation, its lanes, its distinct words and sectors, and
// the most lanes on one word. The L2 serves a line's atomics one operation after
// another, so a line every warp hits (a one-bin histogram) sets the time
// (the atomics microbenchmark, docs/timemodel.md). Lines are keyed by
// buffer and offset: buffers start on 256-byte boundaries, so a buffer's
// lines are the device's.
func (e *ptxWorker) tmAtomic(mask uint32) {
	w := e.t.w
	var keys [32]uint64
	n := 0
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		keys[n] = uint64(e.laneBuf[l])<<48 | e.laneOff[l]>>2 // buffer, word
		n++
	}
	k := keys[:n]
	slices.Sort(k)
	if w.atom == nil {
		w.atom = map[uint64]*timing.AtomicLine{}
	}
	for i := 0; i < n; {
		line := k[i] >> 5 // 32 words a line
		a := w.atom[line]
		if a == nil {
			a = &timing.AtomicLine{}
			w.atom[line] = a
		}
		a.Ops++
		most := int64(0)
		sector := ^uint64(0)
		words := 0 // of the current sector
		for i < n && k[i]>>5 == line {
			j := i
			for j < n && k[j] == k[i] {
				j++
			}
			if k[i]>>3 != sector { // 8 words a sector
				if words > 0 && words < 8 {
					a.Partial++
				}
				sector, words = k[i]>>3, 0
				a.Sectors++
			}
			words++
			a.Words++
			a.Lanes += int64(j - i)
			most = max(most, int64(j-i))
			i = j
		}
		if words < 8 {
			a.Partial++
		}
		a.Dup += most
	}
}

// mergeAtomics puts the workers' atomic lines together, scaled by f (a
// sampled launch: sample.go), in a fixed order (by line).
func mergeAtomics(workers []*worker, f float64) []timing.AtomicLine {
	all := map[uint64]*timing.AtomicLine{}
	for _, w := range workers {
		for k, a := range w.atom {
			m := all[k]
			if m == nil {
				m = &timing.AtomicLine{}
				all[k] = m
			}
			m.Ops += a.Ops
			m.Lanes += a.Lanes
			m.Words += a.Words
			m.Dup += a.Dup
			m.Sectors += a.Sectors
			m.Partial += a.Partial
		}
	}
	if len(all) == 0 {
		return nil
	}
	keys := make([]uint64, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]timing.AtomicLine, len(keys))
	for i, k := range keys {
		a := all[k]
		out[i] = timing.AtomicLine{Ops: scaled(a.Ops, f), Lanes: scaled(a.Lanes, f), Words: scaled(a.Words, f),
			Sectors: scaled(a.Sectors, f), Partial: scaled(a.Partial, f), Dup: scaled(a.Dup, f)}
	}
	return out
}

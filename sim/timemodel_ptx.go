package sim

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/warplab/warplab/sim/ptx"
)

// What the time model takes from the executed PTX (issue 13): per warp,
// the instructions it issued and its load rounds, and per block the warp
// that finishes last. A load round is a group of global loads a warp has in
// flight together: the warp waits one memory latency per round. Which
// loads form a round is read off the compiled loop once per kernel
// (markLoadRounds), from data dependences within a basic block: loads whose
// addresses are ready go out together, whatever order the PTX writes them
// in (ptxas schedules them so), and a load whose address needs another
// load's result waits for it. An unrolled SpMV body (four col and val
// loads, then four x[col]) is two rounds, a `#pragma unroll 1` body two
// rounds per element. A round waits for an L1 hit when none of its loads'
// requests missed the block's L1 model, else for a miss (L2 or DRAM).

// Values of xin.tmRound: tmNoLoad, or for a global load 2×its round level,
// plus tmRoundJoin when it joins an earlier load of its level in its basic
// block (levels past tmLevels share the last one).
const (
	tmNoLoad    uint8 = 0
	tmRoundJoin uint8 = 1
	tmLevels          = 32
)

// markLoadRounds sets tmRound of every global load from the data
// dependences of its basic block: a load's round level is one more than
// the deepest load its address depends on within the block (1 when it
// depends on none), and never below a level already issued before a
// barrier (bar, membar, fence) in the block. Loads of one level in a block
// are one round: ptxas schedules loads whose addresses are ready ahead of
// the arithmetic that uses earlier results, so an unrolled body's col and
// val loads go out together, and its x[col] loads together after them,
// whatever order the PTX writes them in. A round never spans a basic block
// boundary. Levels past tmLevels share the last one.
func (pk *PTXKernel) markLoadRounds() {
	level := make(map[int32]int)
	var seen [tmLevels]bool
	for _, b := range pk.k.Blocks() {
		clear(level)
		seen = [tmLevels]bool{}
		base, deepest := 0, 0
		for i := b.Start; i <= b.End && i < len(pk.code); i++ {
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
				out = max(in, base) + 1
				deepest = max(deepest, out)
				slot := min(out, tmLevels) - 1
				x.tmRound = uint8(slot+1) << 1
				if seen[slot] {
					x.tmRound |= tmRoundJoin
				}
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

// warpTM is one warp's round state within a block: per level, whether a
// round is open and whether one of its loads missed.
type warpTM struct {
	hit, miss, l2        int32  // closed rounds that hit the L1 / missed it / missed only for its capacity
	open, missed, capped uint32 // by level: a round is open; one of its loads missed; one lost a sector to the L1's capacity
}

// closeLevel closes the open rounds of the levels in mask. A round with a
// first touch waits for the launch's miss latency; one whose only misses
// are sectors the L1 had and lost waits for L2, where they still are.
func (t *warpTM) closeLevel(mask uint32) {
	o := t.open & mask
	m := o & t.missed
	c := o & t.capped &^ m
	t.miss += int32(bits.OnesCount32(m))
	t.l2 += int32(bits.OnesCount32(c))
	t.hit += int32(bits.OnesCount32(o &^ (m | c)))
	t.open &^= mask
	t.missed &^= mask
	t.capped &^= mask
}

// opens reports whether a global load of round kind starts a new round.
func (t *warpTM) opens(kind uint8) bool {
	bit := uint32(1) << (kind>>1 - 1)
	return kind&tmRoundJoin == 0 || t.open&bit == 0
}

func (t *warpTM) close() { t.closeLevel(^uint32(0)) }

// tmLoad notes one executed global load of warp wp: kind is its tmRound,
// missed whether its request had a sector the block's L1 model lacked. A
// load that starts its level's round in the block closes the level's
// previous round (the last pass of the loop).
func (e *ptxWorker) tmLoad(wp *pwarp, kind uint8, missed, capped bool) {
	t := &wp.tm
	bit := uint32(1) << (kind>>1 - 1)
	if t.opens(kind) {
		t.closeLevel(bit)
		t.open |= bit
	}
	if missed {
		t.missed |= bit
	}
	if capped {
		t.capped |= bit
	}
}

// blockTM is what the model keeps of one block: its index, the warp that
// the model expects to finish last (its instructions and rounds), and the
// sums over all its warps.
type blockTM struct {
	b         int64
	instr     int32
	hit, miss int32
	l2        int32 // rounds that missed only for the L1's capacity
	warps     int32
	sum       int64 // instructions
}

// tmEndBlock closes the rounds of the block's warps and keeps the block's
// slowest warp, judged with the model's latencies (DRAM latency for a
// miss: which misses hit L2 is only known once the launch is done).
func (e *ptxWorker) tmEndBlock(b int) {
	w := e.t.w
	m := w.l.d.model
	cpi := m.WarpCPI / m.ClockHz
	rec := blockTM{b: int64(b), warps: int32(len(e.warps))}
	best := -1.0
	for i := range e.warps {
		wp := &e.warps[i]
		t := &wp.tm
		t.close()
		cost := float64(wp.instr)*cpi + float64(t.hit)*m.L1Latency + float64(t.l2)*m.L2Latency + float64(t.miss)*m.DRAMLatency
		if cost > best {
			best = cost
			rec.instr = int32(min(wp.instr, 1<<31-1))
			rec.hit, rec.miss, rec.l2 = t.hit, t.miss, t.l2
		}
		rec.sum += wp.instr
		w.tmRounds += int64(t.hit) + int64(t.miss) + int64(t.l2)
		*t = warpTM{}
	}
	w.tmBlocks = append(w.tmBlocks, rec)
}

// launchTM is what Stats keeps for the model from a PTX launch.
type launchTM struct {
	blocks        []blockTM // by block index
	rounds        int64     // load rounds over all warps
	blocksPerSM   int       // resident blocks an SM holds (occupancy)
	warpsPerBlock int
}

// tmCollect merges the workers' block records in block order and works out
// the occupancy the list schedule uses: blocks per SM limited by the
// model's block, warp, thread and shared-memory limits (registers are not
// modeled).
func (s *Stats) tmCollect(l *launch, workers []*worker) {
	if l.px == nil {
		return
	}
	n := 0
	for _, w := range workers {
		n += len(w.tmBlocks)
		s.tm.rounds += w.tmRounds
	}
	s.tm.blocks = make([]blockTM, 0, n)
	for _, w := range workers {
		s.tm.blocks = append(s.tm.blocks, w.tmBlocks...)
	}
	slices.SortFunc(s.tm.blocks, func(a, b blockTM) int { return cmp.Compare(a.b, b.b) })
	s.tm.warpsPerBlock = l.nWarps
	s.tm.blocksPerSM = l.d.model.BlocksPerSM(l.nWarps, l.nThreads, l.px.shBytes)
}

// slotQueue holds the SMs' warp slots ordered by the time each frees up,
// then by slot number (slot k sits on SM k mod SMs, so ties spread over the
// SMs). The schedule takes the first slot and puts it back later once per
// warp of every block, so this is the time model's hot loop.
//
// A slot goes back at least as late as the one taken, and when a launch's
// blocks take equal times it goes back after every slot held: a FIFO in
// order (run) takes those in O(1). A slot that would go back before the
// run's last goes to a binary heap (rest) instead, and the first slot is
// the earlier of the two fronts. The order is the same as one heap's, so
// the schedule is too; only the cost differs (a heap's sift-down through
// 13 levels was a twentieth of a simulated warp-per-row SpMV's CPU time).
type slotQueue struct {
	run     []warpSlot // a ring, sorted: run[head], ... run[head+n-1]
	head, n int
	rest    []warpSlot // a binary min-heap
}

type warpSlot struct {
	free float64 // when the slot frees up
	k    int     // slot number
}

// before orders slots by the time they free up, then by slot number.
func (a warpSlot) before(b warpSlot) bool {
	return a.free < b.free || a.free == b.free && a.k < b.k
}

// newSlotQueue holds slots slots, all free at 0.
func newSlotQueue(slots int) *slotQueue {
	q := &slotQueue{run: make([]warpSlot, slots), n: slots}
	for i := range q.run {
		q.run[i].k = i
	}
	return q
}

// pop takes the slot that frees first.
func (q *slotQueue) pop() warpSlot {
	if q.n > 0 && (len(q.rest) == 0 || q.run[q.head].before(q.rest[0])) {
		x := q.run[q.head]
		q.head++
		if q.head == len(q.run) {
			q.head = 0
		}
		q.n--
		return x
	}
	x := q.rest[0]
	last := len(q.rest) - 1
	q.rest[0] = q.rest[last]
	q.rest = q.rest[:last]
	if last > 0 {
		q.down(0)
	}
	return x
}

// push puts slot x back; it never holds more slots than it was made with.
func (q *slotQueue) push(x warpSlot) {
	if q.n == 0 || !x.before(q.run[(q.head+q.n-1)%len(q.run)]) {
		q.run[(q.head+q.n)%len(q.run)] = x
		q.n++
		return
	}
	q.rest = append(q.rest, x)
	for i := len(q.rest) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.rest[i].before(q.rest[p]) {
			break
		}
		q.rest[i], q.rest[p] = q.rest[p], q.rest[i]
		i = p
	}
}

// down moves rest's element i down until the heap holds again below it.
// The element is held aside and each smaller child moves up into the hole,
// one store a level instead of a swap's two.
func (q *slotQueue) down(i int) {
	h := q.rest
	n := len(h)
	x := h[i]
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if j2 := j + 1; j2 < n && h[j2].before(h[j]) {
			j = j2
		}
		if !h[j].before(x) {
			break // x is not after its smaller child: it stays here
		}
		h[i] = h[j]
		i = j
	}
	h[i] = x
}

// schedule places blocks in index order on the SMs' warp slots (as many
// per SM as the occupancy allows): each of a block's warps takes the slot
// that frees first and holds it until the block's slowest warp is done
// (an SM releases a block's resources when the whole block ends), that
// warp's time being instructions × WarpCPI cycles plus its rounds'
// latencies. Blocks thus reach the SMs in waves, and the slowest warp, not
// the average one, sets the end. It returns when the last block finishes
// (the critical path) and the most warp instructions any one SM received
// (for its issue term). Holding a block's slots (this) against freeing a
// warp's slot when it ends was chosen on the training half
// (docs/timemodel.md).
func (m Model) schedule(t *launchTM, missLat float64) (finish float64, maxSMInstr int64) {
	if len(t.blocks) == 0 {
		return 0, 0
	}
	cpi := m.WarpCPI / m.ClockHz
	slots := m.SMs * t.blocksPerSM * max(1, t.warpsPerBlock)
	perSM := make([]float64, m.SMs)
	q := newSlotQueue(slots)
	for i := range t.blocks {
		b := &t.blocks[i]
		d := float64(b.instr)*cpi + float64(b.hit)*m.L1Latency + float64(b.l2)*m.L2Latency + float64(b.miss)*missLat
		per := float64(b.sum) / float64(max(1, b.warps))
		for range max(1, b.warps) {
			x := q.pop()
			x.free += d
			finish = max(finish, x.free)
			perSM[x.k%m.SMs] += per
			q.push(x)
		}
	}
	for _, n := range perSM {
		maxSMInstr = max(maxSMInstr, int64(n))
	}
	return finish, maxSMInstr
}

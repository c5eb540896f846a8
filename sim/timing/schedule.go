package timing

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
func schedule(g *GPU, m *Constants, t *Launch, missLat float64) (finish float64, maxSMInstr int64) {
	if len(t.Blocks) == 0 {
		return 0, 0
	}
	cpi := m.WarpCPI / g.ClockHz
	slots := g.SMs * t.BlocksPerSM * max(1, t.WarpsPerBlock)
	perSM := make([]float64, g.SMs)
	q := newSlotQueue(slots)
	for i := range t.Blocks {
		b := &t.Blocks[i]
		d := float64(b.Instr)*cpi + float64(b.Hit)*m.L1Latency + float64(b.L2)*m.L2Latency + float64(b.Miss)*missLat
		per := float64(b.Sum) / float64(max(1, b.Warps))
		for range max(1, b.Warps) {
			x := q.pop()
			x.free += d
			finish = max(finish, x.free)
			perSM[x.k%g.SMs] += per
			q.push(x)
		}
	}
	for _, n := range perSM {
		maxSMInstr = max(maxSMInstr, int64(n))
	}
	return finish, maxSMInstr
}

package timing

import "math/bits"

// slotQueue holds the SMs' warp slots ordered by the time each frees up,
// then by slot number (slot k sits on SM k mod SMs, so ties spread over the
// SMs). The schedule takes the first slot and puts it back later once per
// warp of every block, so this is the time model's hot loop.
//
// A slot goes back at least as late as the one taken, and mostly after
// every slot held: a run of buckets in order of their times takes those in
// O(1). A bucket holds the slots that free at one time as a bitset, so
// slots that go back at the same time out of slot order (two slots taken
// at times an ulp apart give the same sum) keep the order without a heap.
// A slot that goes back before the run's last bucket moves the run's last
// few slots (at most evictMax) to a binary heap (rest) and takes their
// place: one slot held far longer than the rest (a warp on a long row)
// would otherwise stay last and send every slot after it to the heap; if
// more than evictMax would move, the slot goes to the heap itself. The
// first slot is the earlier of the two fronts, so any split between run
// and heap gives one heap's order, and the schedule one heap's times;
// only the cost differs (BenchmarkSchedule).
type slotQueue struct {
	words   int      // uint64 words in a bucket's bitset, summary first
	sum     int      // summary words: bit i of the summary is data word i's
	run     []bucket // a ring, sorted by time: run[head], ... run[head+n-1]
	head, n int
	rest    []warpSlot // a binary min-heap
	spare   [][]uint64 // empty bitsets for new buckets
}

// bucket is the slots of the run that free up at one time: a bitset of
// slot numbers with a summary word a 64 words, so that finding a sparse
// bucket's first slot reads two words, not every word below it.
type bucket struct {
	free  float64
	bits  []uint64 // summary words, then bit k: slot k
	count int      // slots held
	lo    int      // no summary bit below summary word lo
}

type warpSlot struct {
	free float64 // when the slot frees up
	k    int     // slot number
}

// evictMax is the most slots a push moves from the run's end to the heap.
const evictMax = 8

// before orders slots by the time they free up, then by slot number.
func (a warpSlot) before(b warpSlot) bool {
	return a.free < b.free || a.free == b.free && a.k < b.k
}

// newSlotQueue holds slots slots, all free at 0.
func newSlotQueue(slots int) *slotQueue {
	data := (slots + 63) / 64
	q := &slotQueue{sum: (data + 63) / 64, run: make([]bucket, max(1, slots))}
	q.words = q.sum + data
	if slots > 0 {
		b := q.newBucket(0)
		for k := range slots {
			b.set(k, q.sum)
		}
		q.run[0], q.n = b, 1
	}
	return q
}

// newBucket is an empty bucket for slots freeing at free.
func (q *slotQueue) newBucket(free float64) bucket {
	b := bucket{free: free}
	if n := len(q.spare); n > 0 {
		b.bits, q.spare = q.spare[n-1], q.spare[:n-1]
	} else {
		b.bits = make([]uint64, q.words)
	}
	b.lo = q.sum
	return b
}

// set adds slot k to b of a queue with sum summary words.
func (b *bucket) set(k, sum int) {
	w := k >> 6
	b.bits[sum+w] |= 1 << (k & 63)
	b.bits[w>>6] |= 1 << (w & 63)
	b.lo = min(b.lo, w>>6)
	b.count++
}

// clear takes slot k out of b.
func (b *bucket) clear(k, sum int) {
	w := k >> 6
	if b.bits[sum+w] &^= 1 << (k & 63); b.bits[sum+w] == 0 {
		b.bits[w>>6] &^= 1 << (w & 63)
	}
	b.count--
}

// first is the lowest slot in b, which holds at least one.
func (b *bucket) first(sum int) int {
	for b.bits[b.lo] == 0 {
		b.lo++
	}
	w := b.lo<<6 | bits.TrailingZeros64(b.bits[b.lo])
	return w<<6 | bits.TrailingZeros64(b.bits[sum+w])
}

// at is the ring index of the run's i'th bucket.
func (q *slotQueue) at(i int) int {
	j := q.head + i
	if j >= len(q.run) {
		j -= len(q.run)
	}
	return j
}

// pop takes the slot that frees first.
func (q *slotQueue) pop() warpSlot {
	if q.n > 0 {
		b := &q.run[q.head]
		x := warpSlot{b.free, b.first(q.sum)}
		if len(q.rest) == 0 || x.before(q.rest[0]) {
			if b.clear(x.k, q.sum); b.count == 0 {
				q.spare = append(q.spare, b.bits)
				*b = bucket{}
				if q.head++; q.head == len(q.run) {
					q.head = 0
				}
				q.n--
			}
			return x
		}
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
	if q.n > 0 && x.free < q.run[q.at(q.n-1)].free {
		// The buckets after x, if they hold at most evictMax slots, go
		// to the heap.
		c, i := 0, q.n
		for i > 0 && x.free < q.run[q.at(i-1)].free && c <= evictMax {
			i--
			c += q.run[q.at(i)].count
		}
		if c > evictMax {
			q.heapPush(x)
			return
		}
		for q.n > i {
			q.n--
			b := &q.run[q.at(q.n)]
			for w, v := range b.bits[q.sum:] {
				for v != 0 {
					q.heapPush(warpSlot{b.free, w<<6 | bits.TrailingZeros64(v)})
					v &= v - 1
				}
			}
			clear(b.bits)
			q.spare = append(q.spare, b.bits)
			*b = bucket{}
		}
	}
	if q.n == 0 || x.free > q.run[q.at(q.n-1)].free {
		q.run[q.at(q.n)] = q.newBucket(x.free)
		q.n++
	}
	q.run[q.at(q.n-1)].set(x.k, q.sum)
}

// heapPush adds x to the heap.
func (q *slotQueue) heapPush(x warpSlot) {
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

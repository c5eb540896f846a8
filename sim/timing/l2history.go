package timing

// L2History is what recent launches on one device left in the model's
// L2, newest last: a launch finds there the share of its footprint they
// did not push out. The zero value is an empty history.
type L2History struct {
	uses    []l2Use
	touched map[int]bool // buffers some launch has touched
}

// l2Use is what one earlier launch left in L2: the bytes it touched per
// buffer (reads and writes) and in all.
type l2Use struct {
	bytes map[int]int64 // by buffer id
	total int64
}

// l2Keep bounds the device's launch history: a launch further back than
// this many can only matter behind launches that touched less than the
// L2's capacity across launches in all, which the lessons' sequences
// never are.
const l2Keep = 64

// Resident reports which share of a launch's footprint (bytes per buffer,
// total) the launches before it on the device left in an L2 that keeps
// capacity bytes across launches (Constants.WarmCapacity: measured, or
// half the L2; docs/timemodel.md, "Warm and cold"), and records the
// launch. The L2 keeps what was touched last: walking back from the
// newest launch, each buffer takes the next bytes of that capacity the
// first time it is met, and a launch's buffers share its part evenly
// (they were touched interleaved). A buffer is found in L2 for the share
// of it that lies inside the capacity. A buffer no earlier launch touched
// is taken as found there, as a lesson's timed launches find it after
// their warm-ups; so a kernel timed back to back, its own last launch, is
// warm when its footprint fits.
func (h *L2History) Resident(capacity float64, bytes map[int]int64, total int64) float64 {
	defer func() {
		if h.touched == nil {
			h.touched = map[int]bool{}
		}
		for id := range bytes {
			h.touched[id] = true
		}
		h.uses = append(h.uses, l2Use{bytes: bytes, total: total})
		if len(h.uses) > l2Keep {
			h.uses = append(h.uses[:0], h.uses[len(h.uses)-l2Keep:]...)
		}
	}()
	if total <= 0 {
		return 1
	}
	var warm float64
	for id, n := range bytes {
		warm += h.kept(id, capacity) * float64(n)
	}
	return min(1, warm/float64(total))
}

// kept is the share of buffer id that the history leaves inside the newest
// capacity bytes.
func (h *L2History) kept(id int, capacity float64) float64 {
	seen := map[int]bool{}
	after := 0.0 // distinct bytes touched since
	for i := len(h.uses) - 1; i >= 0 && after < capacity; i-- {
		u := h.uses[i]
		fresh := 0.0 // this launch's bytes not already counted
		for b, n := range u.bytes {
			if !seen[b] {
				fresh += float64(n)
			}
		}
		if _, ok := u.bytes[id]; ok {
			if fresh <= 0 {
				return 1
			}
			return min(1, max(0, capacity-after)/fresh)
		}
		for b := range u.bytes {
			seen[b] = true
		}
		after += fresh
	}
	if h.touched[id] {
		return 0 // pushed out: more than the capacity since, or beyond the kept history
	}
	return 1
}

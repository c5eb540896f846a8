package sim

import (
	"fmt"
	"unsafe"
)

// Shared is a __shared__ array of one block. Every thread of the block that
// asks for it by name gets the same array. Accesses are counted as shared
// requests (wavefronts and bank conflicts) and checked for races: two
// threads touching one word between the same two barriers, at least one of
// them writing, is a fault — the hazard compute-sanitizer's racecheck
// reports.
type Shared[T Elem] struct {
	Data []T
	meta bufMeta // addr is the byte offset in the block's shared memory
	sh   *sharedState
}

type sharedArr struct {
	name  string
	p     any
	off   int
	bytes int
	n     int // elements, for fault messages
	live  bool
}

// sharedState is one worker's shared memory for the block it is running,
// with the per-word history the race check needs.
type sharedState struct {
	arrays []sharedArr
	top    int
	limit  int
	dyn    int

	counter int64   // source of fresh epochs, never reset
	epoch   int64   // current barrier interval of the block
	warpEp  []int64 // per warp: interval since its last warp-level sync
	nextID  int

	wEp, rEp   []int64 // interval of the last write / read
	wWarpEp    []int64
	rWarpEp    []int64
	writer     []int32
	reader     []int32 // thread id, or -2 for several
	readerWarp []int32 // warp of reader, -1 for several warps
	// With reader -2, two distinct threads that read the word, so that a
	// race report can name a reader other than the writing thread.
	firstReader, secondReader []int32
	words                     int
}

func (s *sharedState) reset(w *worker, dyn int) {
	s.limit = w.l.d.model.SharedPerBlock
	s.dyn = dyn
	s.top = 0
	for i := range s.arrays {
		s.arrays[i].live = false
	}
	s.counter++
	s.epoch = s.counter
	if len(s.warpEp) < w.l.nWarps {
		s.warpEp = make([]int64, w.l.nWarps)
	}
	for i := range s.warpEp {
		s.counter++
		s.warpEp[i] = s.counter
	}
}

func (s *sharedState) barrier() {
	s.counter++
	s.epoch = s.counter
}

func (s *sharedState) warpSync(wp int) {
	s.counter++
	s.warpEp[wp] = s.counter
}

func (s *sharedState) ensureWords(n int) {
	if n <= s.words {
		return
	}
	grow := func(a []int64) []int64 { b := make([]int64, n); copy(b, a); return b }
	grow32 := func(a []int32) []int32 { b := make([]int32, n); copy(b, a); return b }
	s.wEp, s.rEp, s.wWarpEp, s.rWarpEp = grow(s.wEp), grow(s.rEp), grow(s.wWarpEp), grow(s.rWarpEp)
	s.writer, s.reader, s.readerWarp = grow32(s.writer), grow32(s.reader), grow32(s.readerWarp)
	s.firstReader, s.secondReader = grow32(s.firstReader), grow32(s.secondReader)
	s.words = n
}

// SharedArray is a static `__shared__ T name[n]`: the block's array of that
// name, created zeroed by the first thread that asks.
func SharedArray[T Elem](t *Thread, name string, n int) *Shared[T] {
	return sharedArray[T](t, name, n, false)
}

// DynamicShared is `extern __shared__ T buf[]`: the dynamic shared memory of
// the launch (its sharedBytes), viewed as T.
func DynamicShared[T Elem](t *Thread) *Shared[T] {
	var z T
	return sharedArray[T](t, "extern shared", t.w.l.sharedBytes/int(unsafe.Sizeof(z)), true)
}

func sharedArray[T Elem](t *Thread, name string, n int, dynamic bool) *Shared[T] {
	s := &t.w.sh
	for i := range s.arrays {
		a := &s.arrays[i]
		if a.name != name {
			continue
		}
		p, ok := a.p.(*Shared[T])
		if !ok || len(p.Data) != n {
			t.fail(&Fault{Kind: "shared array redeclared", Buffer: name,
				Detail: fmt.Sprintf("asked for %d elements of %T, but the array was declared as %T", n, *new(T), a.p)})
		}
		if !a.live {
			clear(p.Data)
			a.live = true
			a.off = s.place(t, name, a.bytes)
			p.meta.addr = uint64(a.off)
		}
		return p
	}
	var z T
	es := int(unsafe.Sizeof(z))
	if n < 0 {
		t.fail(&Fault{Kind: "bad shared array", Buffer: name, Detail: fmt.Sprintf("negative length %d", n)})
	}
	bytes := n * es
	off := s.place(t, name, bytes)
	s.nextID++
	p := &Shared[T]{Data: make([]T, n), sh: s,
		meta: bufMeta{id: s.nextID, name: name, addr: uint64(off), esize: uint64(es), n: n}}
	s.arrays = append(s.arrays, sharedArr{name: name, p: p, off: off, bytes: bytes, n: n, live: true})
	return p
}

// place lays an array out after the ones before it, aligned to 16 bytes.
func (s *sharedState) place(t *Thread, name string, bytes int) int {
	off := (s.top + 15) &^ 15
	if off+bytes > s.limit {
		t.fail(&Fault{Kind: "shared memory exhausted", Buffer: name,
			Detail: fmt.Sprintf("the block needs %d bytes of shared memory; the %s allows %d per block", off+bytes, t.w.l.d.model.Name, s.limit)})
	}
	s.top = off + bytes
	s.ensureWords((s.top + 3) / 4)
	return off
}

// Len is the number of elements.
func (a *Shared[T]) Len() int { return len(a.Data) }

// Ld is a shared load of a[i] at the default site "<name> ld".
func (a *Shared[T]) Ld(t *Thread, i int) T {
	a.touch(t, i, "ld", -1, false)
	return a.Data[i]
}

// LdAt is Ld at a labelled site.
func (a *Shared[T]) LdAt(t *Thread, s Site, i int) T {
	a.touch(t, i, "ld", s, false)
	return a.Data[i]
}

// St is a shared store a[i] = v at the default site "<name> st".
func (a *Shared[T]) St(t *Thread, i int, v T) {
	a.touch(t, i, "st", -1, true)
	a.Data[i] = v
}

// StAt is St at a labelled site.
func (a *Shared[T]) StAt(t *Thread, s Site, i int, v T) {
	a.touch(t, i, "st", s, true)
	a.Data[i] = v
}

// AtomicAdd is atomicAdd on shared memory; it returns the old value.
// Threads of a block run in a fixed order here, so the sum is reproducible.
func (a *Shared[T]) AtomicAdd(t *Thread, i int, v T) T {
	a.touch(t, i, "atom", -1, true)
	old := a.Data[i]
	a.Data[i] = old + v
	return old
}

func (a *Shared[T]) touch(t *Thread, i int, op string, s Site, write bool) {
	if t.fast {
		t.w.leaveFastPath(t, "shared memory")
	}
	t.w.usedSync = true
	if uint(i) >= uint(len(a.Data)) {
		label := a.meta.name + " " + op
		if s >= 0 && int(s) < len(t.w.k.sites) {
			label = t.w.k.sites[s]
		}
		t.fail(&Fault{Kind: "out of bounds", Site: label, Buffer: a.meta.name + " (shared)", Index: i, Len: len(a.Data),
			Detail: fmt.Sprintf("%s of element %d, but the shared array holds %d", opWord(op), i, len(a.Data))})
	}
	opc := opLd
	switch op {
	case "st":
		opc = opSt
	case "atom":
		opc = opAtom
	}
	first := uint32((a.meta.addr + uint64(i)*a.meta.esize) / 4)
	last := uint32((a.meta.addr+uint64(i+1)*a.meta.esize)/4) - 1
	if op != "atom" {
		for wd := first; wd <= last; wd++ {
			a.sh.check(t, int(wd), write, a.meta.name, i)
		}
	}
	var d int32
	if s >= 0 {
		d = t.w.explicitSite(s, &a.meta, opc*2+1)
	} else {
		d = t.w.defaultSite(&a.meta, opc, true)
	}
	t.w.record(t, d, first, last)
}

// check applies the race rule to one word.
func (s *sharedState) check(t *Thread, wd int, write bool, name string, idx int) {
	me := int32(t.tid)
	warp := int32(t.warp)
	wep := s.warpEp[t.warp]
	conflicts := func(other, otherWarp int32, otherWarpEp int64) bool {
		if other == me {
			return false
		}
		// Lanes of one warp are ordered by a __syncwarp (or any _sync
		// intrinsic) between their accesses; other warps only by a barrier.
		return otherWarp != warp || otherWarpEp == wep
	}
	race := func(what string, other int32) {
		t.fail(&Fault{Kind: "shared race", Buffer: name + " (shared)", Index: idx, Len: s.lenOf(name),
			Detail: fmt.Sprintf("%s; no __syncthreads between them", fmt.Sprintf(what, t.w.l.block.unlinear(int(other))))})
	}
	if s.wEp[wd] == s.epoch && conflicts(s.writer[wd], s.writer[wd]>>5, s.wWarpEp[wd]) {
		if write {
			race("thread %v wrote this word too", s.writer[wd])
		}
		race("thread %v wrote this word, which this thread reads", s.writer[wd])
	}
	if write {
		if s.rEp[wd] == s.epoch {
			r := s.reader[wd]
			switch {
			case r == -2 && (s.readerWarp[wd] != warp || s.rWarpEp[wd] == wep):
				race("this thread writes a word that several threads (e.g. %v) read", s.otherReader(wd, me))
			case r >= 0 && conflicts(r, s.readerWarp[wd], s.rWarpEp[wd]):
				race("thread %v read this word, which this thread writes", r)
			}
		}
		s.wEp[wd], s.writer[wd], s.wWarpEp[wd] = s.epoch, me, wep
		return
	}
	if s.rEp[wd] != s.epoch {
		s.rEp[wd], s.reader[wd], s.readerWarp[wd], s.rWarpEp[wd] = s.epoch, me, warp, wep
		return
	}
	if r := s.reader[wd]; r != me {
		if r >= 0 {
			s.firstReader[wd], s.secondReader[wd] = r, me
		}
		s.reader[wd] = -2
		if s.readerWarp[wd] != warp {
			s.readerWarp[wd] = -1
		}
	}
	s.rWarpEp[wd] = wep
}

// otherReader names one of a word's several readers that is not me: of
// two distinct readers at least one is another thread.
func (s *sharedState) otherReader(wd int, me int32) int32 {
	if r := s.firstReader[wd]; r != me {
		return r
	}
	return s.secondReader[wd]
}

func (s *sharedState) lenOf(name string) int {
	for _, a := range s.arrays {
		if a.name == name {
			return a.n
		}
	}
	return 0
}

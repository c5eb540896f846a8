package sim

import (
	"maps"
	"slices"
)

// Re-reads that wait for another block's fetch. A block's L1 model misses
// a sector it has not touched; when another block fetched the sector
// before, the model counts the miss an L2 hit (loadSite.l2HitShare). But
// blocks next to each other in the grid run at the same time (the GPU
// hands them out in index order, a wave of resident blocks at once): the
// sector two neighbouring blocks share, where one block's rows of a CSR
// stream end and the next block's begin, is fetched by one of them while
// the other asks for it too, and that one waits for the same fetch (the
// L2 holds its request until the data come). Such a re-read costs no
// second trip to DRAM, but it takes as long as the first touch. A re-read
// of a sector fetched a wave or more before (an SpMV's x, gathered by
// blocks all over the grid) finds it in L2.
//
// sectorSpans keeps, per 32-byte sector of one buffer, the lowest and
// highest block whose L1 model sent it to L2 as a load; min and max do not
// depend on which worker ran which block. Pages are allocated as touched.

const spanPageBits = 12

type spanPage [1 << spanPageBits]uint64 // (lowest block+1)<<32 | (highest block+1); 0: untouched

type sectorSpans struct {
	pages map[uint32]*spanPage
	// the page touch used last: a block's misses mostly fall in one page,
	// and touch runs on every first touch of a sector (worker.request)
	lastKey uint32
	last    *spanPage
}

func (s *sectorSpans) touch(sector uint32, block uint64) {
	k := sector >> spanPageBits
	p := s.last
	if p == nil || s.lastKey != k {
		if p = s.pages[k]; p == nil {
			if s.pages == nil {
				s.pages = map[uint32]*spanPage{}
			}
			p = new(spanPage)
			s.pages[k] = p
		}
		s.lastKey, s.last = k, p
	}
	b := block + 1
	e := &p[sector&(1<<spanPageBits-1)]
	*e = widen(*e, b<<32|b)
}

// widen is span e with span o taken in: the lower first block, the higher
// last (0 is no span).
func widen(e, o uint64) uint64 {
	switch {
	case o == 0:
		return e
	case e == 0:
		return o
	}
	return min(e>>32, o>>32)<<32 | max(e&(1<<32-1), o&(1<<32-1))
}

// merge takes o's spans into s.
func (s *sectorSpans) merge(o *sectorSpans) {
	if o == nil {
		return
	}
	for k, q := range o.pages {
		p := s.pages[k]
		if p == nil {
			if s.pages == nil {
				s.pages = map[uint32]*spanPage{}
			}
			c := *q
			s.pages[k] = &c
			continue
		}
		for i, e := range q {
			p[i] = widen(p[i], e)
		}
	}
}

// nearShare is, over the buffer's sectors fetched by more than one block,
// the mean share of the first fetch still under way when the last of them
// asks: 1 − span ÷ window for a sector whose first and last fetching
// blocks are span apart, 0 from window on. window is how many blocks
// apart two blocks start one fetch latency apart. 0 when no sector was
// fetched twice.
func (s *sectorSpans) nearShare(window float64) float64 {
	var multi int64
	var near float64
	// Pages in sector order: a float sum in map order would differ in its
	// last bits from run to run.
	keys := slices.Sorted(maps.Keys(s.pages))
	for _, k := range keys {
		for _, e := range s.pages[k] {
			if e == 0 {
				continue
			}
			lo, hi := e>>32, e&(1<<32-1)
			if hi > lo {
				multi++
				near += max(0, 1-float64(hi-lo)/window)
			}
		}
	}
	if multi == 0 {
		return 0
	}
	return near / float64(multi)
}

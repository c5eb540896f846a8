package sim

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/warplab/warplab/sim/internal/lanes"
	"github.com/warplab/warplab/sim/ptx"
)

// allocRec is one allocation of a Device, held weakly.
type allocRec struct {
	addr uint64
	get  func() (meta *bufMeta, base unsafe.Pointer, bytes int, ok bool)
}

// register records g in d's allocation list. The caller holds d.mu.
func (d *Device) register(g any) {
	switch g := g.(type) {
	case *Global[float32]:
		d.allocs = append(d.allocs, weakRec(g))
	case *Global[float64]:
		d.allocs = append(d.allocs, weakRec(g))
	case *Global[int32]:
		d.allocs = append(d.allocs, weakRec(g))
	case *Global[int64]:
		d.allocs = append(d.allocs, weakRec(g))
	case *Global[uint32]:
		d.allocs = append(d.allocs, weakRec(g))
	}
}

func weakRec[T Elem](g *Global[T]) allocRec {
	wp := weak.Make(g)
	return allocRec{addr: g.meta.addr, get: func() (*bufMeta, unsafe.Pointer, int, bool) {
		g := wp.Value()
		if g == nil {
			return nil, nil, 0, false
		}
		p, n := g.dataPtr()
		return &g.meta, p, n, true
	}}
}

// gbuf is a live device buffer as a launch sees it.
type gbuf struct {
	lo, hi uint64 // device addresses [lo, hi)
	base   unsafe.Pointer
	meta   *bufMeta
	m4, m8 *bufMeta // counter views: words paired as 4- or 8-byte elements
}

// liveBuffers lists the device's buffers that are still reachable, by
// address, and drops the others from the list. The caller holds d.mu.
func (d *Device) liveBuffers() []gbuf {
	out := make([]gbuf, 0, len(d.allocs))
	keep := d.allocs[:0]
	for _, a := range d.allocs {
		m, p, n, ok := a.get()
		if !ok {
			continue
		}
		keep = append(keep, a)
		bytes := min(n, m.n*int(m.esize))
		m4 := *m
		m4.esize, m4.n = 4, (bytes+3)/4
		m8 := *m
		m8.esize, m8.n = 8, (bytes+7)/8
		out = append(out, gbuf{lo: m.addr, hi: m.addr + uint64(bytes), base: p, meta: m, m4: &m4, m8: &m8})
	}
	clear(d.allocs[len(keep):])
	d.allocs = keep
	return out
}

// find returns the index of the buffer whose range holds addr, or -1.
func (px *ptxLaunch) find(addr uint64) int {
	i := sort.Search(len(px.bufs), func(i int) bool { return px.bufs[i].lo > addr }) - 1
	if i >= 0 && addr < px.bufs[i].hi {
		return i
	}
	if i >= 0 && addr == px.bufs[i].lo { // an empty buffer: its address, no bytes
		return i
	}
	return -1
}

// Memory spaces an address resolves to.
const (
	mGlobal = iota
	mShared
	mLocal
	mVar
	mParam
)

// mem runs ld, st, atom and red on the lanes in mask: each lane's address
// is resolved and bounds-checked, the data moved, and the warp-level
// request counted at the instruction's site.
func (e *ptxWorker) mem(wp *pwarp, x *xin, mask uint32) *Fault {
	in := x.in
	if x.space == ptx.SpaceParam {
		return e.ldParam(wp, x, mask)
	}
	var base *[32]uint64
	if x.abase >= 0 {
		base = &wp.regs[x.abase]
	}
	// A traced warp takes the general path, which locates every lane's
	// access (laneBuf, laneOff) for record; the counters are the same.
	e.cur = x
	traced := e.l.trace != nil && e.traced(wp)
	if x.fastLd && base != nil && !traced && e.ldGlobal(wp, x, mask, base) {
		return nil
	}
	width := x.size * x.vec
	var gmask, smask, cmask uint32
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		addr := x.aconst
		if base != nil {
			addr += base[lane]
		}
		if x.a32 {
			addr &= 0xffffffff
		}
		sp := mGlobal
		switch x.space {
		case ptx.SpaceShared:
			sp = mShared
		case ptx.SpaceLocal:
			sp = mLocal
		case ptx.SpaceConst:
			// A .const address is its generic one (symAddr): the window
			// of module variables.
			sp = mVar
		case ptx.SpaceGeneric:
			switch {
			case addr >= localWin && addr < localWin+winSize:
				sp, addr = mLocal, addr-localWin
			case addr >= sharedWin && addr < sharedWin+winSize:
				sp, addr = mShared, addr-sharedWin
			case addr >= varWin && addr < varWin+winSize:
				sp = mVar
			}
		case ptx.SpaceGlobal:
			if addr >= varWin && addr < varWin+winSize {
				sp = mVar
			}
		}
		if addr%uint64(min(width, 16)) != 0 {
			return e.fault(wp, lane, x, "misaligned address", fmt.Sprintf(
				"%d-byte access at address %#x, which is not a multiple of %d", width, addr, min(width, 16)))
		}
		var p unsafe.Pointer
		switch sp {
		case mGlobal:
			b := e.last
			if b >= len(e.l.bufs) || addr < e.l.bufs[b].lo || addr+uint64(width) > e.l.bufs[b].hi {
				b = e.l.find(addr)
				if b < 0 || addr+uint64(width) > e.l.bufs[b].hi {
					return e.oobGlobal(wp, lane, x, addr, b)
				}
				e.last = b
			}
			g := &e.l.bufs[b]
			off := addr - g.lo
			p = unsafe.Add(g.base, off)
			e.laneBuf[lane] = int32(b)
			e.laneOff[lane] = off
			gmask |= 1 << lane
		case mShared:
			if addr+uint64(width) > uint64(len(e.shared)) {
				return e.fault(wp, lane, x, "out of bounds", fmt.Sprintf(
					"%s of %d bytes at shared offset %d, but the block has %d bytes of shared memory (%s)",
					accessWord(in.Op), width, addr, len(e.shared), e.sharedLayout()))
			}
			p = unsafe.Pointer(&e.shared[addr])
			e.laneOff[lane] = addr
			smask |= 1 << lane
			if in.Op == ptx.OpLd || in.Op == ptx.OpSt {
				e.raceCheck(wp, lane, addr, width, in.Op == ptx.OpSt)
			} else {
				e.atomicInit(wp, lane, addr, width) // initcheck.go
			}
		case mLocal:
			if x.frameRel {
				// A device function's frame variable by name (ptxcall.go):
				// frames start at multiples of 16, so the alignment
				// checked above holds.
				addr += uint64(wp.ext.fp)
			}
			lb := uint64(e.l.pk.laneLocal)
			if addr+uint64(width) > lb {
				return e.fault(wp, lane, x, "out of bounds", fmt.Sprintf(
					"%s of %d bytes at local offset %d, but each thread has %d bytes of local memory", accessWord(in.Op), width, addr, lb))
			}
			p = unsafe.Pointer(&wp.local[uint64(lane)*lb+addr])
		case mVar:
			off := addr - varWin
			vr := e.l.pk.varAt(int(off), width)
			if vr == nil {
				return e.fault(wp, lane, x, "out of bounds", fmt.Sprintf(
					"%s of %d bytes at address %#x, which is in no module variable", accessWord(in.Op), width, addr))
			}
			if in.Op != ptx.OpLd && !vr.writable {
				return e.fault(wp, lane, x, "write to constant memory", fmt.Sprintf("%s writes .const variable %s", in.Op, vr.name))
			}
			if !vr.writable {
				e.laneOff[lane] = off
				cmask |= 1 << lane
			} else if e.l.varBuf {
				// A __device__ variable: a global access (addVarBuf).
				e.laneBuf[lane] = 0
				e.laneOff[lane] = off
				gmask |= 1 << lane
			}
			p = unsafe.Pointer(&e.l.vars[off])
		}
		switch in.Op {
		case ptx.OpLd:
			e.load(wp, x, lane, p)
		case ptx.OpSt:
			e.store(wp, x, lane, p)
		default:
			old, ok := e.atomic(x, lane, wp, p)
			if !ok {
				return e.fault(wp, lane, x, "unsupported atomic", fmt.Sprintf("%s on .%s is not implemented", in.Op, in.Type))
			}
			if in.Op == ptx.OpAtom {
				e.dst(wp, &x.dst[0], 0)[lane] = old
			}
		}
	}
	if gmask != 0 {
		e.countGlobal(x, gmask, width)
		if x.op == ptx.OpAtom || x.op == ptx.OpRed {
			e.tmAtomic(gmask) // the atomics term's lines (timemodel_ptx.go)
		}
	}
	if smask != 0 {
		e.countShared(x, smask, width)
	}
	if cmask != 0 {
		e.countConst(cmask, width) // ptxglobals.go
	}
	if traced {
		e.record(wp, x, gmask, smask, width)
	}
	return nil
}

// ldGlobal is the common case of mem: a scalar ld.global whose lanes all
// hit one device buffer, aligned and in bounds. It reports false, having
// changed nothing, when some lane needs the general path (which also
// produces any fault).
func (e *ptxWorker) ldGlobal(wp *pwarp, x *xin, mask uint32, base *[32]uint64) bool {
	width := uint64(x.size)
	bufs := e.l.bufs
	// The first guess at the buffer: the one this site hit last (a site
	// keeps to one buffer, while consecutive loads often alternate), else
	// the one the last access hit. A wrong guess costs a search.
	b := e.last
	if sb := e.siteCache[x.site].buf; sb >= 0 {
		b = int(sb)
	}
	if b >= len(bufs) {
		b = 0
		if len(bufs) == 0 {
			return false
		}
	}
	g := &bufs[b]
	// A load every lane makes from one address: its first and last lanes
	// agree, which rules most other loads out without the call.
	if x.size == 4 && !x.widen && ptxLoadShortcuts && (mask&(mask-1) == 0 ||
		base[bits.TrailingZeros32(mask)&31] == base[(31-bits.LeadingZeros32(mask))&31] && lanes.Same(base, mask)) {
		return e.ldGlobalUniform(wp, x, mask, base[bits.TrailingZeros32(mask)&31])
	}
	// Check every lane before touching a register. Most often every lane
	// hits the buffer that the first lane hits, which is often the one
	// the last access hit: the lowest address, the highest end and the
	// lanes' alignment together tell, and the lane-by-lane check below is
	// left for the rest (it decides as it did before this shortcut; e.last
	// only spares a search).
	if addr := x.aconst + base[bits.TrailingZeros32(mask)&31]; (addr < g.lo || addr+width > g.hi) && addr&(width-1) == 0 && addr >= 1<<32 {
		if nb := e.l.find(addr); nb >= 0 && addr+width <= bufs[nb].hi {
			b, g = nb, &bufs[nb]
			e.last = b
		}
	}
	if x.size == 4 && !x.widen && ptxLoadShortcuts && e.ldGlobalStep(wp, x, mask, base, b) {
		return true
	}
	low, end, ors := ^uint64(0), uint64(0), uint64(0)
	for m := mask; m != 0; {
		lo, hi, rest := laneRun(m)
		m = rest
		for _, v := range base[lo:hi] {
			addr := x.aconst + v
			low, end, ors = min(low, addr), max(end, addr+width), ors|addr
		}
	}
	inBuf := low >= g.lo && end <= g.hi && ors&(width-1) == 0
	for m := mask; m != 0 && !inBuf; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		addr := x.aconst + base[lane]
		if addr < g.lo || addr+width > g.hi || addr&(width-1) != 0 {
			if addr&(width-1) != 0 || addr < 1<<32 || m != mask {
				return false // the general path decides
			}
			nb := e.l.find(addr)
			if nb < 0 || addr+width > bufs[nb].hi {
				return false
			}
			b, g = nb, &bufs[nb]
			e.last = b
		}
	}
	d := e.dst(wp, &x.dst[0], 0)
	if x.size != 4 || x.widen {
		for m := mask; m != 0; m &= m - 1 {
			lane := bits.TrailingZeros32(m)
			off := x.aconst + base[lane] - g.lo
			v := readMem(unsafe.Add(g.base, off), x.size)
			if x.widen {
				v = ptx.Widen(v, x.in.Type, x.dsize)
			}
			d[lane] = v
			e.laneBuf[lane] = int32(b)
			e.laneOff[lane] = off
		}
		e.countGlobal(x, mask, x.size)
		return true
	}
	// 4-byte elements, the common case: load and gather the request's
	// words in one pass (countGlobal's rule for one buffer). prev is the
	// last word listed (-1: none yet); n counts at most 32 words, so it
	// indexes the words array as a uint8.
	n, sorted, prev := uint8(0), true, int64(-1)
	for m := mask; m != 0; {
		lo, hi, rest := laneRun(m)
		m = rest
		dr, br := d[lo:hi], base[lo:hi]
		for i, v := range br {
			off := x.aconst + v - g.lo
			dr[i] = uint64(*(*uint32)(unsafe.Add(g.base, off)))
			wd := uint32(off >> 2)
			if int64(wd) <= prev {
				if int64(wd) == prev {
					continue
				}
				sorted = false
			}
			e.words[n] = wd
			n++
			prev = int64(wd)
		}
	}
	if !sorted {
		n = uint8(uniq(e.words[:n]))
	}
	w := e.t.w
	sc := &e.siteCache[x.site]
	if sc.buf != int32(b) {
		sc.buf, sc.d = int32(b), w.explicitSite(Site(x.site), g.m4, opLd*2)
	}
	w.request(&w.sites[sc.d], e.words[:n], bits.OnesCount32(mask))
	return true
}

// ldGlobalStep is ldGlobal of 4-byte elements when lane l reads address
// A + 4l (an array read at the thread's own index, the coalesced load):
// the bounds come from the first and last lane, the values are copied four
// lanes at a time and the words listed in order without sorting. It reports
// false, having done nothing, where the lanes are not on such a line or
// leave buffer b; ldGlobal's lane-by-lane path then decides, as it would
// have without this one. The counters are the lane-by-lane path's: the
// same words, the same request.
func (e *ptxWorker) ldGlobalStep(wp *pwarp, x *xin, mask uint32, base *[32]uint64, b int) bool {
	first, last := bits.TrailingZeros32(mask)&31, (31-bits.LeadingZeros32(mask))&31
	// The first and last lanes rule out most gathers before the lanes
	// between them are compared.
	if base[last]-base[first] != 4*uint64(last-first) ||
		lanes.Steps(base, base[first]-4*uint64(first), 4)&mask != mask {
		return false
	}
	g := &e.l.bufs[b]
	lo, end := x.aconst+base[first], x.aconst+base[last]+4
	if lo&3 != 0 || lo < g.lo || end > g.hi || end <= lo {
		return false
	}
	// Everything is read from base before d is written: d may be base.
	off0 := lo - g.lo - 4*uint64(first) // lane 0's offset on the line, modulo 2^64
	d := e.dst(wp, &x.dst[0], 0)
	n := 0
	for m := mask; m != 0; {
		rlo, rhi, rest := laneRun(m)
		m = rest
		off := off0 + 4*uint64(rlo)
		src := unsafe.Slice((*uint32)(unsafe.Add(g.base, off)), rhi-rlo)
		dr := d[rlo:rhi]
		if k := lanes.Zext32(dr, src); k > 0 {
			dr, src = dr[k:], src[k:]
		}
		for i, v := range src {
			dr[i] = uint64(v)
		}
		wd := uint32(off >> 2)
		for i := range uint32(rhi - rlo) {
			e.words[n] = wd + i
			n++
		}
	}
	w := e.t.w
	sc := &e.siteCache[x.site]
	if sc.buf != int32(b) {
		sc.buf, sc.d = int32(b), w.explicitSite(Site(x.site), g.m4, opLd*2)
	}
	w.request(&w.sites[sc.d], e.words[:n], bits.OnesCount32(mask))
	return true
}

// ptxLoadShortcuts enables ldGlobalUniform and ldGlobalStep; tests turn it
// off to hold them to the lane-by-lane path.
var ptxLoadShortcuts = true

// ldGlobalUniform is ldGlobal of a 4-byte element when every lane reads
// the same address (a row's bounds in warp-per-row SpMV): one bounds check,
// one read, one word in the request, the same counters as lane by lane.
func (e *ptxWorker) ldGlobalUniform(wp *pwarp, x *xin, mask uint32, base uint64) bool {
	bufs := e.l.bufs
	b := e.last
	if sb := e.siteCache[x.site].buf; sb >= 0 {
		b = int(sb) // as in ldGlobal
	}
	addr := x.aconst + base
	if b >= len(bufs) || addr < bufs[b].lo || addr+4 > bufs[b].hi {
		if addr&3 != 0 || addr < 1<<32 {
			return false
		}
		b = e.l.find(addr)
		if b < 0 || addr+4 > bufs[b].hi {
			return false
		}
		e.last = b
	}
	if addr&3 != 0 {
		return false
	}
	g := &bufs[b]
	off := addr - g.lo
	v := uint64(*(*uint32)(unsafe.Add(g.base, off)))
	d := e.dst(wp, &x.dst[0], 0)
	if mask == fullMask {
		fillRow(d, v)
	} else {
		for m := mask; m != 0; m &= m - 1 {
			d[bits.TrailingZeros32(m)&31] = v
		}
	}
	e.words[0] = uint32(off >> 2)
	w := e.t.w
	sc := &e.siteCache[x.site]
	if sc.buf != int32(b) {
		sc.buf, sc.d = int32(b), w.explicitSite(Site(x.site), g.m4, opLd*2)
	}
	w.request(&w.sites[sc.d], e.words[:1], bits.OnesCount32(mask))
	return true
}

func accessWord(op ptx.Opcode) string {
	switch op {
	case ptx.OpSt:
		return "store"
	case ptx.OpAtom, ptx.OpRed:
		return "atomic"
	}
	return "load"
}

// varAt is the module variable holding bytes [off, off+n), or nil.
func (pk *PTXKernel) varAt(off, n int) *varRange {
	for i := range pk.varRanges {
		v := &pk.varRanges[i]
		if off >= v.lo && off+n <= v.hi {
			return v
		}
	}
	return nil
}

// sharedLayout describes the block's shared variables for fault messages.
func (e *ptxWorker) sharedLayout() string {
	pk := e.l.pk
	s := ""
	for i, v := range pk.k.Vars {
		if v.Space != ptx.SpaceShared {
			continue
		}
		size := v.Size
		if v.Extern {
			size = len(e.shared) - pk.externOff
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s at %d, %d bytes", v.Name, pk.varOff[i], size)
	}
	if s == "" {
		return "no shared variables"
	}
	return s
}

// sharedVar names the shared variable at offset off and off's element
// index in it.
func (e *ptxWorker) sharedVar(off uint64) (string, int) {
	pk := e.l.pk
	name, idx := "shared", int(off/4)
	best := -1
	for i, v := range pk.k.Vars {
		if v.Space == ptx.SpaceShared && uint64(pk.varOff[i]) <= off && (best < 0 || pk.varOff[i] >= pk.varOff[best]) {
			best = i
		}
	}
	if best >= 0 {
		v := pk.k.Vars[best]
		es := max(1, v.Type.Size())
		name, idx = v.Name, int(off-uint64(pk.varOff[best]))/es
	}
	return name, idx
}

// raceCheck applies the shared-memory race rule (sharedState.check) to the
// words lane touches; a race unwinds with the fault, caught by runBlockPTX.
func (e *ptxWorker) raceCheck(wp *pwarp, lane int, off uint64, width int, write bool) {
	t := &e.t
	t.tid, t.lane, t.warp = 32*wp.id+lane, lane, wp.id
	t.ThreadIdx = e.t.w.l.block.unlinear(t.tid)
	if width < 4 {
		e.raceCheckBytes(wp, off, width, write) // ptxwarp.go: a byte, or half a word
		return
	}
	name, idx := "", 0
	for wd := off / 4; wd <= (off+uint64(width)-1)/4; wd++ {
		s := &e.t.w.sh
		if s.wEp[wd] != s.epoch && s.rEp[wd] != s.epoch && !write {
			// First touch of the word in this interval: no race possible;
			// record it without naming the variable.
			if s.wEp[wd] < e.shEp0 { // no store of this block wrote it (initcheck.go)
				e.unwritten(wp, lane, off, width, wd)
			}
			s.check(t, int(wd), write, "", 0)
			continue
		}
		if name == "" {
			name, idx = e.sharedVar(off)
			e.raceOff, e.raceWidth = off, width
		}
		s.check(t, int(wd), write, name, idx)
	}
}

// oobGlobal is the fault of a global access outside every buffer or past
// the end of buffer b (-1: in none).
func (e *ptxWorker) oobGlobal(wp *pwarp, lane int, x *xin, addr uint64, b int) *Fault {
	width := x.size * x.vec
	f := e.fault(wp, lane, x, "out of bounds", "")
	if b >= 0 {
		g := &e.l.bufs[b]
		f.Buffer = g.meta.name
		f.Index = int((addr - g.lo) / g.meta.esize)
		f.Len = g.meta.n
		f.Detail = fmt.Sprintf("%s of element %d, but the buffer holds %d", accessWord(x.in.Op), f.Index, f.Len)
		return f
	}
	// Past the end of the buffer below, or in no buffer at all.
	i := sort.Search(len(e.l.bufs), func(i int) bool { return e.l.bufs[i].lo > addr }) - 1
	if i >= 0 && addr >= e.l.bufs[i].lo {
		g := &e.l.bufs[i]
		f.Buffer = g.meta.name
		f.Index = int((addr - g.lo) / g.meta.esize)
		f.Len = g.meta.n
		f.Detail = fmt.Sprintf("%s of %d bytes at element %d, but the buffer holds %d", accessWord(x.in.Op), width, f.Index, f.Len)
		return f
	}
	f.Detail = fmt.Sprintf("%s of %d bytes at address %#x, which is in no buffer of this device", accessWord(x.in.Op), width, addr)
	return f
}

// load moves one lane's element(s) from p into its destination registers,
// sign-extending signed types and zero-extending the others.
func (e *ptxWorker) load(wp *pwarp, x *xin, lane int, p unsafe.Pointer) {
	if x.vec == 1 {
		v := readMem(p, x.size)
		if x.widen {
			v = ptx.Widen(v, x.in.Type, x.dsize)
		}
		e.dst(wp, &x.dst[0], 0)[lane] = v
		return
	}
	for i, r := range x.dst[0].vec {
		if r >= 0 {
			v := readMem(unsafe.Add(p, i*x.size), x.size)
			if x.widen {
				v = ptx.Widen(v, x.in.Type, e.l.pk.k.Regs[r].Type.Size())
			}
			wp.regs[r][lane] = v
			if int(r) < len(wp.pvalid) {
				wp.pvalid[r] = false
			}
		}
	}
}

func (e *ptxWorker) store(wp *pwarp, x *xin, lane int, p unsafe.Pointer) {
	if x.vec == 1 {
		writeMem(p, x.size, e.src(wp, &x.src[1], 1)[lane])
		return
	}
	for i, r := range x.src[1].vec {
		if r >= 0 {
			writeMem(unsafe.Add(p, i*x.size), x.size, wp.regs[r][lane])
		}
	}
}

// readMem reads size bytes at p, zero-extended (the register convention).
func readMem(p unsafe.Pointer, size int) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

func writeMem(p unsafe.Pointer, size int, v uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

// atomic applies atom/red's operation at p for one lane and returns the old
// value. Global memory is shared with other blocks running in parallel, so
// it goes through a compare-and-swap loop; shared and local memory belong
// to this block alone.
func (e *ptxWorker) atomic(x *xin, lane int, wp *pwarp, p unsafe.Pointer) (uint64, bool) {
	in := x.in
	b := e.src(wp, &x.src[1], 1)[lane]
	var c uint64
	if in.NSrc > 2 {
		c = e.src(wp, &x.src[2], 2)[lane]
	}
	size := x.size
	if in.Half != ptx.HalfNone || in.Type == ptx.F16 || size == 2 && in.Atom == ptx.AtomCAS {
		return atomic16(in, p, b, c, size), true
	}
	if size != 4 && size != 8 {
		return 0, false
	}
	for {
		var old uint64
		if size == 4 {
			old = uint64(atomic.LoadUint32((*uint32)(p)))
		} else {
			old = atomic.LoadUint64((*uint64)(p))
		}
		nv, ok := atomOp(in.Atom, in.Type, old, b, c)
		if !ok {
			return 0, false
		}
		if size == 4 {
			if atomic.CompareAndSwapUint32((*uint32)(p), uint32(old), uint32(nv)) {
				return old, true
			}
		} else if atomic.CompareAndSwapUint64((*uint64)(p), old, nv) {
			return old, true
		}
	}
}

// atomic16 is an atomic on 16-bit data: atom.add.noftz on .f16x2 and
// .bf16x2 (both halves of a word, each rounded as add.rn does) and on .f16
// and .bf16, and atom.cas.b16 (what atomicAdd on a bfloat16 compiles to
// before sm_90). A 16-bit location is updated through a compare-and-swap
// of the aligned word that holds it. It returns the old value.
func atomic16(in *ptx.Instr, p unsafe.Pointer, b, c uint64, size int) uint64 {
	add := ptx.Instr{Op: ptx.OpAdd, Type: in.Type, Half: in.Half, Round: ptx.RoundRN}
	op := func(old uint64) uint64 {
		if in.Atom == ptx.AtomCAS {
			if old == b&0xffff {
				return c & 0xffff
			}
			return old
		}
		nv, _ := ptx.Eval(&add, old, b, 0, 0)
		return nv
	}
	if size == 4 {
		for {
			old := atomic.LoadUint32((*uint32)(p))
			if atomic.CompareAndSwapUint32((*uint32)(p), old, uint32(op(uint64(old)))) {
				return uint64(old)
			}
		}
	}
	off := uintptr(p) & 2 // the half's byte offset in its word
	shift := 8 * off
	w := (*uint32)(unsafe.Add(p, -int(off)))
	for {
		word := atomic.LoadUint32(w)
		old := uint64(word>>shift) & 0xffff
		nv := op(old) & 0xffff
		if atomic.CompareAndSwapUint32(w, word, word&^(0xffff<<shift)|uint32(nv)<<shift) {
			return old
		}
	}
}

// atomOp is the new value of an atomic's location holding old.
func atomOp(op ptx.AtomOp, t ptx.Type, old, b, c uint64) (uint64, bool) {
	switch op {
	case ptx.AtomAdd:
		switch t {
		case ptx.F32:
			return uint64(math.Float32bits(math.Float32frombits(uint32(old)) + math.Float32frombits(uint32(b)))), true
		case ptx.F64:
			return math.Float64bits(math.Float64frombits(old) + math.Float64frombits(b)), true
		}
		return old + b, true
	case ptx.AtomMin, ptx.AtomMax:
		less := false
		switch t {
		case ptx.S32:
			less = int32(b) < int32(old)
		case ptx.S64:
			less = int64(b) < int64(old)
		case ptx.U32, ptx.B32:
			less = uint32(b) < uint32(old)
		case ptx.U64, ptx.B64:
			less = b < old
		case ptx.F32:
			fb, fo := math.Float32frombits(uint32(b)), math.Float32frombits(uint32(old))
			less = fb < fo
		default:
			return 0, false
		}
		if less == (op == ptx.AtomMin) && (less || b != old) {
			return b, true
		}
		return old, true
	case ptx.AtomInc:
		if uint32(old) >= uint32(b) {
			return 0, true
		}
		return uint64(uint32(old) + 1), true
	case ptx.AtomDec:
		if uint32(old) == 0 || uint32(old) > uint32(b) {
			return uint64(uint32(b)), true
		}
		return uint64(uint32(old) - 1), true
	case ptx.AtomCAS:
		if t.Size() == 4 {
			if uint32(old) == uint32(b) {
				return c, true
			}
			return old, true
		}
		if old == b {
			return c, true
		}
		return old, true
	case ptx.AtomExch:
		return b, true
	case ptx.AtomAnd:
		return old & b, true
	case ptx.AtomOr:
		return old | b, true
	case ptx.AtomXor:
		return old ^ b, true
	}
	return 0, false
}

// ldParam reads a kernel parameter into the lanes in mask.
func (e *ptxWorker) ldParam(wp *pwarp, x *xin, mask uint32) *Fault {
	off := x.aconst // the parameter's offset is folded in (decode)
	width := x.size * x.vec
	if off+uint64(width) > uint64(len(e.l.params)) {
		return e.fault(wp, bits.TrailingZeros32(mask), x, "out of bounds", fmt.Sprintf("ld.param at offset %d reads past the %d bytes of parameters", off, len(e.l.params)))
	}
	p := unsafe.Pointer(&e.l.params[off])
	if x.vec > 1 {
		for m := mask; m != 0; m &= m - 1 {
			e.load(wp, x, bits.TrailingZeros32(m), p)
		}
		return nil
	}
	// A parameter is the same for every lane: read it once.
	v := readMem(p, x.size)
	if x.widen {
		v = ptx.Widen(v, x.in.Type, x.dsize)
	}
	d := e.dst(wp, &x.dst[0], 0)
	if mask == fullMask {
		fillRow(d, v)
		return nil
	}
	for m := mask; m != 0; m &= m - 1 {
		d[bits.TrailingZeros32(m)] = v
	}
	return nil
}

// fillRow sets all 32 lanes of d to v, eight stores a step: a warp-wide
// value (a parameter, a uniform load) is written often, and the plain
// loop spends more on its counter than on its stores.
func fillRow(d *[32]uint64, v uint64) {
	for l := 0; l <= 24; l += 8 {
		d[l], d[l+1], d[l+2], d[l+3] = v, v, v, v
		d[l+4], d[l+5], d[l+6], d[l+7] = v, v, v, v
	}
}

// countGlobal counts the global request of one warp-level instruction: the
// distinct 4-byte words its lanes touched, per buffer, go to request (the
// same aggregation as Go kernels). An 8-byte or wider access lists every
// other word and pairs it with its successor (the bufMeta view with esize
// 8), as an 8-byte element does in a Go kernel. Lanes of one instruction
// normally hit one buffer; when they hit several, each buffer's lanes count
// as a request of their own at the site.
func (e *ptxWorker) countGlobal(x *xin, mask uint32, width int) {
	w := e.t.w
	op := opLd
	switch x.op {
	case ptx.OpSt:
		op = opSt
	case ptx.OpAtom, ptx.OpRed:
		op = opAtom
	}
	rest := mask
	for rest != 0 {
		b := e.laneBuf[bits.TrailingZeros32(rest)]
		g := &e.l.bufs[b]
		meta, step := g.m4, uint32(1)
		if width >= 8 {
			meta, step = g.m8, 2
		}
		n, lanes := 0, 0
		sorted := true
		for m := rest; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if e.laneBuf[l] != b {
				continue
			}
			rest &^= 1 << l
			lanes++
			wd := uint32(e.laneOff[l] >> 2)
			for k := 0; k < max(1, width/4); k += int(step) {
				v := wd + uint32(k)
				if n > 0 && v <= e.words[n-1] {
					if v == e.words[n-1] {
						continue
					}
					sorted = false
				}
				e.words[n] = v
				n++
				if n == len(e.words) {
					n = uniq(e.words[:n])
					sorted = true
				}
			}
		}
		if !sorted {
			n = uniq(e.words[:n])
		}
		sc := &e.siteCache[x.site]
		if sc.buf != b {
			sc.buf, sc.d = b, w.explicitSite(Site(x.site), meta, op*2)
		}
		w.request(&w.sites[sc.d], e.words[:n], lanes)
	}
}

// countShared counts the shared request of one warp-level instruction by
// the bank rule (wavefronts), through request.
func (e *ptxWorker) countShared(x *xin, mask uint32, width int) {
	if e.l.pk.merged != nil && e.countMerged(x, mask) {
		return // a merged access's widths as compiled (timemodel_widths.go)
	}
	op := opLd
	switch x.op {
	case ptx.OpSt:
		op = opSt
	case ptx.OpAtom, ptx.OpRed:
		op = opAtom
	}
	e.countSharedAt(x.site, op, mask, width)
}

// countSharedAt is countShared at a given site and operation (cp.async's
// shared store has a site of its own).
func (e *ptxWorker) countSharedAt(site int32, op int, mask uint32, width int) {
	w := e.t.w
	n, lanes := 0, 0
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		lanes++
		off := e.laneOff[l]
		for wd := uint32(off / 4); wd <= uint32((off+uint64(width)-1)/4); wd++ {
			e.words[n] = wd
			n++
			if n == len(e.words) {
				n = uniq(e.words[:n])
			}
		}
	}
	n = uniq(e.words[:n])
	d := w.explicitSite(Site(site), &e.shMeta, op*2+1)
	w.request(&w.sites[d], e.words[:n], lanes)
}

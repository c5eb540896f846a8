package sim

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
)

// A trace records, for a few chosen warps of a PTX launch, which lanes
// touched which addresses at each global and shared memory instruction:
// the picture students draw when they learn coalescing (lanes against
// 32-byte sectors) and bank conflicts (lanes against the 32 banks). The
// counters say how many sectors a request took; the trace shows which.
// It is bounded (MaxTraceWarps warps, MaxEvents instructions each), so a
// trace of a long kernel stays small, and a warp that is not traced pays
// one nil check per memory instruction.

// WarpRef names one warp of a launch: its block, as the linear index in
// the grid (x fastest, as blockIdx.x + gridDim.x*(blockIdx.y + ...)), and
// the warp within the block (threads 32·Warp to 32·Warp+31 in linear
// thread order).
type WarpRef struct {
	Block, Warp int
}

func (r WarpRef) String() string { return fmt.Sprintf("block %d warp %d", r.Block, r.Warp) }

// MaxTraceWarps is the most warps one launch traces.
const MaxTraceWarps = 16

// DefaultTraceEvents is PTXOptions.TraceEvents when zero: memory
// instructions kept per traced warp.
const DefaultTraceEvents = 64

// PTXOptions are a PTX launch's optional settings (LaunchPTXWith).
type PTXOptions struct {
	// MaxInstructions bounds each warp's issued instructions in this
	// launch; 0 keeps PTXKernel.MaxInstructions (or 2^31). A warp past it
	// is a "runaway warp" fault: how a kernel that never ends is stopped.
	MaxInstructions int64
	// Trace lists warps whose memory accesses are recorded (at most
	// MaxTraceWarps); a warp that does not exist in the launch is an
	// error.
	Trace []WarpRef
	// TraceEvents bounds the memory instructions kept per traced warp
	// (DefaultTraceEvents when 0); the rest are counted in Trace.Dropped.
	TraceEvents int
	// SampleStride, above 1, makes the launch timing only: it runs one
	// block in every SampleStride (a block of each run of SampleStride
	// picked by a fixed hash of the run, sample.go) and scales the counters and the time
	// model's per-block records to the whole grid, for grids too large to
	// simulate whole (the time model's sweep). The blocks not run write
	// nothing, so the launch's outputs are partial: never check them.
	// Stats.SampledBlocks says how many blocks ran. It cannot be combined
	// with Trace or printf. 0 or 1 runs every block.
	SampleStride int
	// SampleKeep, in a sampled launch, are blocks that also run and stand
	// for themselves in the time model's schedule, in place of their
	// run's sampled block: the blocks the caller knows to be unlike their
	// neighbours (an SpMV's longest rows), which a sample would otherwise
	// leave out or let stand for a whole run. The counters stay the
	// sample's. A block outside the grid is an error; ignored unless
	// SampleStride is above 1.
	SampleKeep []int
}

// LaneAccess is one active lane's part of a warp-level memory instruction.
type LaneAccess struct {
	Lane int
	// Addr is the device address (global) or the byte offset in the
	// block's shared memory (shared).
	Addr uint64
	// Buffer names the global buffer or the shared variable; Offset is
	// the byte offset in the global buffer, or in the block's shared
	// memory (as Addr).
	Buffer string
	Offset uint64
}

// MemEvent is one warp-level global or shared memory instruction of a
// traced warp.
type MemEvent struct {
	Warp  WarpRef
	Seq   int    // the instruction's place among the warp's traced memory instructions, from 0
	Site  string // the site label: CUDA line and PTX instruction
	Space Space  // SpaceGlobal or SpaceShared
	Op    Op     // OpLoad, OpStore or OpAtom
	Width int    // bytes each lane moves
	Lanes []LaneAccess
}

// SectorSize is the granule of global memory requests, in bytes.
const SectorSize = 32

// Sectors lists the 32-byte sectors a lane's access touched, as sector
// numbers (device address / 32).
func (ev *MemEvent) Sectors(la LaneAccess) []uint64 {
	var s []uint64
	for a := la.Addr / SectorSize; a <= (la.Addr+uint64(ev.Width)-1)/SectorSize; a++ {
		s = append(s, a)
	}
	return s
}

// Banks lists the shared-memory banks (4-byte words mod 32) a lane's
// access touched.
func (ev *MemEvent) Banks(la LaneAccess) []int {
	var b []int
	for w := la.Addr / 4; w <= (la.Addr+uint64(ev.Width)-1)/4; w++ {
		b = append(b, int(w%32))
	}
	return b
}

// DistinctSectors is the number of distinct sectors the instruction's lanes
// touched: a global request's sector count when its lanes hit one buffer.
func (ev *MemEvent) DistinctSectors() int {
	seen := map[uint64]bool{}
	for _, la := range ev.Lanes {
		for _, s := range ev.Sectors(la) {
			seen[s] = true
		}
	}
	return len(seen)
}

// Wavefronts is the number of shared-memory wavefronts the instruction
// needs by the bank rule: for each bank, the distinct words lanes touched
// in it; the most in any bank (lanes reading one word share it).
func (ev *MemEvent) Wavefronts() int {
	words := map[int]map[uint64]bool{}
	for _, la := range ev.Lanes {
		for w := la.Addr / 4; w <= (la.Addr+uint64(ev.Width)-1)/4; w++ {
			b := int(w % 32)
			if words[b] == nil {
				words[b] = map[uint64]bool{}
			}
			words[b][w] = true
		}
	}
	n := 0
	for _, ws := range words {
		n = max(n, len(ws))
	}
	return n
}

// Trace is what a launch recorded for its traced warps.
type Trace struct {
	Warps   []WarpRef       // the traced warps, as asked
	Events  []MemEvent      // by warp (in Warps order), then Seq
	Dropped map[WarpRef]int // memory instructions past TraceEvents, by warp
	Limit   int             // TraceEvents in effect
	Grid    Dim3            // the launch's shape
	Block   Dim3
}

// traceRec collects a launch's trace; workers of different blocks write
// it, so it has a mutex. Untraced warps never reach it.
type traceRec struct {
	mu    sync.Mutex
	grid  Dim3
	limit int
	want  map[WarpRef]bool
	ev    map[WarpRef][]MemEvent
	drop  map[WarpRef]int
}

func newTraceRec(o PTXOptions, grid, block Dim3) (*traceRec, error) {
	if len(o.Trace) == 0 {
		return nil, nil
	}
	if len(o.Trace) > MaxTraceWarps {
		return nil, fmt.Errorf("%d warps to trace; at most %d", len(o.Trace), MaxTraceWarps)
	}
	nb, nw := grid.Count(), (block.Count()+31)/32
	t := &traceRec{grid: grid, limit: o.TraceEvents, want: map[WarpRef]bool{}, ev: map[WarpRef][]MemEvent{}, drop: map[WarpRef]int{}}
	if t.limit <= 0 {
		t.limit = DefaultTraceEvents
	}
	for _, r := range o.Trace {
		if r.Block < 0 || r.Block >= nb || r.Warp < 0 || r.Warp >= nw {
			return nil, fmt.Errorf("cannot trace %v: the launch has %d blocks of %d warps", r, nb, nw)
		}
		t.want[r] = true
	}
	return t, nil
}

// ref is the WarpRef of warp wp in the block e runs.
func (e *ptxWorker) ref(wp *pwarp) WarpRef {
	g, b := e.t.w.l.grid, e.blkIdx
	return WarpRef{Block: b.X + g.X*(b.Y+g.Y*b.Z), Warp: wp.id}
}

// traced reports whether wp's memory accesses are to be recorded.
func (e *ptxWorker) traced(wp *pwarp) bool {
	return e.l.trace != nil && e.l.trace.want[e.ref(wp)]
}

// record appends the memory instruction x that wp just ran: its global
// lanes (gmask, located by laneBuf and laneOff) and shared lanes (smask).
func (e *ptxWorker) record(wp *pwarp, x *xin, gmask, smask uint32, width int) {
	t := e.l.trace
	r := e.ref(wp)
	op := OpLoad
	switch accessWord(x.in.Op) {
	case "store":
		op = OpStore
	case "atomic":
		op = OpAtom
	}
	site := ""
	if x.site >= 0 && int(x.site) < len(e.l.pk.labels) {
		site = e.l.pk.labels[x.site]
	}
	mk := func(space Space, mask uint32) MemEvent {
		ev := MemEvent{Warp: r, Site: site, Space: space, Op: op, Width: width}
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			la := LaneAccess{Lane: l, Offset: e.laneOff[l]}
			if space == SpaceGlobal {
				g := &e.l.bufs[e.laneBuf[l]]
				la.Addr, la.Buffer = g.lo+la.Offset, g.meta.name
			} else {
				la.Addr = la.Offset
				la.Buffer, _ = e.sharedVar(la.Offset)
			}
			ev.Lanes = append(ev.Lanes, la)
		}
		return ev
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range []struct {
		space Space
		mask  uint32
	}{{SpaceGlobal, gmask}, {SpaceShared, smask}} {
		if s.mask == 0 {
			continue
		}
		evs := t.ev[r]
		if len(evs) >= t.limit {
			t.drop[r]++
			continue
		}
		ev := mk(s.space, s.mask)
		ev.Seq = len(evs)
		t.ev[r] = append(evs, ev)
	}
}

// result is the finished Trace, warps in the order asked.
func (t *traceRec) result(o PTXOptions, grid, block Dim3) *Trace {
	tr := &Trace{Warps: append([]WarpRef(nil), o.Trace...), Dropped: map[WarpRef]int{}, Limit: t.limit, Grid: grid, Block: block}
	seen := map[WarpRef]bool{}
	for _, r := range o.Trace {
		if seen[r] {
			continue
		}
		seen[r] = true
		tr.Events = append(tr.Events, t.ev[r]...)
		if n := t.drop[r]; n > 0 {
			tr.Dropped[r] = n
		}
	}
	return tr
}

// LaunchPTXWith is LaunchPTX with per-launch options: an instruction
// limit, and warps whose memory accesses are traced (returned as a
// *Trace, nil when none were asked for).
func (d *Device) LaunchPTXWith(ctx context.Context, k *PTXKernel, o PTXOptions, grid, block Dim3, sharedBytes int, args ...any) (*Stats, *Trace, error) {
	if k == nil || k.k == nil {
		return nil, nil, fmt.Errorf("sim: LaunchPTX of a nil kernel (use NewPTXKernel)")
	}
	tr, err := newTraceRec(o, grid, block)
	if err != nil {
		return nil, nil, fmt.Errorf("sim: launch %s: %w", k.Name, err)
	}
	if o.SampleStride < 0 {
		return nil, nil, fmt.Errorf("sim: launch %s: SampleStride %d: want 0 (every block) or more", k.Name, o.SampleStride)
	}
	if o.SampleStride > 1 && (tr != nil || k.printf) {
		return nil, nil, fmt.Errorf("sim: launch %s: a sampled launch (SampleStride %d) is timing only: it cannot trace warps or print", k.Name, o.SampleStride)
	}
	st, err := d.launchPTX(ctx, k, o.MaxInstructions, o.SampleStride, o.SampleKeep, tr, grid, block, sharedBytes, args...)
	if err != nil || tr == nil {
		return st, nil, err
	}
	return st, tr.result(o, grid, block), nil
}

package timing

import (
	"cmp"
	"math/bits"
	"slices"
)

// What the executor tells the model (issue 27, GPGPU-Sim's split between
// functional and timing simulation): sim's PTX executor runs a block's
// warps and, when the block ends, hands a Recorder one Warp record per
// warp, then EndBlock. A record carries counters the executor keeps as it
// runs (instructions issued by class, memory requests with their sectors
// and lines, shared-memory wavefronts, barriers, load rounds); every
// formula, latency and rate is here. The model reads a warp's
// instructions, load rounds, shared requests and wavefronts and barriers
// (BlockLog keeps each block's slowest warp, its wavefronts and barriers
// for the latency term's schedule and the shared term); the launch's other
// counters reach it through Counters (docs/timemodel.md, "Structure").

// NumClasses is how many instruction classes a record counts; ClassNames
// names them in order (sim's instr_mix keys).
const NumClasses = 6

// ClassNames are the instruction classes: "memory" (ld, st, atom, red;
// ld.param too), "integer", "float", "move" (mov, cvt, cvta, selp),
// "control" (bra, ret, exit, bar, membar) and "warp" (shfl, vote).
var ClassNames = [NumClasses]string{"memory", "integer", "float", "move", "control", "warp"}

// Memory counts one warp's memory requests, as sim counts the launch's
// (sim.Stats): a request is one warp-level instruction with an active lane.
type Memory struct {
	GlobalRequests int64 // loads, stores and atomics
	GlobalSectors  int64 // distinct 32-byte sectors of those requests
	L2Sectors      int64 // of those, the sectors sent to L2 (the L1 model's misses, stores, atomics)
	L2Lines        int64 // line transactions to L2: per request, the lines with a sector it sends there
	L1Wavefronts   int64 // L1 data-stage wavefronts of the global requests (the bank rule)
	SharedRequests int64
	SharedWaves    int64 // shared-memory wavefronts (the busiest bank's distinct words, per request)
	SharedIdeal    int64 // the wavefronts without bank conflicts
}

// Add adds o to m.
func (m *Memory) Add(o Memory) {
	m.GlobalRequests += o.GlobalRequests
	m.GlobalSectors += o.GlobalSectors
	m.L2Sectors += o.L2Sectors
	m.L2Lines += o.L2Lines
	m.L1Wavefronts += o.L1Wavefronts
	m.SharedRequests += o.SharedRequests
	m.SharedWaves += o.SharedWaves
	m.SharedIdeal += o.SharedIdeal
}

// Sub is m − o: what was counted between two readings.
func (m Memory) Sub(o Memory) Memory {
	return Memory{m.GlobalRequests - o.GlobalRequests, m.GlobalSectors - o.GlobalSectors, m.L2Sectors - o.L2Sectors,
		m.L2Lines - o.L2Lines, m.L1Wavefronts - o.L1Wavefronts, m.SharedRequests - o.SharedRequests,
		m.SharedWaves - o.SharedWaves, m.SharedIdeal - o.SharedIdeal}
}

// Rounds counts a warp's closed load rounds by what each waited for: an L1
// hit (none of its loads' requests missed the block's L1 model), a miss
// with a first touch (L2 or DRAM: the launch's miss latency), or a miss
// only of sectors the L1 had and lost to its capacity (L2, where they
// still are).
//
// MissWide counts the misses (among Miss) whose request was a gather:
// more than four lines, spread over more than twice as many (sim's
// worker.request); it waits longer than a coalesced request
// (Constants.DRAMScatterLatency).
type Rounds struct{ Hit, Miss, L2, MissWide int32 }

// Total is all the rounds.
func (r Rounds) Total() int64 { return int64(r.Hit) + int64(r.Miss) + int64(r.L2) }

// Warp is the record of one warp of a finished block.
type Warp struct {
	Block    int64 // the block's linear index in the grid
	Warp     int32 // the warp's index in its block
	Instr    int64 // warp instructions issued (predicated-off ones included)
	Classes  [NumClasses]int64
	Rounds   Rounds
	Memory   Memory
	Barriers int32 // bar.sync waits
	// Stall is the cycles its dependences on shared loads and shuffles
	// kept it waiting beyond its instructions at WarpCPI (sim's
	// depStalls; Constants.SharedLoadCycles, ShflCycles).
	Stall float64
	// Steps are its instructions and shared wavefronts between barriers:
	// Steps[i] what it issued after its i-th bar.sync wait and up to the
	// next (so len(Steps) is at most Barriers+1). The slice is the
	// executor's, valid during the Warp call only.
	Steps []Step
}

// Step is what a warp issued between two of its barriers.
type Step struct {
	Instr int64
	Waves int64 // shared-memory wavefronts
}

// Recorder takes the records of the blocks one executor worker runs; its
// calls come from that worker's goroutine only.
type Recorder interface {
	// Warp records one warp of a finished block; a block's warps come in
	// warp order.
	Warp(w *Warp)
	// EndBlock says block's warps are all recorded.
	EndBlock(block int64)
}

// Block is what the model keeps of one block: its index, the warp it
// expects to finish last (its instructions, rounds and the cycles its
// shared-memory conflicts and dependent stalls add to its path), and its
// warps' instructions, shared wavefronts and barriers in all.
type Block struct {
	B         int64
	Instr     int32
	Hit, Miss int32
	L2        int32 // rounds that missed only for the L1's capacity
	MissWide  int32 // of the misses, the gathers
	Warps     int32
	Bars      int32   // the most bar.sync waits of any of its warps
	Sum       int64   // instructions
	Waves     int64   // shared-memory wavefronts of all its warps
	Extra     float64 // seconds: the slowest warp's shared conflicts and dependent stalls on its own path
	// L2Sectors and L2Lines are its warps' sectors and line transactions
	// sent to L2 (Memory), for the bandwidth its in-step memory waits share
	// (blockTime).
	L2Sectors, L2Lines int64
	// Shares is the block's share of its SM's rates, step by step (seconds;
	// 0 without barriers or without the rates in the constants): over the
	// intervals its barriers cut it into, the sum of each interval's
	// longest of its warps' instructions at the SM's issue rate, their
	// wavefronts at the shared memory's and their barrier arrivals at
	// BarrierWarpCycles. A barrier holds a step's work apart from the
	// next one's, so a step of conflicted stores and a step of barriers
	// add, where one sum over the block would let them overlap
	// (blockTime).
	Shares float64
	// Ends are its warps' paths as shares of the slowest warp's (warp
	// order; the slowest's is 1), judged with BlockLog's latencies: an SM
	// frees a warp's slot when the warp ends, so a block's fast warps hand
	// their slots to the next block while its slowest runs (schedule).
	// Nil when every warp takes the slowest's time or the block has
	// barriers (its warps then end together).
	Ends []float32
}

// BlockLog is the Recorder the model uses: per block, the slowest warp
// judged with the model's latencies (DRAM latency for a miss: which
// misses hit L2 is only known once the launch is done) and, where the
// constants have them, the cycles its shared-memory conflicts add to its
// path (Constants.SharedWaveCycles for each wavefront of a request past
// its first).
type BlockLog struct {
	cpi, l1, l2, dram, dramWide, wave, cyc float64
	// issueSec, waveSec, barSec: what an instruction, a wavefront and a
	// barrier arrival take of the SM's rates (0: not in the constants).
	issueSec, waveSec, barSec float64
	cur                       Block
	best                      float64
	steps                     []blockStep // the current block's, by interval
	release                   bool        // keep each warp's path (Constants.WarpSlotRelease)
	costs                     []float64   // the current block's warps' paths, with release
	ends                      []float32   // room the blocks' Ends are cut from
	Blocks                    []Block
	Rounds                    int64 // load rounds over all warps
}

// blockStep is a block's warps' work in one barrier interval.
type blockStep struct {
	instr, waves, arrivals int64
}

// NewBlockLog is a BlockLog with room for hint blocks.
func NewBlockLog(g *GPU, c *Constants, hint int) *BlockLog {
	l := &BlockLog{cpi: c.WarpCPI / g.ClockHz, l1: c.L1Latency, l2: c.L2Latency, dram: c.DRAMLatency, dramWide: max(0, c.DRAMScatterLatency-c.DRAMLatency),
		wave: c.SharedWaveCycles / g.ClockHz, cyc: 1 / g.ClockHz, best: -1, Blocks: make([]Block, 0, hint),
		barSec: c.BarrierWarpCycles / g.ClockHz, release: c.WarpSlotRelease}
	if c.IssuePerSMCycle > 0 {
		l.issueSec = 1 / (c.IssuePerSMCycle * g.ClockHz)
	}
	if c.SharedWavesPerCycle > 0 {
		l.waveSec = 1 / (c.SharedWavesPerCycle * g.ClockHz)
	}
	return l
}

// Warp keeps w if it is the block's slowest so far.
func (l *BlockLog) Warp(w *Warp) {
	r := w.Rounds
	extra := float64(w.Memory.SharedWaves-w.Memory.SharedRequests)*l.wave + w.Stall*l.cyc
	cost := float64(w.Instr)*l.cpi + float64(r.Hit)*l.l1 + float64(r.L2)*l.l2 + float64(r.Miss)*l.dram + float64(r.MissWide)*l.dramWide + extra
	if l.release {
		l.costs = append(l.costs, cost)
	}
	if cost > l.best {
		l.best = cost
		l.cur.Instr = int32(min(w.Instr, 1<<31-1))
		l.cur.Hit, l.cur.Miss, l.cur.L2, l.cur.MissWide = r.Hit, r.Miss, r.L2, r.MissWide
		l.cur.Extra = extra
	}
	l.cur.Sum += w.Instr
	l.cur.Waves += w.Memory.SharedWaves
	l.cur.L2Sectors += w.Memory.L2Sectors
	l.cur.L2Lines += w.Memory.L2Lines
	l.cur.Bars = max(l.cur.Bars, w.Barriers)
	l.cur.Warps++
	l.Rounds += r.Total()
	for i, st := range w.Steps {
		if i == len(l.steps) {
			l.steps = append(l.steps, blockStep{})
		}
		p := &l.steps[i]
		p.instr += st.Instr
		p.waves += st.Waves
		if i < int(w.Barriers) {
			p.arrivals++
		}
	}
}

// EndBlock files the block.
func (l *BlockLog) EndBlock(block int64) {
	l.cur.B = block
	if l.cur.Bars > 0 && l.barSec > 0 {
		for _, p := range l.steps {
			l.cur.Shares += max(float64(p.instr)*l.issueSec, float64(p.waves)*l.waveSec, float64(p.arrivals)*l.barSec)
		}
	}
	l.cur.Ends = l.warpEnds()
	l.Blocks = append(l.Blocks, l.cur)
	l.cur, l.best = Block{}, -1
	l.steps = l.steps[:0]
	l.costs = l.costs[:0]
}

// warpEnds is the current block's Block.Ends, cut from l.ends (a block's
// share of one backing array, so a launch of many blocks allocates a few
// times, not once a block); nil when the block's warps end together or
// the model holds a block's slots until it ends (no costs kept).
func (l *BlockLog) warpEnds() []float32 {
	if l.cur.Bars > 0 || len(l.costs) < 2 || l.best <= 0 || !slices.ContainsFunc(l.costs, func(c float64) bool { return c < l.best }) {
		return nil
	}
	if cap(l.ends)-len(l.ends) < len(l.costs) {
		l.ends = make([]float32, 0, max(4096, 4*len(l.costs)))
	}
	n := len(l.ends)
	for _, c := range l.costs {
		l.ends = append(l.ends, float32(c/l.best))
	}
	return l.ends[n:len(l.ends):len(l.ends)]
}

// Launch is what the latency term takes from a PTX launch's records.
type Launch struct {
	Blocks        []Block // by block index
	Rounds        int64   // load rounds over all warps
	BlocksPerSM   int     // resident blocks an SM holds (occupancy)
	WarpsPerBlock int
	// WarpSlots and BlockSlots are an SM's slots when each warp frees its
	// own as it ends (GPU.Slots): the warps an SM holds at once and the
	// blocks, which keep their shared memory until their last warp ends.
	// 0: the schedule holds a block's warp slots until the block ends.
	WarpSlots, BlockSlots int
	// Registers is the kernel's registers per thread that limited the
	// occupancy, 0 when not known; RegistersFrom says where they came
	// from (ptxas -v and the architecture).
	Registers     int
	RegistersFrom string
	// Atomics are the launch's global atomics by 128-byte line, in line
	// order (sim's tmAtomic), for the atomics term.
	Atomics []AtomicLine
}

// Merge puts the workers' logs together in block order.
func Merge(logs []*BlockLog, blocksPerSM, warpsPerBlock int) Launch {
	n := 0
	var t Launch
	for _, l := range logs {
		n += len(l.Blocks)
		t.Rounds += l.Rounds
	}
	t.Blocks = make([]Block, 0, n)
	for _, l := range logs {
		t.Blocks = append(t.Blocks, l.Blocks...)
	}
	slices.SortFunc(t.Blocks, func(a, b Block) int { return cmp.Compare(a.B, b.B) })
	t.BlocksPerSM, t.WarpsPerBlock = blocksPerSM, warpsPerBlock
	return t
}

// Load rounds. A load round is a group of global loads a warp has in
// flight together: the warp waits one memory latency per round. sim marks
// each global load of the PTX with its round kind once per kernel (from
// the basic block's data dependences, markLoadRounds); a warp's
// RoundState follows the rounds as its loads execute.
//
// A round kind is NoLoad, or for a global load 2×its round level plus
// RoundJoin when it joins an earlier load of its level in its basic block
// (levels past Levels share the last one).
const (
	NoLoad    uint8 = 0
	RoundJoin uint8 = 1
	Levels          = 32
)

// RoundKind is the kind of a global load at level (1 to Levels) that
// joins (join) or opens its level's round.
func RoundKind(level int, join bool) uint8 {
	k := uint8(level) << 1
	if join {
		k |= RoundJoin
	}
	return k
}

// RoundState is one warp's load rounds within a block: per level, whether
// a round is open and whether one of its loads missed, and the rounds
// closed so far; and per level, the loop whose pass opened the round and
// how much of a PTX pass of that loop may still join it, in PassUnit
// parts (Pass).
type RoundState struct {
	done                 Rounds
	open, missed, capped uint32 // by level: a round is open; one of its loads missed; one lost a sector to the L1's capacity
	merging              uint32 // by level: the open round's next PTX pass joins it (budget >= PassUnit)
	wide                 uint32 // by level: one of the round's loads missed with a gather
	opener               uint32 // by level: the open round waits for its first load alone (a compiled pass's round)
	quiet                bool   // the last load noted joined an opener's round: its miss is not the round's
	budget               [Levels]uint8
	loop                 [Levels]uint16
	// A compiled pass's rounds, per level: the PTX passes still to come
	// in the one under way (cpLeft) and its loop (cpLoop); whether one of
	// its rounds waited for a miss (charged) and whether a load that
	// joined an opener's round missed (pending).
	cpLeft           [Levels]uint8
	cpLoop           [Levels]uint16
	charged, pending uint32
	// Split rounds, per level: the open round's Pass.Split (split says
	// which levels have one) and the parts of a round carried over.
	split      uint32
	splitParts [Levels]uint8
	splitCarry [Levels]uint8
}

// PassUnit is the parts of a PTX pass Pass.Span counts in.
const PassUnit = 8

// Pass places a global load in the compiled code's loops: Loop names the
// PTX loop it sits in (0: none), Span how many of the PTX's passes over
// that loop one round of each of its levels spans in the compiled code, in
// PassUnit parts (0 or PassUnit: one, the PTX's own). ptxas unrolls a loop
// again below the PTX (spmvCsrThreadPerRow's row loop is 4 elements a
// pass in nvcc's PTX and 16 in ptxas 11.8's SASS for sm_90) and issues
// the loads of several PTX passes together, but in its own order: that
// SASS pass waits for loads five times where the PTX's two levels say two
// (sim's SetLoadPasses reads both off the SASS), so a round spans 4 × 2 /
// 5 = 1.6 PTX passes (Span 13). A round the first of such a span's passes
// opens is joined by the span's other passes; a fraction left over joins
// the next span, so rounds come at the compiled code's rate on average.
// Such a round waits for the load that opened it (the code's first use);
// a later load's miss is waited for at a later round of the compiled
// pass, and where no round of the compiled pass (Unroll PTX passes) at
// its level waited for a miss, at the last one: its result is used within
// the pass. Without that last rule a lone lane whose row starts 1 to 3
// entries past a multiple of 4 waited for none of its col and val
// sectors (sim.TestLoneRowStart).
//
// The compiled pass may also wait more often than the PTX's rounds say
// (spmvVector4V4's float4 walk: two rounds a PTX pass, six waits a SASS
// pass of the same loads): Split is then how many compiled rounds one
// PTX round stands for, in PassUnit parts (0: one). Such a round counts
// that many rounds of its kind when it closes, a fraction carried to the
// level's next round.
type Pass struct {
	Loop   uint16
	Span   uint8
	Unroll uint8 // the PTX passes one compiled pass holds (0: as many as Span, rounded up)
	Split  uint8
}

// passes is the PTX passes of one compiled pass: Unroll, or without it
// the PTX passes a round spans (rounded up).
func (p Pass) passes() uint8 {
	if p.Unroll > 1 {
		return p.Unroll
	}
	return max(1, (p.Span+PassUnit-1)/PassUnit)
}

// closeLevel closes the open rounds of the levels in mask. A round with a
// first touch waits for the launch's miss latency; one whose only misses
// are sectors the L1 had and lost waits for L2, where they still are.
func (t *RoundState) closeLevel(mask uint32) {
	o := t.open & mask
	m := o & t.missed
	c := o & t.capped &^ m
	t.done.Miss += int32(bits.OnesCount32(m))
	t.done.L2 += int32(bits.OnesCount32(c))
	t.done.Hit += int32(bits.OnesCount32(o &^ (m | c)))
	t.done.MissWide += int32(bits.OnesCount32(m & t.wide))
	for s := o & t.split; s != 0; s &= s - 1 {
		lv := bits.TrailingZeros32(s)
		parts := int(t.splitCarry[lv]) + int(t.splitParts[lv]) - PassUnit
		n := int32(parts / PassUnit)
		t.splitCarry[lv] = uint8(parts - int(n)*PassUnit)
		bit := uint32(1) << lv
		switch {
		case m&bit != 0:
			t.done.Miss += n
			if t.wide&bit != 0 {
				t.done.MissWide += n
			}
		case c&bit != 0:
			t.done.L2 += n
		default:
			t.done.Hit += n
		}
	}
	t.split &^= o
	t.charged |= m
	t.open &^= mask
	t.missed &^= mask
	t.capped &^= mask
	t.wide &^= mask
}

// Opened is how many rounds the warp has opened in its block so far: the
// closed ones and those still open. Warps that run the same code abreast
// open their k-th rounds at about the same time, which is what the L1
// model's in-flight lines compare (Constants.L1InFlight).
func (t *RoundState) Opened() int64 {
	return t.done.Total() + int64(bits.OnesCount32(t.open))
}

// Opens reports whether a global load of round kind, in no unrolled loop,
// starts a new round.
func (t *RoundState) Opens(kind uint8) bool { return t.OpensIn(kind, Pass{}) }

// OpensIn reports whether a global load of round kind at loop pass p
// starts a new round: a load that opens its level's round in its basic
// block does, unless a round at its level spans several of its loop's PTX
// passes as compiled and an earlier PTX pass of the same span opened it.
func (t *RoundState) OpensIn(kind uint8, p Pass) bool {
	lv := kind>>1 - 1
	bit := uint32(1) << lv
	if t.open&bit == 0 {
		return true
	}
	if kind&RoundJoin != 0 {
		return false
	}
	return p.Span <= PassUnit || t.merging&bit == 0 || t.loop[lv] != p.Loop
}

// Load notes one executed global load of round kind, in no unrolled loop
// (LoadIn).
func (t *RoundState) Load(kind uint8, missed, capped bool) { t.LoadIn(kind, Pass{}, missed, capped) }

// LoadIn notes one executed global load of round kind at loop pass p:
// missed whether its request had a sector the block's L1 model lacked,
// capped whether it lost one to the L1's capacity. A load that starts its
// level's round in the block closes the level's previous round (the last
// pass of the loop), unless the compiled code's round spans this PTX pass
// and the one before it (OpensIn).
func (t *RoundState) LoadIn(kind uint8, p Pass, missed, capped bool) {
	lv := kind>>1 - 1
	bit := uint32(1) << lv
	t.quiet = false
	opened := t.OpensIn(kind, p)
	newCP := false
	if p.Span > PassUnit && kind&RoundJoin == 0 {
		// A new PTX pass at this level: its compiled pass goes on, or
		// a new one starts, and the last one's misses that no round
		// waited for are waited for at its last round (still open).
		if t.cpLoop[lv] == p.Loop && t.cpLeft[lv] > 0 {
			t.cpLeft[lv]--
		} else {
			newCP = true
			t.cpLoop[lv], t.cpLeft[lv] = p.Loop, p.passes()-1
			t.missed |= t.pending & bit &^ t.charged & t.open
		}
	}
	if opened {
		t.closeLevel(bit)
		t.open |= bit
		if p.Split > PassUnit {
			t.split |= bit
			t.splitParts[lv] = p.Split
		}
		t.opener &^= bit
		if p.Span > PassUnit {
			t.opener |= bit
		}
		// A new compiled pass at this level: the deeper levels' rounds
		// are its own, never a group's that began before it.
		t.merging &= bit - 1
		if p.Span > PassUnit {
			// This pass takes one PassUnit of the span; what the
			// last span of the same loop left over adds to it.
			b := int(p.Span) - PassUnit
			if t.loop[lv] == p.Loop {
				b += int(t.budget[lv])
			}
			t.loop[lv], t.budget[lv] = p.Loop, uint8(min(b, 255))
			if b >= PassUnit {
				t.merging |= bit
			}
		} else {
			t.merging &^= bit
			t.loop[lv], t.budget[lv] = 0, 0
		}
	} else if kind&RoundJoin == 0 {
		// a later PTX pass of the same compiled span
		if t.budget[lv] -= PassUnit; t.budget[lv] < PassUnit {
			t.merging &^= bit
		}
	}
	if newCP {
		t.charged &^= bit
		t.pending &^= bit
	}
	if !opened && t.opener&bit != 0 {
		// A round of a compiled pass waits where the code first needs
		// one of its loads, the first issued (issueRounds); the others'
		// misses are waited for at the pass's later rounds, or, where
		// none of them waits for a miss, at its last.
		t.quiet = true
		if missed {
			t.pending |= bit
		}
		return
	}
	if missed {
		t.missed |= bit
	}
	if capped {
		t.capped |= bit
	}
}

// Wide notes that the global load of round kind just noted (LoadIn)
// missed with a gather (Rounds.MissWide).
func (t *RoundState) Wide(kind uint8) {
	if !t.quiet {
		t.wide |= uint32(1) << (kind>>1 - 1)
	}
}

// End closes the warp's open rounds and returns all its rounds, leaving
// the state ready for the next block.
func (t *RoundState) End() Rounds {
	t.missed |= t.pending &^ t.charged & t.open
	t.closeLevel(^uint32(0))
	r := t.done
	t.done, t.open, t.missed, t.capped, t.merging, t.wide, t.opener, t.quiet = Rounds{}, 0, 0, 0, 0, 0, 0, false
	t.loop, t.budget = [Levels]uint16{}, [Levels]uint8{}
	t.cpLeft, t.cpLoop, t.charged, t.pending = [Levels]uint8{}, [Levels]uint16{}, 0, 0
	t.split, t.splitCarry = 0, [Levels]uint8{}
	return r
}

// AtomicLine is what a launch's global atomics did to one 128-byte line:
// the warp-level operations that touched it, their lanes, their distinct
// words and 32-byte sectors, and, summed over the operations, the most
// lanes one word had in each (32 a warp whose lanes all add to one word, 1
// with every lane on a word of its own). Partial counts the sectors,
// operation by operation, of which the operation did not touch all 8
// words. The atomics term (Estimate) takes the line the launch hit
// hardest.
type AtomicLine struct{ Ops, Lanes, Words, Sectors, Partial, Dup int64 }

package timing

import "math"

// GPU is what a GPU's datasheet says: the limits a launch must respect,
// its sizes and clocks, and its peak rates. The time model divides by the
// peaks only where nothing measured replaces them; the model's own numbers
// (latencies, achievable rates, fixed costs) are Constants.
type GPU struct {
	Key, Name          string
	CCMajor, CCMinor   int
	SMs                int
	MaxThreadsPerSM    int
	MaxWarpsPerSM      int
	MaxThreadsPerBlock int
	MaxBlocksPerSM     int
	SharedPerBlock     int // bytes a block may use (opt-in maximum)
	SharedPerSM        int // bytes
	L2Bytes            int64
	MemoryBytes        int64
	DRAMBandwidth      float64 // bytes/s, peak
	FP32Flops          float64 // flop/s, peak
	TF32Flops          float64 // flop/s, dense tensor-core peak (0: none)
	ClockHz            float64 // boost clock (a recorded microbenchmark's clock, where one is embedded)
	// L1Bytes is an SM's unified L1 data cache and shared memory; what
	// the resident blocks' shared memory leaves, up to L1DataBytes (the
	// largest data carve-out), is the L1's data capacity.
	L1Bytes, L1DataBytes int
	// RegistersPerSM is an SM's 32-bit register file; RegAllocUnit is how
	// many registers a warp's allocation is rounded up to (a thread's
	// registers × 32, in units of RegAllocUnit). With a kernel's registers
	// per thread known (ptxas -v, or the PTX's declarations: sim.PTXKernel)
	// they limit the blocks an SM holds (BlocksPerSM). 0 leaves registers
	// out of the occupancy.
	RegistersPerSM, RegAllocUnit int
}

// Constants are the time model's own numbers for one GPU: latencies,
// achievable rates and fixed costs, each from a microbenchmark recorded on
// the GPU or, where none is, a published figure (sim.TimeConstants lists
// each with its source). They are set once per GPU, never per kernel.
type Constants struct {
	L2Bandwidth     float64 // bytes/s the L2 serves (l2_read)
	IssuePerSMCycle float64 // warp instructions issued per SM per cycle (4 schedulers)
	LaunchOverhead  float64 // seconds: the GPU's own fixed cost of a kernel, added to every launch
	// BlockDispatch is how often the GPU hands a block to an SM, seconds
	// a block over the whole GPU (dispatch.cu: 0.6 ns on the H200, for
	// empty blocks of any size): a grid of many short blocks takes at
	// least its blocks × BlockDispatch. 0: blocks start as slots free.
	BlockDispatch float64
	// MemoryLaunchSeconds is what a launch that loads or stores global
	// memory adds to the GPU's time beyond LaunchOverhead, which the
	// launch microbenchmark's kernels (no memory) set: the thirty-sixth
	// pass's rule (docs/timemodel.md, "At the floor, a kernel that
	// touches memory"), the warp copy's GPU time over a GPU's launch
	// records (launchrec.WarpCopyGPU) less the model's for the same
	// launch without it. 0 in every model: the H100's records gave 1.257
	// µs by the rule as committed, which lost three of the H100's 223
	// sweep cases within 25%, and it was not adopted; by the rule
	// corrected to the copy's own floor, 1.664 µs from 2 of 10 records,
	// which lost five, not adopted either (timecheck.TestMemoryLaunchRule
	// holds the figure to the records).
	MemoryLaunchSeconds float64
	// BlockSeconds is what a block holds its SM's slots beyond its own
	// path: from its start until its slots can start the next block
	// (blockcost.cu: grids of k generations of empty blocks held to one
	// block an SM take this long a generation). Blocks an SM holds at once
	// pay it side by side, so it shows where few blocks an SM take turns
	// (a grid of short blocks at one to four blocks an SM). 0: a block's
	// slots free when its path ends, as in every model today: 153 ns was
	// measured on the H200 and not adopted, alone, with WarpSlotRelease or
	// with it and L1InFlight (docs/timemodel.md, twenty-fifth,
	// twenty-seventh and twenty-eighth passes).
	BlockSeconds float64
	// WarpSlotRelease lets an SM free a warp's slot when the warp ends
	// rather than when its block does (GPU.Slots says for which blocks;
	// warpslots.cu measured it on the H200). It needs L1InFlight: without
	// it a block's warps' paths differ by which of them the L1 model
	// charges a shared line's miss to, and the others leave early at an
	// L1 hit's latency (the twenty-seventh pass, not adopted; adopted with
	// L1InFlight in the twenty-eighth).
	WarpSlotRelease bool
	// L1InFlight: a warp that loads a sector another warp of its block
	// has asked for and not yet received waits the rest of that fetch,
	// not an L1 hit (linewait.cu: 733 cycles against the first warp's
	// 732 when both ask together, 85 once the line is back). The
	// executor runs a block's warps one after another, so without it
	// every warp after the first finds the lines they share already in
	// its L1 model. Counters do not change: the sector is still one L1
	// hit and one fetch.
	L1InFlight bool
	// InStepBandwidth: blocks that meet at barriers wait for memory in
	// step (phase.cu: at one and two blocks an SM a step is its load plus
	// its reduction, no block's tree hidden under another's load; at
	// eight, where the loads alone are held by the L2's line rate, the
	// step is within 3% of the load's time plus the tree's), so the
	// resident blocks' memory waits come at once, and each lasts at least
	// as long as the L2 takes to serve all of them: a block's sectors and
	// line transactions times the blocks in step on the GPU, at
	// L2Bandwidth and the line rate (blockTime). Their shared and issue
	// work then follows, not hidden under the L2's. The thirty-third pass
	// (docs/timemodel.md); on the H100 and H200 models, whose SM phase.cu
	// measured.
	InStepBandwidth bool
	L1Latency       float64 // seconds: a dependent load that hits L1
	L2Latency       float64 // seconds: a dependent load that misses L1 and hits L2
	DRAMLatency     float64 // seconds: a dependent load that misses L2
	WarpCPI         float64 // cycles per instruction of a warp issuing alone (dependent arithmetic)
	DRAMAchievable  float64 // bytes/s a streaming kernel reaches (below GPU.DRAMBandwidth, the peak)
	// DRAMWrite is the rate a kernel's written bytes drain at, bytes a
	// second, and DRAMOverlap (α, 0 to 1) how much of the shorter of its
	// reads and its writes the longer does not hide: the DRAM term is
	// max(tR, tW) + α·min(tR, tW), tR the read bytes at the rate the
	// loads in flight sustain, tW the written bytes at DRAMWrite. A store
	// waits for nothing, so a copy's stores need not be held to its loads'
	// rate (copyinflight.cu's read, write and copy rows set both). 0
	// leaves today's term: read and written bytes together at the
	// in-flight rate.
	DRAMWrite   float64
	DRAMOverlap float64
	// HostFloor is the host's launch interval; the host's and the
	// lease's, not the GPU's.
	HostFloor
	PCIeBandwidth float64 // bytes/s host<->device, achievable
	PCIeLatency   float64 // seconds per copy call
	// L1MissFrom and L1MissTo are the L1's capacity curve: a load that
	// re-touches a sector misses with probability (ρ − L1MissFrom) /
	// (L1MissTo − L1MissFrom), clamped to [0, 1], where ρ is the SM's
	// resident warps × the 128-byte lines its warp touched since the last
	// touch ÷ the L1's capacity in lines (L1Capacity; sim's worker.l1Lost
	// draws it).
	L1MissFrom, L1MissTo float64
	// L2LineShare is how many line transactions a second the L2 serves,
	// as a share of its sector rate (L2Bandwidth / 32 bytes): a request
	// that uses one sector of each line it touches (a thread-per-row
	// loop's lanes, each in its own line) is held to that many lines a
	// second however few bytes it moves. 0 leaves the L2 counted in bytes
	// alone.
	L2LineShare float64

	// Shared memory and barriers (issue 27, milestone 3; sim's
	// timemodel_mech.go derives each from the H200's mechanisms
	// microbenchmark, evidence/timemodel-micro-mechanisms-h200-2026-12-04).
	//
	// SharedWavesPerCycle is the wavefronts an SM's shared memory serves a
	// cycle, whatever the conflict (sh_ld_rate, sh_st_rate: k-way conflicts
	// cost k wavefronts, served at this rate). The shared term is the
	// busiest SM's wavefronts at this rate; a block that waits at a
	// barrier waits for its warps' wavefronts at this rate. 0: no shared
	// term.
	SharedWavesPerCycle float64
	// SharedWaveCycles is what each wavefront of a request beyond its first
	// adds to the warp's own path (sh_ld_lat: a k-way conflicted load's
	// latency grows by this a wavefront; sh_st_path: stores, the same).
	SharedWaveCycles float64
	// BarrierCycles and BarrierCyclesPerWarp are a bar.sync's cost on the
	// block's path: BarrierCycles + BarrierCyclesPerWarp × the block's
	// warps, added once per barrier after the block's slowest warp
	// (sh_st_bar's conflict-free passes; bar_slow: a barrier waits for the
	// slowest warp and then costs the same).
	BarrierCycles, BarrierCyclesPerWarp float64
	// BarrierWarpCycles is what a warp's bar.sync takes of its SM, the SM's
	// warps one after another (contention.cu's cont_bar at 64 warps an
	// SM: 2.1 cycles): blocks that meet at barriers in step share it, as
	// they share the SM's issue and shared memory (blockTime). 0: barriers
	// cost only their blocks' paths.
	BarrierWarpCycles float64
	// SharedLoadCycles and ShflCycles are how long after a shared load or
	// a shuffle issues an instruction that uses its result can issue
	// (sh_ld_lat at k = 1: a dependent chain of conflict-free shared
	// loads; shfl_chain: a chain of shfl.down + add, less the add's
	// WarpCPI). A basic block whose dependences wait on them longer than
	// its instructions take at WarpCPI adds the difference to the warp's
	// path (sim's depStalls, Warp.Stall). 0: not priced.
	SharedLoadCycles, ShflCycles float64
	// DRAMInflight and L2Inflight are the achieved bandwidth against bytes
	// in flight per SM (bw_dram, bw_l2: one float4 load in flight per
	// thread at 1 to 64 warps per SM), in increasing BytesPerSM: Little's
	// law with the latency the level has at that load. The dram (cold) and
	// l2 (warm) terms are held to the rate at the kernel's own bytes in
	// flight (resident warps × loads per round × bytes per missing
	// request), interpolated. Empty: the bound is bytes in flight over the
	// miss latency, as before.
	DRAMInflight, L2Inflight []InflightRate
	// L2Loaded is the L2's loaded-latency curve, in increasing Rate: a
	// warm launch's L2 requests wait the latency at the L2 throughput it
	// reaches (warmTime). Empty: the idle L2Latency.
	L2Loaded []LoadedLatency

	// Global atomics (issue 27, milestone 3; sim's timemodel_atomics.go
	// derives each from the H200's atomics microbenchmark,
	// evidence/timemodel-micro-atomics-words-h200-2026-12-04). The L2
	// serves one line's atomic operations one after another, a warp's
	// operation on a line taking the longest of: its most lanes on one
	// word × AtomicWordSeconds (one word's updates go one at a time:
	// atom_g_same, 1.36 G a second at 1 to 64 warps per SM), one update
	// (an operation of one lane takes that long: atom_g_words w = 1..4),
	// its sectors × AtomicSectorSeconds (atom_g_words w = 8: eight lanes
	// on one sector) where it touched all 8 words of a sector and
	// × AtomicWordSeconds where fewer (a sparse sector costs an update:
	// atomsplit.cu's atom_g_sectors, four lanes over 1, 2 and 4 sectors,
	// 0.733–0.736 ns a sector, evidence/timemodel-atomsplit-h200-2026-12-05),
	// and its lanes × AtomicLineSeconds / 32
	// (AtomicLineSeconds is a 32-lane operation on 32 words: atom_g_lines
	// at one line). AtomicUnits is how many lines' operations proceed at
	// once against the distinct lines a launch hits (atom_g_lines: rate at
	// m lines over the rate at one), in increasing Lines. 0: no atomics
	// term.
	AtomicWordSeconds, AtomicSectorSeconds, AtomicLineSeconds float64
	AtomicUnits                                               []AtomicUnit

	// DRAM (issue 27, milestone 3; sim's timemodel_dram.go derives each
	// from the H200's DRAM microbenchmark,
	// evidence/timemodel-micro-dram-h200-2026-12-04).
	//
	// DRAMGranuleBytes is what DRAM moves for a read that misses L2: 64
	// on the H200, a sector pair (dram_stride_read: one float a touched
	// sector, 32 to 256 bytes apart over 4 GiB, reads 64 bytes of DRAM a
	// touched sector by Nsight Compute's dram__bytes_read, and takes as
	// long at 64 bytes apart as at 32). A launch's distinct read bytes are
	// then its distinct 64-byte granules, and its re-reads from DRAM cost
	// the granules its load requests sent to L2 (Counters). 0 or 32: a
	// sector.
	DRAMGranuleBytes float64
	// L2ReuseBytes is how much of the L2 a re-read finds its sector in
	// while other data streams through: the capacity of the LRU that
	// Counters.Reads' reuse distances are set against (RereadMissShare).
	// Fitted, one number, to the l2reuse microbenchmark (sim's
	// timemodel_l2reuse.go; an 8-byte stream of 512 MB with gathers from
	// 1 to 256 MB, Nsight Compute's DRAM bytes). 0: the overflow rule, a
	// re-read missing with probability 1 − L2Bytes / footprint.
	L2ReuseBytes float64
	// L2StoreLineSeconds is what a store's line transaction takes of the
	// L2's time: a warp's store of one word in each of 32 lines is 32
	// write requests (Nsight Compute's lts__t_requests_srcunit_tex_op_write),
	// served at about half the rate of loads' line transactions (sim's
	// timemodel_l2store.go: the slope of the l2store microbenchmark's
	// column stores). 0: stores' lines at the loads' rate (L2LineShare).
	L2StoreLineSeconds float64
	// WarmShare is the share of its footprint a launch finds in L2 when
	// the same kernel ran on the same buffers just before it, by
	// footprint, in increasing Bytes (sim's timemodel_l2warm.go, from the
	// l2warm microbenchmark: Nsight Compute's DRAM bytes of a read after
	// four launches of it). Empty: a footprint of at most half the L2 is
	// found whole and a larger one not at all (WarmCapacity, Estimate).
	WarmShare []WarmPoint
	// WarmShareWaves is WarmShare for a launch of more than one wave of
	// blocks (GPU.ManyWaves), from the same microbenchmark's read of one
	// float4 a thread (l2warm_waves). Empty: such a launch takes
	// WarmShare.
	WarmShareWaves []WarmPoint
	// DRAMLoaded is the latency of a coalesced DRAM request against the
	// DRAM's throughput (dram_chase_v4: warps walking random 512-byte
	// blocks of 4 GiB, one request in flight a warp, at 16 to 64 warps per
	// SM), in increasing Rate; below the first point the latency rises
	// from DRAMLatency (an idle GPU's pointer chase) linearly with the
	// throughput. A cold launch's DRAM misses wait the latency at the
	// DRAM throughput the launch itself reaches (Estimate). Empty: always
	// DRAMLatency.
	DRAMLoaded []LoadedLatency
	// DRAMScatterLatency and L2ScatterLatency are what a round waits
	// whose missing request was a gather (more than four lines, spread
	// over more than twice as many: a lane a random line, an SpMV's x
	// gather), from DRAM and from L2 (dram_scatter, l2_scatter: every
	// lane walking its own chain of random lines). 0: as a coalesced
	// request's (DRAMLatency, L2Latency).
	DRAMScatterLatency, L2ScatterLatency float64
}

// LoadedLatency is one point of the loaded-latency curve: with the DRAM
// moving Rate bytes a second, a coalesced request takes Seconds.
type LoadedLatency struct{ Rate, Seconds float64 }

// LatencyAt is the curve's latency at DRAM throughput rate: linear
// between points, from idle (the idle latency at rate 0) to the first
// point, the last point's latency beyond it (a launch that would move
// more is held by the dram term).
func LatencyAt(curve []LoadedLatency, idle, rate float64) float64 {
	if len(curve) == 0 || rate <= 0 {
		return idle
	}
	a := LoadedLatency{0, idle}
	for _, b := range curve {
		if rate <= b.Rate {
			return a.Seconds + (b.Seconds-a.Seconds)*(rate-a.Rate)/(b.Rate-a.Rate)
		}
		a = b
	}
	return a.Seconds
}

// InflightRate is one point of an achieved-bandwidth curve: with
// BytesPerSM in flight on every SM, the GPU moves Rate bytes a second.
type InflightRate struct{ BytesPerSM, Rate float64 }

// RateAt is the curve's rate at bytesPerSM in flight per SM: linear
// between points, proportional to the bytes below the first (Little's law
// at the first point's latency), the last point's rate above the last.
// ok is false for an empty curve.
func RateAt(curve []InflightRate, bytesPerSM float64) (rate float64, ok bool) {
	if len(curve) == 0 || bytesPerSM <= 0 {
		return 0, len(curve) > 0
	}
	first := curve[0]
	if bytesPerSM <= first.BytesPerSM {
		return first.Rate * bytesPerSM / first.BytesPerSM, true
	}
	for i := 1; i < len(curve); i++ {
		a, b := curve[i-1], curve[i]
		if bytesPerSM <= b.BytesPerSM {
			return a.Rate + (b.Rate-a.Rate)*(bytesPerSM-a.BytesPerSM)/(b.BytesPerSM-a.BytesPerSM), true
		}
	}
	return curve[len(curve)-1].Rate, true
}

// BarrierSeconds is one bar.sync's cost on a block of warps warps.
func (c *Constants) BarrierSeconds(g *GPU, warps int) float64 {
	return (c.BarrierCycles + c.BarrierCyclesPerWarp*float64(warps)) / g.ClockHz
}

// HostFloor is the host's side of a timed call: the interval between two
// launches back to back from Go with the lessons' protocol, and what each
// argument adds to it. It is the host's and the lease's, not the GPU's
// (warplab bench launch measures it: 3.9 to 6.4 µs for the empty kernel
// over four H200 leases), so a run recorded beside its own launch records
// is best modeled with them (gpuext.Options.HostFloor).
type HostFloor struct {
	TimedLaunch float64 // seconds: time per call between CUDA events when launches come back to back from Go with the lessons' protocol (the host's launch rate), for a kernel without arguments
	// TimedLaunchPerBuffer and TimedLaunchPerScalar are what each buffer
	// and each scalar argument adds to TimedLaunch: gpuext checks every
	// buffer before it launches, and the driver copies every argument.
	TimedLaunchPerBuffer, TimedLaunchPerScalar float64 // seconds
}

// LaunchFloor is the least time per call the lessons can time for a launch
// with the given arguments: the host's launch interval, TimedLaunch plus
// the cost of each argument (warplab bench launch measures all three).
func (c *HostFloor) LaunchFloor(buffers, scalars int) float64 {
	return c.TimedLaunch + float64(buffers)*c.TimedLaunchPerBuffer + float64(scalars)*c.TimedLaunchPerScalar
}

// TimedCall is the lessons' time per call of a launch whose GPU time is
// gpu (LaunchOverhead included) and whose host launch interval is floor
// (LaunchFloor): whichever is longer, and whether the host's side set it.
// Launches back to back overlap the GPU's work with the host's next
// launch wholly: warplab bench launch's spin curve (a one-thread kernel
// held 0 to 32 µs, timed with the lessons' protocol) takes the host's
// interval up to a kernel time of about 3 µs and the kernel's time plus
// 1.85 µs from 5 µs on, with nothing added where the two meet
// (evidence/timemodel-launchcurve-h200-2026-12-04).
func (c *Constants) TimedCall(gpu, floor float64) (float64, bool) {
	if floor > gpu {
		return floor, true
	}
	return gpu, false
}

// BlocksPerSM is the occupancy: how many blocks of the given shape an SM
// holds at once, limited by the GPU's block, warp, thread and
// shared-memory limits and, when regs (registers per thread) is known
// (> 0) and the GPU gives its register file, by registers: a warp takes
// regs × 32 rounded up to RegAllocUnit (the CUDA occupancy calculator's
// rule; the mechanisms microbenchmark's occ_regs rows, 14 to 231
// registers, reach the blocks it gives on the H200).
func (g *GPU) BlocksPerSM(warps, threads, shBytes, regs int) int {
	per := g.MaxBlocksPerSM
	per = min(per, g.MaxWarpsPerSM/max(1, warps), g.MaxThreadsPerSM/max(1, threads))
	if shBytes > 0 {
		per = min(per, g.SharedPerSM/shBytes)
	}
	if w, ok := g.regWarps(regs); ok {
		per = min(per, w/max(1, warps))
	}
	return max(1, per)
}

// regWarps is how many warps of regs registers a thread the SM's register
// file holds: a warp takes regs × 32 rounded up to RegAllocUnit (the CUDA
// occupancy calculator's rule); ok is false when regs or the GPU's
// register file is not known.
func (g *GPU) regWarps(regs int) (int, bool) {
	if regs <= 0 || g.RegistersPerSM <= 0 || g.RegAllocUnit <= 0 {
		return 0, false
	}
	perWarp := (regs*32 + g.RegAllocUnit - 1) / g.RegAllocUnit * g.RegAllocUnit
	return g.RegistersPerSM / perWarp, true
}

// Slots is an SM's warp slots and block slots for blocks of the given
// shape when each warp frees its slot (and its registers) as it ends and
// a block keeps its block slot and shared memory until its last warp
// ends; warpSlots 0 when the SM holds a block's warp slots until the
// block ends. warpslots.cu (evidence/timemodel-warpslots-h200-2026-12-06)
// ran blocks whose one warp spins, held to 2,048 threads an SM by their
// warps: blocks of 8 warps started new blocks in the ended warps' slots
// (652 ns a generation, the dispatch rate, against 1,266 with the SM held
// by shared memory), blocks of 16 warps partly (862 against 1,261), of
// 12, 24 and 32 warps not at all (1,250 to 1,306). The rule that reads
// it: a block of at most two warps a scheduler (SchedulersPerSM) frees
// its warps' slots, a larger one holds them (16 warps are modeled held:
// 1,164 ns, 1.35 times the GPU's). Blocks of 4 warps, which the rule
// frees, started none early there because their slow warps all sat on
// one scheduler: the schedule keeps each scheduler's slots apart.
// blockSlots is at least 1.
func (g *GPU) Slots(warps, shBytes, regs int) (warpSlots, blockSlots int) {
	warps = max(1, warps)
	blockSlots = g.MaxBlocksPerSM
	if shBytes > 0 {
		blockSlots = min(blockSlots, g.SharedPerSM/shBytes)
	}
	blockSlots = max(1, blockSlots)
	if warps > 2*SchedulersPerSM {
		return 0, blockSlots
	}
	warpSlots = min(g.MaxWarpsPerSM, g.MaxThreadsPerSM/32)
	if w, ok := g.regWarps(regs); ok {
		warpSlots = min(warpSlots, w)
	}
	return max(warps, warpSlots), blockSlots
}

// AtomicUnit is a point of the atomics' parallelism curve: with Lines
// distinct lines hit, Units lines' operations proceed at once.
type AtomicUnit struct{ Lines, Units float64 }

// unitsAt is the curve's units at lines distinct lines: linear in
// log(lines) between points, the end values beyond them, 1 below.
func unitsAt(c []AtomicUnit, lines float64) float64 {
	if len(c) == 0 {
		return 1
	}
	if lines <= c[0].Lines {
		return max(1, c[0].Units)
	}
	for i := 1; i < len(c); i++ {
		if lines <= c[i].Lines {
			a, b := c[i-1], c[i]
			f := math.Log(lines/a.Lines) / math.Log(b.Lines/a.Lines)
			return max(1, a.Units+f*(b.Units-a.Units))
		}
	}
	return max(1, c[len(c)-1].Units)
}

// atomicTime is the atomics term: each line's operations one after
// another (Constants' rule, on the line's sums: its most-lanes-on-a-word
// × AtomicWordSeconds, its operations × AtomicWordSeconds, its sectors ×
// AtomicSectorSeconds, its lanes × AtomicLineSeconds / 32, whichever is
// longest, a sector of which it touched fewer than 8 words at
// AtomicWordSeconds; for operations alike the sum of each one's longest), the lines
// together at the units the curve gives for as many lines, and never less
// than the hardest-hit line alone.
func atomicTime(c *Constants, lines []AtomicLine) float64 {
	if c.AtomicLineSeconds <= 0 || len(lines) == 0 {
		return 0
	}
	var sum, hot float64
	for _, a := range lines {
		sectors := float64(a.Sectors-a.Partial)*c.AtomicSectorSeconds + float64(a.Partial)*c.AtomicWordSeconds
		t := max(float64(max(a.Dup, a.Ops))*c.AtomicWordSeconds, sectors, float64(a.Lanes)*c.AtomicLineSeconds/32)
		sum += t
		hot = max(hot, t)
	}
	return max(hot, sum/unitsAt(c.AtomicUnits, float64(len(lines))))
}

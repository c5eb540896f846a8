package timing

import (
	"fmt"
	"math"
)

// The time model turns a launch's counters and records into a modeled
// time. Every input is a counter the simulator computed from the kernel it
// ran (on the PTX path, from the executed instruction stream and the
// per-warp records); the constants are set once per GPU (Constants),
// never per kernel. docs/timemodel.md explains it with the check against
// the H200.
//
// The kernel's own time is the slowest of its terms plus the GPU's fixed
// cost of a launch (LaunchOverhead):
//
//	dram     DRAM bytes / achievable bandwidth, where the achievable bandwidth
//	         is the lower of DRAMAchievable and what the resident warps can
//	         keep in flight (Little's law: resident warps × loads per round
//	         × bytes per missing request / miss latency; resident warps by
//	         the occupancy; with a measured curve, Constants.DRAMInflight,
//	         the curve's rate at those bytes per SM). Loads per round is
//	         the launch's global load requests over its load rounds: how
//	         many loads the compiled loop has in flight together (loads
//	         whose addresses do not depend on each other's results,
//	         sim's markLoadRounds). With Constants.DRAMWrite the written
//	         bytes drain at their own rate beside the read ones
//	         (Constants.dramTime)
//	l2       L2 sectors × 32 / L2Bandwidth
//	l1       L1 wavefronts / (active SMs × clock): the L1 data stage serves
//	         one wavefront per cycle (sim.Stats.L1Wavefronts)
//	atomic   global atomics: each 128-byte line's warp-level operations
//	         one after another at AtomicLineSeconds (or its one-word
//	         updates at AtomicWordSeconds, when longer), the lines in
//	         parallel as the atomics microbenchmark's curve says
//	         (atomicTime)
//	shared   the shared-memory wavefronts of the SM that received the most
//	         / (SharedWavesPerCycle × clock): a k-way bank conflict is k
//	         wavefronts, served at one a cycle (PTX launches)
//	tensor   the tensor-core multiply-adds / (active SMs × the measured
//	         multiply-adds per SM cycle for their format × clock); none on
//	         a GPU without a measurement (tensor.go)
//	issue    the warp instructions of the SM that received the most /
//	         (IssuePerSMCycle × clock × efficiency); efficiency is
//	         IssueEfficiency when an SM holds a warp for each of its
//	         schedulers, less in proportion below that (issueEff)
//	latency  the critical path: blocks, in order, take the block slot that
//	         frees first (blocks per SM from the occupancy limits, registers
//	         among them where ptxas gave the kernel's), and each holds it
//	         for its slowest warp's time: its load rounds, each an L1 hit
//	         (L1Latency) or a miss (L2Latency for the share of the launch's
//	         L1 misses that are re-reads of sectors already fetched,
//	         DRAMLatency for the rest), then instructions × WarpCPI cycles
//	         and its bank conflicts' extra wavefronts × SharedWaveCycles; a
//	         block with barriers waits for all its warps' wavefronts when
//	         they take longer than that, and for its barriers (blockTime);
//	         no block starts sooner than BlockDispatch after the block
//	         before it (the GPU's block dispatch rate).
//	         The slowest warp, not the average one: a few long rows hold a
//	         launch up
//
// What the lessons time is a CUDA-event time per call with launches back to
// back, so the modeled time is the kernel's time or the host's launch
// interval (LaunchFloor: TimedLaunch and a cost per argument, buffers
// costing more than scalars), whichever is longer; Bound is then "launch".
//
// Warm or cold: a launch finds in L2 the share of its footprint that the
// launches before it on the device left there (L2History), and no more
// than the share the L2 keeps of such a footprint across launches
// (WarmShare, measured; WarmShareWaves for a grid of more than one wave
// where measured; without a curve, all of a footprint within half the L2
// and none of a larger one); a kernel timed back to back finds all
// a small footprint, a CG call after a large SpMV little. Its time is the
// warm and the cold time weighted by that share.
//
// DRAM bytes come from the L2 model: each distinct sector a launch reads or
// writes is fetched once; the re-reads the per-block L1 model sent to L2
// are refetched by their buffer's reuse distance against the L2's measured
// reuse capacity (RereadMissShare), or, without one, when the footprint
// exceeds the model's L2, in proportion to how far it overflows it.
//
// Go kernels (sim.Kernel) have no per-warp record: their latency term is
// the 2026-11-29 model's average chain (all warps' load requests × latency
// / warps / goMemParallel, times the waves of resident warps).
const (
	// IssueEfficiency is a structural choice made on the check's training
	// half, 1 against the 2026-11-29 model's 0.5 (docs/timemodel.md, "The
	// halves, and no fitted launch"); no constant is fitted on the runs.
	IssueEfficiency = 1.0
	// goMemParallel is the loads in flight per warp assumed for Go kernels,
	// which have no compiled loop to read it from.
	goMemParallel = 2.0
)

// Counters are what the model takes of a launch besides its records: the
// counts sim keeps for the whole launch (sim.Stats) and its cache models'
// results.
type Counters struct {
	Blocks, Warps      int64 // the grid's blocks, and their warps in all
	Buffers, Scalars   int   // the launch's arguments by kind (0 for Go kernels)
	WarpInstructions   int64
	L1Wavefronts       int64
	L2Sectors          int64 // all global accesses' sectors sent to L2
	L2LoadSectors      int64 // of those, the global loads'
	GlobalLoadRequests int64
	UniqueRead         int64 // bytes: the distinct sectors the launch read
	DRAMWriteBytes     int64 // bytes: the distinct sectors it wrote
	MissRequests       int64 // global load requests with a first touch of a sector (per-block L1 model)
	CapRequests        int64 // global load requests that missed only sectors the L1's capacity lost
	CapSectors         int64 // sectors of global loads the L1's capacity lost (in L2Sectors)
	CapFar             int64 // of those, the ones whose re-read came after the L2 had turned over
	L2Lines            int64 // line transactions global accesses sent to L2
	L2StoreLines       int64 // of those, the global stores' (Constants.L2StoreLineSeconds)
	L2LoadGranules     int64 // per load request, the 64-byte granules (sector pairs) of the sectors it sent to L2
	UniqueReadGranules int64 // the distinct 64-byte granules the launch read (UniqueRead's sectors, by pairs)
	// RereadGranules over RereadSectors is the granules a re-read sector
	// costs: per buffer, its load requests' granules per sector, weighted
	// by the buffer's re-reads (sim's rereadGranules). RereadSectors 0:
	// L2LoadGranules over L2LoadSectors, every load request alike.
	RereadGranules, RereadSectors float64
	// Reads are the launch's loads by buffer (PTX and Go launches alike),
	// for the L2's reuse rule (RereadMissShare); nil: the overflow rule.
	Reads     []BufferReads
	L2Share   float64 // of the footprint, what earlier launches left in L2 (L2History)
	LoadSites []LoadSite
	// AtomicLines are the launch's global atomics by 128-byte line (PTX
	// launches), for the atomics term.
	AtomicLines []AtomicLine
	// Tensor is the launch's tensor-core multiply-adds (tensor.go).
	Tensor TensorWork
	// Records is the launch's per-block records (PTX launches); nil for
	// Go kernels, which have none.
	Records *Launch
}

// LoadSite is what the latency term needs of one global load site: its
// requests that missed the L1 model, and the share of its L1 misses that
// hit L2.
type LoadSite struct {
	Miss       int64
	L2HitShare float64
	// Pending is the share of those L2 hits that wait for a fetch another
	// block started at about the same time (sim's pending.go): they cost
	// no DRAM bytes, but the first touch's latency.
	Pending float64
}

// Modeled is a time the simulator predicts, never a measurement: Kind is
// always TimeModeled ("modeled"), and Bound names the term of the model that set it
// ("dram", "l2", "l1", "shared", "atomic", "issue", "latency", or "launch" when the host's
// launch rate sets a timed launch's time).
//
// Seconds is what the lessons compare with their CUDA-event time per call
// (launches back to back after warm-ups): GPUSeconds, or the host's launch
// interval when that is longer. GPUSeconds is the GPU's time per launch in
// that protocol (data that fits in L2 is found there). KernelSeconds is
// one launch on cold caches, what Nsight Compute's gpu__time_duration
// measures (it flushes the caches before each replay).
type Modeled struct {
	Seconds       float64  `json:"seconds"`
	GPUSeconds    float64  `json:"gpu_seconds"`
	KernelSeconds float64  `json:"kernel_seconds"`
	Bound         string   `json:"bound"`
	Kind          TimeKind `json:"kind"`
	// Terms are the model's terms in seconds behind GPUSeconds, before the
	// launch's fixed cost: the bound is the largest.
	Terms Terms `json:"terms"`
	// Occupancy says the blocks an SM held in the model and whether the
	// kernel's registers limited them (PTX launches; "" for Go kernels):
	// "8 blocks of 8 warps an SM; registers: 32 a thread (ptxas 11.8 -v,
	// sm_90)", or "...; registers not known (no ptxas), left out".
	Occupancy string `json:"occupancy,omitempty"`
}

// Terms are the time model's terms of one launch, in seconds (Estimate
// says what each is).
type Terms struct {
	DRAM    float64 `json:"dram"`
	L2      float64 `json:"l2"`
	L1      float64 `json:"l1"`
	Shared  float64 `json:"shared,omitempty"`
	Atomic  float64 `json:"atomic,omitempty"`
	Tensor  float64 `json:"tensor,omitempty"` // tensor.go
	Issue   float64 `json:"issue"`
	Latency float64 `json:"latency"`
}

// Estimate models launch s on GPU g with constants c: its time, and the
// DRAM bytes it reads (the L2 model's).
func Estimate(g *GPU, c *Constants, s *Counters) (t Modeled, dramRead int64) {
	footprint := s.UniqueRead + s.DRAMWriteBytes
	dramRead = s.UniqueRead
	// A read that misses L2 moves DRAMGranuleBytes (a sector pair on the
	// H200): the distinct bytes read are the distinct granules, and a
	// re-read from DRAM costs what the re-reading requests' granules do,
	// on average per sector (1 when they send whole granules, up to 2 when
	// they send one sector of each): per buffer (RereadGranules), since a
	// stream read once re-reads nothing whatever its requests' granules.
	perSector := 1.0
	if c.DRAMGranuleBytes > 32 {
		dramRead = max(s.UniqueRead, int64(float64(s.UniqueReadGranules)*c.DRAMGranuleBytes))
		switch {
		case s.RereadSectors > 0:
			perSector = max(1, s.RereadGranules*c.DRAMGranuleBytes/(32*s.RereadSectors))
		case s.L2LoadSectors > 0 && s.L2LoadGranules > 0:
			perSector = max(1, float64(s.L2LoadGranules)*c.DRAMGranuleBytes/(32*float64(s.L2LoadSectors)))
		}
	}
	// Re-reads of sectors other blocks fetched may have left L2 while the
	// launch's other data passed through it: with a measured reuse
	// capacity, each buffer's re-reads miss by their reuse distance
	// (RereadMissShare); without one, in proportion to how far the
	// footprint overflows the L2. Sectors the L1's capacity lost are
	// judged by their age instead: they come from DRAM when, between the
	// two touches, the SMs together touched more lines than the L2 holds
	// (CapFar), else from L2.
	if c.L2ReuseBytes > 0 && s.Reads != nil {
		dramRead += int64(rereadMisses(s.Reads, s.DRAMWriteBytes, c.L2ReuseBytes) * 32 * perSector)
	} else if footprint > g.L2Bytes {
		if reread := (s.L2LoadSectors-s.CapSectors)*32 - s.UniqueRead; reread > 0 {
			overflow := 1 - float64(g.L2Bytes)/float64(footprint)
			dramRead += int64(float64(reread) * overflow * perSector)
		}
	}
	if footprint > g.L2Bytes {
		dramRead += int64(float64(s.CapFar*32) * perSector)
	}
	// Cold: one launch on data no launch before it touched (Nsight
	// Compute's setting: it flushes the caches before each replay).
	cold, coldTerms, coldBound := coldTime(g, c, s, dramRead)
	t = Modeled{KernelSeconds: cold + c.LaunchOverhead, Kind: TimeModeled}
	// Warm: the lessons time back-to-back launches after warm-ups on the
	// same buffers, so the share of the footprint the L2 keeps across
	// launches is found there (the measured WarmShare curve, else all of
	// a footprint within half the L2): its L1 misses hit L2 and nothing
	// waits for DRAM. Launches in between (CG's solve) may have pushed
	// part of it out: that share is cold (L2History).
	gpu, terms, bound := cold, coldTerms, coldBound
	many := false
	if r := s.Records; r != nil {
		many = g.ManyWaves(s.Blocks, r.BlocksPerSM)
	}
	if share := c.warmShare(g, footprint, s.L2Share, many); share > 0 {
		warm, warmTerms, warmBound := warmTime(g, c, s, dramRead)
		gpu = share*warm + (1-share)*cold
		if share >= 0.5 {
			terms, bound = warmTerms, warmBound
		}
	}
	t.GPUSeconds = gpu + c.LaunchOverhead
	if s.L2Sectors > 0 { // a launch that touches global memory
		t.GPUSeconds += c.MemoryLaunchSeconds
		t.KernelSeconds += c.MemoryLaunchSeconds
	}
	if r := s.Records; r != nil {
		t.Occupancy = fmt.Sprintf("%d blocks of %d warps an SM; ", r.BlocksPerSM, r.WarpsPerBlock)
		if r.Registers > 0 {
			t.Occupancy += fmt.Sprintf("registers: %d a thread (%s)", r.Registers, r.RegistersFrom)
		} else {
			t.Occupancy += "registers not known (no ptxas report), left out"
		}
	}
	t.Seconds, t.Bound, t.Terms = t.GPUSeconds, bound, terms
	if call, host := c.TimedCall(t.GPUSeconds, c.LaunchFloor(s.Buffers, s.Scalars)); host {
		t.Seconds, t.Bound = call, "launch"
	}
	return t, dramRead
}

// dramTime is the DRAM term of read and written bytes, the loads in
// flight sustaining inflight bytes a second (Constants.DRAMWrite says
// how writes share it).
func (m *Constants) dramTime(read, write, inflight float64) float64 {
	rate := min(m.DRAMAchievable, inflight)
	if m.DRAMWrite <= 0 {
		return (read + write) / rate
	}
	tR, tW := read/rate, write/m.DRAMWrite
	return max((read+write)/m.DRAMAchievable, max(tR, tW)+m.DRAMOverlap*min(tR, tW))
}

// coldTime is kernelTime on cold caches, its DRAM misses waiting the
// loaded latency (Constants.DRAMLoaded) at the DRAM throughput the launch
// itself reaches: more time means less throughput and a shorter wait, so
// the latency is the fixed point of L -> LatencyAt(bytes / time(L)),
// found by one secant step from the idle latency and the latency at the
// idle time's throughput (the map is decreasing, so the point lies
// between them). Without a curve, or a launch that reads no DRAM, the
// idle latency (DRAMLatency).
func coldTime(g *GPU, c *Constants, s *Counters, dramRead int64) (float64, Terms, string) {
	l0 := c.DRAMLatency
	t0, terms, bound := kernelTime(g, c, s, dramRead, false, l0)
	bytes := float64(dramRead + s.DRAMWriteBytes)
	if len(c.DRAMLoaded) == 0 || bytes <= 0 || t0 <= 0 {
		return t0, terms, bound
	}
	g0 := LatencyAt(c.DRAMLoaded, l0, bytes/t0)
	if g0-l0 < 1e-3*l0 {
		return t0, terms, bound
	}
	t1, _, _ := kernelTime(g, c, s, dramRead, false, g0)
	g1 := LatencyAt(c.DRAMLoaded, l0, bytes/t1)
	// the line through (l0, g0) and (g0, g1) meets L = g(L) at
	lat := l0 + (g0-l0)/(1-(g1-g0)/(g0-l0))
	lat = min(max(lat, l0), g0)
	return kernelTime(g, c, s, dramRead, false, lat)
}

// warmTime is kernelTime with the launch's data in L2, its L2 requests
// waiting the loaded latency (Constants.L2Loaded) at the L2 throughput
// the launch itself reaches: the fixed point of L -> LatencyAt(bytes /
// time(L)), as coldTime finds DRAM's; a gather's latency grows in
// proportion. The L2's curve turns steeply at its end (347 to 687 ns
// between 6.23 and 6.30 TB/s on the H200), where coldTime's one secant
// step lands far from the point, so the time is taken as linear in L
// between the idle latency and the latency at the idle time's
// throughput (two kernelTime runs), the point found on that line by
// bisection, and the launch modeled once more at it. Without a curve,
// the idle latency (L2Latency).
func warmTime(g *GPU, c *Constants, s *Counters, dramRead int64) (float64, Terms, string) {
	t0, terms, bound := kernelTime(g, c, s, dramRead, true, c.DRAMLatency)
	bytes := float64(s.L2Sectors * 32)
	l0 := c.L2Latency
	if len(c.L2Loaded) == 0 || bytes <= 0 || t0 <= 0 || l0 <= 0 {
		return t0, terms, bound
	}
	at := func(lat float64) (float64, Terms, string) {
		cw := *c
		cw.L2ScatterLatency *= lat / l0
		cw.L2Latency = lat
		return kernelTime(g, &cw, s, dramRead, true, c.DRAMLatency)
	}
	g0 := LatencyAt(c.L2Loaded, l0, bytes/t0)
	if g0-l0 < 1e-3*l0 {
		return t0, terms, bound
	}
	t1, _, _ := at(g0)
	timeAt := func(lat float64) float64 { return t0 + (t1-t0)*(lat-l0)/(g0-l0) }
	lo, hi := l0, g0 // LatencyAt(bytes/timeAt(L)) - L falls from g0-l0 > 0 at lo
	for range 40 {
		mid := (lo + hi) / 2
		if LatencyAt(c.L2Loaded, l0, bytes/timeAt(mid)) > mid {
			lo = mid
		} else {
			hi = mid
		}
	}
	return at((lo + hi) / 2)
}

// kernelTime is the slowest of the model's terms for s, with its name;
// warm says the launch's data is in L2 when it starts, dramLat is what a
// DRAM miss waits.
func kernelTime(g *GPU, m *Constants, s *Counters, dramRead int64, warm bool, dramLat float64) (float64, Terms, string) {
	clock := g.ClockHz
	// A grid of fewer blocks than SMs keeps only that many SMs busy; the
	// per-SM rates (L1, issue) scale with the SMs that have work.
	active := float64(g.SMs)
	if b := float64(s.Blocks); b > 0 && b < active {
		active = b
	}
	slots := int64(g.SMs * g.MaxWarpsPerSM)
	if r := s.Records; r != nil && r.BlocksPerSM > 0 && r.WarpsPerBlock > 0 {
		// The occupancy (blocks, warps, threads, shared memory, registers)
		// limits the warps resident, not the SM's warp slots alone.
		slots = int64(g.SMs) * int64(r.BlocksPerSM) * int64(r.WarpsPerBlock)
	}
	resident := min(s.Warps, slots)
	loads := s.GlobalLoadRequests

	// The miss latency: the share of L1 misses that hit L2, over the launch.
	var missW, l2W float64
	for _, ls := range s.LoadSites {
		missW += float64(ls.Miss)
		l2W += float64(ls.Miss) * ls.L2HitShare * (1 - ls.Pending)
	}
	l2Share := 0.0
	if missW > 0 {
		l2Share = l2W / missW
	}
	if warm {
		l2Share = 1
	}
	missLat := l2Share*m.L2Latency + (1-l2Share)*dramLat
	// A gather's round (more than four lines, spread over twice as many) waits the
	// scattered latencies, as loaded as the coalesced one.
	wideLat := missLat
	if m.DRAMScatterLatency > 0 && m.L2ScatterLatency > 0 {
		wideLat = l2Share*max(m.L2ScatterLatency, m.L2Latency) + (1-l2Share)*max(m.DRAMScatterLatency-m.DRAMLatency+dramLat, dramLat)
	}

	perRound := goMemParallel
	if s.Records != nil && s.Records.Rounds > 0 {
		perRound = max(1, float64(loads)/float64(s.Records.Rounds))
	}
	// Little's law: what the resident warps keep in flight bounds the
	// bandwidth of the level that serves the misses.
	// With a measured curve (Constants.DRAMInflight, L2Inflight) the rate
	// at the kernel's bytes in flight per SM is read off it: Little's law
	// with the latency the level has under that load.
	inflight := math.Inf(1)
	inflightDRAM, inflightL2 := inflight, inflight
	if missReq := s.MissRequests + s.CapRequests; missReq > 0 && resident > 0 {
		perMiss := float64(s.L2LoadSectors*32) / float64(missReq)
		inflight = float64(resident) * perRound * perMiss / missLat
		inflightDRAM, inflightL2 = inflight, inflight
		perSM := float64(resident) / min(active, float64(g.SMs)) * perRound * perMiss
		if r, ok := RateAt(m.DRAMInflight, perSM); ok {
			inflightDRAM = r
		}
		if r, ok := RateAt(m.L2Inflight, perSM); ok {
			inflightL2 = r
		}
	}
	var dram, l2 float64
	bw := m.L2Bandwidth
	if warm {
		bw = min(m.L2Bandwidth, inflightL2)
	}
	l2 = m.l2Time(bw, s.L2Sectors, s.L2Lines, s.L2StoreLines)
	if !warm {
		dram = m.dramTime(float64(dramRead), float64(s.DRAMWriteBytes), inflightDRAM)
	}
	issueRate := m.IssuePerSMCycle * clock * issueEff(g, s, active)
	issue := float64(s.WarpInstructions) / (active * issueRate)
	var latency, shared float64
	if s.Records != nil && len(s.Records.Blocks) > 0 {
		var smInstr int64
		var smWaves float64
		latency, smInstr, smWaves = schedule(g, m, s.Records, missLat, wideLat)
		issue = float64(smInstr) / issueRate
		if m.SharedWavesPerCycle > 0 {
			shared = smWaves / (m.SharedWavesPerCycle * clock)
		}
	} else if s.Warps > 0 {
		hits := loads - s.MissRequests
		chain := float64(hits) * m.L1Latency
		for _, ls := range s.LoadSites {
			share := ls.L2HitShare
			if warm {
				share = 1
			}
			chain += float64(ls.Miss) * (share*m.L2Latency + (1-share)*dramLat)
		}
		waves := math.Ceil(float64(s.Warps) / float64(slots))
		latency = chain / float64(s.Warps) / goMemParallel * waves
		latency = max(latency, float64(s.Blocks)*m.BlockDispatch) // the block dispatch rate, as schedule holds PTX launches to it
	}
	t := Terms{DRAM: dram, L2: l2, L1: float64(s.L1Wavefronts) / (active * clock), Shared: shared, Issue: issue, Latency: latency,
		Atomic: atomicTime(m, s.AtomicLines), Tensor: tensorTime(g, s.Tensor, active)}
	best, name := t.DRAM, "dram"
	for _, x := range []struct {
		n string
		v float64
	}{{"l2", t.L2}, {"l1", t.L1}, {"shared", t.Shared}, {"issue", t.Issue}, {"latency", t.Latency}, {"atomic", t.Atomic}, {"tensor", t.Tensor}} {
		if x.v > best {
			best, name = x.v, x.n
		}
	}
	return best, t, name
}

// SchedulersPerSM is how many warp schedulers an SM has (Volta and later:
// four sub-partitions, one scheduler each, one warp instruction a cycle).
const SchedulersPerSM = 4

// issueEff is the share of the schedulers' issue slots a launch can use:
// IssueEfficiency with a warp for every scheduler, less in proportion with
// fewer (a warp issues on its own scheduler only). Fewer warps than the SM
// holds do not lower it further: what keeps a warp from issuing every
// cycle is its own dependences, which the latency term charges
// (WarpCPI). microbench.cu's issue_ffma1 (one dependent chain a thread)
// runs at 1.91 warp FFMAs an SM a cycle with 8 warps an SM on the H200
// and 3.66 with 16; an issue rate that fell in proportion below half the
// SM's warp slots (the model to 2026-12-05) gave half that
// (TestDependentChainIssue).
func issueEff(g *GPU, s *Counters, active float64) float64 {
	if s.Warps == 0 || active == 0 {
		return IssueEfficiency
	}
	perSM := min(float64(s.Warps)/active, float64(g.MaxWarpsPerSM))
	return IssueEfficiency * min(1, perSM/SchedulersPerSM)
}

// l2Time is how long the L2 takes to serve sectors at bw bytes a second,
// or lines line transactions at its line rate, whichever is longer: the
// L2 serves line transactions at a rate of its own (L2LineShare), so
// requests that use one sector a line reach it before the bytes do. A
// store's line transaction (storeLines of lines) is a write request of
// its own, served at the stores' measured rate (L2StoreLineSeconds), one
// after another with the loads'. The l2 term, and the wait of blocks in
// step (inStepMemory).
func (m *Constants) l2Time(bw float64, sectors, lines, storeLines int64) float64 {
	t := float64(sectors*32) / bw
	if m.L2LineShare > 0 {
		rate := m.L2LineShare * m.L2Bandwidth / 32
		l := float64(lines) / rate
		if m.L2StoreLineSeconds > 0 {
			l = float64(lines-storeLines)/rate + float64(storeLines)*m.L2StoreLineSeconds
		}
		t = max(t, l)
	}
	return t
}

package sim

import (
	"slices"

	"github.com/warplab/warplab/sim/timing"
)

// Traffic counts global-memory requests and 32-byte sectors, with Nsight
// Compute's meaning: a request is one warp-level instruction with at least
// one active lane (l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum and
// friends), its sectors the distinct aligned 32-byte sectors its active lanes
// touch (l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum).
type Traffic struct{ Requests, Sectors int64 }

// SectorsPerRequest is the coalescing figure lessons plot: 4 for 32
// consecutive floats, 32 when every lane hits its own sector.
func (t Traffic) SectorsPerRequest() float64 {
	if t.Requests == 0 {
		return 0
	}
	return float64(t.Sectors) / float64(t.Requests)
}

// Banked counts shared-memory requests and the wavefronts they took. Ideal is
// what they would take without bank conflicts; Conflicts = Wavefronts - Ideal.
type Banked struct{ Requests, Wavefronts, Ideal, Conflicts int64 }

func (b *Banked) add(req, wf, ideal int64) {
	b.Requests += req
	b.Wavefronts += wf
	b.Ideal += ideal
	b.Conflicts += wf - ideal
}

// SiteStats are the counters of one load or store site.
type SiteStats struct {
	Label string `json:"label"`
	Space Space  `json:"space"` // SpaceGlobal or SpaceShared
	Op    Op     `json:"op"`    // OpLoad, OpStore or OpAtom
	// Array is the array the site accesses: the kernel parameter its
	// address derives from, by its .cu name when the source is known
	// ("x"), or the __shared__ array it names; "" when not known (PTX
	// kernels only: ptxarrays.go).
	Array string `json:"array,omitempty"`

	Requests   int64 `json:"requests"`
	Sectors    int64 `json:"sectors,omitempty"`    // global
	L2Sectors  int64 `json:"l2_sectors,omitempty"` // global: modeled L1 misses
	Wavefronts int64 `json:"wavefronts,omitempty"` // shared
	Conflicts  int64 `json:"bank_conflicts,omitempty"`

	// LaneSlots is 32 per request: the Day-37 seed's lane-slots, what the
	// warp issued whether or not a lane had work. ActiveLanes is how many of
	// them did; ActiveHist[n] counts requests with n active lanes.
	LaneSlots   int64     `json:"lane_slots"`
	ActiveLanes int64     `json:"active_lanes"`
	ActiveHist  [33]int64 `json:"active_hist"`
}

// UsefulShare is ActiveLanes / LaneSlots: the seed's "useful" column.
func (s SiteStats) UsefulShare() float64 {
	if s.LaneSlots == 0 {
		return 0
	}
	return float64(s.ActiveLanes) / float64(s.LaneSlots)
}

// Stats are the counters of one launch. Everything here is counted exactly
// by the rules in DESIGN.md except the fields marked modeled, which come from
// the cache and time models in timemodel.go.
type Stats struct {
	Kernel string `json:"kernel"`
	Grid   Dim3   `json:"grid"`
	Block  Dim3   `json:"block"`
	Model  string `json:"model"`
	Warps  int64  `json:"warps"`
	// Args counts the launch's arguments by kind, for the time model's
	// launch floor (a buffer argument costs the host more to launch than a
	// scalar). Zero for Go kernels, whose arguments the closure holds.
	Args LaunchArgs `json:"args"`

	Sites        []SiteStats `json:"sites"`
	GlobalLoad   Traffic     `json:"global_load"`
	GlobalStore  Traffic     `json:"global_store"`
	GlobalAtomic Traffic     `json:"global_atomic"`
	SharedLoad   Banked      `json:"shared_load"`
	SharedStore  Banked      `json:"shared_store"`
	// ConstLoad counts the PTX path's loads from __constant__ variables:
	// Requests, the warp-level ld.const with an active lane; Transactions,
	// the distinct addresses they read, the constant cache's serialized
	// passes (lanes on one address are served together: 1 a request at
	// best, 32 when every lane reads its own).
	ConstLoad ConstTraffic `json:"const_load"`

	// Tensor counts the tensor-core instructions and their multiply-adds
	// (PTX path; tensor.go).
	Tensor TensorOps `json:"tensor,omitzero"`

	// WarpInstructions estimates issued warp instructions: per warp, the
	// longest lane's count of memory accesses, warp intrinsics and Ops.
	WarpInstructions int64 `json:"warp_instructions"`

	// InstrMix splits WarpInstructions by class on the PTX path, counted
	// from the executed instruction stream (predicated-off instructions
	// included): "memory" (ld, st, atom, red; ld.param too), "integer",
	// "float", "move" (mov, cvt, cvta, selp), "control" (bra, ret, exit,
	// bar, membar) and "warp" (shfl, vote). Nil for Go kernels.
	InstrMix map[InstrClass]int64 `json:"instr_mix,omitempty"`

	// L1Wavefronts counts the L1 data-stage wavefronts of the global
	// requests: per request, the most distinct 4-byte words that fall in
	// one of the L1's 32 banks (the shared-memory rule), which is Nsight
	// Compute's l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum. Lanes 64
	// bytes apart cost 16; lanes a row of 512 floats apart, 32.
	L1Wavefronts int64 `json:"l1_wavefronts"`

	// Modeled: sectors that miss a per-block L1 and go to L2, and the DRAM
	// bytes an L2 of the model's size lets through.
	L2Sectors      int64   `json:"l2_sectors"`
	DRAMReadBytes  int64   `json:"dram_read_bytes"`
	DRAMWriteBytes int64   `json:"dram_write_bytes"`
	Time           Modeled `json:"time"`

	// Printf is what the kernel's printf calls wrote (PTX path), formatted
	// as CUDA formats it: a warp's call as its lanes' lines in lane order,
	// the blocks in index order. PrintfDropped counts the lines past
	// DefaultPrintfBytes (CUDA's default printf buffer), which are left out.
	Printf        string `json:"printf,omitempty"`
	PrintfDropped int    `json:"printf_dropped,omitempty"`

	// SampledBlocks is how many of the grid's blocks ran when the launch
	// sampled its grid (PTXOptions.SampleStride); every counter above is
	// then the sample's scaled to the grid, an estimate. 0 when every
	// block ran.
	SampledBlocks int64 `json:"sampled_blocks,omitempty"`

	uniqueRead   int64
	l2Share      float64 // of the footprint, what earlier launches left in L2 (l2history.go)
	missRequests int64   // global load requests with a first touch of a sector (per-block L1 model)
	capRequests  int64   // global load requests that missed only sectors the L1's capacity lost
	capSectors   int64   // sectors of global loads the L1's capacity lost (in L2Sectors)
	capFar       int64   // of those, the ones whose re-read came after the L2 had turned over
	l2Lines      int64   // line transactions global accesses sent to L2 (per request, the lines of its L2 sectors)
	storeLines   int64   // of those, the global stores'
	l2Grans      int64   // per load request, the 64-byte granules of the sectors it sent to L2
	uniqueGrans  int64   // the distinct 64-byte granules the launch read (uniqueRead's sectors by pairs)
	// rereadGrans over rereadSectors is what a re-read sector costs in
	// 64-byte granules (rereadGranules)
	rereadGrans, rereadSectors float64
	reads                      []timing.BufferReads // per buffer read, in buffer order (bufferReads)
	loadSites                  []loadSite
	tm                         timing.Launch // per-block records of a PTX launch (timemodel_ptx.go)
}

// loadSite is what the latency term needs of one global load site.
type loadSite struct {
	requests, miss, l2 int64
	l2All, grans       int64 // its L2 sectors with the ones the L1's capacity lost, and their granules per request
	lines              int64 // their 128-byte lines per request (line transactions)
	buf                int
	l2HitShare         float64
	pending            float64 // of its L2 hits, the share that wait for another block's fetch (pending.go)
}

// rereadGranules weighs the 64-byte granules a load request's L2 sectors
// take, per sector, by the re-reads of the buffer it reads: a buffer's
// re-reads are its load sites' L2 sectors less its distinct sectors
// (uniq), and each costs its own requests' granules per sector, 1 when they
// send whole sector pairs, 2 when one sector of each. The DRAM granule
// rule (timing.Counters.RereadGranules) prices re-reads with it: a stream
// read once (a CSR walk's values, a sector of each pair a request) is no
// re-read, so its requests' granules do not price the gathers of another
// buffer that are. It returns the weighted granules and the re-read
// sectors (0, 0 when the launch re-reads nothing).
func rereadGranules(sites []loadSite, uniq map[int]int64) (grans, sectors float64) {
	type buf struct{ l2, l2All, grans int64 }
	per := map[int]*buf{}
	for _, ls := range sites {
		b := per[ls.buf]
		if b == nil {
			b = &buf{}
			per[ls.buf] = b
		}
		b.l2 += ls.l2
		b.l2All += ls.l2All
		b.grans += ls.grans
	}
	for id, b := range per {
		re := b.l2 - uniq[id]
		if re <= 0 || b.l2All <= 0 {
			continue
		}
		perSector := max(0.5, float64(b.grans)/float64(b.l2All))
		sectors += float64(re)
		grans += float64(re) * perSector
	}
	return grans, sectors
}

// bufferReads is each buffer's loads for the L2's reuse rule
// (timing.RereadMissShare): its distinct bytes read (uniq, in sectors), the
// distinct 128-byte lines they lie in (lines) and
// its load sites' L2 sectors by buffer (l2: the L1's capacity misses left out), in
// buffer order so that the model's sums do not depend on a map's.
func bufferReads(l2, uniq, lines, lineTx map[int]int64) []timing.BufferReads {
	ids := make([]int, 0, len(uniq))
	for id := range uniq {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]timing.BufferReads, 0, len(ids))
	for _, id := range ids {
		out = append(out, timing.BufferReads{Unique: uniq[id] * 32, L2Sectors: max(l2[id], uniq[id]), Lines: lines[id], LineTouches: lineTx[id]})
	}
	return out
}

// Site returns the counters of the site with this label.
func (s *Stats) Site(label string) (SiteStats, bool) {
	for _, x := range s.Sites {
		if x.Label == label {
			return x, true
		}
	}
	return SiteStats{}, false
}

// Modeled is a time the simulator predicts, never a measurement
// (timing.Modeled says what each field is).
type Modeled = timing.Modeled

// LaunchArgs counts a launch's arguments: buffers (*Global, a device
// pointer) and scalars.
type LaunchArgs struct {
	Buffers int `json:"buffers"`
	Scalars int `json:"scalars"`
}

// countArgs sorts a PTX launch's arguments into buffers and scalars.
func countArgs(args []any) LaunchArgs {
	var a LaunchArgs
	for _, x := range args {
		if _, ok := x.(globalArg); ok {
			a.Buffers++
		} else {
			a.Scalars++
		}
	}
	return a
}

// TimeTerms are the time model's terms of one launch, in seconds
// (timing.Estimate says what each is).
type TimeTerms = timing.Terms

// LoadRounds is the launch's load rounds over all warps, counted from the
// executed PTX (0 for Go kernels): groups of global loads a warp has in
// flight together, those of one basic block (or of blocks ptxas makes one:
// guardedJoins) whose addresses do not wait on each other's results
// (timemodel_ptx.go). GlobalLoad.Requests /
// LoadRounds is the loads a warp keeps in flight.
func (s *Stats) LoadRounds() int64 { return s.tm.Rounds }

// ConstTraffic is the constant cache's side of the loads from __constant__
// variables (Stats.ConstLoad).
type ConstTraffic struct {
	Requests     int64 `json:"requests"`
	Transactions int64 `json:"transactions"`
}

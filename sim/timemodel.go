package sim

import "github.com/warplab/warplab/sim/timing"

// The time model lives in sim/timing (timing.Estimate says what it
// computes; docs/timemodel.md explains it with the check against the
// H200). What sim hands it is the launch's counters (timing.Counters) and,
// for a PTX launch, the per-warp records its executor emitted
// (timemodel_ptx.go).

// estimate sets s's modeled fields: the DRAM bytes it reads and its time.
func (m Model) estimate(s *Stats) {
	var l2LoadSectors int64
	for _, site := range s.Sites {
		if site.Space == "global" && site.Op == "ld" {
			l2LoadSectors += site.L2Sectors
		}
	}
	c := timing.Counters{
		Blocks: int64(s.Grid.Count()), Warps: s.Warps, Buffers: s.Args.Buffers, Scalars: s.Args.Scalars,
		WarpInstructions: s.WarpInstructions, L1Wavefronts: s.L1Wavefronts,
		L2Sectors: s.L2Sectors, L2LoadSectors: l2LoadSectors, GlobalLoadRequests: s.GlobalLoad.Requests,
		UniqueRead: s.uniqueRead, DRAMWriteBytes: s.DRAMWriteBytes,
		MissRequests: s.missRequests, CapRequests: s.capRequests, CapSectors: s.capSectors, CapFar: s.capFar,
		L2Lines: s.l2Lines, L2StoreLines: s.storeLines, L2LoadGranules: s.l2Grans, UniqueReadGranules: s.uniqueGrans, L2Share: s.l2Share,
		RereadGranules: s.rereadGrans, RereadSectors: s.rereadSectors, Reads: s.reads,
		LoadSites:   make([]timing.LoadSite, len(s.loadSites)),
		AtomicLines: s.tm.Atomics,
		Tensor:      timing.TensorWork{HalfMACs: s.Tensor.HalfMACs, TF32MACs: s.Tensor.TF32MACs},
	}
	for i, ls := range s.loadSites {
		c.LoadSites[i] = timing.LoadSite{Miss: ls.miss, L2HitShare: ls.l2HitShare, Pending: ls.pending}
	}
	if s.tm.Blocks != nil {
		c.Records = &s.tm
	}
	s.Time, s.DRAMReadBytes = timing.Estimate(&m.GPU, &m.Constants, &c)
}

// HostFloor is the host's side of a timed call (timing.HostFloor): a
// Model's is its Constants.HostFloor, which another host's or lease's
// replaces (gpuext.Options.HostFloor).
type HostFloor = timing.HostFloor

// LaunchFloor is the least time per call the lessons can time for a launch
// with args: the host's launch interval, TimedLaunch plus the cost of each
// argument (warplab bench launch measures all three).
func (m Model) LaunchFloor(args LaunchArgs) float64 {
	return m.Constants.LaunchFloor(args.Buffers, args.Scalars)
}

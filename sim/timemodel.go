package sim

import "math"

// The time model turns a launch's counters into a modeled time: the slowest
// of the rates below, plus the launch overhead. Every input is a counter the
// simulator computed; the constants are documented estimates, set once
// against the H200 measurements in DESIGN.md and not per kernel. Lessons
// print the modeled time beside measured ones so its error stays visible.
//
//	dram     DRAM bytes / achievable bandwidth, where the achievable bandwidth
//	         is the lower of dramEfficiency × peak and what the resident warps
//	         can keep in flight (Little's law: resident warps × memParallel
//	         × bytes per missing request / missLatency)
//	l2       L2 sectors × 32 / L2Bandwidth
//	l1       L1 wavefronts / (active SMs × clock), where active SMs is the
//	         smaller of the SM count and the grid's blocks: the L1 data
//	         stage serves one wavefront per cycle (Stats.L1Wavefronts)
//	issue    warp instructions / (active SMs × IssuePerSMCycle × clock × efficiency),
//	         where efficiency is issueEfficiency when an SM holds at least
//	         half its warp slots and falls in proportion below that: with
//	         few warps a scheduler has no other warp to issue from while
//	         one waits
//	latency  per warp, its load requests that hit the L1 model × hitLatency,
//	         plus those that miss: × l2Latency for the share of the buffer's
//	         L2 sectors that are re-reads (the buffer's sectors were fetched
//	         before), × missLatency for first touches; divided by
//	         memParallel, times the number of waves of warps the SMs hold
//
// DRAM bytes come from the L2 model: each distinct sector a launch reads or
// writes is fetched once; when the footprint exceeds the model's L2, the
// re-reads the per-block L1 model sent to L2 are refetched in proportion to
// how far the footprint overflows it.
const (
	dramEfficiency  = 0.85
	issueEfficiency = 0.5
	hitLatency      = 40e-9
	l2Latency       = 300e-9
	missLatency     = 700e-9
	memParallel     = 2.0
)

func (m Model) estimate(s *Stats) {
	var l2LoadSectors int64
	for _, site := range s.Sites {
		if site.Space == "global" && site.Op == "ld" {
			l2LoadSectors += site.L2Sectors
		}
	}
	footprint := s.uniqueRead + s.DRAMWriteBytes
	s.DRAMReadBytes = s.uniqueRead
	if footprint > m.L2Bytes && l2LoadSectors*32 > s.uniqueRead {
		overflow := 1 - float64(m.L2Bytes)/float64(footprint)
		s.DRAMReadBytes += int64(float64(l2LoadSectors*32-s.uniqueRead) * overflow)
	}
	clock := m.ClockHz
	// A grid of fewer blocks than SMs keeps only that many SMs busy; the
	// per-SM rates (L1, issue) scale with the SMs that have work.
	active := float64(m.SMs)
	if b := float64(s.Grid.Count()); b > 0 && b < active {
		active = b
	}
	slots := int64(m.SMs * m.MaxWarpsPerSM)
	resident := min(s.Warps, slots)
	waves := float64(1)
	if s.Warps > 0 {
		waves = math.Ceil(float64(s.Warps) / float64(slots))
	}

	dramBW := m.DRAMBandwidth * dramEfficiency
	if s.missRequests > 0 && resident > 0 {
		perMiss := float64(l2LoadSectors*32) / float64(s.missRequests)
		inflight := float64(resident) * memParallel * perMiss / missLatency
		dramBW = min(dramBW, inflight)
	}
	loads := s.GlobalLoad.Requests
	hits := loads - s.missRequests
	terms := []struct {
		name string
		sec  float64
	}{
		{"dram", float64(s.DRAMReadBytes+s.DRAMWriteBytes) / dramBW},
		{"l2", float64(s.L2Sectors*32) / m.L2Bandwidth},
		{"l1", float64(s.L1Wavefronts) / (active * clock)},
		{"issue", float64(s.WarpInstructions) / (active * m.IssuePerSMCycle * clock * issueEff(s, m, active))},
	}
	if s.Warps > 0 {
		chain := float64(hits) * hitLatency
		for _, ls := range s.loadSites {
			chain += float64(ls.miss) * (ls.l2HitShare*l2Latency + (1-ls.l2HitShare)*missLatency)
		}
		chain = chain / float64(s.Warps) / memParallel
		terms = append(terms, struct {
			name string
			sec  float64
		}{"latency", chain * waves})
	}
	best := terms[0]
	for _, t := range terms[1:] {
		if t.sec > best.sec {
			best = t
		}
	}
	s.Time = Modeled{Seconds: best.sec + m.LaunchOverhead, Bound: best.name, Kind: "modeled"}
}

// issueEff is the share of the schedulers' issue slots a launch can use:
// issueEfficiency with at least half of an SM's warp slots resident, less
// in proportion with fewer.
func issueEff(s *Stats, m Model, active float64) float64 {
	if s.Warps == 0 || active == 0 {
		return issueEfficiency
	}
	perSM := min(float64(s.Warps)/active, float64(m.MaxWarpsPerSM))
	return issueEfficiency * min(1, perSM/(float64(m.MaxWarpsPerSM)/2))
}

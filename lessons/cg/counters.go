package cg

import (
	"strings"

	"github.com/warplab/warplab/sim"
)

// SpMVCounters are the simulator's memory counters of one SpMV launch, the
// numbers behind stage 5: how many 32-byte sectors the loads touched and
// how many a perfectly coalesced access of the same lanes would have needed.
//
// Ideal sectors of one request with a active lanes loading b bytes each are
// ⌈a·b/32⌉: the lanes' bytes packed contiguously from a sector boundary
// (summed over a site, and never more than the site touched).
// Excessive sectors are the rest, which is what Nsight Compute's source
// counters call excessive (the article: about 72% of the thread-per-row
// kernel's sectors at 100³). Counters are exact by the rules of DESIGN.md;
// ModeledSeconds is modeled.
type SpMVCounters struct {
	Kernel string        `json:"kernel"`
	Sites  []SiteSectors `json:"sites"` // global loads, in the kernel's order
	// Sums over the global loads.
	Requests       int64   `json:"requests"`
	Sectors        int64   `json:"sectors"`
	IdealSectors   int64   `json:"ideal_sectors"`
	ExcessiveShare float64 `json:"excessive_share"` // (Sectors − IdealSectors) / Sectors
	ModeledSeconds float64 `json:"modeled_seconds"`
	Bound          string  `json:"bound"` // the time model's limiting term
}

// SiteSectors are one load instruction's counters.
type SiteSectors struct {
	Label          string  `json:"label"`
	Bytes          int     `json:"bytes"` // per lane
	Requests       int64   `json:"requests"`
	Sectors        int64   `json:"sectors"`
	IdealSectors   int64   `json:"ideal_sectors"`
	ExcessiveShare float64 `json:"excessive_share"`
}

// SectorsPerRequest is the average sectors one warp-level request touched.
func (s SiteSectors) SectorsPerRequest() float64 { return ratio(s.Sectors, s.Requests) }

// IdealPerRequest is the average sectors a coalesced request would touch.
func (s SiteSectors) IdealPerRequest() float64 { return ratio(s.IdealSectors, s.Requests) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// siteBytes is the size of what a site of the CG SpMV kernels loads: the
// int32 row pointers and columns, the float64 values and vectors.
func siteBytes(label string) int {
	if strings.HasPrefix(label, "rowPtr") || strings.HasPrefix(label, "cols") {
		return 4
	}
	return 8
}

// idealSectors is Σ over requests of ⌈active·bytes/32⌉, from the site's
// histogram of active lanes.
func idealSectors(hist [33]int64, bytes int) int64 {
	var s int64
	for a, n := range hist {
		s += n * int64((a*bytes+31)/32)
	}
	return s
}

func spmvCounters(st *sim.Stats) SpMVCounters {
	c := SpMVCounters{Kernel: st.Kernel, ModeledSeconds: st.Time.Seconds, Bound: st.Time.Bound}
	for _, s := range st.Sites {
		if s.Space != "global" || s.Op != "ld" {
			continue
		}
		b := siteBytes(s.Label)
		// Lanes may share an address (the threads of one row in
		// spmvCsrSubwarp load the same row pointer; neighbouring rows gather
		// overlapping x), and then a request needs fewer sectors than its
		// lanes' bytes: such a site wastes nothing, and its ideal is what it
		// touched.
		ideal := min(idealSectors(s.ActiveHist, b), s.Sectors)
		ss := SiteSectors{Label: s.Label, Bytes: b, Requests: s.Requests, Sectors: s.Sectors, IdealSectors: ideal}
		if ss.Sectors > 0 {
			ss.ExcessiveShare = float64(ss.Sectors-ss.IdealSectors) / float64(ss.Sectors)
		}
		c.Sites = append(c.Sites, ss)
		c.Requests += ss.Requests
		c.Sectors += ss.Sectors
		c.IdealSectors += ss.IdealSectors
	}
	if c.Sectors > 0 {
		c.ExcessiveShare = float64(c.Sectors-c.IdealSectors) / float64(c.Sectors)
	}
	return c
}

// TimeBreakdown splits a stage's end-to-end time into what the stacked bar
// plot shows: time in kernels (on the device or, for stages 1 and 2, the
// CPU's share of the operations), time in copies, and the rest.
type TimeBreakdown struct {
	Kernel   float64 `json:"kernel_seconds"`
	Transfer float64 `json:"transfer_seconds"`
	// Overhead is, on the simulator, the modeled launch overhead (launches
	// × the model's per-launch cost); on a GPU and the CPU, the wall time
	// neither kernels nor copies explain: launch and synchronization
	// latency, host work between calls.
	Overhead float64 `json:"overhead_seconds"`
	Total    float64 `json:"total_seconds"`
	Kind     string  `json:"time_kind"` // the stage's TimeKind
}

// Breakdown returns the stage's time split for the stacked bar plot.
func (r *StageResult) Breakdown() TimeBreakdown {
	b := TimeBreakdown{Transfer: r.Transfers.Seconds, Total: r.WallSeconds, Kind: r.TimeKind}
	for _, k := range r.Kernels {
		b.Kernel += k.Seconds
	}
	if r.TimeKind == TimeModeled {
		// Modeled kernel times include their launch overhead; show it
		// apart.
		b.Kernel -= r.LaunchOverheadSeconds
		b.Overhead = r.LaunchOverheadSeconds
		return b
	}
	b.Overhead = max(0, r.WallSeconds-b.Kernel-b.Transfer)
	return b
}

package cg

import (
	"strings"

	"github.com/warplab/warplab/gpuext"
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

// SiteSectors are one load instruction's counters. The simulator executes
// cg.ptx, so a site is one PTX load: Label is the simulator's ("cg.cu:74
// <the source line> [<the PTX instruction>]"); Where and Instr are its
// parts, short enough for a table, and Array the kernel parameter its
// address derives from. nvcc unrolls the thread-per-row loop by four, so
// one source load appears as several sites there.
type SiteSectors struct {
	Label          string  `json:"label"`
	Where          string  `json:"where"`           // "cg.cu:74"
	Instr          string  `json:"instr"`           // "ld.global.nc.f64 %fd12, [%rd31]"
	Array          string  `json:"array,omitempty"` // the pointer parameter the load reads ("vals"; see arrays.go)
	Bytes          int     `json:"bytes"`           // per lane
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

// siteBytes is the size one lane of a site loads, read from the PTX
// instruction at the end of its label ("cg.cu:74 sum = ...;
// [ld.global.nc.u32 %r15, [%rd48]]" loads 4 bytes): the element type's size
// times the vector width (.v2, .v4). It is 0 when the label names no PTX
// load or store, which the caller treats as unknown.
func siteBytes(label string) int {
	_, in := siteParts(label)
	f := strings.Fields(in)
	if len(f) > 0 && strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	if len(f) == 0 {
		return 0
	}
	size, vec := 0, 1
	for _, part := range strings.Split(f[0], ".")[1:] {
		switch part {
		case "v2":
			vec = 2
		case "v4":
			vec = 4
		case "b8", "u8", "s8":
			size = 1
		case "b16", "u16", "s16", "f16":
			size = 2
		case "b32", "u32", "s32", "f32":
			size = 4
		case "b64", "u64", "s64", "f64":
			size = 8
		}
	}
	return size * vec
}

// siteParts splits a PTX site label into where it is ("cg.cu:74", the
// source line's position, or "cg.ptx:1012" for PTX without line
// information) and the PTX instruction ("ld.global.nc.u32 %r15, [%rd48]",
// with its guard if it has one, "@%p1 ld..."); the source text between them
// is left out. Any other label is all where.
func siteParts(label string) (where, instr string) {
	i := strings.IndexByte(label, ' ')
	if i < 0 {
		return label, ""
	}
	if isMemInstr(label[i+1:]) {
		return label[:i], label[i+1:] // "cg.ptx:1012 ld.global.f64 ..."
	}
	if strings.HasSuffix(label, "]") {
		// The instruction is the last bracket that holds one; its own
		// address operand is a bracket too, so look from the end.
		for j := len(label); j > i; {
			j = strings.LastIndex(label[:j], " [")
			if j <= i {
				break
			}
			if c := label[j+2 : len(label)-1]; isMemInstr(c) {
				return label[:i], c
			}
		}
	}
	return label, ""
}

// isMemInstr reports whether s starts with a PTX memory instruction,
// after an optional guard predicate.
func isMemInstr(s string) bool {
	if strings.HasPrefix(s, "@") {
		k := strings.IndexByte(s, ' ')
		if k < 0 {
			return false
		}
		s = s[k+1:]
	}
	for _, op := range []string{"ld.", "st.", "atom.", "red."} {
		if strings.HasPrefix(s, op) {
			return true
		}
	}
	return false
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
	// Every CG kernel's loads have a name (TestLoadArrays); a kernel not in
	// cg.ptx has none, and its sites keep Array empty.
	arrays, _ := loadArrays(st.Kernel)
	for _, s := range st.Sites {
		if s.Space != sim.SpaceGlobal || s.Op != sim.OpLoad {
			continue
		}
		b := siteBytes(s.Label)
		if b == 0 {
			// Not a PTX label: unknown width; count it as 8 bytes, the
			// widest the CG kernels load (an ideal never above what the
			// site touched, by the min below).
			b = 8
		}
		// Lanes may share an address (the threads of one row in
		// spmvCsrSubwarp load the same row pointer; neighbouring rows gather
		// overlapping x), and then a request needs fewer sectors than its
		// lanes' bytes: such a site wastes nothing, and its ideal is what it
		// touched.
		ideal := min(idealSectors(s.ActiveHist, b), s.Sectors)
		where, instr := siteParts(s.Label)
		ss := SiteSectors{Label: s.Label, Where: where, Instr: instr, Array: arrays[instr], Bytes: b, Requests: s.Requests, Sectors: s.Sectors, IdealSectors: ideal}
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
	Overhead float64         `json:"overhead_seconds"`
	Total    float64         `json:"total_seconds"`
	Kind     gpuext.TimeKind `json:"time_kind"` // the stage's TimeKind
}

// Breakdown returns the stage's time split for the stacked bar plot.
func (r *StageResult) Breakdown() TimeBreakdown {
	b := TimeBreakdown{Transfer: r.Transfers.Seconds, Total: r.WallSeconds, Kind: r.TimeKind}
	for _, k := range r.Kernels {
		b.Kernel += k.Seconds
	}
	if r.TimeKind == gpuext.Modeled {
		// Modeled kernel times include their launch overhead; show it
		// apart.
		b.Kernel -= r.LaunchOverheadSeconds
		b.Overhead = r.LaunchOverheadSeconds
		return b
	}
	b.Overhead = max(0, r.WallSeconds-b.Kernel-b.Transfer)
	return b
}

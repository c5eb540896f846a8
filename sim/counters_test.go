package sim_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/warplab/warplab/sim"
)

// warpPattern runs one warp (block of 32, grid of 1) in which lane L loads
// buf[idx(L)] once, or does nothing when idx(L) < 0 (an if guard), and
// returns the launch's counters and the buffer's base address.
func warpPattern[T sim.Elem](t *testing.T, n int, idx func(lane int) int) (*sim.Stats, uint64) {
	t.Helper()
	d := newDevice(t)
	buf := mustAlloc[T](t, d, "buf", n)
	k := sim.NewKernel("pattern", false)
	k.Body = func(th *sim.Thread) {
		if i := idx(th.ThreadIdx.X); i >= 0 {
			buf.Ld(th, i)
		}
	}
	return launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0), buf.Addr()
}

func activeAddrs(base, size uint64, idx func(int) int) []uint64 {
	var a []uint64
	for lane := 0; lane < 32; lane++ {
		if i := idx(lane); i >= 0 {
			a = append(a, base+uint64(i)*size)
		}
	}
	return a
}

// TestGlobalSectorRule checks l1tex__t_requests / l1tex__t_sectors for one
// warp-level load against hand-computed values and against refSectors.
func TestGlobalSectorRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	gather := make([]int, 32)
	for i := range gather {
		gather[i] = rng.IntN(4096)
	}
	perm := rng.Perm(32) // a permutation of one aligned 128-byte line

	cases := []struct {
		name    string
		idx     func(int) int
		sectors int64 // hand-computed; -1: only the reference applies
		active  int
	}{
		{"aligned", func(l int) int { return l }, 4, 32},
		{"misaligned by one element", func(l int) int { return l + 1 }, 5, 32},
		{"misaligned by 8 elements (one sector)", func(l int) int { return l + 8 }, 4, 32},
		{"reversed", func(l int) int { return 31 - l }, 4, 32},
		{"stride 2", func(l int) int { return 2 * l }, 8, 32},
		{"stride 8", func(l int) int { return 8 * l }, 32, 32},
		{"stride 32", func(l int) int { return 32 * l }, 32, 32},
		{"pairs share a sector", func(l int) int { return (l / 2) * 8 }, 16, 32},
		{"broadcast", func(int) int { return 77 }, 1, 32},
		{"permutation of one line", func(l int) int { return perm[l] }, 4, 32},
		{"gather", func(l int) int { return gather[l] }, -1, 32},
		{"half the lanes (if lane < 16)", func(l int) int {
			if l < 16 {
				return l
			}
			return -1
		}, 2, 16},
		{"guard i < 20", func(l int) int {
			if l < 20 {
				return l
			}
			return -1
		}, 3, 20},
		{"one lane", func(l int) int {
			if l == 9 {
				return 1000
			}
			return -1
		}, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, base := warpPattern[float32](t, 4096, c.idx)
			if base%128 != 0 {
				t.Fatalf("buffer base %#x is not 128-byte aligned", base)
			}
			want := refSectors(activeAddrs(base, 4, c.idx), 4)
			if c.sectors >= 0 && c.sectors != want {
				t.Fatalf("test bug: hand value %d disagrees with reference %d", c.sectors, want)
			}
			if st.GlobalLoad.Requests != 1 || st.GlobalLoad.Sectors != want {
				t.Errorf("requests/sectors = %d/%d, want 1/%d", st.GlobalLoad.Requests, st.GlobalLoad.Sectors, want)
			}
			s, ok := st.Site("buf ld")
			if !ok {
				t.Fatalf("no default site %q in %+v", "buf ld", st.Sites)
			}
			if s.Space != "global" || s.Op != "ld" || s.LaneSlots != 32 || s.ActiveLanes != int64(c.active) || s.ActiveHist[c.active] != 1 {
				t.Errorf("site %+v: want global ld, 32 lane-slots, %d active lanes in one request", s, c.active)
			}
			if st.GlobalStore != (sim.Traffic{}) || st.GlobalAtomic != (sim.Traffic{}) {
				t.Errorf("stores/atomics counted for a load-only kernel: %+v %+v", st.GlobalStore, st.GlobalAtomic)
			}
		})
	}
}

// TestGlobalSectorRuleWide covers 8-byte elements: 32 consecutive float64
// span 256 bytes, eight sectors.
func TestGlobalSectorRuleWide(t *testing.T) {
	cases := []struct {
		name    string
		idx     func(int) int
		sectors int64
	}{
		{"aligned", func(l int) int { return l }, 8},
		{"misaligned by one element", func(l int) int { return l + 1 }, 9},
		{"stride 2", func(l int) int { return 2 * l }, 16},
		{"stride 4", func(l int) int { return 4 * l }, 32},
		{"broadcast", func(int) int { return 3 }, 1},
	}
	for _, c := range cases {
		t.Run("float64 "+c.name, func(t *testing.T) {
			st, base := warpPattern[float64](t, 1024, c.idx)
			if want := refSectors(activeAddrs(base, 8, c.idx), 8); want != c.sectors {
				t.Fatalf("test bug: hand value %d disagrees with reference %d", c.sectors, want)
			}
			if st.GlobalLoad.Requests != 1 || st.GlobalLoad.Sectors != c.sectors {
				t.Errorf("requests/sectors = %d/%d, want 1/%d", st.GlobalLoad.Requests, st.GlobalLoad.Sectors, c.sectors)
			}
		})
		t.Run("int64 "+c.name, func(t *testing.T) {
			st, _ := warpPattern[int64](t, 1024, c.idx)
			if st.GlobalLoad.Sectors != c.sectors {
				t.Errorf("sectors = %d, want %d", st.GlobalLoad.Sectors, c.sectors)
			}
		})
	}
	// 4-byte integer types follow the float32 rule.
	for _, c := range []struct {
		name string
		run  func(*testing.T) *sim.Stats
	}{
		{"int32", func(t *testing.T) *sim.Stats {
			st, _ := warpPattern[int32](t, 256, func(l int) int { return l + 1 })
			return st
		}},
		{"uint32", func(t *testing.T) *sim.Stats {
			st, _ := warpPattern[uint32](t, 256, func(l int) int { return l + 1 })
			return st
		}},
	} {
		t.Run(c.name+" misaligned", func(t *testing.T) {
			if st := c.run(t); st.GlobalLoad.Sectors != 5 {
				t.Errorf("sectors = %d, want 5", st.GlobalLoad.Sectors)
			}
		})
	}
}

// TestPartialWarp: a block of 40 threads is a full warp and a warp of 8
// lanes. Each warp-level request still issues 32 lane-slots.
func TestPartialWarp(t *testing.T) {
	d := newDevice(t)
	buf := mustAlloc[float32](t, d, "buf", 40)
	k := sim.NewKernel("partial", false)
	k.Body = func(th *sim.Thread) { buf.Ld(th, th.ThreadIdx.X) }
	st := launch(t, d, k, sim.Dim1(1), sim.Dim1(40), 0)
	// warp 0: floats 0..31, 4 sectors; warp 1: floats 32..39, 1 sector.
	if st.GlobalLoad != (sim.Traffic{Requests: 2, Sectors: 5}) {
		t.Errorf("global load %+v, want 2 requests, 5 sectors", st.GlobalLoad)
	}
	if st.Warps != 2 {
		t.Errorf("warps = %d, want 2", st.Warps)
	}
	s, _ := st.Site("buf ld")
	var hist [33]int64
	hist[32], hist[8] = 1, 1
	if s.LaneSlots != 64 || s.ActiveLanes != 40 || s.ActiveHist != hist {
		t.Errorf("lane-slots %d, active %d, hist %v; want 64, 40, one request of 32 and one of 8", s.LaneSlots, s.ActiveLanes, s.ActiveHist)
	}
	if got, want := s.UsefulShare(), 40.0/64; got != want {
		t.Errorf("useful share %v, want %v", got, want)
	}

	// A 2-D block of 8×5 = 40 threads forms the same warps (x fastest).
	k2 := sim.NewKernel("partial2d", false)
	k2.Body = func(th *sim.Thread) {
		if th.LinearID() != th.ThreadIdx.X+8*th.ThreadIdx.Y || th.Lane() != th.LinearID()%32 || th.Warp() != th.LinearID()/32 {
			th.Ops(1000) // shows up in WarpInstructions
		}
		buf.Ld(th, th.ThreadIdx.X+8*th.ThreadIdx.Y)
	}
	st2 := launch(t, d, k2, sim.Dim1(1), sim.Dim2(8, 5), 0)
	if st2.GlobalLoad != st.GlobalLoad || st2.WarpInstructions != 2 {
		t.Errorf("2-D block: %+v, %d warp instructions; want %+v, 2", st2.GlobalLoad, st2.WarpInstructions, st.GlobalLoad)
	}
}

// TestStoresAndAtomics: stores and atomics follow the same request/sector
// rule and are counted apart from loads.
func TestStoresAndAtomics(t *testing.T) {
	d := newDevice(t)
	out := mustAlloc[float32](t, d, "out", 64)
	cnt := mustAlloc[int32](t, d, "cnt", 256)
	k := sim.NewKernel("storeAtom", false)
	k.Body = func(th *sim.Thread) {
		l := th.ThreadIdx.X
		out.St(th, l+1, float32(l)) // misaligned store: 5 sectors
		cnt.AtomicAdd(th, 0, 1)     // every lane one word: 1 sector
		cnt.AtomicAdd(th, 8*l, 2)   // one sector per lane: 32
	}
	st := launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
	if st.GlobalStore != (sim.Traffic{Requests: 1, Sectors: 5}) {
		t.Errorf("store %+v, want 1 request 5 sectors", st.GlobalStore)
	}
	if st.GlobalAtomic != (sim.Traffic{Requests: 2, Sectors: 33}) {
		t.Errorf("atomic %+v, want 2 requests 33 sectors", st.GlobalAtomic)
	}
	if st.GlobalLoad != (sim.Traffic{}) {
		t.Errorf("load %+v, want none", st.GlobalLoad)
	}
	if s, ok := st.Site("out st"); !ok || s.Op != "st" || s.Requests != 1 {
		t.Errorf("site out st: %+v %v", s, ok)
	}
	if s, ok := st.Site("cnt atom"); !ok || s.Op != "atom" || s.Requests != 2 || s.Sectors != 33 {
		t.Errorf("site cnt atom: %+v %v", s, ok)
	}
	if cnt.Data[0] != 32+2 || cnt.Data[8] != 2 || cnt.Data[1] != 0 {
		t.Errorf("atomic results cnt[0]=%d cnt[8]=%d cnt[1]=%d, want 34, 2, 0", cnt.Data[0], cnt.Data[8], cnt.Data[1])
	}
	if out.Data[0] != 0 || out.Data[32] != 31 {
		t.Errorf("stored values out[0]=%v out[32]=%v, want 0, 31", out.Data[0], out.Data[32])
	}
}

// TestLoopPairing: lane L's k-th access at a site pairs with the other lanes'
// k-th; a warp issues as many requests as its longest lane has trips.
func TestLoopPairing(t *testing.T) {
	cases := []struct {
		name     string
		trips    func(lane int) int
		requests int64
		sectors  int64
		active   []int // active lanes per request
	}{
		// Lane L loads buf[32k+L] for k < L%4+1. Request k holds the lanes
		// with L%4 >= k; each 8-float sector still has such a lane.
		{"trips L%4+1", func(l int) int { return l%4 + 1 }, 4, 16, []int{32, 24, 16, 8}},
		// Only lane 31 runs three trips: requests 2 and 3 have one lane.
		{"one long lane", func(l int) int {
			if l == 31 {
				return 3
			}
			return 1
		}, 3, 6, []int{32, 1, 1}},
		{"no lane loops", func(int) int { return 0 }, 0, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDevice(t)
			buf := mustAlloc[float32](t, d, "buf", 32*8)
			k := sim.NewKernel("loop", false)
			k.Body = func(th *sim.Thread) {
				l := th.ThreadIdx.X
				for i := 0; i < c.trips(l); i++ {
					buf.Ld(th, 32*i+l)
				}
			}
			st := launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
			if st.GlobalLoad != (sim.Traffic{Requests: c.requests, Sectors: c.sectors}) {
				t.Errorf("load %+v, want %d requests %d sectors", st.GlobalLoad, c.requests, c.sectors)
			}
			s, _ := st.Site("buf ld")
			var hist [33]int64
			var active int64
			for _, a := range c.active {
				hist[a]++
				active += int64(a)
			}
			if s.ActiveHist != hist || s.ActiveLanes != active || s.LaneSlots != 32*c.requests {
				t.Errorf("hist %v active %d slots %d; want hist %v active %d slots %d", s.ActiveHist, s.ActiveLanes, s.LaneSlots, hist, active, 32*c.requests)
			}
		})
	}
}

// TestSites: a load in each branch of an if is two instructions, so two
// requests; through the buffer's default site the two pair into one.
func TestSites(t *testing.T) {
	d := newDevice(t)
	buf := mustAlloc[float32](t, d, "buf", 64)

	labelled := sim.NewKernel("labelled", false)
	lo := labelled.Site("buf[lane] (lanes < 16)")
	hi := labelled.Site("buf[lane] (lanes >= 16)")
	labelled.Body = func(th *sim.Thread) {
		if l := th.ThreadIdx.X; l < 16 {
			buf.LdAt(th, lo, l)
		} else {
			buf.LdAt(th, hi, l)
		}
	}
	st := launch(t, d, labelled, sim.Dim1(1), sim.Dim1(32), 0)
	if st.GlobalLoad != (sim.Traffic{Requests: 2, Sectors: 4}) || len(st.Sites) != 2 {
		t.Errorf("labelled: %+v with %d sites, want 2 requests 4 sectors at 2 sites", st.GlobalLoad, len(st.Sites))
	}
	for _, label := range []string{"buf[lane] (lanes < 16)", "buf[lane] (lanes >= 16)"} {
		if s, ok := st.Site(label); !ok || s.Requests != 1 || s.Sectors != 2 || s.ActiveLanes != 16 {
			t.Errorf("site %q: %+v (found %v), want 1 request, 2 sectors, 16 lanes", label, s, ok)
		}
	}
	if st.Sites[0].Label != "buf[lane] (lanes < 16)" {
		t.Errorf("sites are not in declaration order: %q first", st.Sites[0].Label)
	}

	dflt := sim.NewKernel("default", false)
	dflt.Body = func(th *sim.Thread) {
		if l := th.ThreadIdx.X; l < 16 {
			buf.Ld(th, l)
		} else {
			buf.Ld(th, l)
		}
	}
	st = launch(t, d, dflt, sim.Dim1(1), sim.Dim1(32), 0)
	if st.GlobalLoad != (sim.Traffic{Requests: 1, Sectors: 4}) || len(st.Sites) != 1 || st.Sites[0].Label != "buf ld" {
		t.Errorf("default: %+v sites %+v, want 1 request 4 sectors at site %q", st.GlobalLoad, st.Sites, "buf ld")
	}

	// Two loads at two sites, every lane: buf[l] and buf[l+1].
	two := sim.NewKernel("two", false)
	a, b := two.Site("a"), two.Site("b")
	two.Body = func(th *sim.Thread) {
		buf.LdAt(th, a, th.ThreadIdx.X)
		buf.LdAt(th, b, th.ThreadIdx.X+1)
	}
	st = launch(t, d, two, sim.Dim1(1), sim.Dim1(32), 0)
	sa, _ := st.Site("a")
	sb, _ := st.Site("b")
	if sa.Sectors != 4 || sb.Sectors != 5 || st.GlobalLoad != (sim.Traffic{Requests: 2, Sectors: 9}) {
		t.Errorf("two sites: a %+v b %+v total %+v; want 4 and 5 sectors, 2 requests", sa, sb, st.GlobalLoad)
	}
}

// refUnrolled counts requests and sectors for one warp whose lane L walks
// buf[begin+L], buf[begin+L+32], ... below end, with nvcc's remainder-first
// unrolling by factor: the first trips%factor iterations run in the
// remainder loop (copy 0, pass i), the rest as copy 1+(i-rem)%factor of pass
// (i-rem)/factor. Accesses with the same (copy, pass) are one request.
func refUnrolled(begin, end, factor int) (requests, sectors int64) {
	type key struct{ copy, pass int }
	lines := map[key]map[int]bool{}
	for lane := 0; lane < 32; lane++ {
		trips := 0
		if end > begin+lane {
			trips = (end - begin - lane + 31) / 32
		}
		rem := 0
		if factor > 1 {
			rem = trips % factor
		}
		for i := 0; i < trips; i++ {
			k := key{0, i}
			if factor > 1 && i >= rem {
				k = key{1 + (i-rem)%factor, (i - rem) / factor}
			}
			if lines[k] == nil {
				lines[k] = map[int]bool{}
			}
			lines[k][(begin+lane+32*i)*4/32] = true // buffer base is sector-aligned
		}
	}
	for _, s := range lines {
		requests++
		sectors += int64(len(s))
	}
	return requests, sectors
}

// TestUnrollModel: one warp walking a row whose length is not a multiple of
// 32, as #pragma unroll 1 (factor 1) and as nvcc unrolls by default (4).
func TestUnrollModel(t *testing.T) {
	cases := []struct {
		begin, n, factor int
		sectors          int64 // hand-computed, -1: reference only
	}{
		{93, 419, 1, 66}, // DESIGN.md, measured with ncu on an H200
		{93, 419, 4, 54}, // likewise
		// From element 0: 13 full passes of 4 sectors, then lanes 0-2 alone
		// (1 sector) = 53. Unrolled by 4, lanes 0-2 (14 trips, remainder 2)
		// run one pass ahead of lanes 3-31 (13 trips, remainder 1) in each of
		// the 12 unrolled requests: 4+1 sectors each, plus 4+1 in the
		// remainder loop = 65.
		{0, 419, 1, 53},
		{0, 419, 4, 65},
		// Every lane the same trip count: unrolling changes nothing.
		{0, 416, 1, 52},
		{0, 416, 4, 52},
		{93, 419, 2, -1},
		{93, 419, 8, -1},
		{5, 40, 4, -1},
		{0, 3, 4, 1},
	}
	for _, c := range cases {
		wantReq, wantSec := refUnrolled(c.begin, c.begin+c.n, c.factor)
		if c.sectors >= 0 && wantSec != c.sectors {
			t.Fatalf("test bug: begin %d n %d unroll %d: reference %d, hand %d", c.begin, c.n, c.factor, wantSec, c.sectors)
		}
		d := newDevice(t)
		val := mustAlloc[float32](t, d, "val", 1024)
		k := sim.NewKernel("walk", false)
		k.Body = func(th *sim.Thread) {
			begin, end := c.begin+th.ThreadIdx.X, c.begin+c.n
			trips := 0
			if end > begin {
				trips = (end - begin + 31) / 32
			}
			th.Unroll(c.factor, trips)
			for j := begin; j < end; j += 32 {
				val.Ld(th, j)
				th.Next()
			}
			th.EndLoop()
		}
		st := launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
		if st.GlobalLoad != (sim.Traffic{Requests: wantReq, Sectors: wantSec}) {
			t.Errorf("begin %d n %d unroll %d: %+v, want %d requests %d sectors", c.begin, c.n, c.factor, st.GlobalLoad, wantReq, wantSec)
		}
		if len(st.Sites) != 1 {
			t.Errorf("unrolled copies should merge into one site, got %+v", st.Sites)
		}
	}
}

// sharedPattern runs one warp in which lane L loads tile[idx(L)] from a
// shared array of n elements of T.
func sharedPattern[T sim.Elem](t *testing.T, n int, idx func(int) int) *sim.Stats {
	t.Helper()
	d := newDevice(t)
	k := sim.NewKernel("bank", false)
	k.Body = func(th *sim.Thread) {
		tile := sim.SharedArray[T](th, "tile", n)
		tile.Ld(th, idx(th.ThreadIdx.X))
	}
	return launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
}

// TestBankConflicts checks l1tex__data_pipe_lsu_wavefronts_mem_shared and
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared for one request.
func TestBankConflicts(t *testing.T) {
	cases := []struct {
		name              string
		f64               bool
		idx               func(int) int
		wavefronts, ideal int64
	}{
		{"consecutive", false, func(l int) int { return l }, 1, 1},
		{"tile[lane*32] (32-way)", false, func(l int) int { return l * 32 }, 32, 1},
		{"tile[lane*33] (padded)", false, func(l int) int { return l * 33 }, 1, 1},
		{"stride 2 (2-way)", false, func(l int) int { return l * 2 }, 2, 1},
		{"stride 16 (16-way)", false, func(l int) int { return l * 16 }, 16, 1},
		{"broadcast", false, func(int) int { return 5 }, 1, 1},
		{"two words, one bank", false, func(l int) int { return (l % 2) * 32 }, 2, 1},
		{"float64 consecutive", true, func(l int) int { return l }, 2, 2},
		{"float64 stride 16 (lane*128 bytes)", true, func(l int) int { return l * 16 }, 32, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var st *sim.Stats
			size := uint64(4)
			if c.f64 {
				st, size = sharedPattern[float64](t, 32*33, c.idx), 8
			} else {
				st = sharedPattern[float32](t, 32*33, c.idx)
			}
			var addrs []uint64
			for l := 0; l < 32; l++ {
				addrs = append(addrs, uint64(c.idx(l))*size)
			}
			if wf, ideal := refWavefronts(addrs, size); wf != c.wavefronts || ideal != c.ideal {
				t.Fatalf("test bug: reference %d/%d, hand %d/%d", wf, ideal, c.wavefronts, c.ideal)
			}
			want := sim.Banked{Requests: 1, Wavefronts: c.wavefronts, Ideal: c.ideal, Conflicts: c.wavefronts - c.ideal}
			if st.SharedLoad != want {
				t.Errorf("shared load %+v, want %+v", st.SharedLoad, want)
			}
			if s, ok := st.Site("tile ld"); !ok || s.Space != "shared" || s.Wavefronts != c.wavefronts || s.Conflicts != c.wavefronts-c.ideal {
				t.Errorf("site: %+v %v", s, ok)
			}
			if st.GlobalLoad != (sim.Traffic{}) {
				t.Errorf("shared access counted as global: %+v", st.GlobalLoad)
			}
		})
	}
}

// TestTransposeTile: the shared-memory transpose of one 32×32 float tile,
// block (32, 32). Warp w writes row w of the tile (conflict-free) and reads
// column w: tile[tx][ty] is 32 words 32 words apart, all in one bank (32
// wavefronts), unless each row is padded to 33 floats.
func TestTransposeTile(t *testing.T) {
	const tile = 32
	for _, pad := range []int{0, 1} {
		d := newDevice(t)
		in := make([]float32, tile*tile)
		for i := range in {
			in[i] = float32(i)
		}
		src := mustUpload(t, d, "in", in)
		dst := mustAlloc[float32](t, d, "out", tile*tile)
		k := sim.NewKernel("transposeTile", true)
		k.Body = func(th *sim.Thread) {
			s := sim.SharedArray[float32](th, "tile", tile*(tile+pad))
			tx, ty := th.ThreadIdx.X, th.ThreadIdx.Y
			s.St(th, ty*(tile+pad)+tx, src.Ld(th, ty*tile+tx))
			th.SyncThreads()
			dst.St(th, ty*tile+tx, s.Ld(th, tx*(tile+pad)+ty))
		}
		st := launch(t, d, k, sim.Dim1(1), sim.Dim2(tile, tile), 0)
		for r := 0; r < tile; r++ {
			for c := 0; c < tile; c++ {
				if dst.Data[r*tile+c] != in[c*tile+r] {
					t.Fatalf("pad %d: out[%d][%d] = %v, want %v", pad, r, c, dst.Data[r*tile+c], in[c*tile+r])
				}
			}
		}
		wantLd := sim.Banked{Requests: 32, Wavefronts: 32 * 32, Ideal: 32, Conflicts: 32 * 31}
		if pad == 1 {
			wantLd = sim.Banked{Requests: 32, Wavefronts: 32, Ideal: 32}
		}
		if st.SharedLoad != wantLd {
			t.Errorf("pad %d: shared load %+v, want %+v", pad, st.SharedLoad, wantLd)
		}
		if want := (sim.Banked{Requests: 32, Wavefronts: 32, Ideal: 32}); st.SharedStore != want {
			t.Errorf("pad %d: shared store %+v, want %+v", pad, st.SharedStore, want)
		}
		coalesced := sim.Traffic{Requests: 32, Sectors: 128}
		if st.GlobalLoad != coalesced || st.GlobalStore != coalesced {
			t.Errorf("pad %d: global %+v / %+v, want %+v both", pad, st.GlobalLoad, st.GlobalStore, coalesced)
		}
	}
}

// TestL2AndDRAM: the modeled L1 is per block, so a buffer read twice by one
// block reaches L2 once; DRAM is charged each distinct sector once per
// launch however many blocks read it.
func TestL2AndDRAM(t *testing.T) {
	for _, blocks := range []int{1, 2, 4} {
		d := newDevice(t)
		buf := mustAlloc[float32](t, d, "buf", 256)
		out := mustAlloc[float32](t, d, "out", 256*blocks)
		k := sim.NewKernel("twice", false)
		a, b := k.Site("a"), k.Site("b")
		k.Body = func(th *sim.Thread) {
			i := th.ThreadIdx.X
			v := buf.LdAt(th, a, i) + buf.LdAt(th, b, 255-i)
			out.St(th, th.BlockIdx.X*256+i, v)
		}
		st := launch(t, d, k, sim.Dim1(blocks), sim.Dim1(256), 0)
		n := int64(blocks)
		// 256 floats = 32 sectors, read at two sites by every block.
		if st.GlobalLoad.Sectors != 64*n {
			t.Errorf("%d blocks: L1 sectors %d, want %d", blocks, st.GlobalLoad.Sectors, 64*n)
		}
		// Per block: 32 load misses + 32 stores (write-through).
		if st.L2Sectors != 64*n {
			t.Errorf("%d blocks: L2 sectors %d, want %d", blocks, st.L2Sectors, 64*n)
		}
		if st.DRAMReadBytes != 1024 || st.DRAMWriteBytes != 1024*n {
			t.Errorf("%d blocks: DRAM read/write %d/%d, want 1024/%d", blocks, st.DRAMReadBytes, st.DRAMWriteBytes, 1024*n)
		}
		// Warps run in order: warps 0-3 miss at a (floats 0..127) and at b
		// (floats 255..128); warps 4-7 find everything in L1.
		sa, _ := st.Site("a")
		sb, _ := st.Site("b")
		if sa.L2Sectors != 16*n || sb.L2Sectors != 16*n {
			t.Errorf("site L2 sectors a %d b %d, want %d each", sa.L2Sectors, sb.L2Sectors, 16*n)
		}
	}
}

// TestTimeModel: every launch carries a modeled time naming its bound.
func TestTimeModel(t *testing.T) {
	for _, m := range sim.Models() {
		d := sim.NewDevice(m)
		x := mustAlloc[float32](t, d, "x", 1<<16)
		y := mustAlloc[float32](t, d, "y", 1<<16)
		k := sim.NewKernel("scale", false)
		k.Body = func(th *sim.Thread) {
			i := th.BlockIdx.X*th.BlockDim.X + th.ThreadIdx.X
			y.St(th, i, 2*x.Ld(th, i))
			th.Ops(2)
		}
		st := launch(t, d, k, sim.Dim1(256), sim.Dim1(256), 0)
		tm := st.Time
		if tm.Kind != "modeled" || !(tm.Seconds >= m.LaunchOverhead) || tm.Seconds > 1 {
			t.Errorf("%s: time %+v, want a modeled time of at least the launch overhead", m.Key, tm)
		}
		if !slices.Contains([]string{"dram", "l2", "l1", "issue", "latency", "launch"}, tm.Bound) {
			t.Errorf("%s: bound %q is not a term of the model", m.Key, tm.Bound)
		}
		if st.Model != m.Key {
			t.Errorf("stats model %q, want %q", st.Model, m.Key)
		}
		// 2^16 floats in and out: 256 KiB each way, all compulsory.
		if st.DRAMReadBytes != 1<<18 || st.DRAMWriteBytes != 1<<18 {
			t.Errorf("%s: DRAM %d/%d, want %d each", m.Key, st.DRAMReadBytes, st.DRAMWriteBytes, 1<<18)
		}
		// One load, one store, two ops per lane: 4 per warp, 2048 warps.
		if st.Warps != 2048 || st.WarpInstructions != 4*2048 {
			t.Errorf("%s: %d warps, %d warp instructions; want 2048, %d", m.Key, st.Warps, st.WarpInstructions, 4*2048)
		}
	}
}

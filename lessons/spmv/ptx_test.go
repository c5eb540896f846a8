package spmv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sparse"
)

// The simulator runs spmv.cu's kernels from spmv.ptx alone. These tests hold
// that path to what can be known without running it: the outputs to the CPU
// reference, bit for bit (every input here has small-integer values, so each
// float32 sum is exact in any order), and the memory counters to what the
// access pattern gives when counted by hand below (expectTraffic). The
// counters are also held to Nsight Compute's on the H200 (ncu_test.go,
// fidelity_test.go, realmatrix_test.go).

// irregularMatrix has random row lengths (0 to 70, some rows empty) with
// small-integer values, so that float32 sums are exact in any order.
func irregularMatrix(rows int) *Matrix {
	r := rand.New(rand.NewPCG(3, 7))
	csr := &sparse.CSR{Rows: rows, Cols: rows, RowPtr: make([]int32, rows+1)}
	for i := range rows {
		n := r.IntN(71)
		if i%9 == 4 {
			n = 0
		}
		start := r.IntN(rows - n + 1)
		for j := range n {
			csr.ColIdx = append(csr.ColIdx, int32(start+j))
			csr.Val = append(csr.Val, float32(r.IntN(9)-4))
		}
		csr.RowPtr[i+1] = int32(len(csr.Val))
	}
	return newMatrix("irregular", csr, csr.NNZ())
}

// execWith is Exec with the module given, returning the whole Launch.
func execWith(t *testing.T, dev *gpuext.Device, mod *gpuext.Module, kernel string, m *Matrix, probeBlocks int) ([]float32, *gpuext.Launch) {
	t.Helper()
	d, err := uploadMatrix(dev, m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.free()
	out := d.y
	var l *gpuext.Launch
	if kernel == KernelProbe {
		partials, err := gpuext.Alloc[float32](dev, "partials", probeBlocks*ThreadsPerBlock)
		if err != nil {
			t.Fatal(err)
		}
		defer partials.Free()
		out = partials
		l, err = launchProbe(context.Background(), dev, mod, d, partials, probeBlocks, m.CSR.NNZ())
		if err != nil {
			t.Fatal(err)
		}
	} else {
		l, err = launchRowKernel(context.Background(), dev, mod, kernel, d, m.CSR.Rows)
		if err != nil {
			t.Fatal(err)
		}
	}
	got := make([]float32, out.Len())
	if err := out.Download(got); err != nil {
		t.Fatal(err)
	}
	return got, l
}

// traffic is what a kernel's global loads and stores issue: requests (one
// per warp-level instruction with an active lane), sectors and active lanes;
// loop* count the row loop's loads alone (the lane-slots of the seed's
// prediction are 32 per request).
type traffic struct {
	ldReq, ldSec, ldLanes int64
	stReq, stSec, stLanes int64
	loopReq, loopLanes    int64
}

// sectors is how many 32-byte sectors the 4-byte elements idx of one
// buffer touch: buffers start on 256-byte boundaries (cudaMalloc's, and the
// simulator's), so element i lies in sector i/8.
func sectors(idx []int) int64 {
	seen := map[int]bool{}
	for _, i := range idx {
		seen[i/8] = true
	}
	return int64(len(seen))
}

func (tr *traffic) load(idx []int, loop bool) {
	if len(idx) == 0 {
		return
	}
	tr.ldReq++
	tr.ldSec += sectors(idx)
	tr.ldLanes += int64(len(idx))
	if loop {
		tr.loopReq++
		tr.loopLanes += int64(len(idx))
	}
}

func (tr *traffic) store(idx []int) {
	if len(idx) == 0 {
		return
	}
	tr.stReq++
	tr.stSec += sectors(idx)
	tr.stLanes += int64(len(idx))
}

// loopSteps is the order in which one warp issues its loop's iterations,
// given each lane's trip count (-1 for a lane that never enters): a step
// is the iteration index of every lane active in it (-1 inactive). With
// unroll 1 step k runs iteration k of every lane that has one. With unroll
// 4, as nvcc unrolls a loop whose trip count it does not know, each lane
// first runs its trips%4 remainder iterations, one a step, then groups of
// four: group g's copy c runs iteration trips%4 + 4g + c of every lane with
// more than g groups.
func loopSteps(trips []int, unroll int) [][]int {
	var steps [][]int
	step := func(iter func(l int) int) {
		s := make([]int, len(trips))
		any := false
		for l := range trips {
			s[l] = iter(l)
			any = any || s[l] >= 0
		}
		if any {
			steps = append(steps, s)
		}
	}
	most := 0
	for _, n := range trips {
		most = max(most, n)
	}
	if unroll == 1 {
		for k := range most {
			step(func(l int) int { return cond(k < trips[l], k) })
		}
		return steps
	}
	for k := range unroll - 1 {
		step(func(l int) int { return cond(k < trips[l]%unroll, k) })
	}
	for g := range most / unroll {
		for c := range unroll {
			step(func(l int) int { return cond(g < trips[l]/unroll, trips[l]%unroll+unroll*g+c) })
		}
	}
	return steps
}

func cond(ok bool, v int) int {
	if ok {
		return v
	}
	return -1
}

// rowLoop adds one warp's row loop: per step, colIdx[j], val[j] and
// x[colIdx[j]], j = at(lane, iteration).
func (tr *traffic) rowLoop(m *Matrix, trips []int, unroll int, at func(lane, iter int) int) {
	for _, s := range loopSteps(trips, unroll) {
		var js, cols []int
		for l, it := range s {
			if it >= 0 {
				j := at(l, it)
				js = append(js, j)
				cols = append(cols, int(m.CSR.ColIdx[j]))
			}
		}
		tr.load(js, true)   // colIdx[j]
		tr.load(js, true)   // val[j]
		tr.load(cols, true) // x[colIdx[j]]
	}
}

// expectTraffic counts by hand what kernel issues on m with the lesson's
// launch shape (probeBlocks blocks for the probe), from spmv.cu and the
// unrolling nvcc chose: the default SpMV kernels' row loops by four
// (remainder first), the _unroll1 ones and the probe's grid-stride loop
// not at all.
func expectTraffic(m *Matrix, kernel string, probeBlocks int) traffic {
	var tr traffic
	rows, rp := m.CSR.Rows, m.CSR.RowPtr
	unroll := 1
	if kernel == KernelThreadPerRow || kernel == KernelWarpPerRow {
		unroll = 4
	}
	switch kernel {
	case KernelThreadPerRow, KernelThreadPerRowUnroll1:
		for r0 := 0; r0 < rows; r0 += WarpSize {
			var lo, hi []int
			trips := make([]int, WarpSize)
			for l := range WarpSize {
				trips[l] = -1
				if r := r0 + l; r < rows {
					lo, hi = append(lo, r), append(hi, r+1)
					trips[l] = int(rp[r+1] - rp[r])
				}
			}
			tr.load(lo, false)
			tr.load(hi, false)
			tr.rowLoop(m, trips, unroll, func(l, it int) int { return int(rp[r0+l]) + it })
			tr.store(lo) // y[row]
		}
	case KernelWarpPerRow, KernelWarpPerRowUnroll1:
		for r := 0; r < rows; r++ {
			all := func(i int) []int {
				s := make([]int, WarpSize)
				for l := range s {
					s[l] = i
				}
				return s
			}
			tr.load(all(r+1), false)
			tr.load(all(r), false)
			begin, end := int(rp[r]), int(rp[r+1])
			trips := make([]int, WarpSize)
			for l := range trips {
				trips[l] = max(0, (end-begin-l+WarpSize-1)/WarpSize)
			}
			tr.rowLoop(m, trips, unroll, func(l, it int) int { return begin + l + WarpSize*it })
			tr.store([]int{r}) // lane 0's y[row]
		}
	case KernelProbe:
		nnz, threads := m.CSR.NNZ(), probeBlocks*ThreadsPerBlock
		for g0 := 0; g0 < threads; g0 += WarpSize {
			trips := make([]int, WarpSize)
			var gs []int
			for l := range trips {
				g := g0 + l
				gs = append(gs, g)
				trips[l] = max(0, (nnz-g+threads-1)/threads)
			}
			for _, s := range loopSteps(trips, 1) {
				var js, cols []int
				for l, it := range s {
					if it >= 0 {
						j := g0 + l + threads*it
						js, cols = append(js, j), append(cols, int(m.CSR.ColIdx[j]))
					}
				}
				tr.load(js, false)
				tr.load(js, false)
				tr.load(cols, false)
			}
			tr.store(gs) // partials[gid]
		}
	}
	return tr
}

// TestPTXPathOutputs: every kernel, from PTX, gives the CPU reference's
// bits on the seed matrices and an irregular one (the probe: its partial
// sums add up to the reference's total exactly), and the simulator says it
// ran the embedded nvcc 11.8 PTX.
func TestPTXPathOutputs(t *testing.T) {
	seeds, err := SeedMatrices(1024)
	if err != nil {
		t.Fatal(err)
	}
	dev := openSim(t)
	for _, m := range append(seeds, irregularMatrix(1000)) {
		for _, k := range KernelNames() {
			got, l := execWith(t, dev, Module(), k, m, 16)
			if l.Path != gpuext.PathPTX || !strings.Contains(l.PTX, "nvcc 11.8") || !strings.Contains(l.PTX, "sm_75") {
				t.Fatalf("%s ran path %q, PTX %q; want the embedded nvcc 11.8 sm_75 PTX", k, l.Path, l.PTX)
			}
			if msg := Check(m, k, got); msg != "" {
				t.Errorf("%s on %s: %s", k, m.Name, msg)
			}
			if k == KernelProbe {
				if p, w := Total(got), Total(m.Want); p != w {
					t.Errorf("%s on %s: total %v, reference %v (small integers: must be exact)", k, m.Name, p, w)
				}
				continue
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(m.Want[i]) {
					t.Errorf("%s on %s: y[%d] = %v, reference %v (small integers: must be exact)", k, m.Name, i, got[i], m.Want[i])
					break
				}
			}
		}
	}
}

// TestPTXPathCounters holds every kernel's counters from PTX to the ones
// counted by hand from the access pattern (expectTraffic): global-load and
// store requests, sectors and active lanes; the row loop's lane-slots, which
// for the _unroll1 kernels are the lesson's own prediction (laneslots.go);
// and the executed memory instructions, which are the requests plus one
// ld.param per kernel parameter per warp.
func TestPTXPathCounters(t *testing.T) {
	seeds, err := SeedMatrices(1024)
	if err != nil {
		t.Fatal(err)
	}
	dev := openSim(t)
	var report strings.Builder
	fmt.Fprintf(&report, "%-10s %-28s %9s %9s %9s %9s %11s  %s\n", "matrix", "kernel", "ld req", "ld sect", "st req", "loop req", "warp instr", "mix")
	for _, m := range append(seeds, irregularMatrix(1000)) {
		for _, k := range KernelNames() {
			const probeBlocks = 16
			_, l := execWith(t, dev, Module(), k, m, probeBlocks)
			st, want := l.Stats, expectTraffic(m, k, probeBlocks)
			var got traffic
			for _, s := range st.Sites {
				if s.Space != "global" {
					t.Errorf("%s on %s: a %s site %q", k, m.Name, s.Space, s.Label)
					continue
				}
				switch s.Op {
				case "ld":
					got.ldReq += s.Requests
					got.ldSec += s.Sectors
					got.ldLanes += s.ActiveLanes
					if k != KernelProbe && strings.Contains(s.Label, "acc += val[j] * x[colIdx[j]];") {
						got.loopReq += s.Requests
						got.loopLanes += s.ActiveLanes
						if s.LaneSlots != WarpSize*s.Requests {
							t.Errorf("%s on %s, %s: %d lane-slots for %d requests", k, m.Name, s.Label, s.LaneSlots, s.Requests)
						}
					}
				case "st":
					got.stReq += s.Requests
					got.stSec += s.Sectors
					got.stLanes += s.ActiveLanes
				default:
					t.Errorf("%s on %s: an %s site %q", k, m.Name, s.Op, s.Label)
				}
			}
			if got != want {
				t.Errorf("%s on %s: sites add up to\n\t%+v, by hand\n\t%+v", k, m.Name, got, want)
			}
			if st.GlobalLoad.Requests != want.ldReq || st.GlobalLoad.Sectors != want.ldSec ||
				st.GlobalStore.Requests != want.stReq || st.GlobalStore.Sectors != want.stSec {
				t.Errorf("%s on %s: global load %+v store %+v, by hand %d/%d and %d/%d", k, m.Name,
					st.GlobalLoad, st.GlobalStore, want.ldReq, want.ldSec, want.stReq, want.stSec)
			}
			if k == KernelThreadPerRowUnroll1 || k == KernelWarpPerRowUnroll1 {
				pred := ThreadPerRowLaneSlots(m.Lengths)
				if k == KernelWarpPerRowUnroll1 {
					pred = WarpPerRowLaneSlots(m.Lengths)
				}
				if slots := WarpSize * got.loopReq; slots != 3*pred || got.loopLanes != 3*int64(m.CSR.NNZ()) {
					t.Errorf("%s on %s: row loop %d lane-slots (%d useful), the prediction 3 × %d (3 × %d nonzeros)",
						k, m.Name, slots, got.loopLanes, pred, m.CSR.NNZ())
				}
			}
			var mix int64
			for _, n := range st.InstrMix {
				mix += n
			}
			if mix != st.WarpInstructions || mix == 0 {
				t.Errorf("%s on %s: instruction classes add up to %d, warp instructions %d", k, m.Name, mix, st.WarpInstructions)
			}
			// Every warp loads each kernel parameter once (ld.param).
			params := int64(len(kernelParams(k)))
			if mem := want.ldReq + want.stReq + params*st.Warps; st.InstrMix["memory"] != mem {
				t.Errorf("%s on %s: %d memory instructions executed, want %d requests + %d params × %d warps = %d",
					k, m.Name, st.InstrMix["memory"], want.ldReq+want.stReq, params, st.Warps, mem)
			}
			fmt.Fprintf(&report, "%-10s %-28s %9d %9d %9d %9d %11d  %v\n", m.Name, k, st.GlobalLoad.Requests, st.GlobalLoad.Sectors,
				st.GlobalStore.Requests, got.loopReq, st.WarpInstructions, st.InstrMix)
		}
	}
	t.Logf("PTX path counters (modeled, simulator):\n%s", report.String())
}

// TestLoopSteps: the unrolling rule expectTraffic counts with, on lanes
// whose trip counts differ (the case where unrolling changes which
// iterations a warp issues together).
func TestLoopSteps(t *testing.T) {
	cases := []struct {
		trips  []int
		unroll int
		want   string
	}{
		{[]int{2, 0, 1}, 1, "[[0 -1 0] [1 -1 -1]]"},
		{[]int{-1, -1}, 1, "[]"},
		// Remainders 1 and 2 first, then one group of four for lane 0.
		{[]int{5, 2}, 4, "[[0 0] [-1 1] [1 -1] [2 -1] [3 -1] [4 -1]]"},
		{[]int{8, 4}, 4, "[[0 0] [1 1] [2 2] [3 3] [4 -1] [5 -1] [6 -1] [7 -1]]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(loopSteps(c.trips, c.unroll)); got != c.want {
			t.Errorf("loopSteps(%v, %d) = %s, want %s", c.trips, c.unroll, got, c.want)
		}
	}
}

// TestPTXSeedKernelsSites: from PTX the sites are the .cu lines with their
// text.
func TestPTXSeedKernelsSites(t *testing.T) {
	seeds, err := SeedMatrices(512)
	if err != nil {
		t.Fatal(err)
	}
	dev := openSim(t)
	_, l := execWith(t, dev, Module(), KernelThreadPerRowUnroll1, seeds[0], 1)
	var labels []string
	for _, s := range l.Stats.Sites {
		labels = append(labels, s.Label)
	}
	joined := strings.Join(labels, "\n")
	for _, want := range []string{"spmv.cu:88 acc += val[j] * x[colIdx[j]];", "spmv.cu:90 y[row] = acc;"} {
		if !strings.Contains(joined, want) {
			t.Errorf("sites %q lack %s", labels, want)
		}
	}
}

// TestPTXPathBadLaunch: with no binder to check the arguments first, an
// nRows larger than the matrix is what it is on a GPU, a read past rowPtr's
// end; the simulator reports it as an out-of-bounds fault naming the buffer,
// the index and the spmv.cu line, for every kernel that reads rowPtr.
func TestPTXPathBadLaunch(t *testing.T) {
	seeds, err := SeedMatrices(512)
	if err != nil {
		t.Fatal(err)
	}
	dev := openSim(t)
	d, err := uploadMatrix(dev, seeds[0])
	if err != nil {
		t.Fatal(err)
	}
	defer d.free()
	for _, k := range []string{KernelThreadPerRow, KernelWarpPerRow, KernelThreadPerRowUnroll1, KernelWarpPerRowUnroll1} {
		const rows = 512 + 32 // rowPtr holds 513 entries
		_, err := launchRowKernel(context.Background(), dev, Module(), k, d, rows)
		var f *sim.Fault
		if !errors.As(err, &f) {
			t.Fatalf("%s with nRows %d: %v, want a *sim.Fault", k, rows, err)
		}
		if f.Kind != sim.FaultOutOfBounds || f.Buffer != "rowPtr" || f.Index <= 512 || f.Len != 513 || !strings.Contains(f.Site, "spmv.cu:") || !strings.Contains(f.Site, "rowPtr[row") {
			t.Errorf("%s with nRows %d: %+v", k, rows, f)
		}
	}
}

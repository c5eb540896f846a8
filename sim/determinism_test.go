package sim_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"github.com/warplab/warplab/sim"
)

// mixedKernel exercises everything whose order could leak into results: a
// gather, float sums through shuffles and a shared-memory tree, global int32
// atomics, partial warps (block of 200) and several blocks per worker.
//
// Launch assumption: 1-D grid and block, blockDim.x <= 256. One warp: each
// lane sums 8 gathered floats, the warp reduces them with shfl_xor, lane 0
// puts the warp's sum in shared memory, and after a barrier warp 0 adds the
// warps' sums in a fixed order.
func mixedKernel(x *sim.F32, idx *sim.I32, out *sim.F32, total, bins *sim.I32, lockstep bool) *sim.Kernel {
	k := sim.NewKernel("mixed", true)
	k.Lockstep = lockstep
	gs := k.Site("x[idx[j]]")
	k.Body = func(th *sim.Thread) {
		part := sim.SharedArray[float32](th, "part", 8)
		g := th.BlockIdx.X*th.BlockDim.X + th.ThreadIdx.X
		var v float32
		for j := 0; j < 8; j++ {
			i := idx.Ld(th, (g*8+j)%idx.Len())
			v += x.LdAt(th, gs, int(i)) * float32(j+1)
		}
		// The last warp of a 200-thread block has 8 lanes.
		n := min(32, th.BlockDim.X-32*th.Warp())
		mask := uint32(1<<n - 1)
		for off := 1; off < 32; off *= 2 {
			if th.Lane()^off < n {
				v += sim.ShflXorSync(th, mask, v, off)
			} else {
				th.SyncWarp(mask)
			}
		}
		if th.Lane() == 0 {
			part.St(th, th.Warp(), v)
		}
		th.SyncThreads()
		total.AtomicAdd(th, 0, int32(g))
		bins.AtomicAdd(th, int(idx.Ld(th, g%idx.Len()))%16, 1)
		if th.ThreadIdx.X == 0 {
			var s float32
			for w := 0; w < (th.BlockDim.X+31)/32; w++ {
				s += part.Ld(th, w)
			}
			out.St(th, th.BlockIdx.X, s)
		}
	}
	return k
}

func TestDeterminism(t *testing.T) {
	for _, lockstep := range []bool{false, true} {
		t.Run(fmt.Sprintf("lockstep=%v", lockstep), func(t *testing.T) { testDeterminism(t, lockstep) })
	}
}

func testDeterminism(t *testing.T, lockstep bool) {
	const blocks, threads = 37, 200
	n := blocks * threads
	type result struct {
		st    *sim.Stats
		out   []byte
		total int32
		bins  []int32
	}
	run := func() result {
		d := newDevice(t)
		xs := make([]float32, 4096)
		for i := range xs {
			xs[i] = 1 / float32(i+3) // sums of these depend on order
		}
		is := make([]int32, n)
		for i := range is {
			is[i] = int32((i * 2654435761) % 4096)
		}
		x := mustUpload(t, d, "x", xs)
		idx := mustUpload(t, d, "idx", is)
		out := mustAlloc[float32](t, d, "out", blocks)
		total := mustAlloc[int32](t, d, "total", 1)
		bins := mustAlloc[int32](t, d, "bins", 16)
		st := launch(t, d, mixedKernel(x, idx, out, total, bins, lockstep), sim.Dim1(blocks), sim.Dim1(threads), 0)
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, out.Data)
		return result{st, buf.Bytes(), total.Data[0], bins.Data}
	}
	var ref result
	withProcs(1, func() { ref = run() })
	if want := int32(n * (n - 1) / 2); ref.total != want {
		t.Errorf("atomic total %d, want %d", ref.total, want)
	}
	var binSum int32
	for _, b := range ref.bins {
		binSum += b
	}
	if binSum != int32(n) {
		t.Errorf("bins add to %d, want %d", binSum, n)
	}
	for _, procs := range []int{1, 2, 4} {
		for rep := 0; rep < 3; rep++ {
			var got result
			withProcs(procs, func() { got = run() })
			if !reflect.DeepEqual(got.st, ref.st) {
				t.Errorf("GOMAXPROCS %d run %d: stats differ\n got %+v\nwant %+v", procs, rep, got.st, ref.st)
			}
			if !bytes.Equal(got.out, ref.out) || got.total != ref.total || !reflect.DeepEqual(got.bins, ref.bins) {
				t.Errorf("GOMAXPROCS %d run %d: results differ", procs, rep)
			}
		}
	}
}

// TestOrderedFloatAtomics: float atomicAdd from many blocks is reproducible
// bit for bit when the kernel is Ordered.
func TestOrderedFloatAtomics(t *testing.T) {
	run := func() float32 {
		d := newDevice(t)
		sum := mustAlloc[float32](t, d, "sum", 1)
		k := sim.NewKernel("floatSum", false)
		k.Ordered = true
		k.Body = func(th *sim.Thread) {
			g := th.BlockIdx.X*th.BlockDim.X + th.ThreadIdx.X
			sum.AtomicAdd(th, 0, 1/float32(g+1))
		}
		launch(t, d, k, sim.Dim1(64), sim.Dim1(128), 0)
		return sum.Data[0]
	}
	var ref float32
	withProcs(1, func() { ref = run() })
	for _, procs := range []int{2, 4} {
		for rep := 0; rep < 3; rep++ {
			var got float32
			withProcs(procs, func() { got = run() })
			if got != ref {
				t.Errorf("GOMAXPROCS %d: Ordered float atomics gave %v, want %v", procs, got, ref)
			}
		}
	}
}

// shflDownRows is warp-per-row-like: each warp sums a row of 100 floats
// with a strided loop and shfl_down, a store only at the end. It runs on
// the lane-descending fast path unless lockstep is set; both paths must
// give the same counters and the same bits.
func shflDownRows(x, y *sim.F32, lockstep bool) *sim.Kernel {
	k := sim.NewKernel("rows", true)
	k.Lockstep = lockstep
	k.Body = func(th *sim.Thread) {
		row := (th.BlockIdx.X*th.BlockDim.X + th.ThreadIdx.X) / 32
		var v float32
		for j := th.Lane(); j < 100; j += 32 {
			v += x.Ld(th, row*100+j)
		}
		for off := 16; off > 0; off /= 2 {
			v += sim.ShflDownSync(th, 0xffffffff, v, off)
		}
		if th.Lane() == 0 {
			y.St(th, row, v)
		}
	}
	return k
}

func TestFastPathMatchesLockstep(t *testing.T) {
	var stats [2]*sim.Stats
	var outs [2][]float32
	for i, lockstep := range []bool{false, true} {
		d := newDevice(t)
		xs := make([]float32, 64*100)
		for j := range xs {
			xs[j] = 1 / float32(j+1)
		}
		x := mustUpload(t, d, "x", xs)
		y := mustAlloc[float32](t, d, "y", 64)
		stats[i] = launch(t, d, shflDownRows(x, y, lockstep), sim.Dim1(8), sim.Dim1(256), 0)
		outs[i] = y.Data
	}
	if !reflect.DeepEqual(stats[0], stats[1]) {
		t.Errorf("fast path and lockstep counters differ:\n%+v\n%+v", stats[0], stats[1])
	}
	if !reflect.DeepEqual(outs[0], outs[1]) {
		t.Errorf("fast path and lockstep results differ")
	}
}

// TestStoreThenShuffle: a correct kernel that stores to global memory and
// then uses an intrinsic other than __shfl_down_sync.
func TestStoreThenShuffle(t *testing.T) {
	for _, lockstep := range []bool{true, false} {
		d := newDevice(t)
		out := mustAlloc[int32](t, d, "out", 64)
		k := sim.NewKernel("storeThenXor", true)
		k.Lockstep = lockstep
		k.Body = func(th *sim.Thread) {
			out.St(th, th.LinearID(), 1)
			v := sim.ShflXorSync(th, 0xffffffff, int32(th.Lane()), 1)
			out.St(th, 32+th.Lane(), v)
		}
		_, err := launchGuarded(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
		if err != nil {
			t.Fatalf("lockstep %v: %v", lockstep, err)
		}
		for l := 0; l < 32; l++ {
			if out.Data[32+l] != int32(l^1) {
				t.Errorf("lockstep %v lane %d: %d, want %d", lockstep, l, out.Data[32+l], l^1)
			}
		}
	}
}

package sim_test

import (
	"math"
	"testing"

	"github.com/warplab/warplab/sim"
)

// TestShuffles: each shuffle against its hand-computed source lane, on a
// block of two warps so that lanes, not thread ids, are shuffled.
func TestShuffles(t *testing.T) {
	cases := []struct {
		name string
		do   func(th *sim.Thread, v int32) int32
		src  func(lane int) int // lane whose value lane receives
	}{
		{"shfl from lane 5", func(th *sim.Thread, v int32) int32 { return sim.ShflSync(th, 0xffffffff, v, 5) }, func(int) int { return 5 }},
		{"shfl rotate by 3", func(th *sim.Thread, v int32) int32 { return sim.ShflSync(th, 0xffffffff, v, th.Lane()+3) },
			func(l int) int { return (l + 3) % 32 }},
		{"shfl src -1 wraps to 31", func(th *sim.Thread, v int32) int32 { return sim.ShflSync(th, 0xffffffff, v, -1) }, func(int) int { return 31 }},
		{"shfl_down 3", func(th *sim.Thread, v int32) int32 { return sim.ShflDownSync(th, 0xffffffff, v, 3) },
			func(l int) int {
				if l+3 < 32 {
					return l + 3
				}
				return l
			}},
		{"shfl_up 3", func(th *sim.Thread, v int32) int32 { return sim.ShflUpSync(th, 0xffffffff, v, 3) },
			func(l int) int {
				if l >= 3 {
					return l - 3
				}
				return l
			}},
		{"shfl_xor 5", func(th *sim.Thread, v int32) int32 { return sim.ShflXorSync(th, 0xffffffff, v, 5) }, func(l int) int { return l ^ 5 }},
		{"shfl_xor 16", func(th *sim.Thread, v int32) int32 { return sim.ShflXorSync(th, 0xffffffff, v, 16) }, func(l int) int { return l ^ 16 }},
	}
	d := newDevice(t)
	out := mustAlloc[int32](t, d, "out", 64)
	for _, c := range cases {
		k := sim.NewKernel("shfl", true)
		k.Body = func(th *sim.Thread) {
			v := int32(-1000*th.Warp() - th.Lane()) // negative: checks sign survives
			out.St(th, th.LinearID(), c.do(th, v))
		}
		launch(t, d, k, sim.Dim1(1), sim.Dim1(64), 0)
		for tid := 0; tid < 64; tid++ {
			w, l := tid/32, tid%32
			if want := int32(-1000*w - c.src(l)); out.Data[tid] != want {
				t.Errorf("%s: thread %d got %d, want %d", c.name, tid, out.Data[tid], want)
			}
		}
	}
}

// TestShuffleTypes: 8-byte and 4-byte values of every element type go
// through a shuffle bit for bit.
func TestShuffleTypes(t *testing.T) {
	d := newDevice(t)
	f64 := mustAlloc[float64](t, d, "f64", 32)
	f32 := mustAlloc[float32](t, d, "f32", 32)
	i64 := mustAlloc[int64](t, d, "i64", 32)
	u32 := mustAlloc[uint32](t, d, "u32", 32)
	val64 := func(l int) float64 { return 1e10 + float64(l)*0.1 - math.Pi }
	k := sim.NewKernel("types", true)
	k.Body = func(th *sim.Thread) {
		l := th.Lane()
		f64.St(th, l, sim.ShflXorSync(th, 0xffffffff, val64(l), 1))
		f32.St(th, l, sim.ShflDownSync(th, 0xffffffff, float32(l)+0.25, 16))
		i64.St(th, l, sim.ShflUpSync(th, 0xffffffff, int64(l)<<40|-1<<63, 1))
		u32.St(th, l, sim.ShflSync(th, 0xffffffff, uint32(0xfffffff0+l/4), 31-l))
	}
	launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
	for l := 0; l < 32; l++ {
		if f64.Data[l] != val64(l^1) {
			t.Errorf("float64 lane %d: %v, want %v", l, f64.Data[l], val64(l^1))
		}
		wantF32 := float32(l) + 0.25
		if l < 16 {
			wantF32 = float32(l+16) + 0.25
		}
		if f32.Data[l] != wantF32 {
			t.Errorf("float32 lane %d: %v, want %v", l, f32.Data[l], wantF32)
		}
		src := max(l-1, 0) // shfl_up: lane 0 keeps its own
		if want := int64(src)<<40 | -1<<63; i64.Data[l] != want {
			t.Errorf("int64 lane %d: %#x, want %#x", l, i64.Data[l], want)
		}
		if want := uint32(0xfffffff0 + (31-l)/4); u32.Data[l] != want {
			t.Errorf("uint32 lane %d: %#x, want %#x", l, u32.Data[l], want)
		}
	}
}

// TestVotes: ballot, any and all against hand-computed masks.
func TestVotes(t *testing.T) {
	d := newDevice(t)
	out := mustAlloc[uint32](t, d, "out", 8)
	k := sim.NewKernel("votes", true)
	k.Body = func(th *sim.Thread) {
		l := th.Lane()
		b := th.BallotSync(0xffffffff, l%3 == 0)
		anyHit := th.AnySync(0xffffffff, l == 17)
		anyMiss := th.AnySync(0xffffffff, false)
		allYes := th.AllSync(0xffffffff, l < 32)
		allNo := th.AllSync(0xffffffff, l != 4)
		var half uint32
		var halfAll bool
		if l < 16 {
			half = th.BallotSync(0x0000ffff, l >= 8)
			halfAll = th.AllSync(0x0000ffff, l < 16)
		}
		if l == 0 {
			out.St(th, 0, b)
			out.St(th, 1, u(anyHit))
			out.St(th, 2, u(anyMiss))
			out.St(th, 3, u(allYes))
			out.St(th, 4, u(allNo))
			out.St(th, 5, half)
			out.St(th, 6, u(halfAll))
		}
	}
	launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
	// Bits 0, 3, ..., 30: 0100 1001 0010 0100 1001 0010 0100 1001.
	want := []uint32{0x49249249, 1, 0, 1, 0, 0x0000ff00, 1}
	for i, w := range want {
		if out.Data[i] != w {
			t.Errorf("vote %d: %#x, want %#x", i, out.Data[i], w)
		}
	}
}

func u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// warpSum is the classic warp reduction: after five shfl_down steps lane 0
// holds the sum of the warp's 32 values.
//
// Launch assumption: every lane of the warp is active (full mask).
func warpSum(th *sim.Thread, v float32) float32 {
	for off := 16; off > 0; off /= 2 {
		v += sim.ShflDownSync(th, 0xffffffff, v, off)
	}
	return v
}

func TestWarpReduction(t *testing.T) {
	d := newDevice(t)
	out := mustAlloc[float32](t, d, "out", 4)
	k := sim.NewKernel("warpSum", true)
	k.Body = func(th *sim.Thread) {
		s := warpSum(th, float32(th.LinearID()+1))
		if th.Lane() == 0 {
			out.St(th, th.Warp(), s)
		}
	}
	st := launch(t, d, k, sim.Dim1(1), sim.Dim1(128), 0)
	for w := 0; w < 4; w++ {
		// sum of 32w+1 .. 32w+32
		want := float32(32*32*w + 32*33/2)
		if out.Data[w] != want {
			t.Errorf("warp %d: %v, want %v", w, out.Data[w], want)
		}
	}
	// Five shuffles and one store per warp: 6 warp instructions.
	if st.WarpInstructions != 4*6 {
		t.Errorf("warp instructions %d, want 24", st.WarpInstructions)
	}
}

// blockSum is the shared-memory tree reduction (CUDA samples' reduce0):
// stride halves each step, with a barrier between steps.
//
// Launch assumption: blockDim.x is a power of two, sdata holds blockDim.x
// elements. Each block writes its sum to out[blockIdx.x].
func blockSum(in, out *sim.I32) *sim.Kernel {
	k := sim.NewKernel("blockSum", true)
	k.Body = func(th *sim.Thread) {
		sdata := sim.SharedArray[int32](th, "sdata", th.BlockDim.X)
		tid := th.ThreadIdx.X
		sdata.St(th, tid, in.Ld(th, th.BlockIdx.X*th.BlockDim.X+tid))
		th.SyncThreads()
		for s := th.BlockDim.X / 2; s > 0; s /= 2 {
			if tid < s {
				sdata.St(th, tid, sdata.Ld(th, tid)+sdata.Ld(th, tid+s))
			}
			th.SyncThreads()
		}
		if tid == 0 {
			out.St(th, th.BlockIdx.X, sdata.Ld(th, 0))
		}
	}
	return k
}

func TestBlockReduction(t *testing.T) {
	d := newDevice(t)
	const blocks, threads = 5, 256
	src := make([]int32, blocks*threads)
	for i := range src {
		src[i] = int32(i + 1)
	}
	in := mustUpload(t, d, "in", src)
	out := mustAlloc[int32](t, d, "out", blocks)
	st := launch(t, d, blockSum(in, out), sim.Dim1(blocks), sim.Dim1(threads), 0)
	for b := 0; b < blocks; b++ {
		lo, hi := b*threads+1, (b+1)*threads
		if want := int32((lo + hi) * threads / 2); out.Data[b] != want {
			t.Errorf("block %d: %d, want %d", b, out.Data[b], want)
		}
	}
	// Shared requests per block: 8 warps store the input; at strides
	// 128, 64, 32 the active warps (4, 2, 1) load twice and store once; at
	// strides 16..1 one warp does; finally lane 0 loads sdata[0]. Loads:
	// 2*(4+2+1+5) + 1 = 25. Stores: 8 + (4+2+1+5) = 20.
	if st.SharedLoad.Requests != 25*blocks || st.SharedStore.Requests != 20*blocks {
		t.Errorf("shared requests ld %d st %d, want %d and %d", st.SharedLoad.Requests, st.SharedStore.Requests, 25*blocks, 20*blocks)
	}
	if st.SharedLoad.Conflicts != 0 || st.SharedStore.Conflicts != 0 {
		t.Errorf("sequential addressing has no bank conflicts, got %d/%d", st.SharedLoad.Conflicts, st.SharedStore.Conflicts)
	}
}

// TestSharedAtomics: a block histogram in shared memory.
func TestSharedAtomics(t *testing.T) {
	d := newDevice(t)
	out := mustAlloc[int32](t, d, "out", 3*8)
	fout := mustAlloc[float64](t, d, "fout", 3)
	k := sim.NewKernel("hist", true)
	k.Body = func(th *sim.Thread) {
		bins := sim.SharedArray[int32](th, "bins", 8)
		fsum := sim.SharedArray[float64](th, "fsum", 1)
		tid := th.ThreadIdx.X
		bins.AtomicAdd(th, tid%8, 1)
		fsum.AtomicAdd(th, 0, 0.5)
		th.SyncThreads()
		if tid < 8 {
			out.St(th, th.BlockIdx.X*8+tid, bins.Ld(th, tid))
		}
		if tid == 0 {
			fout.St(th, th.BlockIdx.X, fsum.Ld(th, 0))
		}
	}
	st := launch(t, d, k, sim.Dim1(3), sim.Dim1(128), 0)
	for i, v := range out.Data {
		if v != 16 {
			t.Fatalf("bin %d = %d, want 16", i, v)
		}
	}
	for b, v := range fout.Data {
		if v != 64 {
			t.Errorf("block %d float sum %v, want 64", b, v)
		}
	}
	s, ok := st.Site("bins atom")
	if !ok || s.Space != "shared" || s.Op != "atom" || s.Requests != 3*4 {
		t.Errorf("site bins atom: %+v (found %v), want 12 shared atom requests", s, ok)
	}
}

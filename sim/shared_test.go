package sim_test

import (
	"testing"

	"github.com/warplab/warplab/sim"
)

// TestDynamicShared: extern __shared__ memory is sized by the launch, zeroed
// for every block, and laid out like static arrays (banks by byte offset).
func TestDynamicShared(t *testing.T) {
	d := newDevice(t)
	out := mustAlloc[float32](t, d, "out", 3*64)
	k := sim.NewKernel("dyn", true)
	k.Body = func(th *sim.Thread) {
		buf := sim.DynamicShared[float32](th)
		if buf.Len() != 256 {
			th.Ops(1 << 20) // visible in WarpInstructions
		}
		tid := th.ThreadIdx.X
		// zeroed per block: a leftover from the previous block would show
		out.St(th, th.BlockIdx.X*64+tid, buf.Ld(th, tid)+buf.Ld(th, tid+64))
		th.SyncThreads()
		buf.St(th, tid, float32(th.BlockIdx.X+1))
	}
	st := launch(t, d, k, sim.Dim1(3), sim.Dim1(64), 256*4)
	for i, v := range out.Data {
		if v != 0 {
			t.Fatalf("out[%d] = %v: dynamic shared memory not zeroed per block", i, v)
		}
	}
	if st.WarpInstructions > 1<<20 {
		t.Errorf("DynamicShared length is not sharedBytes/4")
	}
	// 2 loads + 1 store per warp, 2 warps, 3 blocks; all conflict-free.
	if st.SharedLoad != (sim.Banked{Requests: 12, Wavefronts: 12, Ideal: 12}) || st.SharedStore != (sim.Banked{Requests: 6, Wavefronts: 6, Ideal: 6}) {
		t.Errorf("shared %+v / %+v", st.SharedLoad, st.SharedStore)
	}
}

// TestSharedLayout: a second array starts at the next 16-byte boundary, so
// its element 0 need not be in bank 0. Arrays "a" (3 floats, bytes 0-11)
// and "b" (from byte 16, word 4): b[lane*32] lies in bank 4 for every lane,
// a 32-way conflict wherever the array starts; b[lane] is conflict-free.
func TestSharedLayout(t *testing.T) {
	d := newDevice(t)
	k := sim.NewKernel("layout", false)
	s1, s2 := k.Site("b[lane*32]"), k.Site("b[lane]")
	k.Body = func(th *sim.Thread) {
		sim.SharedArray[float32](th, "a", 3)
		b := sim.SharedArray[float32](th, "b", 32*32)
		b.LdAt(th, s1, th.Lane()*32)
		b.LdAt(th, s2, th.Lane())
	}
	st := launch(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
	if s, _ := st.Site("b[lane*32]"); s.Wavefronts != 32 || s.Conflicts != 31 {
		t.Errorf("b[lane*32]: %+v, want 32 wavefronts", s)
	}
	if s, _ := st.Site("b[lane]"); s.Wavefronts != 1 {
		t.Errorf("b[lane]: %+v, want 1 wavefront", s)
	}
	// Redeclaring an array with another type is a fault, not a panic.
	bad := sim.NewKernel("redeclare", false)
	bad.Body = func(th *sim.Thread) {
		sim.SharedArray[float32](th, "a", 4)
		sim.SharedArray[int32](th, "a", 4)
	}
	if f := launchFault(t, d, bad, sim.Dim1(1), sim.Dim1(32), 0); f.Kind != "shared array redeclared" {
		t.Errorf("fault %+v, want shared array redeclared", f)
	}
}

// TestLaunchesIndependent: counters and sites of one launch do not leak
// into the next on the same device.
func TestLaunchesIndependent(t *testing.T) {
	d := newDevice(t)
	buf := mustAlloc[float32](t, d, "buf", 1024)
	k := sim.NewKernel("read", false)
	k.Body = func(th *sim.Thread) { buf.Ld(th, th.BlockIdx.X*th.BlockDim.X+th.ThreadIdx.X) }
	a := launch(t, d, k, sim.Dim1(4), sim.Dim1(256), 0)
	b := launch(t, d, k, sim.Dim1(4), sim.Dim1(256), 0)
	if a.GlobalLoad != b.GlobalLoad || a.GlobalLoad != (sim.Traffic{Requests: 32, Sectors: 128}) || len(b.Sites) != 1 {
		t.Errorf("first %+v, second %+v (%d sites), want 32 requests 128 sectors each", a.GlobalLoad, b.GlobalLoad, len(b.Sites))
	}
	if a.DRAMReadBytes != 4096 || b.DRAMReadBytes != 4096 {
		t.Errorf("DRAM read %d then %d, want 4096 each (footprint is per launch)", a.DRAMReadBytes, b.DRAMReadBytes)
	}
}

package sim_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// TestOutOfBounds: memcheck's job. The fault names kernel, block, thread,
// buffer, index, length and site.
func TestOutOfBounds(t *testing.T) {
	d := newDevice(t)
	in := mustAlloc[float32](t, d, "in", 100)
	out := mustAlloc[float32](t, d, "out", 100)

	ld := sim.NewKernel("copyNoGuard", false)
	site := ld.Site("in[i]")
	ld.Body = func(th *sim.Thread) {
		i := th.BlockIdx.X*th.BlockDim.X + th.ThreadIdx.X
		out.St(th, i, in.LdAt(th, site, i)) // missing if (i < n)
	}
	st := sim.NewKernel("storeNoGuard", false)
	st.Body = func(th *sim.Thread) {
		i := th.BlockIdx.X*th.BlockDim.X + th.ThreadIdx.X
		if i < in.Len() {
			out.St(th, i+3, in.Ld(th, i)) // off by three
		}
	}
	sh := sim.NewKernel("sharedOverrun", true)
	sh.Body = func(th *sim.Thread) {
		tile := sim.SharedArray[float32](th, "tile", 64)
		tile.St(th, th.ThreadIdx.X, 1) // block of 96 threads, tile of 64
		th.SyncThreads()
	}
	shLd := sim.NewKernel("sharedUnderrun", false)
	shSite := shLd.Site("tile[i-1]")
	shLd.Body = func(th *sim.Thread) {
		tile := sim.SharedArray[int32](th, "tile", 32)
		tile.LdAt(th, shSite, th.ThreadIdx.X-1)
	}
	atom := sim.NewKernel("atomicOverrun", false)
	atom.Body = func(th *sim.Thread) {
		out.AtomicAdd(th, 100+th.ThreadIdx.X, 1)
	}

	cases := []struct {
		k             *sim.Kernel
		grid, block   int
		want          sim.Fault
		detailKeyword string
	}{
		{ld, 2, 64, sim.Fault{Kernel: "copyNoGuard", Kind: "out of bounds", Block: sim.Dim3{1, 0, 0}, Thread: sim.Dim3{36, 0, 0},
			Site: "in[i]", Buffer: "in", Index: 100, Len: 100}, "load"},
		{st, 2, 64, sim.Fault{Kernel: "storeNoGuard", Kind: "out of bounds", Block: sim.Dim3{1, 0, 0}, Thread: sim.Dim3{33, 0, 0},
			Site: "out st", Buffer: "out", Index: 100, Len: 100}, "store"},
		{sh, 3, 96, sim.Fault{Kernel: "sharedOverrun", Kind: "out of bounds", Block: sim.Dim3{0, 0, 0}, Thread: sim.Dim3{64, 0, 0},
			Site: "tile st", Buffer: "tile (shared)", Index: 64, Len: 64}, "store"},
		{shLd, 1, 32, sim.Fault{Kernel: "sharedUnderrun", Kind: "out of bounds", Block: sim.Dim3{0, 0, 0}, Thread: sim.Dim3{0, 0, 0},
			Site: "tile[i-1]", Buffer: "tile (shared)", Index: -1, Len: 32}, "load"},
		{atom, 1, 32, sim.Fault{Kernel: "atomicOverrun", Kind: "out of bounds", Block: sim.Dim3{0, 0, 0}, Thread: sim.Dim3{0, 0, 0},
			Site: "out atom", Buffer: "out", Index: 100, Len: 100}, "atomic"},
	}
	for _, c := range cases {
		t.Run(c.k.Name, func(t *testing.T) {
			f := launchFault(t, d, c.k, sim.Dim1(c.grid), sim.Dim1(c.block), 0)
			got := *f
			got.Detail = ""
			if got != c.want {
				t.Errorf("fault\n got %+v\nwant %+v", got, c.want)
			}
			if !strings.Contains(f.Detail, c.detailKeyword) {
				t.Errorf("detail %q does not say %q", f.Detail, c.detailKeyword)
			}
			msg := f.Error()
			for _, s := range []string{c.want.Kernel, c.want.Buffer, c.want.Site, "out of bounds"} {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not name %q", msg, s)
				}
			}
		})
	}
}

// tiledShift is a tiled kernel: each thread stages in[i] in shared memory
// and then reads its right neighbour's element. Without the barrier, thread
// 0 reads tile[1] before thread 1 has written it — racecheck's
// read-before-write hazard.
func tiledShift(in, out *sim.F32, barrier bool) *sim.Kernel {
	k := sim.NewKernel("tiledShift", true)
	k.Body = func(th *sim.Thread) {
		tile := sim.SharedArray[float32](th, "tile", 128)
		tid := th.ThreadIdx.X
		i := th.BlockIdx.X*128 + tid
		tile.St(th, tid, in.Ld(th, i))
		if barrier {
			th.SyncThreads()
		}
		out.St(th, i, tile.Ld(th, (tid+1)%128))
	}
	return k
}

func TestSharedRace(t *testing.T) {
	d := newDevice(t)
	src := make([]float32, 256)
	for i := range src {
		src[i] = float32(i)
	}
	in := mustUpload(t, d, "in", src)
	out := mustAlloc[float32](t, d, "out", 256)

	f := launchFault(t, d, tiledShift(in, out, false), sim.Dim1(2), sim.Dim1(128), 0)
	if f.Kind != "shared race" || f.Block != (sim.Dim3{}) || f.Buffer != "tile (shared)" || f.Index != 1 {
		t.Errorf("fault %+v, want a shared race on tile[1] in block 0", f)
	}
	// Thread 1 writes the word thread 0 read; either may be named, but
	// both must appear in the message.
	if msg := f.Error(); !strings.Contains(msg, "(0,0,0)") || !strings.Contains(msg, "(1,0,0)") {
		t.Errorf("message %q should name threads (0,0,0) and (1,0,0)", msg)
	}
	if f.Len != 128 {
		t.Errorf("fault length %d, want the array's 128 elements", f.Len)
	}

	// With the barrier: no race, and the right answer.
	launch(t, d, tiledShift(in, out, true), sim.Dim1(2), sim.Dim1(128), 0)
	for i := range out.Data {
		if want := float32(i/128*128 + (i%128+1)%128); out.Data[i] != want {
			t.Fatalf("out[%d] = %v, want %v", i, out.Data[i], want)
		}
	}
}

// TestSharedRaceKinds: write-write and write-read hazards across warps, and
// hazards across a barrier that do not exist.
func TestSharedRaceKinds(t *testing.T) {
	d := newDevice(t)
	cases := []struct {
		name string
		race bool
		body func(th *sim.Thread, s *sim.Shared[int32])
	}{
		{"two warps write one word", true, func(th *sim.Thread, s *sim.Shared[int32]) {
			if th.Lane() == 0 {
				s.St(th, 0, int32(th.Warp()))
			}
		}},
		{"one thread writes, another warp reads", true, func(th *sim.Thread, s *sim.Shared[int32]) {
			if th.LinearID() == 0 {
				s.St(th, 7, 1)
			}
			if th.LinearID() == 40 {
				s.Ld(th, 7)
			}
		}},
		{"write, barrier, read", false, func(th *sim.Thread, s *sim.Shared[int32]) {
			if th.LinearID() == 0 {
				s.St(th, 7, 1)
			}
			th.SyncThreads()
			s.Ld(th, 7)
		}},
		{"read, barrier, write", false, func(th *sim.Thread, s *sim.Shared[int32]) {
			s.Ld(th, 7)
			th.SyncThreads()
			if th.LinearID() == 63 {
				s.St(th, 7, 1)
			}
		}},
		{"everyone reads one word", false, func(th *sim.Thread, s *sim.Shared[int32]) {
			s.Ld(th, 3)
		}},
		{"each thread its own word, read and write", false, func(th *sim.Thread, s *sim.Shared[int32]) {
			s.St(th, th.LinearID(), s.Ld(th, th.LinearID())+1)
		}},
		{"atomics do not race", false, func(th *sim.Thread, s *sim.Shared[int32]) {
			s.AtomicAdd(th, 0, 1)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := sim.NewKernel("race", true)
			k.Body = func(th *sim.Thread) { c.body(th, sim.SharedArray[int32](th, "s", 64)) }
			_, err := launchGuarded(t, d, k, sim.Dim1(2), sim.Dim1(64), 0)
			var f *sim.Fault
			switch {
			case c.race && (!errors.As(err, &f) || f.Kind != "shared race"):
				t.Errorf("err = %v, want a shared race", err)
			case !c.race && err != nil:
				t.Errorf("false positive: %v", err)
			}
		})
	}
}

// TestIntraWarpRace: lanes of one warp are not ordered without __syncwarp.
func TestIntraWarpRace(t *testing.T) {
	d := newDevice(t)
	out := mustAlloc[float32](t, d, "out", 32)
	for _, sync := range []bool{false, true} {
		k := sim.NewKernel("warpBroadcast", true)
		k.Body = func(th *sim.Thread) {
			s := sim.SharedArray[float32](th, "s", 32)
			if th.Lane() == 0 {
				s.St(th, 0, 42)
			}
			if sync {
				th.SyncWarp(0xffffffff)
			}
			out.St(th, th.Lane(), s.Ld(th, 0))
		}
		_, err := launchGuarded(t, d, k, sim.Dim1(1), sim.Dim1(32), 0)
		var f *sim.Fault
		if !sync {
			if !errors.As(err, &f) || f.Kind != "shared race" || f.Index != 0 {
				t.Errorf("without __syncwarp: err = %v, want a shared race on s[0]", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("with __syncwarp: %v", err)
		}
		for i, v := range out.Data {
			if v != 42 {
				t.Fatalf("out[%d] = %v, want 42", i, v)
			}
		}
	}
}

func TestDivergentBarrier(t *testing.T) {
	d := newDevice(t)
	k := sim.NewKernel("earlyReturn", true)
	k.Body = func(th *sim.Thread) {
		if th.ThreadIdx.X >= 48 {
			return
		}
		th.SyncThreads()
	}
	f := launchFault(t, d, k, sim.Dim1(4), sim.Dim1(64), 0)
	if f.Kind != "divergent barrier" || f.Kernel != "earlyReturn" || f.Block != (sim.Dim3{}) {
		t.Errorf("fault %+v, want a divergent barrier in block 0", f)
	}
	if !strings.Contains(f.Detail, "(48,0,0)") {
		t.Errorf("detail %q should name an exited thread, (48,0,0)", f.Detail)
	}

	// A barrier inside a branch only some threads take.
	k2 := sim.NewKernel("barrierInBranch", true)
	k2.Body = func(th *sim.Thread) {
		if th.ThreadIdx.X%2 == 0 {
			th.SyncThreads()
		}
	}
	if f := launchFault(t, d, k2, sim.Dim1(1), sim.Dim1(64), 0); f.Kind != "divergent barrier" {
		t.Errorf("fault %+v, want a divergent barrier", f)
	}
}

func TestShuffleFromExitedLane(t *testing.T) {
	d := newDevice(t)
	k := sim.NewKernel("halfWarpShuffle", true)
	k.Body = func(th *sim.Thread) {
		if th.Lane() >= 16 {
			return
		}
		sim.ShflDownSync(th, 0xffffffff, float32(th.Lane()), 1)
	}
	f := launchFault(t, d, k, sim.Dim1(2), sim.Dim1(32), 0)
	if f.Kind != "shuffle from exited lane" || f.Block != (sim.Dim3{}) || f.Kernel != "halfWarpShuffle" {
		t.Errorf("fault %+v, want a shuffle from an exited lane in block 0", f)
	}

	// The same with the right mask is fine.
	ok := sim.NewKernel("halfWarpShuffleMasked", true)
	ok.Body = func(th *sim.Thread) {
		if th.Lane() >= 16 {
			return
		}
		sim.ShflXorSync(th, 0x0000ffff, float32(th.Lane()), 1) // stays inside lanes 0-15
	}
	launch(t, d, ok, sim.Dim1(2), sim.Dim1(32), 0)

	// A full mask in a block whose last warp has 8 lanes names lanes that
	// do not exist.
	part := sim.NewKernel("partialWarpShuffle", true)
	part.Body = func(th *sim.Thread) { sim.ShflSync(th, 0xffffffff, int32(1), 0) }
	if f := launchFault(t, d, part, sim.Dim1(1), sim.Dim1(40), 0); f.Kind != "shuffle from exited lane" {
		t.Errorf("fault %+v, want a shuffle from an exited (absent) lane", f)
	}

	// A mask that leaves out the calling lane.
	bad := sim.NewKernel("badMask", true)
	bad.Body = func(th *sim.Thread) { th.BallotSync(0x1, true) }
	if f := launchFault(t, d, bad, sim.Dim1(1), sim.Dim1(32), 0); f.Kind != "bad warp mask" {
		t.Errorf("fault %+v, want a bad warp mask", f)
	}
}

func TestSyncWithoutSyncKernel(t *testing.T) {
	d := newDevice(t)
	for name, body := range map[string]func(*sim.Thread){
		"SyncThreads": func(th *sim.Thread) { th.SyncThreads() },
		"SyncWarp":    func(th *sim.Thread) { th.SyncWarp(0xffffffff) },
		"ShflSync":    func(th *sim.Thread) { sim.ShflSync(th, 0xffffffff, 1.0, 0) },
		"BallotSync":  func(th *sim.Thread) { th.BallotSync(0xffffffff, true) },
	} {
		k := sim.NewKernel("plain"+name, false)
		k.Body = body
		f := launchFault(t, d, k, sim.Dim1(2), sim.Dim1(64), 0)
		if f.Kind != "synchronisation in a kernel without Sync" || f.Block != (sim.Dim3{}) || f.Thread != (sim.Dim3{}) {
			t.Errorf("%s: fault %+v, want synchronisation without Sync at block 0 thread 0", name, f)
		}
	}
}

func TestPanicBecomesFault(t *testing.T) {
	d := newDevice(t)
	zero := 0
	var nilMap map[int]int
	bodies := map[string]func(*sim.Thread){
		"division by zero": func(th *sim.Thread) {
			if th.ThreadIdx.X == 5 {
				_ = th.ThreadIdx.X / zero
			}
		},
		"nil map": func(th *sim.Thread) {
			if th.ThreadIdx.X == 5 {
				nilMap[1] = 1
			}
		},
		"explicit panic": func(th *sim.Thread) {
			if th.ThreadIdx.X == 5 {
				panic("boom")
			}
		},
		"slice out of range": func(th *sim.Thread) {
			s := sim.SharedArray[float32](th, "s", 4)
			if th.ThreadIdx.X == 5 {
				_ = s.Data[th.ThreadIdx.X] // bypasses Ld: a Go panic, not a sanitizer fault
			}
		},
	}
	for name, body := range bodies {
		for _, sync := range []bool{false, true} {
			k := sim.NewKernel("panicky", sync)
			k.Body = func(th *sim.Thread) {
				if sync && th.ThreadIdx.X < 32 {
					th.SyncWarp(0xffffffff)
				}
				body(th)
			}
			f := launchFault(t, d, k, sim.Dim1(3), sim.Dim1(64), 0)
			if f.Kind != "panic" || f.Block != (sim.Dim3{}) || f.Thread != (sim.Dim3{5, 0, 0}) || f.Kernel != "panicky" {
				t.Errorf("%s (sync %v): fault %+v, want a panic in block 0 thread 5", name, sync, f)
			}
			if f.Detail == "" {
				t.Errorf("%s (sync %v): fault has no detail", name, sync)
			}
		}
	}
	// The device is usable after a fault.
	k := sim.NewKernel("fine", true)
	k.Body = func(th *sim.Thread) { th.SyncThreads() }
	launch(t, d, k, sim.Dim1(2), sim.Dim1(64), 0)
}

func TestConfigErrors(t *testing.T) {
	d := newDevice(t)
	var ran atomic.Bool
	k := sim.NewKernel("config", false)
	k.Body = func(*sim.Thread) { ran.Store(true) }
	shared := d.Model().SharedPerBlock
	cases := []struct {
		name        string
		grid, block sim.Dim3
		shared      int
		mention     string
	}{
		{"1025 threads", sim.Dim1(1), sim.Dim1(1025), 0, "1025"},
		{"32x33 threads", sim.Dim1(1), sim.Dim2(32, 33), 0, "1056"},
		{"zero grid", sim.Dim1(0), sim.Dim1(32), 0, "grid"},
		{"zero block", sim.Dim1(1), sim.Dim2(32, 0), 0, "block"},
		{"negative grid", sim.Dim2(4, -1), sim.Dim1(32), 0, "grid"},
		{"block z 65", sim.Dim1(1), sim.Dim3{1, 1, 65}, 0, "64"},
		{"grid y 65536", sim.Dim2(1, 65536), sim.Dim1(32), 0, "65535"},
		{"too much shared memory", sim.Dim1(1), sim.Dim1(32), shared + 1, "shared"},
		{"negative shared memory", sim.Dim1(1), sim.Dim1(32), -4, "shared"},
	}
	for _, c := range cases {
		_, err := launchGuarded(t, d, k, c.grid, c.block, c.shared)
		var f *sim.Fault
		switch {
		case err == nil:
			t.Errorf("%s: no error", c.name)
		case errors.As(err, &f):
			t.Errorf("%s: got a kernel fault %v, want a configuration error", c.name, err)
		case !strings.Contains(err.Error(), c.mention) || !strings.Contains(err.Error(), "config"):
			t.Errorf("%s: error %q should name the kernel and mention %q", c.name, err, c.mention)
		}
	}
	if ran.Load() {
		t.Error("a kernel ran despite a configuration error")
	}
	if _, err := d.Launch(nil, sim.Dim1(1), sim.Dim1(1), 0); err == nil {
		t.Error("nil kernel: no error")
	}
	if _, err := d.Launch(sim.NewKernel("nobody", false), sim.Dim1(1), sim.Dim1(1), 0); err == nil {
		t.Error("kernel without body: no error")
	}
	// The maximum is allowed.
	launch(t, d, k, sim.Dim1(1), sim.Dim1(1024), shared)

	// Static shared arrays beyond the limit fault when declared.
	big := sim.NewKernel("bigShared", false)
	big.Body = func(th *sim.Thread) { sim.SharedArray[float64](th, "huge", shared/8+1) }
	if f := launchFault(t, d, big, sim.Dim1(1), sim.Dim1(32), 0); f.Kind != "shared memory exhausted" || f.Buffer != "huge" {
		t.Errorf("fault %+v, want shared memory exhausted on huge", f)
	}
}

// TestBufferErrors: bad allocations are errors, not panics.
func TestBufferErrors(t *testing.T) {
	d := newDevice(t)
	if _, err := sim.Alloc[float32](d, "neg", -1); err == nil {
		t.Error("negative length: no error")
	}
	t4 := testenv.Must(sim.ModelByKey("t4"))(t)
	if _, err := sim.Alloc[float64](sim.NewDevice(t4), "huge", 1<<32); err == nil {
		t.Error("larger than device memory (32 GiB on a 16 GiB T4): no error")
	}
	if _, err := sim.Alloc[float32](d, "huge", 1<<34+1); err == nil {
		t.Error("more elements than the simulator allows: no error")
	}
	a := mustAlloc[float32](t, d, "a", 1)
	b := mustAlloc[float32](t, d, "b", 0)
	c := mustAlloc[float32](t, d, "c", 3)
	for _, g := range []*sim.F32{a, b, c} {
		if g.Addr()%256 != 0 {
			t.Errorf("%s at %#x is not 256-byte aligned", g.Name(), g.Addr())
		}
	}
	if a.Addr() == b.Addr() || b.Addr() == c.Addr() {
		t.Errorf("buffers share addresses: %#x %#x %#x", a.Addr(), b.Addr(), c.Addr())
	}
}

// TestFaultDeterminism: with many faulting blocks the reported fault is the
// lowest block's, whatever the core count.
func TestFaultDeterminism(t *testing.T) {
	d := newDevice(t)
	const n = 64 * 256
	buf := mustAlloc[float32](t, d, "buf", n)
	for _, sync := range []bool{false, true} {
		k := sim.NewKernel("faultFrom5", sync)
		k.Body = func(th *sim.Thread) {
			b := th.BlockIdx.X
			// Some work first, so blocks overlap in time.
			var sum float32
			for j := 0; j < 8; j++ {
				sum += buf.Ld(th, (b*256+th.ThreadIdx.X+j*32)%n)
			}
			if sync {
				sum += sim.ShflXorSync(th, 0xffffffff, sum, 1)
				th.SyncThreads()
			}
			if b >= 5 && th.ThreadIdx.X == 200-b {
				buf.Ld(th, n+b) // every block from 5 on faults
			}
		}
		for _, procs := range []int{1, 2, 8} {
			for rep := 0; rep < 3; rep++ {
				var f *sim.Fault
				withProcs(procs, func() { f = launchFault(t, d, k, sim.Dim1(64), sim.Dim1(256), 0) })
				want := sim.Fault{Kernel: "faultFrom5", Kind: "out of bounds", Block: sim.Dim3{5, 0, 0}, Thread: sim.Dim3{195, 0, 0},
					Site: "buf ld", Buffer: "buf", Index: n + 5, Len: n}
				got := *f
				got.Detail = ""
				if got != want {
					t.Errorf("sync %v GOMAXPROCS %d: fault %+v, want %+v", sync, procs, got, want)
				}
			}
		}
	}
}

// TestFaultDeterminismFastPath: two threads of block 1 fault in a Sync
// kernel whose block 0 leaves the shfl_down fast path (it calls
// SyncThreads). Whether block 1 runs on the fast path (lanes descending:
// thread 101 faults first) or on coroutines (thread 100 first) must not
// depend on which worker got there first.
func TestFaultDeterminismFastPath(t *testing.T) {
	d := newDevice(t)
	buf := mustAlloc[float32](t, d, "buf", 1000)
	k := sim.NewKernel("twoFaults", true)
	k.Body = func(th *sim.Thread) {
		var s float32
		for j := 0; j < 200; j++ { // work, so the blocks overlap in time
			s += buf.Ld(th, (j*32+th.ThreadIdx.X)%1000)
		}
		if th.BlockIdx.X == 0 {
			th.SyncThreads()
		}
		s += sim.ShflDownSync(th, 0xffffffff, s, 1)
		if th.BlockIdx.X == 1 && (th.ThreadIdx.X == 100 || th.ThreadIdx.X == 101) {
			buf.Ld(th, 5000+th.ThreadIdx.X)
		}
	}
	seen := map[sim.Dim3]int{}
	for _, procs := range []int{1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 8, 8, 8} {
		withProcs(procs, func() {
			f := launchFault(t, d, k, sim.Dim1(2), sim.Dim1(256), 0)
			if f.Block != (sim.Dim3{1, 0, 0}) || f.Kind != "out of bounds" {
				t.Fatalf("fault %+v, want out of bounds in block 1", f)
			}
			seen[f.Thread]++
		})
	}
	if len(seen) > 1 {
		t.Fatalf("the faulting thread depends on scheduling: %v", seen)
	}
}

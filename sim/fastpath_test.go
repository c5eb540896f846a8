package sim

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/testenv"
)

// warpSumKernel is warp-per-row SpMV's shape: a strided loop over a row,
// then a __shfl_down_sync tree, then lane 0 stores.
func warpSumKernel(in, out *F32, rowLen int, lockstep bool) *Kernel {
	k := NewKernel("warpSum", true)
	k.Lockstep = lockstep
	k.Body = func(t *Thread) {
		g := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		row, lane := g/32, t.Lane()
		if row >= out.Len() {
			return
		}
		var sum float32
		for j := lane; j < rowLen; j += 32 {
			sum += in.Ld(t, row*rowLen+j)
		}
		for off := 16; off > 0; off /= 2 {
			sum += ShflDownSync(t, 0xffffffff, sum, off)
		}
		if lane == 0 {
			out.St(t, row, sum)
		}
	}
	return k
}

func TestFastPathMatchesCoroutines(t *testing.T) {
	const rows, rowLen = 300, 45
	run := func(lockstep bool) (*Stats, []float32) {
		d := NewDevice(Models()[3])
		src := make([]float32, rows*rowLen)
		for i := range src {
			src[i] = float32(i%17) * 0.25
		}
		in := testenv.Must(Upload(d, "in", src))(t)
		out := testenv.Must(Alloc[float32](d, "out", rows))(t)
		st, err := d.Launch(warpSumKernel(in, out, rowLen, lockstep), Dim1((rows*32+127)/128), Dim1(128), 0)
		if err != nil {
			t.Fatal(err)
		}
		return st, out.Data
	}
	fs, fy := run(false)
	cs, cy := run(true)
	if !reflect.DeepEqual(fy, cy) {
		t.Errorf("outputs differ between the fast path and the coroutine path")
	}
	if !reflect.DeepEqual(fs, cs) {
		t.Errorf("stats differ:\nfast %+v\ncoroutine %+v", fs, cs)
	}
	for r := 0; r < rows; r++ {
		var want float32
		for j := 0; j < rowLen; j++ {
			want += float32((r*rowLen+j)%17) * 0.25
		}
		if d := fy[r] - want; d > 1e-3 || d < -1e-3 {
			t.Fatalf("row %d: got %v want %v", r, fy[r], want)
		}
	}
}

func TestFastPathFallsBackForBarriers(t *testing.T) {
	d := NewDevice(Models()[3])
	out := testenv.Must(Alloc[int32](d, "out", 64))(t)
	k := NewKernel("blockSum", true)
	k.Body = func(t *Thread) {
		v := ShflDownSync(t, 0xffffffff, int32(t.Lane()), 1)
		s := SharedArray[int32](t, "s", 64)
		s.St(t, t.LinearID(), v)
		t.SyncThreads()
		out.St(t, t.LinearID(), s.Ld(t, 63-t.LinearID()))
	}
	if _, err := d.Launch(k, Dim1(1), Dim1(64), 0); err != nil {
		t.Fatal(err)
	}
	for i, v := range out.Data {
		l := (63 - i) % 32
		want := int32(l + 1)
		if l == 31 {
			want = 31
		}
		if v != want {
			t.Fatalf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

func TestFastPathExitedLane(t *testing.T) {
	for _, lockstep := range []bool{false, true} {
		d := NewDevice(Models()[3])
		out := testenv.Must(Alloc[float32](d, "out", 32))(t)
		k := NewKernel("early", true)
		k.Lockstep = lockstep
		k.Body = func(t *Thread) {
			if t.Lane() >= 16 {
				return
			}
			v := ShflDownSync(t, 0xffffffff, float32(1), 8)
			out.St(t, t.Lane(), v)
		}
		_, err := d.Launch(k, Dim1(1), Dim1(32), 0)
		var f *Fault
		if !errors.As(err, &f) || f.Kind != "shuffle from exited lane" {
			t.Fatalf("lockstep=%v: got %v, want a shuffle-from-exited-lane fault", lockstep, err)
		}
	}
}

func BenchmarkWarpSumFastPath(b *testing.B) { benchWarpSum(b, false) }
func BenchmarkWarpSumLockstep(b *testing.B) { benchWarpSum(b, true) }

func benchWarpSum(b *testing.B, lockstep bool) {
	const rows, rowLen = 1 << 14, 16
	d := NewDevice(Models()[3])
	in := testenv.Must(Alloc[float32](d, "in", rows*rowLen))(b)
	out := testenv.Must(Alloc[float32](d, "out", rows))(b)
	k := warpSumKernel(in, out, rowLen, lockstep)
	for i := 0; i < b.N; i++ {
		if _, err := d.Launch(k, Dim1(rows*32/256), Dim1(256), 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*32)*float64(b.N)/b.Elapsed().Seconds(), "threads/s")
}

// A store under a condition inside a loop pairs by iteration when the
// lanes that skip it say so (SkipSt), as SIMT lockstep pairs it; without
// the skips it pairs by each lane's own count of stores.
func TestSkipPairsByIteration(t *testing.T) {
	run := func(skip bool) int64 {
		d := NewDevice(Models()[3])
		out := testenv.Must(Alloc[int32](d, "out", 32*4))(t)
		k := NewKernel("condStore", false)
		s := k.Site("out[...]")
		k.Body = func(th *Thread) {
			lane := th.Lane()
			n := 0
			for j := 0; j < 4; j++ {
				// lane L stores in iteration j when (L+j) is even: two
				// stores per lane, at iterations {0,2} or {1,3}.
				if (lane+j)%2 == 0 {
					out.StAt(th, s, lane*4+n, int32(j))
					n++
				} else if skip {
					out.SkipSt(th, s)
				}
			}
		}
		st, err := d.Launch(k, Dim1(1), Dim1(32), 0)
		if err != nil {
			t.Fatal(err)
		}
		return st.GlobalStore.Requests
	}
	if got := run(true); got != 4 {
		t.Errorf("with skips: %d store requests, want 4 (one per iteration)", got)
	}
	if got := run(false); got != 2 {
		t.Errorf("without skips: %d store requests, want 2 (one per store count)", got)
	}
}

// A kernel that never ends returns a fault, through its context or its
// instruction limit, instead of hanging.
func TestRunawayKernels(t *testing.T) {
	spin := func(limit int64) *Kernel {
		d := NewDevice(Models()[3])
		buf := testenv.Must(Alloc[float32](d, "buf", 64))(t)
		k := NewKernel("spin", false)
		k.MaxInstructions = limit
		k.Body = func(th *Thread) {
			for i := 0; ; i++ {
				buf.Ld(th, i%64)
			}
		}
		return k
	}
	d := NewDevice(Models()[3])
	_, err := d.Launch(spin(100_000), Dim1(2), Dim1(32), 0)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != "runaway thread" || f.Block != (Dim3{0, 0, 0}) {
		t.Fatalf("instruction limit: got %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = d.LaunchContext(ctx, spin(0), Dim1(4), Dim1(32), 0)
	if !errors.As(err, &f) || f.Kind != "cancelled" || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v, want a cancelled fault wrapping context.Canceled", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = d.LaunchContext(ctx, spin(0), Dim1(4), Dim1(32), 0)
	if !errors.As(err, &f) || f.Kind != "cancelled" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline: got %v, want a cancelled fault wrapping context.DeadlineExceeded", err)
	}
}

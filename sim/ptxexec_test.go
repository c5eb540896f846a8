package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

var basicPTX = sync.OnceValues(func() (*ptx.Module, error) {
	src, err := os.ReadFile("testdata/ptx/basic.ptx")
	if err != nil {
		return nil, err
	}
	return ptx.Parse("basic.ptx", string(src))
})

// ptxKernel returns kernel name of testdata/ptx/basic.ptx.
func ptxKernel(t testing.TB, name string) *PTXKernel {
	t.Helper()
	m, err := basicPTX()
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewPTXKernel(m, name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// textKernel parses PTX source src (named file in errors) and returns its
// kernel name.
func textKernel(t testing.TB, file, src, name string) *PTXKernel {
	t.Helper()
	m, err := ptx.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewPTXKernel(m, name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newH200(t testing.TB) *Device {
	t.Helper()
	m, err := ModelByKey("h200")
	if err != nil {
		t.Fatal(err)
	}
	return NewDevice(m)
}

func mustUpload[T Elem](t testing.TB, d *Device, name string, v []T) *Global[T] {
	t.Helper()
	g, err := Upload(d, name, v)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func iota32(n int, f func(i int) int32) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

func equal[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s[%d] = %v, want %v (got %v)", what, i, got[i], want[i], got)
		}
	}
}

// siteOf returns the stats of the site whose label contains substr.
func siteOf(t *testing.T, s *Stats, substr string) SiteStats {
	t.Helper()
	for _, x := range s.Sites {
		if strings.Contains(x.Label, substr) {
			return x
		}
	}
	var labels []string
	for _, x := range s.Sites {
		labels = append(labels, x.Label)
	}
	t.Fatalf("no site with %q among %q", substr, labels)
	return SiteStats{}
}

func TestPTXSaxpy(t *testing.T) {
	for _, tc := range []struct {
		n, block, grid   int
		loadReq, loadSec int64
	}{
		{64, 32, 2, 4, 16},  // two coalesced f32 loads per warp: 1 request, 4 sectors each
		{100, 64, 2, 8, 26}, // the last warp has 4 active lanes: 1 sector each load
		{33, 256, 1, 4, 10}, // lane 32 alone in warp 1
		{256, 128, 2, 16, 64},
	} {
		d := newH200(t)
		x := make([]float32, tc.n)
		y := make([]float32, tc.n)
		want := make([]float32, tc.n)
		for i := range x {
			x[i] = float32(i) * 0.5
			y[i] = float32(100 - i)
			want[i] = float32(math.FMA(1.5, float64(x[i]), float64(y[i])))
		}
		gx, gy := mustUpload(t, d, "x", x), mustUpload(t, d, "y", y)
		st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "saxpy"), Dim1(tc.grid), Dim1(tc.block), 0, int32(tc.n), float32(1.5), gx, gy)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "y", gy.Data, want)
		if st.GlobalLoad.Requests != tc.loadReq || st.GlobalLoad.Sectors != tc.loadSec {
			t.Errorf("n=%d: global loads %+v, want %d requests %d sectors", tc.n, st.GlobalLoad, tc.loadReq, tc.loadSec)
		}
		if st.GlobalStore.Requests != tc.loadReq/2 {
			t.Errorf("n=%d: stores %+v, want %d requests", tc.n, st.GlobalStore, tc.loadReq/2)
		}
		ld := siteOf(t, st, "basic.cu:5 ld.global.f32 %f2")
		if ld.LaneSlots != 32*ld.Requests || ld.ActiveLanes != int64(tc.n) {
			t.Errorf("n=%d: x site lane slots %d active %d", tc.n, ld.LaneSlots, ld.ActiveLanes)
		}
		if st.WarpInstructions == 0 {
			t.Errorf("no warp instructions counted")
		}
	}
}

func TestPTXStrided(t *testing.T) {
	for _, tc := range []struct {
		stride        int
		reqs, sectors int64
		l1wf          int64
	}{
		{1, 1, 4, 1},
		{2, 1, 8, 2},
		{8, 1, 32, 8},
		{32, 1, 32, 32},
	} {
		d := newH200(t)
		in := make([]float32, 32*tc.stride)
		for i := range in {
			in[i] = float32(i)
		}
		gin := mustUpload(t, d, "in", in)
		gout := mustUpload(t, d, "out", make([]float32, 32))
		st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "strided"), Dim1(1), Dim1(32), 0, gin, gout, uint32(tc.stride), int32(32))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 32 {
			if gout.Data[i] != float32(i*tc.stride) {
				t.Fatalf("stride %d: out[%d] = %v", tc.stride, i, gout.Data[i])
			}
		}
		if st.GlobalLoad.Requests != tc.reqs || st.GlobalLoad.Sectors != tc.sectors {
			t.Errorf("stride %d: loads %+v, want %d/%d", tc.stride, st.GlobalLoad, tc.reqs, tc.sectors)
		}
		if st.L1Wavefronts != tc.l1wf+1 { // + the store's one
			t.Errorf("stride %d: L1 wavefronts %d, want %d", tc.stride, st.L1Wavefronts, tc.l1wf+1)
		}
	}
}

// TestPTXControlFlow runs the divergence kernels: outputs, and the number of
// requests and active lanes per store site, which the executed control flow
// decides.
func TestPTXControlFlow(t *testing.T) {
	type site struct {
		label      string
		reqs, lane int64
	}
	for _, tc := range []struct {
		kernel string
		block  int
		args   func(d *Device) (out *Global[int32], args []any)
		want   func(i int) int32
		sites  []site
	}{
		{"ifelse", 64, func(d *Device) (*Global[int32], []any) {
			in := mustUpload(t, d, "in", iota32(64, func(i int) int32 { return int32(i * 3) }))
			out := mustUpload(t, d, "out", make([]int32, 64))
			out2 := mustUpload(t, d, "out2", make([]int32, 64))
			return out, []any{in, out, out2}
		}, func(i int) int32 {
			if i%2 == 0 {
				return int32(i * 3 * 2)
			}
			return int32(i*3 + 100)
		}, []site{{"st.global.u32 [%rd5], %r4", 2, 32}, {"st.global.u32 [%rd6], %r1", 2, 64}}},
		{"nested", 64, func(d *Device) (*Global[int32], []any) {
			out := mustUpload(t, d, "out", make([]int32, 64))
			return out, []any{out}
		}, func(i int) int32 {
			switch {
			case i < 8:
				return int32(10 + i)
			case i < 16:
				return int32(20 + i)
			}
			return int32(30 + i)
		}, []site{{"st.global", 2, 64}}},
		{"loopbrk", 64, func(d *Device) (*Global[int32], []any) {
			out := mustUpload(t, d, "out", make([]int32, 64))
			in := mustUpload(t, d, "in", iota32(64, func(i int) int32 { return int32(i) }))
			return out, []any{out, in}
		}, func(i int) int32 {
			s := 0
			for j := 0; j < i; j++ {
				if j%3 == 0 {
					continue
				}
				s += j
			}
			return int32(s)
		}, []site{{"st.global", 2, 64}, {"ld.global", 31 + 63, 31*32/2 + (32*63 - 32*31/2 - 32*32/2 + 32*32/2)}}},
		{"earlyret", 64, func(d *Device) (*Global[int32], []any) {
			out := mustUpload(t, d, "out", iota32(64, func(int) int32 { return -1 }))
			return out, []any{out}
		}, func(i int) int32 {
			if i%4 == 3 {
				return -1
			}
			return int32(i)
		}, []site{{"st.global", 2, 48}}},
		{"switchk", 64, func(d *Device) (*Global[int32], []any) {
			out := mustUpload(t, d, "out", make([]int32, 64))
			return out, []any{out}
		}, func(i int) int32 { return [4]int32{7, 11, 13, 17}[i%4] }, []site{{"st.global", 2, 64}}},
		{"depot", 64, func(d *Device) (*Global[int32], []any) {
			out := mustUpload(t, d, "out", make([]int32, 64))
			return out, []any{out}
		}, func(i int) int32 { return int32(i * (i % 8)) }, []site{{"st.global.u32 [%rd7]", 2, 64}}},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			d := newH200(t)
			out, args := tc.args(d)
			st, err := d.LaunchPTX(context.Background(), ptxKernel(t, tc.kernel), Dim1(1), Dim1(tc.block), 0, args...)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int32, len(out.Data))
			for i := range want {
				want[i] = tc.want(i)
			}
			equal(t, "out", out.Data, want)
			for _, s := range tc.sites {
				got := siteOf(t, st, s.label)
				if got.Requests != s.reqs || got.ActiveLanes != s.lane {
					t.Errorf("site %q: %d requests, %d active lanes; want %d, %d", got.Label, got.Requests, got.ActiveLanes, s.reqs, s.lane)
				}
			}
		})
	}
}

func TestPTXReduceShared(t *testing.T) {
	d := newH200(t)
	const blocks, n = 3, 256
	in := make([]float32, blocks*n)
	for i := range in {
		in[i] = float32(i%7) + 0.25
	}
	gin := mustUpload(t, d, "in", in)
	gout := mustUpload(t, d, "out", make([]float32, blocks))
	st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "reduce"), Dim1(blocks), Dim1(n), 0, gin, gout)
	if err != nil {
		t.Fatal(err)
	}
	for b := range blocks {
		// the tree order, as the kernel adds
		v := append([]float32(nil), in[b*n:(b+1)*n]...)
		for s := n / 2; s > 0; s /= 2 {
			for i := 0; i < s; i++ {
				v[i] += v[i+s]
			}
		}
		if gout.Data[b] != v[0] {
			t.Errorf("block %d: sum %v, want %v", b, gout.Data[b], v[0])
		}
	}
	// Shared stores: the first (8 warps) + one per active warp per level:
	// s = 128..32: 4,2,1 warps; s = 16..1: 1 warp each (5 levels).
	wantStores := int64(blocks * (8 + 4 + 2 + 1 + 5))
	if st.SharedStore.Requests != wantStores || st.SharedStore.Conflicts != 0 {
		t.Errorf("shared stores %+v, want %d requests, no conflicts", st.SharedStore, wantStores)
	}
}

func TestPTXShuffleVote(t *testing.T) {
	d := newH200(t)
	in := iota32(64, func(i int) int32 { return int32(i + 1) })
	gin := mustUpload(t, d, "in", in)
	gsum := mustUpload(t, d, "sum", make([]int32, 2))
	gpred := mustUpload(t, d, "pred", make([]int32, 64))
	if _, err := d.LaunchPTX(context.Background(), ptxKernel(t, "shflsum"), Dim1(1), Dim1(64), 0, gin, gsum, gpred); err != nil {
		t.Fatal(err)
	}
	equal(t, "sum", gsum.Data, []int32{32 * 33 / 2, (33 + 64) * 32 / 2})
	for i, p := range gpred.Data {
		if want := int32(min(i%32, 1)); p != want {
			t.Fatalf("shfl.up predicate of lane %d = %d, want %d", i, p, want)
		}
	}

	vin := iota32(64, func(i int) int32 {
		if i < 32 {
			return int32(i%3 - 1) // mixed
		}
		return 5 // all positive
	})
	gv := mustUpload(t, d, "vin", vin)
	gvo := mustUpload(t, d, "vout", make([]int32, 8))
	if _, err := d.LaunchPTX(context.Background(), ptxKernel(t, "votes"), Dim1(1), Dim1(64), 0, gv, gvo); err != nil {
		t.Fatal(err)
	}
	var ballot uint32
	for i := range 32 {
		if vin[i] > 0 {
			ballot |= 1 << i
		}
	}
	equal(t, "votes", gvo.Data, []int32{int32(ballot), 0, 1, 0, -1, 1, 1, 1})
}

// TestPTXShuffleDownInPlace checks shfl.sync.down over a whole warp in
// place with its predicate output, once with immediate operands (the
// reduction idiom's fast path, markShuffles) and once with the offset in a
// register (the general path): lane l takes lane l+5, the top 5 lanes keep
// their own value with a false predicate.
func TestPTXShuffleDownInPlace(t *testing.T) {
	d := newH200(t)
	out := mustUpload(t, d, "out", make([]int32, 64))
	pred := mustUpload(t, d, "pred", make([]int32, 64))
	k := ptxKernel(t, "shfldown")
	if k.code[indexOfShfl(t, k, 0)].shflK != 5 || k.code[indexOfShfl(t, k, 1)].shflK != -1 {
		t.Fatalf("markShuffles: the immediate shuffle should take the fast path (offset 5) and the register one not")
	}
	if _, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(32), 0, out, pred, int32(0)); err != nil {
		t.Fatal(err)
	}
	for l := range 32 {
		src, p := l+5, int32(1)
		if src > 31 {
			src, p = l, 0
		}
		for pass := range 2 {
			if got := out.Data[32*pass+l]; got != int32(3*src+1) {
				t.Errorf("pass %d lane %d: %d, want %d", pass, l, got, 3*src+1)
			}
			if got := pred.Data[32*pass+l]; got != p {
				t.Errorf("pass %d lane %d: predicate %d, want %d", pass, l, got, p)
			}
		}
	}
}

// indexOfShfl is the code index of k's n-th shfl instruction.
func indexOfShfl(t *testing.T, k *PTXKernel, n int) int {
	t.Helper()
	for i := range k.code {
		if k.code[i].op == ptx.OpShfl {
			if n == 0 {
				return i
			}
			n--
		}
	}
	t.Fatalf("no shfl number %d", n)
	return -1
}

// TestPTXShuffleModes checks shfl.sync's lane arithmetic against CUDA's
// width-8 shuffles (__shfl_xor_sync, __shfl_sync, __shfl_up_sync,
// __shfl_down_sync with width 8).
func TestPTXShuffleModes(t *testing.T) {
	d := newH200(t)
	out := mustUpload(t, d, "out", make([]int32, 4*32))
	if _, err := d.LaunchPTX(context.Background(), ptxKernel(t, "shflmodes"), Dim1(1), Dim1(32), 0, out); err != nil {
		t.Fatal(err)
	}
	for l := range 32 {
		base := l &^ 7
		up, down := l-2, l+3
		if l%8 < 2 {
			up = l
		}
		if l%8+3 >= 8 {
			down = l
		}
		want := []int32{int32(10 * (l ^ 1)), int32(10 * (base + 3)), int32(10 * up), int32(10 * down)}
		equal(t, fmt.Sprintf("lane %d", l), out.Data[4*l:4*l+4], want)
	}
}

func TestPTXAtomics(t *testing.T) {
	d := newH200(t)
	const n = 96
	cnt := mustUpload(t, d, "count", []int32{0, 0, -1, 1000, 0, -7})
	old := mustUpload(t, d, "old", make([]int32, n))
	fsum := mustUpload(t, d, "fsum", []float32{0})
	st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "atomics"), Dim1(1), Dim1(n), 0, cnt, old, fsum)
	if err != nil {
		t.Fatal(err)
	}
	if cnt.Data[0] != n || cnt.Data[1] != n*(n-1)/2 || cnt.Data[2] != n-1 || cnt.Data[3] != -(n-1) || cnt.Data[4] != 1 || cnt.Data[5] != n-1 {
		t.Errorf("counters %v", cnt.Data)
	}
	// Lanes run in order, warps one after another: old values are 0..n-1.
	for i, v := range old.Data {
		if v != int32(i) {
			t.Fatalf("old[%d] = %d", i, v)
		}
	}
	if fsum.Data[0] != float32(n*(n-1)/2) {
		t.Errorf("fsum %v", fsum.Data[0])
	}
	// 5 global atomic instructions (add, max, min, cas, exch) and one red, 3 warps each.
	if st.GlobalAtomic.Requests != 6*3 {
		t.Errorf("global atomics %+v, want 18 requests", st.GlobalAtomic)
	}
}

func TestPTXDynamicSharedAndVectors(t *testing.T) {
	d := newH200(t)
	in := make([]float32, 64)
	for i := range in {
		in[i] = float32(i)
	}
	gin := mustUpload(t, d, "in", in)
	gout := mustUpload(t, d, "out", make([]float32, 64))
	if _, err := d.LaunchPTX(context.Background(), ptxKernel(t, "dynrev"), Dim1(1), Dim1(64), 256, gin, gout); err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		if gout.Data[i] != float32(63-i) {
			t.Fatalf("dynrev out[%d] = %v", i, gout.Data[i])
		}
	}
	// Too little dynamic shared memory: lanes past it fault.
	_, err := d.LaunchPTX(context.Background(), ptxKernel(t, "dynrev"), Dim1(1), Dim1(64), 128, gin, gout)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != "out of bounds" {
		t.Errorf("dynrev with 128 bytes: %v, want an out-of-bounds fault", err)
	}

	vin := make([]float32, 4*64)
	for i := range vin {
		vin[i] = float32(i)
	}
	gvi := mustUpload(t, d, "vin", vin)
	gvo := mustUpload(t, d, "vout", make([]float32, 4*64))
	st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "vec4"), Dim1(1), Dim1(64), 0, gvi, gvo)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vin {
		if gvo.Data[i] != 2*vin[i] {
			t.Fatalf("vec4 out[%d] = %v", i, gvo.Data[i])
		}
	}
	// 16 bytes a lane: a warp's v4 load covers 512 bytes, 16 sectors.
	if st.GlobalLoad.Requests != 2 || st.GlobalLoad.Sectors != 32 {
		t.Errorf("vec4 loads %+v, want 2 requests, 32 sectors", st.GlobalLoad)
	}
}

func TestPTXModuleVariables(t *testing.T) {
	d := newH200(t)
	out := mustUpload(t, d, "out", make([]int32, 33))
	for iter := range 2 { // the __device__ variable keeps its value from launch to launch, as in a CUDA context
		if _, err := d.LaunchPTX(context.Background(), ptxKernel(t, "consts"), Dim1(1), Dim1(32), 0, out); err != nil {
			t.Fatal(err)
		}
		for i := range 32 {
			if want := int32(i%4 + 1 + 4); out.Data[i] != want {
				t.Fatalf("out[%d] = %d, want %d", i, out.Data[i], want)
			}
		}
		if want := int32(15 + 5*iter); out.Data[32] != want {
			t.Errorf("launch %d: device counter read back %d, want %d", iter, out.Data[32], want)
		}
	}
}

func TestPTXBankConflicts(t *testing.T) {
	for _, tc := range []struct {
		stride        uint32
		wf, conflicts int64
	}{{1, 1, 0}, {2, 2, 1}, {32, 32, 31}, {33, 1, 0}} {
		d := newH200(t)
		out := mustUpload(t, d, "out", make([]int32, 32))
		st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "banks"), Dim1(1), Dim1(32), 0, out, tc.stride)
		if err != nil {
			t.Fatal(err)
		}
		if st.SharedLoad.Requests != 1 || st.SharedLoad.Wavefronts != tc.wf || st.SharedLoad.Conflicts != tc.conflicts {
			t.Errorf("stride %d: %+v, want 1 request %d wavefronts %d conflicts", tc.stride, st.SharedLoad, tc.wf, tc.conflicts)
		}
	}
}

func TestPTXFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kernel string
		block  int
		args   func(d *Device) []any
		kind   FaultKind
		substr []string
	}{
		{"oob global", "strided", 32, func(d *Device) []any {
			return []any{mustUpload(t, d, "in", make([]float32, 40)), mustUpload(t, d, "out", make([]float32, 32)), uint32(2), int32(32)}
		}, "out of bounds", []string{"basic.cu:12", "in[40]", "thread (20,0,0)"}},
		{"race", "race", 64, func(d *Device) []any { return []any{mustUpload(t, d, "o", make([]int32, 1))} },
			"shared race", []string{"race_s"}},
		// The writer is one of several readers: the report names another.
		{"write after many reads", "readrace", 64, func(d *Device) []any { return nil },
			"shared race", []string{"thread (0,0,0)", "several threads (e.g. (1,0,0))"}},
		{"divergent barrier", "divbar", 32, func(d *Device) []any { return nil }, "divergent barrier", []string{"basic.cu:50"}},
		{"bad shuffle", "badshfl", 32, func(d *Device) []any { return []any{mustUpload(t, d, "o", make([]int32, 32))} },
			"shuffle from inactive lane", []string{"lane 0 reads lane 16"}},
		{"runaway", "spin", 32, func(d *Device) []any { return nil }, "runaway warp", []string{"MaxInstructions"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newH200(t)
			k := ptxKernel(t, tc.kernel)
			k.MaxInstructions = 1 << 16
			_, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(tc.block), 0, tc.args(d)...)
			var f *Fault
			if !errors.As(err, &f) {
				t.Fatalf("err = %v, want a *Fault", err)
			}
			if f.Kind != tc.kind {
				t.Fatalf("fault kind %q, want %q: %v", f.Kind, tc.kind, f)
			}
			for _, s := range tc.substr {
				if !strings.Contains(f.Error(), s) {
					t.Errorf("fault %q does not mention %q", f.Error(), s)
				}
			}
		})
	}
}

func TestPTXCancel(t *testing.T) {
	d := newH200(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.LaunchPTX(ctx, ptxKernel(t, "spin"), Dim1(4), Dim1(32), 0)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != "cancelled" || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a cancelled fault wrapping context.Canceled", err)
	}
}

func TestPTXArgErrors(t *testing.T) {
	d := newH200(t)
	k := ptxKernel(t, "saxpy")
	x := mustUpload(t, d, "x", make([]float32, 4))
	other := mustUpload(t, newH200(t), "y", make([]float32, 4))
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{int32(4), float32(1), x}, "3 arguments for 4"},
		{[]any{int64(4), float32(1), x, x}, "saxpy_param_0"},
		{[]any{4, float32(1), x, x}, "Go int"},
		{[]any{int32(4), float64(1), x, x}, "saxpy_param_1"},
		{[]any{x, float32(1), x, x}, "saxpy_param_0"},
		{[]any{int32(4), float32(1), x, other}, "not allocated on this device"},
	} {
		_, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(32), 0, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("args %T...: err %v, want it to mention %q", tc.args[0], err, tc.want)
		}
	}
}

// TestPTXDeterminism: outputs and counters do not depend on GOMAXPROCS.
func TestPTXDeterminism(t *testing.T) {
	run := func(procs int) ([]float32, *Stats) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		d := newH200(t)
		const blocks, n = 16, 256
		in := make([]float32, blocks*n)
		for i := range in {
			in[i] = float32(i%13) * 0.1
		}
		gin := mustUpload(t, d, "in", in)
		gout := mustUpload(t, d, "out", make([]float32, blocks))
		st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "reduce"), Dim1(blocks), Dim1(n), 0, gin, gout)
		if err != nil {
			t.Fatal(err)
		}
		return gout.Data, st
	}
	o1, s1 := run(1)
	o4, s4 := run(4)
	equal(t, "out", o4, o1)
	if s1.GlobalLoad != s4.GlobalLoad || s1.SharedStore != s4.SharedStore || s1.WarpInstructions != s4.WarpInstructions ||
		s1.L2Sectors != s4.L2Sectors || s1.DRAMReadBytes != s4.DRAMReadBytes || s1.Time != s4.Time {
		t.Errorf("stats differ: %+v vs %+v", s1, s4)
	}
}

// uniformLoadPTX loads through addresses that are the same in every
// executing lane (a[ctaid], and a[3] under a branch only some lanes take),
// through addresses that differ, and through one the test may make
// misaligned or out of bounds (param 2 is added to the uniform address).
const uniformLoadPTX = `
.version 7.8
.target sm_75
.address_size 64
.visible .entry uload(.param .u64 uload_param_0, .param .u64 uload_param_1, .param .u64 uload_param_2)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [uload_param_0];
	ld.param.u64 %rd2, [uload_param_1];
	ld.param.u64 %rd10, [uload_param_2];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	mul.wide.u32 %rd5, %r2, 4;
	add.s64 %rd6, %rd3, %rd5;
	add.s64 %rd6, %rd6, %rd10;
	ld.global.u32 %r5, [%rd6];
	and.b32 %r6, %r1, 7;
	mul.wide.u32 %rd7, %r6, 4;
	add.s64 %rd8, %rd3, %rd7;
	setp.lt.u32 %p1, %r1, 5;
	@%p1 bra $L_low;
	ld.global.u32 %r7, [%rd8+4];
	bra $L_join;
$L_low:
	ld.global.u32 %r7, [%rd3+12];
$L_join:
	add.s32 %r8, %r5, %r7;
	ld.global.u32 %r9, [%rd3+8];
	add.s32 %r8, %r8, %r9;
	mul.wide.u32 %rd9, %r4, 4;
	add.s64 %rd11, %rd4, %rd9;
	st.global.u32 [%rd11], %r8;
	ret;
}
`

// TestPTXUniformLoadMatchesLanes runs loads whose lanes share one address
// with ldGlobalUniform and with the lane-by-lane path, and checks that
// outputs, counters and faults are the same.
func TestPTXUniformLoadMatchesLanes(t *testing.T) {
	k := textKernel(t, "uload.ptx", uniformLoadPTX, "uload")
	for _, tc := range []struct {
		block, grid int
		extra       uint64 // bytes added to the a[ctaid] address
	}{
		{32, 4, 0}, {64, 3, 0}, {40, 2, 0}, {7, 3, 0},
		{32, 2, 2},       // misaligned: a fault, the same one
		{32, 2, 4 << 10}, // past the end of a
	} {
		err := shortcutsAgree(t, fmt.Sprintf("%+v", tc), func(d *Device) (*Stats, []int32, error) {
			a := mustUpload(t, d, "a", iota32(64, func(i int) int32 { return int32(i*i + 1) }))
			out := mustUpload(t, d, "out", make([]int32, tc.block*tc.grid))
			st, err := d.LaunchPTX(context.Background(), k, Dim1(tc.grid), Dim1(tc.block), 0, a, out, tc.extra)
			return st, out.Data, err
		})
		if (err != nil) != (tc.extra != 0) {
			t.Fatalf("%+v: fault %v", tc, err)
		}
	}
}

// stepLoadPTX loads a[tid*stride + extra/4] (stride and extra are params
// 2 and 3, extra in bytes): with stride 1 the lanes read consecutive words
// (ldGlobalStep), with others not. Lanes with tid%5 == 3 skip the load, so
// a warp's active lanes come in runs.
const stepLoadPTX = `
.version 7.8
.target sm_75
.address_size 64
.visible .entry sload(.param .u64 sload_param_0, .param .u64 sload_param_1, .param .u64 sload_param_2, .param .u64 sload_param_3)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [sload_param_0];
	ld.param.u64 %rd2, [sload_param_1];
	ld.param.u64 %rd3, [sload_param_2];
	ld.param.u64 %rd4, [sload_param_3];
	cvta.to.global.u64 %rd5, %rd1;
	cvta.to.global.u64 %rd6, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	cvt.u64.u32 %rd7, %r4;
	mul.lo.s64 %rd8, %rd7, %rd3;
	shl.b64 %rd9, %rd8, 2;
	add.s64 %rd10, %rd5, %rd9;
	add.s64 %rd10, %rd10, %rd4;
	mov.u32 %r5, 0;
	rem.u32 %r6, %r1, 5;
	setp.eq.u32 %p1, %r6, 3;
	@%p1 bra $L_skip;
	ld.global.u32 %r5, [%rd10];
$L_skip:
	mul.wide.u32 %rd11, %r4, 4;
	add.s64 %rd12, %rd6, %rd11;
	st.global.u32 [%rd12], %r5;
	ret;
}
`

// TestPTXStepLoadMatchesLanes runs loads whose lanes read consecutive words
// (and some that do not) with ldGlobalStep and with the lane-by-lane path:
// outputs, counters and faults must be the same.
func TestPTXStepLoadMatchesLanes(t *testing.T) {
	k := textKernel(t, "sload.ptx", stepLoadPTX, "sload")
	for _, tc := range []struct {
		block, grid int
		stride      uint64
		extra       uint64
		fault       bool
	}{
		{32, 4, 1, 0, false}, {64, 2, 1, 4, false}, {40, 3, 1, 0, false}, {7, 3, 1, 8, false},
		{32, 2, 2, 0, false},            // every other word: not on a line of step 4
		{32, 2, 0, 12, false},           // one word: the uniform path
		{32, 2, ^uint64(0), 508, false}, // descending
		{32, 2, 1, 2, true},             // misaligned
		{32, 4, 1, 600, true},           // the last warp's last lanes past the end of out
		{32, 4, 1, 4 << 10, true},       // past the end of a and out (a[128] would be out[0]: buffers lie back to back)
	} {
		err := shortcutsAgree(t, fmt.Sprintf("%+v", tc), func(d *Device) (*Stats, []int32, error) {
			a := mustUpload(t, d, "a", iota32(128, func(i int) int32 { return int32(i*i + 1) }))
			out := mustUpload(t, d, "out", make([]int32, tc.block*tc.grid))
			st, err := d.LaunchPTX(context.Background(), k, Dim1(tc.grid), Dim1(tc.block), 0, a, out, tc.stride, tc.extra)
			return st, out.Data, err
		})
		if (err != nil) != tc.fault {
			t.Fatalf("%+v: fault %v", tc, err)
		}
	}
}

// shortcutsAgree runs a launch (run gets a fresh H200 device) with the load
// shortcuts (ldGlobalUniform, ldGlobalStep) off and on, checks that faults,
// outputs and every counter are the same, and returns the launch's error.
func shortcutsAgree(t *testing.T, name string, run func(d *Device) (*Stats, []int32, error)) error {
	t.Helper()
	defer func() { ptxLoadShortcuts = true }()
	var outs [2][]int32
	var stats [2]*Stats
	var errs [2]error
	for i, on := range []bool{false, true} {
		ptxLoadShortcuts = on
		stats[i], outs[i], errs[i] = run(newH200(t))
	}
	if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && errs[0].Error() != errs[1].Error() {
		t.Fatalf("%s: lane by lane %v, shortcuts %v", name, errs[0], errs[1])
	}
	if errs[0] != nil {
		return errs[0]
	}
	equal(t, name+" out", outs[1], outs[0])
	if !reflect.DeepEqual(stats[0], stats[1]) {
		t.Errorf("%s: counters differ:\nlane by lane %+v\nshortcuts    %+v", name, stats[0], stats[1])
	}
	return nil
}

// oncePTX computes out[gid] from values that are the launch's, not the
// warp's (markOnce): ntid × k, a predicate and a selp on it, and two such
// values written only inside the two sides of a branch on tid < k. A
// branch back to $L_top that no warp takes splits the run of parameters
// and cvta (markSkips). %r8 has
// several writes and %r5 depends on the thread: neither may run once.
// With bar set, a bar.sync before the store gives each warp its own
// register file (PTXKernel.oneRun false).
const oncePTX = `
.version 7.8
.target sm_75
.address_size 64
.visible .entry once(.param .u64 once_param_0, .param .u32 once_param_1)
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [once_param_0];
	ld.param.u32 %r1, [once_param_1];
$L_top:
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.s32 %r5, %r3, %r4, %r2;
	mul.lo.s32 %r6, %r4, %r1;
	setp.gt.u32 %p1, %r6, 100;
	selp.b32 %r7, 3, 5, %p1;
	mov.u32 %r8, 0;
	setp.eq.u32 %p3, %r1, 12345;
	@%p3 bra $L_top;
	setp.lt.u32 %p2, %r2, %r1;
	@%p2 bra $L_low;
	add.s32 %r9, %r7, 11;
	add.s32 %r8, %r9, %r2;
	bra $L_join;
$L_low:
	xor.b32 %r10, %r6, 85;
	add.s32 %r8, %r10, %r5;
$L_join:
	@%p1 add.s32 %r8, %r8, 1000;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	BAR
	st.global.u32 [%rd4], %r8;
	ret;
}
`

// TestPTXOnceMatchesEveryWarp runs oncePTX with the once instructions run
// once per register file and, with the marks cleared, by every warp:
// outputs and counters must be the same, and the outputs what the kernel
// computes. Blocks of 7 and 40 threads end in a partial warp; k = 32 with
// 64 threads sends warp 0 down one side and warp 1 down the other, so each
// side's once instruction first runs in a different warp.
func TestPTXOnceMatchesEveryWarp(t *testing.T) {
	for _, bar := range []string{"", "bar.sync 0;"} {
		src := strings.Replace(oncePTX, "BAR", bar, 1)
		k := textKernel(t, "once.ptx", src, "once")
		every := textKernel(t, "once.ptx", src, "once")
		var marked []string
		for i := range every.code {
			if every.code[i].once {
				marked = append(marked, instrText(every.code[i].in))
			}
			every.code[i].once = false
		}
		every.markSkips()
		var skips []string
		for i := range k.code {
			if x := &k.code[i]; x.skip > 0 {
				skips = append(skips, fmt.Sprintf("%d:%d", i, x.skip))
			}
		}
		// Runs by their first instruction and length: the parameters,
		// split at $L_top; cvta and the three forwarded movs; the
		// three launch values; each branch's own.
		equal(t, "runs", skips, []string{"0:2", "1:1", "2:4", "3:3", "4:2", "5:1", "7:3", "8:2", "9:1", "11:1", "15:1", "18:1"})
		want := []string{
			"ld.param.u64 %rd1, [once_param_0]", "ld.param.u32 %r1, [once_param_1]",
			"cvta.to.global.u64 %rd2, %rd1", "mul.lo.s32 %r6, %r4, %r1",
			"setp.gt.u32 %p1, %r6, 100", "selp.b32 %r7, 3, 5, %p1", "setp.eq.u32 %p3, %r1, 12345",
			"add.s32 %r9, %r7, 11", "xor.b32 %r10, %r6, 85",
		}
		equal(t, "marked", marked, want)
		for _, tc := range []struct{ block, grid, k int }{
			{32, 3, 3}, {40, 2, 3}, {7, 3, 2}, {64, 2, 32}, {64, 3, 1},
		} {
			var outs [2][]int32
			var stats [2]*Stats
			for i, kern := range []*PTXKernel{every, k} {
				d := newH200(t)
				out := mustUpload(t, d, "out", make([]int32, tc.block*tc.grid))
				st, err := d.LaunchPTX(context.Background(), kern, Dim1(tc.grid), Dim1(tc.block), 0, out, uint32(tc.k))
				if err != nil {
					t.Fatalf("%q %+v: %v", bar, tc, err)
				}
				outs[i], stats[i] = out.Data, st
			}
			name := fmt.Sprintf("%q %+v", bar, tc)
			equal(t, name+" out", outs[1], outs[0])
			if !reflect.DeepEqual(stats[0], stats[1]) {
				t.Errorf("%s: counters differ:\nevery warp %+v\nonce       %+v", name, stats[0], stats[1])
			}
			exp := make([]int32, tc.block*tc.grid)
			for g := range exp {
				tid, n := g%tc.block, uint32(tc.block*tc.k)
				sel := int32(5)
				if n > 100 {
					sel = 3
				}
				v := int32(n^85) + int32(g)
				if tid >= tc.k {
					v = sel + 11 + int32(tid)
				}
				if n > 100 {
					v += 1000
				}
				exp[g] = v
			}
			equal(t, name+" out against Go", outs[1], exp)
		}
	}
}

// TestPTXSkipsMatchPlain runs Day 37's four SpMV kernels, as nvcc wrote
// them, with their once instructions and skipped runs (markOnce,
// markSkips) and with every instruction run one by one on its active lanes
// (marks cleared: dead ones then write registers nothing reads): outputs
// and every counter must be the same, on the even matrix and on the skewed
// one whose rows end a warp's loop with one lane.
func TestPTXSkipsMatchPlain(t *testing.T) {
	m := parsePTXFile(t, "../lessons/spmv/spmv.ptx")
	const rows = 1 << 10
	for _, name := range []string{"spmvCsrThreadPerRow", "spmvCsrThreadPerRow_unroll1", "spmvCsrWarpPerRow", "spmvCsrWarpPerRow_unroll1"} {
		for _, skewed := range []bool{false, true} {
			rp, ci, v := seedCSR(rows, skewed)
			grid := Dim1(rows / 256)
			if strings.Contains(name, "Warp") {
				grid = Dim1(rows * 32 / 256)
			}
			var outs [2][]float32
			var stats [2]*Stats
			for i, plain := range []bool{true, false} {
				k, err := NewPTXKernel(m, name)
				if err != nil {
					t.Fatal(err)
				}
				if plain {
					for j := range k.code {
						k.code[j].once, k.code[j].skip, k.code[j].onceAhead = false, 0, false
					}
				}
				d := newH200(t)
				xs := seedX(rows)
				y := mustUpload(t, d, "y", make([]float32, rows))
				st, err := d.LaunchPTX(context.Background(), k, grid, Dim1(256), 0,
					mustUpload(t, d, "rowPtr", rp), mustUpload(t, d, "colIdx", ci), mustUpload(t, d, "val", v),
					mustUpload(t, d, "x", xs), y, uint64(rows))
				if err != nil {
					t.Fatal(err)
				}
				outs[i], stats[i] = y.Data, st
			}
			what := fmt.Sprintf("%s skewed=%v", name, skewed)
			equal(t, what+" y", outs[1], outs[0])
			if !reflect.DeepEqual(stats[0], stats[1]) {
				t.Errorf("%s: counters differ:\none by one %+v\nskipping   %+v", what, stats[0], stats[1])
			}
		}
	}
}

// seedCSR builds Day 37's seed matrices in CSR at the given rows: 16
// nonzeros a row, or (skewed) in each group of 32 rows 31 of 3 and one of
// 419, the same nonzeros in all. Column j of row r is r+j (kept inside the
// matrix), its value j%7+1.
func seedCSR(rows int, skewed bool) (rowPtr, col []int32, val []float32) {
	rowPtr = make([]int32, rows+1)
	for r := range rows {
		n := 16
		if skewed {
			n = 3
			if r%32 == 31 {
				n = 32*16 - 31*3
			}
		}
		start := min(r, rows-n)
		for j := range n {
			col = append(col, int32(start+j))
			val = append(val, float32(j%7+1))
		}
		rowPtr[r+1] = int32(len(col))
	}
	return rowPtr, col, val
}

// seedX is the vector the SpMV tests and benchmarks multiply: i%13+1.
func seedX(rows int) []float32 {
	x := make([]float32, rows)
	for i := range x {
		x[i] = float32(i%13 + 1)
	}
	return x
}

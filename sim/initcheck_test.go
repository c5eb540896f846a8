package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// halfInitPTX is hand-written PTX without line information: %r2 is written
// only by the threads below 40 and by every thread of block 0, so in block
// 1 threads 40 and up reach its reader with nothing written. Each kernel
// uses the value differently: stored, as an address, as a branch
// condition. bothInit writes %r2 on both paths and so reads nothing
// undefined.
const halfInitPTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry halfStore(
	.param .u64 halfStore_param_0
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [halfStore_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	setp.lt.u32 	%p1, %r1, 40;
	setp.eq.u32 	%p2, %r3, 0;
	or.pred 	%p3, %p1, %p2;
	@!%p3 bra 	$L__skip;
	add.s32 	%r2, %r1, 7;
$L__skip:
	mad.lo.s32 	%r5, %r3, %r4, %r1;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r2;
	ret;
}

.visible .entry halfAddr(
	.param .u64 halfAddr_param_0
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [halfAddr_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	setp.lt.u32 	%p1, %r1, 40;
	setp.eq.u32 	%p2, %r3, 0;
	or.pred 	%p3, %p1, %p2;
	@!%p3 bra 	$L__skip;
	mov.u32 	%r2, %r1;
$L__skip:
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r1;
	ret;
}

.visible .entry halfBranch(
	.param .u64 halfBranch_param_0
)
{
	.reg .pred 	%p<5>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [halfBranch_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	setp.lt.u32 	%p1, %r1, 40;
	setp.eq.u32 	%p2, %r3, 0;
	or.pred 	%p3, %p1, %p2;
	@!%p3 bra 	$L__skip;
	mov.u32 	%r2, %r1;
$L__skip:
	setp.gt.u32 	%p4, %r2, 100;
	@%p4 bra 	$L__done;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r1;
$L__done:
	ret;
}

.visible .entry bothInit(
	.param .u64 bothInit_param_0
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [bothInit_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	setp.lt.u32 	%p1, %r1, 40;
	setp.eq.u32 	%p2, %r3, 0;
	or.pred 	%p3, %p1, %p2;
	@!%p3 bra 	$L__else;
	add.s32 	%r2, %r1, 7;
	bra.uni 	$L__join;
$L__else:
	mov.u32 	%r2, 0;
$L__join:
	mad.lo.s32 	%r5, %r3, %r4, %r1;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r2;
	ret;
}
`

// ptxLineOf is the 1-based line of src of the first line after kernel's
// .entry that contains text (blanks counted as one space).
func ptxLineOf(t *testing.T, src, kernel, text string) int {
	t.Helper()
	lines := strings.Split(src, "\n")
	in := false
	for i, l := range lines {
		if strings.Contains(l, ".entry "+kernel+"(") {
			in = true
		}
		if in && strings.Contains(strings.Join(strings.Fields(l), " "), text) {
			return i + 1
		}
	}
	t.Fatalf("no %q in kernel %s", text, kernel)
	return 0
}

// initcheckKernel decodes kernel name of testdata/ptx/initcheck.ptx (nvcc
// 11.8's PTX of initcheck.cu, with line information) with its CUDA source.
func initcheckKernel(t *testing.T, name string) *PTXKernel {
	t.Helper()
	m := parsePTXFile(t, "testdata/ptx/initcheck.ptx")
	k, err := NewPTXKernel(m, name)
	if err != nil {
		t.Fatal(err)
	}
	cu, err := os.ReadFile("testdata/ptx/initcheck.cu")
	if err != nil {
		t.Fatal(err)
	}
	k.SetSource(string(cu))
	return k
}

// TestInitCheckRegisters: a register read before any write is a fault
// naming the instruction where the undefined value is used (its .cu line
// when the PTX has line information, else the PTX line), the thread and
// the block; kernels whose every used value was written, including ones
// where some path reads a register it never wrote, run as before.
func TestInitCheckRegisters(t *testing.T) {
	hand, err := ptx.Parse("halfinit.ptx", halfInitPTX)
	if err != nil {
		t.Fatal(err)
	}
	handKernel := func(name string) func(t *testing.T) *PTXKernel {
		return func(t *testing.T) *PTXKernel {
			k, err := NewPTXKernel(hand, name)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
	}
	nvccKernel := func(name string) func(t *testing.T) *PTXKernel {
		return func(t *testing.T) *PTXKernel { return initcheckKernel(t, name) }
	}
	handSite := func(kernel, text string) string {
		return fmt.Sprintf("halfinit.ptx:%d %s", ptxLineOf(t, halfInitPTX, kernel, text), text)
	}
	const n = 4096
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%7) - 3
	}
	for _, tc := range []struct {
		name   string
		kernel func(t *testing.T) *PTXKernel
		args   string // "y": the output only; "nxy": n, x, y; "xy": x, y
		block  Dim3
		thread Dim3
		site   []string // in Fault.Site; nil: no fault
		detail []string // in Fault.Detail
		tracks bool     // some path reads a register before writing it
	}{
		{"stored, no line information", handKernel("halfStore"), "y", Dim3{X: 1}, Dim3{X: 40},
			[]string{handSite("halfStore", "st.global.u32 [%rd4], %r2")},
			[]string{"the value stored is %r2, which no instruction has written in this thread"}, true},
		{"as an address", handKernel("halfAddr"), "y", Dim3{X: 1}, Dim3{X: 40},
			[]string{handSite("halfAddr", "st.global.u32 [%rd4], %r1")},
			[]string{"the address is %rd4, computed from %r2", handSite("halfAddr", "mul.wide.u32 %rd3, %r2, 4")}, true},
		{"as a branch condition", handKernel("halfBranch"), "y", Dim3{X: 1}, Dim3{X: 40},
			[]string{handSite("halfBranch", "@%p4 bra $L__done")},
			[]string{"the branch condition is %p4, computed from %r2", handSite("halfBranch", "setp.gt.u32 %p4, %r2, 100")}, true},
		{"written on both paths", handKernel("bothInit"), "y", Dim3{}, Dim3{}, nil, nil, false},
		{"nvcc: one path leaves v unwritten", nvccKernel("pick"), "nxy", Dim3{X: 1}, Dim3{X: 40},
			[]string{"initcheck.cu:12 y[i] = v;", "st.global.f32"},
			[]string{"the value stored is %f19, which no instruction has written in this thread"}, true},
		{"nvcc: a sum never zeroed", nvccKernel("sumNoInit"), "nxy", Dim3{}, Dim3{},
			[]string{"initcheck.cu:19 y[i] = sum;"},
			[]string{"computed from its own first value", "initcheck.cu:18 for (int k = 0; k < n; k++) sum += x[(i * n + k) % 4096];"}, true},
		// Correct kernels for which nvcc's PTX reads registers some lanes
		// never wrote: a comparison with best before the first element
		// (or-ed with !have), an index kept only when found, a shuffle from
		// the one lane that wrote, a ballot of a predicate and-ed with
		// i < n. No value a thread did not write reaches a store, an
		// address or a branch.
		{"nvcc: condMax", nvccKernel("condMax"), "nxy", Dim3{}, Dim3{}, nil, nil, true},
		{"nvcc: findIdx", nvccKernel("findIdx"), "nxy", Dim3{}, Dim3{}, nil, nil, true},
		{"nvcc: bcast", nvccKernel("bcast"), "xy", Dim3{}, Dim3{}, nil, nil, true},
		{"nvcc: ballotPart", nvccKernel("ballotPart"), "nxy", Dim3{}, Dim3{}, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := tc.kernel(t)
			if got := len(k.initRegs) > 0; got != tc.tracks {
				t.Fatalf("tracks registers: %v, want %v (initRegs %v)", got, tc.tracks, k.initRegs)
			}
			d := NewDevice(testModel(t, "t4"))
			x := mustUpload(t, d, "x", xs)
			y := mustUpload(t, d, "y", make([]float32, n))
			var args []any
			switch tc.args {
			case "y":
				args = []any{y}
			case "xy":
				args = []any{x, y}
			default:
				args = []any{int32(16), x, y}
			}
			_, err := d.LaunchPTX(context.Background(), k, Dim1(2), Dim1(128), 0, args...)
			if tc.site == nil {
				if err != nil {
					t.Fatalf("want no fault, got %v", err)
				}
				return
			}
			var f *Fault
			if !errors.As(err, &f) {
				t.Fatalf("want an uninitialized register fault, got %v", err)
			}
			if f.Kind != "uninitialized register" || f.Block != tc.block || f.Thread != tc.thread || f.Kernel != k.Name {
				t.Errorf("fault %s %s block %v thread %v, want uninitialized register in %s block %v thread %v\n%v",
					f.Kernel, f.Kind, f.Block, f.Thread, k.Name, tc.block, tc.thread, f)
			}
			for _, s := range tc.site {
				if !strings.Contains(f.Site, s) {
					t.Errorf("site %q does not name %q", f.Site, s)
				}
			}
			for _, s := range tc.detail {
				if !strings.Contains(f.Detail, s) {
					t.Errorf("detail %q does not say %q", f.Detail, s)
				}
			}
		})
	}
}

// TestInitCheckOutputs: the check changes nothing a correct kernel
// computes: bcast gives every lane lane 0's element, condMax each thread's
// largest element.
func TestInitCheckOutputs(t *testing.T) {
	const n, rows = 16, 256
	xs := make([]float32, 4096)
	for i := range xs {
		xs[i] = float32((i*37)%101) - 50
	}
	d := NewDevice(testModel(t, "t4"))
	x := mustUpload(t, d, "x", xs)
	y := mustUpload(t, d, "y", make([]float32, rows))
	if _, err := d.LaunchPTX(context.Background(), initcheckKernel(t, "bcast"), Dim1(2), Dim1(128), 0, x, y); err != nil {
		t.Fatal(err)
	}
	for i, v := range y.Data {
		if want := xs[i&^31]; v != want {
			t.Fatalf("bcast: y[%d] = %v, want %v", i, v, want)
		}
	}
	if _, err := d.LaunchPTX(context.Background(), initcheckKernel(t, "condMax"), Dim1(2), Dim1(128), 0, int32(n), x, y); err != nil {
		t.Fatal(err)
	}
	for i, v := range y.Data {
		want := xs[(i*n)%4096]
		for k := range n {
			want = max(want, xs[(i*n+k)%4096])
		}
		if v != want {
			t.Fatalf("condMax: y[%d] = %v, want %v", i, v, want)
		}
	}
}

// TestInitCheckShared: a load, or an atomic, of shared memory no thread of
// the block has written is a fault naming the array as the .cu declares
// it, the element, the thread and the block; a block that writes all it
// reads runs; and a read of a word another thread writes later in the
// same barrier interval stays what it is, a shared race.
func TestInitCheckShared(t *testing.T) {
	d := NewDevice(testModel(t, "t4"))
	fx := make([]float32, 256)
	x := mustUpload(t, d, "x", fx)
	y := mustUpload(t, d, "y", make([]float32, 256))
	xi := mustUpload(t, d, "xi", make([]int32, 256))
	out := mustUpload(t, d, "out", make([]int32, 64))
	reverse := func(t *testing.T) *PTXKernel {
		m, err := ptx.Parse("reverse.ptx", reversePTX)
		if err != nil {
			t.Fatal(err)
		}
		k, err := NewPTXKernel(m, "reverse")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, tc := range []struct {
		name   string
		kernel func(t *testing.T) *PTXKernel
		args   []any
		block  int
		want   *Fault // Detail, Site and Kernel left out
		site   string
	}{
		{"histogram never zeroed", func(t *testing.T) *PTXKernel { return initcheckKernel(t, "histNoZero") },
			[]any{int32(256), xi, out}, 128,
			&Fault{Kind: "uninitialized shared memory", Buffer: "h (shared)", Index: 0, Len: 64}, "atom.shared.add.u32"},
		{"halo never loaded", func(t *testing.T) *PTXKernel { return initcheckKernel(t, "haloMissing") },
			[]any{x, y}, 128,
			&Fault{Kind: "uninitialized shared memory", Thread: Dim3{X: 127}, Buffer: "s (shared)", Index: 129, Len: 130},
			"initcheck.cu:36 y[i] = s[t] + s[t + 1] + s[t + 2];"},
		{"halo loaded", func(t *testing.T) *PTXKernel { return initcheckKernel(t, "tiled") }, []any{x, y}, 128, nil, ""},
		{"missing barrier", reverse, []any{x}, 256,
			&Fault{Kind: "shared race", Thread: Dim3{X: 128}, Buffer: "s (shared)", Index: 128, Len: 256}, "st.shared.f32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := tc.kernel(t)
			_, err := d.LaunchPTX(context.Background(), k, Dim1(2), Dim1(tc.block), 0, tc.args...)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("want no fault, got %v", err)
				}
				return
			}
			var f *Fault
			if !errors.As(err, &f) {
				t.Fatalf("want a fault, got %v", err)
			}
			got := *f
			got.Detail, got.Site, got.Kernel = "", "", ""
			if got != *tc.want {
				t.Errorf("fault\n got %+v\nwant %+v\n%v", got, *tc.want, f)
			}
			if !strings.Contains(f.Site, tc.site) {
				t.Errorf("site %q does not name %q", f.Site, tc.site)
			}
			if tc.want.Kind == "uninitialized shared memory" && !strings.Contains(f.Detail, "no thread of this block has written") {
				t.Errorf("detail %q", f.Detail)
			}
		})
	}
}

// TestInitCheckLessonKernels: no kernel of the lessons, the notebooks or
// gpuext's test module has a path that reads a register before writing
// it, so none tracks a register and the register check costs them
// nothing. (Their shared memory is checked whenever they run: the lesson
// packages' tests run them all.)
func TestInitCheckLessonKernels(t *testing.T) {
	var files []string
	for _, pat := range []string{"../lessons/*/*.ptx", "../notebooks/ptxcache/*.ptx", "../gpuext/testdata/kernels.ptx"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found only %v", files)
	}
	kernels := 0
	for _, f := range files {
		m := parsePTXFile(t, f)
		for _, k := range m.Kernels {
			pk, err := NewPTXKernel(m, k.Name)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			kernels++
			if len(pk.initRegs) > 0 {
				t.Errorf("%s %s tracks registers %v", f, k.Name, pk.initRegs)
			}
			for i := range pk.code {
				if pk.code[i].initck {
					t.Errorf("%s %s: instruction %d checked", f, k.Name, i)
				}
			}
		}
	}
	t.Logf("%d kernels in %d files", kernels, len(files))
}

// TestInitCheckNotebookShared: the first notebook's shared-memory kernels
// as the notebook runs them (their PTX from notebooks/ptxcache): both
// transposes read only what the block wrote, and the reverse without
// __syncthreads is still the shared race the notebook shows.
func TestInitCheckNotebookShared(t *testing.T) {
	kernels := map[string]*PTXKernel{}
	files, err := filepath.Glob("../notebooks/ptxcache/*.ptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		m := parsePTXFile(t, f)
		for _, k := range m.Kernels {
			pk, err := NewPTXKernel(m, k.Name)
			if err != nil {
				t.Fatal(err)
			}
			kernels[k.Name] = pk
		}
	}
	const n = 128
	d := NewDevice(testModel(t, "t4"))
	in := mustUpload(t, d, "in", make([]float32, n*n))
	out := mustUpload(t, d, "out", make([]float32, n*n))
	for _, name := range []string{"transpose", "transpose_pad"} {
		k := kernels[name]
		if k == nil {
			t.Fatalf("no kernel %s in %v", name, files)
		}
		if _, err := d.LaunchPTX(context.Background(), k, Dim3{X: n / 32, Y: n / 32, Z: 1}, Dim3{X: 32, Y: 32, Z: 1}, 0, int32(n), in, out); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	k := kernels["reverse"]
	if k == nil {
		t.Fatal("no kernel reverse")
	}
	_, err = d.LaunchPTX(context.Background(), k, Dim1(2), Dim1(256), 0, in)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != "shared race" {
		t.Errorf("reverse: %v, want a shared race", err)
	}
}

package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// reversePTX is nvcc 11.8's PTX (compute_75, -O3) of a block-wide reverse
// that forgets __syncthreads between its shared store and load:
//
//	extern "C" __global__ void reverse(float *x) {
//	    __shared__ float s[256];
//	    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
//	    s[t] = x[i];
//	    x[i] = s[blockDim.x - 1 - t];
//	}
const reversePTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry reverse(
	.param .u64 reverse_param_0
)
{
	.reg .f32 	%f<3>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<5>;
	.shared .align 4 .b8 _ZZ7reverseE1s[1024];

	ld.param.u64 	%rd1, [reverse_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mad.lo.s32 	%r4, %r2, %r3, %r1;
	mul.wide.s32 	%rd3, %r4, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	shl.b32 	%r5, %r1, 2;
	mov.u32 	%r6, _ZZ7reverseE1s;
	add.s32 	%r7, %r6, %r5;
	st.shared.f32 	[%r7], %f1;
	not.b32 	%r8, %r1;
	add.s32 	%r9, %r3, %r8;
	shl.b32 	%r10, %r9, 2;
	add.s32 	%r11, %r6, %r10;
	ld.shared.f32 	%f2, [%r11];
	st.global.f32 	[%rd4], %f2;
	ret;
}
`

// TestPTXRaceNamesTheArray: a shared race in PTX is reported as a student
// reads it: the array by its CUDA name (not _ZZ7reverseE1s), the index and
// length in floats (not bytes of nvcc's .b8 array), and the instruction.
// Warps run in order, so warp 0's lanes read s[255..224] first and thread
// 128, writing s[128], is the first to collide (with thread 127's read).
func TestPTXRaceNamesTheArray(t *testing.T) {
	mod, err := ptx.Parse("reverse.ptx", reversePTX)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewPTXKernel(mod, "reverse")
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(t, "t4")
	d := NewDevice(m)
	x, err := Alloc[float32](d, "x", 512)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.LaunchPTX(context.Background(), k, Dim1(2), Dim1(256), 0, x)
	var f *Fault
	if !errors.As(err, &f) {
		t.Fatalf("want a shared race, got %v", err)
	}
	if f.Kind != "shared race" || f.Buffer != "s (shared)" || f.Index != 128 || f.Len != 256 ||
		f.Thread != (Dim3{X: 128}) || f.Block != (Dim3{}) || !strings.Contains(f.Site, "st.shared.f32") ||
		!strings.Contains(f.Detail, "thread (127,0,0) read this word") {
		t.Errorf("fault %+v\n%v", f, f)
	}
}

func TestSourceName(t *testing.T) {
	for in, want := range map[string]string{
		"_ZZ7reverseE1s":                         "s",
		"_ZZ14tile_transposeILi1EEviPKfPfE4tile": "tile",
		"tile":                                   "tile",
		"_ZZ7reverseE2s":                         "_ZZ7reverseE2s", // length does not match: left alone
	} {
		if got := sourceName(in); got != want {
			t.Errorf("sourceName(%q) = %q, want %q", in, got, want)
		}
	}
}

// boomPTX is nvcc 11.8's PTX of `if (threadIdx.x == lane) __trap();`.
const boomPTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry boom(
	.param .u32 boom_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;

	ld.param.u32 	%r1, [boom_param_0];
	mov.u32 	%r2, %tid.x;
	setp.ne.s32 	%p1, %r2, %r1;
	@%p1 bra 	$L__BB0_2;
	trap;
$L__BB0_2:
	ret;
}
`

// TestPTXTrap: __trap() stops the launch with a "trap" fault naming the
// thread that executed it; a launch where no thread reaches it runs.
func TestPTXTrap(t *testing.T) {
	mod, err := ptx.Parse("boom.ptx", boomPTX)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewPTXKernel(mod, "boom")
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(t, "t4")
	d := NewDevice(m)
	_, err = d.LaunchPTX(context.Background(), k, Dim1(2), Dim1(64), 0, int32(37))
	var f *Fault
	if !errors.As(err, &f) || f.Kind != "trap" || f.Thread != (Dim3{X: 37}) || f.Block != (Dim3{}) || !strings.Contains(f.Site, "trap") {
		t.Fatalf("trap: %v", err)
	}
	if _, err := d.LaunchPTX(context.Background(), k, Dim1(2), Dim1(64), 0, int32(64)); err != nil {
		t.Fatalf("no thread traps: %v", err)
	}
}

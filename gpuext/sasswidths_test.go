package gpuext

import (
	"context"
	"testing"

	"github.com/warplab/warplab/sim"
)

// sassRows is sim's unrolled-rows kernel (timemodel_widths_test.go): 32
// threads store and load the 8 words of their own 128-byte row, which
// ptxas for sm_90 makes 2 STS.128 and 2 LDS.128.
const sassRows = `.version 7.0
.target sm_75
.address_size 64

.file 1 "unroll.cu"

.visible .entry rowSum(
	.param .u64 rowSum_param_0
)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<24>;
	.reg .b64 %rd<4>;
	.shared .align 16 .b8 s[4096];

	.loc 1 4 1
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 7;
	mov.u32 %r3, s;
	add.s32 %r4, %r3, %r2;
	cvt.rn.f32.u32 %f1, %r1;
	.loc 1 6 1
	st.shared.f32 [%r4], %f1;
	st.shared.f32 [%r4+4], %f1;
	st.shared.f32 [%r4+8], %f1;
	st.shared.f32 [%r4+12], %f1;
	st.shared.f32 [%r4+16], %f1;
	st.shared.f32 [%r4+20], %f1;
	st.shared.f32 [%r4+24], %f1;
	st.shared.f32 [%r4+28], %f1;
	.loc 1 7 1
	bar.sync 0;
	.loc 1 8 1
	ld.shared.f32 %f2, [%r4];
	ld.shared.f32 %f3, [%r4+4];
	ld.shared.f32 %f4, [%r4+8];
	ld.shared.f32 %f5, [%r4+12];
	ld.shared.f32 %f6, [%r4+16];
	ld.shared.f32 %f7, [%r4+20];
	ld.shared.f32 %f8, [%r4+24];
	ld.shared.f32 %f9, [%r4+28];
	add.f32 %f10, %f2, %f3;
	add.f32 %f11, %f10, %f4;
	add.f32 %f12, %f11, %f5;
	add.f32 %f13, %f12, %f6;
	add.f32 %f14, %f13, %f7;
	add.f32 %f15, %f14, %f8;
	add.f32 %f16, %f15, %f9;
	.loc 1 9 1
	ld.param.u64 %rd1, [rowSum_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd3, %rd2, %rd3;
	st.global.f32 [%rd3], %f16;
	ret;
}
`

// TestSASSWidthsOption: a simulator opened with Options.SASSWidths times the
// kernel's shared loads as the SASS's 2 LDS.128 (64 wavefronts) where
// ptxas is on the machine, and as the PTX's 8 word loads (256) without the
// option or without ptxas; the output is the same.
func TestSASSWidthsOption(t *testing.T) {
	m := &Module{Name: "rows", PTX: sassRows}
	waves := map[bool]int64{}
	for _, on := range []bool{false, true} {
		d, err := OpenWith("sim:h200", Options{SASSWidths: on})
		if err != nil {
			t.Fatal(err)
		}
		k, err := m.Kernel("rowSum")
		if err != nil {
			t.Fatal(err)
		}
		out, err := Alloc[float32](d, "out", 32)
		if err != nil {
			t.Fatal(err)
		}
		l, err := d.Launch(context.Background(), k, Config{Grid: 1, Block: 32}, out)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, 32)
		if err := out.Download(got); err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != float32(8*i) {
				t.Fatalf("SASSWidths %v: out[%d] = %v, want %d", on, i, v, 8*i)
			}
		}
		waves[on] = l.Stats.SharedLoad.Wavefronts
		d.Close()
	}
	want := int64(256)
	if sim.Ptxas() != "" {
		want = 64
	}
	if waves[false] != 256 || waves[true] != want {
		t.Errorf("shared load wavefronts %d without the option and %d with it, want 256 and %d", waves[false], waves[true], want)
	}
}

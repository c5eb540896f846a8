package sim

import (
	"context"
	"sync"
	"testing"

	"github.com/warplab/warplab/sim/timing"
)

// inflightPTX: two passes (a loop of two trips), in pass p warp w loads
// the word at a + 32·(p + w·stride) bytes, one sector a load, and stores
// it. stride 0: both warps load the same sector in the same pass; stride
// 1: warp 1's first pass loads the sector warp 0's second pass does.
const inflightPTX = `.version 7.8
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p_a, .param .u64 p_y, .param .u32 p_s)
{
	.reg .pred %p<2>;
	.reg .f32 %f<3>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [p_a];
	ld.param.u64 %rd2, [p_y];
	ld.param.u32 %r2, [p_s];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r1, %tid.x;
	shr.u32 %r3, %r1, 5;
	mul.lo.s32 %r4, %r3, %r2;
	mov.u32 %r5, 0;
	mov.f32 %f2, 0f00000000;
$L__loop:
	add.s32 %r6, %r4, %r5;
	mul.wide.s32 %rd5, %r6, 32;
	add.s64 %rd6, %rd3, %rd5;
	ld.global.nc.f32 %f1, [%rd6];
	add.f32 %f2, %f2, %f1;
	add.s32 %r5, %r5, 1;
	setp.lt.s32 %p1, %r5, 2;
	@%p1 bra $L__loop;
	mul.wide.u32 %rd7, %r1, 4;
	add.s64 %rd8, %rd4, %rd7;
	st.global.f32 [%rd8], %f2;
	ret;
}
`

// TestLoadInFlight: the block's warps run abreast on the GPU, so a warp
// that touches a sector another warp brought in at the same line clock
// (the same pass) waits for that fill as for a miss, where the executor,
// which runs the warps one after another, found it resident; a sector a
// warp brought in at another pass is a hit. The L2 traffic is the same
// either way.
func TestLoadInFlight(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stride    uint32
		miss, hit int32
		l2        int64
	}{
		{"the same sectors in the same passes", 0, 4, 0, 2},
		{"a sector another warp loaded a pass earlier", 1, 3, 1, 3},
	} {
		var mu sync.Mutex
		var sum timing.Rounds
		recordHook = func(w *timing.Warp) {
			mu.Lock()
			defer mu.Unlock()
			sum.Hit += w.Rounds.Hit
			sum.Miss += w.Rounds.Miss
		}
		d := newH200(t)
		st, err := d.LaunchPTX(context.Background(), textKernel(t, "inflight.ptx", inflightPTX, "k"), Dim1(1), Dim1(64), 0,
			mustUpload(t, d, "a", make([]float32, 64)), mustUpload(t, d, "y", make([]float32, 64)), tc.stride)
		recordHook = nil
		if err != nil {
			t.Fatal(err)
		}
		if sum.Miss != tc.miss || sum.Hit != tc.hit {
			t.Errorf("%s: rounds %+v, want %d missed and %d hit", tc.name, sum, tc.miss, tc.hit)
		}
		// The loads' sectors, and the stores' 8 (64 words).
		if st.L2Sectors != tc.l2+8 {
			t.Errorf("%s: %d L2 sectors, want %d", tc.name, st.L2Sectors, tc.l2+8)
		}
	}
}

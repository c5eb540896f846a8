package sim

import (
	"context"
	"math"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

const atomicsRecorded = "../evidence/timemodel-micro-atomics-words-h200-2026-12-04/atomics.csv"

// TestAtomicsMicrobenchmark: the H200's constants are the rows' (one word:
// 1/atom_g_same; one line: 32/atom_g_lines m=1; one sector:
// 1/atom_g_words w=8), and the simulator's
// atomics term gives back the microbenchmark's own kernels: every lane of
// 64 warps per SM adding to one word runs at atom_g_same's rate, and
// every warp's lanes on their own word of one line at atom_g_lines m=1's.
func TestAtomicsMicrobenchmark(t *testing.T) {
	m := testModel(t, "h200")
	if math.Abs(m.AtomicWordSeconds*1.36423e9-1) > 1e-6 || math.Abs(m.AtomicLineSeconds*1.25818e10/32-1) > 1e-6 || math.Abs(m.AtomicSectorSeconds*1.69421e9-1) > 1e-6 {
		t.Fatalf("AtomicWordSeconds %g, AtomicLineSeconds %g, AtomicSectorSeconds %g: not the recorded rows'", m.AtomicWordSeconds, m.AtomicLineSeconds, m.AtomicSectorSeconds)
	}
	if len(m.AtomicUnits) < 2 || m.AtomicUnits[0].Units != 1 {
		t.Fatalf("AtomicUnits %v: want the atom_g_lines curve from 1 at one line", m.AtomicUnits)
	}
	const src = `
.version 7.5
.target sm_75
.address_size 64
.visible .entry atom(.param .u64 p, .param .u32 k, .param .u32 lanes)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [k];
	ld.param.u32 %r5, [lanes];
	mov.u32 %r2, %tid.x;
	and.b32 %r3, %r2, 31;
	rem.u32 %r4, %r3, %r1;
	mov.u32 %r6, %ctaid.x;
	mul.lo.u32 %r6, %r6, %r5;
	add.u32 %r4, %r4, %r6;
	mul.wide.u32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	red.global.add.u32 [%rd3], 1;
	red.global.add.u32 [%rd3], 1;
	red.global.add.u32 [%rd3], 1;
	red.global.add.u32 [%rd3], 1;
	ret;
}`
	mod, err := ptx.Parse("atom.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDevice(m)
	p := mustUpload(t, d, "p", make([]uint32, 1<<16))
	k, err := NewPTXKernel(mod, "atom")
	if err != nil {
		t.Fatal(err)
	}
	blocks := m.SMs * 8
	for _, c := range []struct {
		name string
		k    uint32
		rate float64
	}{{"one word", 1, 1.36423e9}, {"one line", 32, 1.25818e10}} {
		st, err := d.LaunchPTX(context.Background(), k, Dim1(blocks), Dim1(256), 0, p, c.k, uint32(0))
		if err != nil {
			t.Fatal(err)
		}
		want := float64(blocks*256*4) / c.rate
		if got := st.Time.Terms.Atomic; math.Abs(got/want-1) > 0.01 || st.Time.Bound != "atomic" {
			t.Errorf("%s: atomic term %.4g s (bound %s), want %.4g s, the microbenchmark's rate", c.name, got, st.Time.Bound, want)
		}
	}
}

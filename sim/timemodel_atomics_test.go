package sim

import (
	"context"
	"fmt"
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

const atomsplitRecorded = "../evidence/timemodel-atomsplit-h200-2026-12-05/atomsplit.csv"

// TestAtomicSplitAndSectors runs atomsplit.cu's patterns on the simulator
// (evidence/timemodel-atomsplit-h200-2026-12-05; 8 blocks of 256 an SM,
// RED.ADD whose result is unused) and holds the atomics term to the
// H200's rates, rows the constants were not taken from:
//   - atom_g_split, m = 1..32: lane l on word l / m of line l mod m, every
//     warp the same m lines: the instruction's m line operations, the
//     lines over AtomicUnits' curve, within 20% (0.93–1.16 of each row);
//   - atom_g_sectors, s = 1, 2, 4: four lanes a warp, words 2s apart on
//     one line (1, 2, 4 sectors of one or two lanes): a sparse sector
//     costs an update (AtomicWordSeconds), within 3%. Priced as
//     AtomicSectorSeconds (a full sector's, atom_g_words w = 8) they were
//     20% fast at 2 and 4 sectors.
func TestAtomicSplitAndSectors(t *testing.T) {
	h200 := microValues(readMicrobench(t, atomsplitRecorded), 1)
	// word(lane) = (lane mod m) × 32 + lane / m for split; lane × 2s for
	// sectors, lanes 4 and up idle (lanes < active).
	const src = `
.version 7.5
.target sm_75
.address_size 64
.visible .entry atom(.param .u64 p, .param .u32 m, .param .u32 stride, .param .u32 active)
{
	.reg .pred %p;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [m];
	ld.param.u32 %r2, [stride];
	ld.param.u32 %r3, [active];
	mov.u32 %r4, %tid.x;
	and.b32 %r5, %r4, 31;
	setp.ge.u32 %p, %r5, %r3;
	@%p bra DONE;
	rem.u32 %r6, %r5, %r1;
	shl.b32 %r6, %r6, 5;
	div.u32 %r7, %r5, %r1;
	mul.lo.u32 %r7, %r7, %r2;
	add.u32 %r8, %r6, %r7;
	mul.wide.u32 %rd2, %r8, 4;
	add.s64 %rd3, %rd1, %rd2;
	red.global.add.u32 [%rd3], 1;
	red.global.add.u32 [%rd3], 1;
	red.global.add.u32 [%rd3], 1;
	red.global.add.u32 [%rd3], 1;
DONE:
	ret;
}`
	mod, err := ptx.Parse("atomsplit.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(t, "h200")
	d := NewDevice(m)
	p := mustUpload(t, d, "p", make([]uint32, 1<<12))
	blocks := m.SMs * 8
	instr := float64(blocks * 8 * 4) // warps × 4 REDs
	type tc struct {
		row                 string
		m, stride, active   uint32
		opsPerInstr, within float64
	}
	var cases []tc
	for _, s := range []uint32{1, 2, 4, 8, 16, 32} {
		cases = append(cases, tc{fmt.Sprintf("atom_g_split m=%d", s), s, 1, 32, float64(s), 0.20})
	}
	for _, s := range []uint32{1, 2, 4} {
		cases = append(cases, tc{fmt.Sprintf("atom_g_sectors s=%d", s), 1, 2 * s, 4, 1, 0.03})
	}
	for _, c := range cases {
		rate, ok := h200[c.row]
		if !ok {
			t.Fatalf("no row %q", c.row)
		}
		k, err := NewPTXKernel(mod, "atom")
		if err != nil {
			t.Fatal(err)
		}
		st, err := d.LaunchPTX(context.Background(), k, Dim1(blocks), Dim1(256), 0, p, c.m, c.stride, c.active)
		if err != nil {
			t.Fatal(err)
		}
		got := instr * c.opsPerInstr / st.Time.Terms.Atomic
		t.Logf("%s: %.3g operations a second modeled, the H200 %.3g (%.2f)", c.row, got, rate, rate/got)
		if math.Abs(rate/got-1) > c.within {
			t.Errorf("%s: %.3g operations a second modeled, the H200 %.3g", c.row, got, rate)
		}
	}
}

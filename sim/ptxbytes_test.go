package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// halvesPTX: each thread stores a 16-bit value at byte 2·(tid >> sh) of a
// shared array (sh 0: its own half, the two halves of a word belonging to
// two threads; sh 1: two threads on one half), reads back the half at
// 2·tid + rd, and writes it out.
const halvesPTX = `.version 7.8
.target sm_75
.address_size 64
.visible .entry halves(.param .u64 out, .param .u32 sh, .param .u32 rd)
{
	.shared .align 4 .b8 h[256];
	.reg .b16 %rs<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [sh];
	ld.param.u32 %r2, [rd];
	mov.u32 %r3, %tid.x;
	shl.b32 %r4, %r3, 1;
	shr.u32 %r5, %r3, %r1;
	shl.b32 %r5, %r5, 1;
	mov.u32 %r6, h;
	add.s32 %r5, %r5, %r6;
	cvt.u16.u32 %rs1, %r3;
	st.shared.u16 [%r5], %rs1;
	add.s32 %r7, %r4, %r2;
	add.s32 %r7, %r7, %r6;
	ld.shared.u16 %rs2, [%r7];
	cvt.u32.u16 %r7, %rs2;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r3, 4;
	add.s64 %rd2, %rd2, %rd3;
	st.global.u32 [%rd2], %r7;
	ret;
}
`

// TestSharedRaceBytes: threads storing the two halves of one word do not
// race (they did, by the word-level rule), a thread reads its own half
// back; two threads storing one half race, and so do a store and another
// thread's read of that half.
func TestSharedRaceBytes(t *testing.T) {
	m, err := ptx.Parse("halves.ptx", halvesPTX)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewPTXKernel(m, "halves")
	if err != nil {
		t.Fatal(err)
	}
	md, _ := ModelByKey("h200")
	for _, c := range []struct {
		sh, rd uint32
		race   string // "" for none
	}{
		{0, 0, ""},
		{1, 0, "wrote this byte too"}, // threads 2k and 2k+1 store one half
		{0, 2, "wrote this byte, which this thread reads"}, // reads the next thread's half
	} {
		d := NewDevice(md)
		out, _ := Alloc[uint32](d, "out", 64)
		_, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(64), 0, out, c.sh, c.rd)
		var f *Fault
		switch {
		case c.race == "" && err != nil:
			t.Errorf("sh %d rd %d: %v", c.sh, c.rd, err)
		case c.race == "":
			for i, v := range out.Data {
				if v != uint32(i) {
					t.Fatalf("sh %d: out[%d] = %d", c.sh, i, v)
				}
			}
		case !errors.As(err, &f) || f.Kind != "shared race" || !strings.Contains(f.Detail, c.race):
			t.Errorf("sh %d rd %d: %v, want a race (%s)", c.sh, c.rd, err, c.race)
		}
	}
}

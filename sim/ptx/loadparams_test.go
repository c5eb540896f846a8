package ptx

import (
	"strings"
	"testing"
)

// loadParamsSrc has a load through cvta and 64-bit adds with a
// loop-carried pointer (parameter 1), one at an offset from a parameter
// (parameter 0) and a predicated copy of it, one whose address mixes two parameters, and one from a
// 32-bit parameter only (no pointer parameter at all).
const loadParamsSrc = `.version 7.8
.target sm_75
.address_size 64

.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1,
	.param .u32 k_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<5>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<10>;
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u64 	%rd2, [k_param_1];
	ld.param.u32 	%r1, [k_param_2];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mul.wide.s32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
$L__BB0_1:
	ld.global.f32 	%f1, [%rd6];
	add.s64 	%rd6, %rd6, %rd5;
	add.s32 	%r1, %r1, -1;
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_1;
	ld.global.f32 	%f2, [%rd3+4];
	@%p1 ld.global.f32 	%f2, [%rd3+4];
	add.s64 	%rd7, %rd3, %rd4;
	ld.global.f32 	%f3, [%rd7];
	@%p1 ld.global.f32 	%f4, [%rd5];
	ret;
}
`

// LoadParams follows each global load's address back to exactly one pointer
// parameter, and gives an error naming the PTX line for an address that
// mixes two parameters or reaches none; LoadForLabel picks the load a site
// label names, the longest text that ends it.
func TestLoadParams(t *testing.T) {
	m, err := Parse("k.ptx", loadParamsSrc)
	if err != nil {
		t.Fatal(err)
	}
	loads, err := m.LoadParams("k")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		label   string
		ok      bool
		line    int32 // the PTX line of the load found
		param   int
		wantErr string // "" for none
	}{
		{"k.cu:3 y = b[i]; [ld.global.f32 %f1, [%rd6]]", true, 23, 1, ""},
		{"k.ptx:28 ld.global.f32 %f2, [%rd3+4]", true, 28, 0, ""},
		// The longest text that ends the label: the predicated load, not
		// the plain one whose text it ends with.
		{"k.ptx:29 @%p1 ld.global.f32 %f2, [%rd3+4]", true, 29, 0, ""},
		{"k.cu:5 z = *(a + b); [ld.global.f32 %f3, [%rd7]]", true, 31, -1, "k.ptx:31 ld.global.f32 %f3, [%rd7]: its address derives from 2 pointer parameters [0 1], not one"},
		{"k.cu:6 w = n[0]; [@%p1 ld.global.f32 %f4, [%rd5]]", true, 32, -1, "k.ptx:32 @%p1 ld.global.f32 %f4, [%rd5]: its address derives from 0 pointer parameters [], not one"},
		{"k.cu:7 w = q[0]; [ld.global.f32 %f9, [%rd9]]", false, 0, -1, ""},
		{"x ld", false, 0, -1, ""},
	} {
		ld, ok := LoadForLabel(loads, c.label)
		var got string
		if ld.Err != nil {
			got = ld.Err.Error()
		}
		if ok != c.ok || ld.Line != c.line || ld.Param != c.param || got != c.wantErr {
			t.Errorf("%s: ok %v, line %d, parameter %d, error %q; want %v, %d, %d, %q", c.label, ok, ld.Line, ld.Param, got, c.ok, c.line, c.param, c.wantErr)
		}
	}
	if len(loads) != 5 {
		t.Errorf("%d global loads, want 5", len(loads))
	}
	if _, err := m.LoadParams("nosuch"); err == nil || !strings.Contains(err.Error(), `no kernel "nosuch"`) {
		t.Errorf("missing kernel: %v", err)
	}
}

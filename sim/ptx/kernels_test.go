package ptx

import (
	"errors"
	"strings"
	"testing"
)

// twoKernels is a module whose first kernel the simulator cannot run (a
// texture fetch, at bad.cu:7) and whose second it can.
const twoKernels = `.version 7.8
.target sm_75
.address_size 64

.visible .entry bad(.param .u64 bad_param_0)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	.loc 1 7 3
	tex.1d.v4.s32.s32 {%r0, %r1, %r2, %r3}, [tex0, {%r1}];
	ret;
}

.visible .entry good(.param .u64 good_param_0)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	.loc 1 12 3
	ld.param.u64 %rd1, [good_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, 5;
	st.global.u32 [%rd2], %r1;
	ret;
}
	.file 1 "/home/student/bad.cu"
`

// TestKernelsLoadOneByOne: a kernel that cannot run refuses itself, with
// its PTX line and .cu line, and not the module (ParseKernels); Parse,
// the strict form, still refuses the module.
func TestKernelsLoadOneByOne(t *testing.T) {
	m, err := ParseKernels("two.ptx", twoKernels)
	if err != nil {
		t.Fatalf("ParseKernels: %v", err)
	}
	bad, err := m.Kernel("bad")
	if err != nil {
		t.Fatal(err)
	}
	if len(bad.Err) == 0 {
		t.Fatal("kernel bad has no error")
	}
	e := bad.Err[0]
	if e.Line != 10 || e.Src != "bad.cu:7" || !strings.Contains(e.Msg, `"tex.1d.v4.s32.s32"`) {
		t.Errorf("bad's error %+v", e)
	}
	if got := e.Error(); !strings.HasPrefix(got, "two.ptx:10 (bad.cu:7): unsupported instruction") {
		t.Errorf("Error() = %q", got)
	}
	good, err := m.Kernel("good")
	if err != nil || good.Err != nil || len(good.Instrs) != 5 {
		t.Fatalf("good: %v %v %d instructions", err, good.Err, len(good.Instrs))
	}
	if _, err := Parse("two.ptx", twoKernels); err == nil || !strings.Contains(err.Error(), "tex.1d") {
		t.Errorf("Parse: %v, want the tex error", err)
	}
}

// TestKernelErrorCapSkipsBody: a kernel with more errors than the cap
// still lets the parser find the next kernel.
func TestKernelErrorCapSkipsBody(t *testing.T) {
	var b strings.Builder
	for range 2 * maxErrors {
		b.WriteString("\tfoo.b32 %r1;\n\t{ .reg .b32 %q; }\n")
	}
	src := strings.Replace(twoKernels, "\ttex.1d.v4.s32.s32 {%r0, %r1, %r2, %r3}, [tex0, {%r1}];\n", b.String(), 1)
	m, err := ParseKernels("cap.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := m.Kernel("bad"); k == nil || len(k.Err) != maxErrors {
		t.Errorf("bad: %v", k)
	}
	if k, _ := m.Kernel("good"); k == nil || k.Err != nil {
		t.Errorf("good: %v", k)
	}
}

// TestVersionAndTarget: PTX ISA versions and targets the parser was not
// written against are refused, naming the ones it reads.
func TestVersionAndTarget(t *testing.T) {
	cases := []struct {
		version, target, want string
	}{
		{"7.8", "sm_75", ""},
		{"8.8", "sm_90a", ""},
		{"9.0", "sm_100f", ""},
		{"6.4", "sm_70, debug", ""},
		{"99.9", "sm_75", "unsupported .version 99.9 (the simulator reads PTX ISA 6.0 to 6.5, 7.0 to 7.8"},
		{"7.9", "sm_75", "unsupported .version 7.9"},
		{"7.x", "sm_75", `bad .version "7.x"`},
		{"7.8", "sm_999", "unsupported .target sm_999 (the simulator reads sm_20 to sm_121"},
		{"7.8", "compute_75", "unsupported .target compute_75"},
		{"7.8", "sm_75, sm_80", "unsupported .target sm_75, sm_80"},
		{"7.8", "debug", "names no architecture"},
	}
	for _, c := range cases {
		src := strings.Replace(strings.Replace(twoKernels, "7.8", c.version, 1), "sm_75", c.target, 1)
		_, err := ParseKernels("v.ptx", src)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s: %v", c.version, c.target, err)
			}
			continue
		}
		var list ErrorList
		if !errors.As(err, &list) || !strings.Contains(err.Error(), c.want) || list[0].Line > 2 {
			t.Errorf("%s %s: %v, want %q at line 1 or 2", c.version, c.target, err, c.want)
		}
	}
}

package lesson_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/cg"
	. "github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/lessons/tiling"
)

const hazardPTX = `
.version 7.8
.target sm_75
.visible .entry plain(.param .u64 p)
{
	add.f32 %f1, %f2, %f3;
	fma.rn.f32 %f1, %f2, %f3, %f4;
	atom.global.add.u32 %r1, [%rd1], 1;
	ret;
}
.visible .entry sums(.param .u64 p)
{
	atom.global.add.f32 %f1, [%rd1], %f2;
	red.shared.add.f64 [%rd1], %fd2;
	rcp.approx.ftz.f64 %fd1, %fd2;
	ex2.approx.f32 %f1, %f2;
	red.global.v2.f32.add [%rd1], {%f1, %f2};
	div.full.f32 %f1, %f2, %f3;
	div.rn.f32 %f1, %f2, %f3;
	ld.global.f32 %f1, [%rd2];
	ret;
}
`

// TestPTXHazards: float atomics and .approx instructions are found per
// kernel; integer atomics and exact float arithmetic are not.
func TestPTXHazards(t *testing.T) {
	if got := PTXHazards(hazardPTX, "plain"); len(got) != 0 {
		t.Errorf("plain: %v, want none", got)
	}
	want := []string{"atom.global.add.f32", "div.full.f32", "ex2.approx.f32", "rcp.approx.ftz.f64", "red.global.v2.f32.add", "red.shared.add.f64"}
	if got := PTXHazards(hazardPTX, "sums"); !slices.Equal(got, want) {
		t.Errorf("sums: %v, want %v", got, want)
	}
	if got := PTXHazards(hazardPTX, ""); !slices.Equal(got, want) {
		t.Errorf("module: %v, want %v", got, want)
	}
	// The selftest_*.go comments say the lessons' kernels have none, which
	// is why they are held to the same bits.
	for _, m := range []*gpuext.Module{spmv.Module(), tiling.Module(), cg.Module()} {
		if got := PTXHazards(m.PTX, ""); len(got) != 0 {
			t.Errorf("%s's embedded PTX has %v: state a tolerance for its kernels in lessons/%s/selftest.go", m.Name, got, m.Name)
		}
	}
}

// TestCompareF32: the same bits pass; a kernel without hazards fails on one
// bit; one with hazards passes within its tolerance and fails without one.
func TestCompareF32(t *testing.T) {
	pc := &PTXRun{Text: hazardPTX}
	a := []float32{1, 2, 3}
	b := []float32{1, 2, 3.0000002}
	for _, c := range []struct {
		kernel string
		x, y   []float32
		tol    float32
		ok     bool
		say    string
	}{
		{"plain", a, a, 0, true, "same bits"},
		{"plain", a, b, 1e-5, false, "must be the same bits"},
		{"sums", a, b, 1e-5, true, "within 1e-05"},
		{"sums", a, b, 0, false, "no tolerance is stated"},
		{"sums", a, []float32{1, 2, 4}, 1e-5, false, "more than 1e-05"},
		{"plain", a, a[:2], 0, false, "3 outputs vs 2"},
	} {
		got := pc.CompareF32(c.kernel, c.x, c.y, c.tol)
		if got.OK != c.ok || !strings.Contains(got.String(), c.say) {
			t.Errorf("CompareF32(%s, %v, %v, %g) = %q; want ok=%v saying %q", c.kernel, c.x, c.y, c.tol, got, c.ok, c.say)
		}
	}
}

// TestOutcome: an outcome's verdict is its OK, never its text.
func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		ok   bool
		text string
	}{
		{OK(), true, "ok"}, {SameBits(), true, "ok (same bits)"}, {NotCompared(), true, "-"},
		{Fail("ok-looking text"), false, "ok-looking text"}, {Pass("within 1e-05"), true, "ok (within 1e-05)"},
	} {
		if c.o.OK != c.ok || c.o.String() != c.text {
			t.Errorf("%+v: OK %v %q; want %v %q", c.o, c.o.OK, c.o.String(), c.ok, c.text)
		}
	}
	if !(Check{Reference: OK(), PTX: Fail("x")}).Failed() || (Check{Reference: OK(), PTX: NotCompared()}).Failed() {
		t.Error("Check.Failed does not follow the outcomes")
	}
	if got := SameBitsF64([]float64{1, 2}, []float64{1, 2.5}); got.OK || !strings.Contains(got.Note, "iteration 2") {
		t.Errorf("SameBitsF64 = %+v", got)
	}
}

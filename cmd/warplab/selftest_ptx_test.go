package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/cg"
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
	if got := ptxHazards(hazardPTX, "plain"); len(got) != 0 {
		t.Errorf("plain: %v, want none", got)
	}
	want := []string{"atom.global.add.f32", "div.full.f32", "ex2.approx.f32", "rcp.approx.ftz.f64", "red.global.v2.f32.add", "red.shared.add.f64"}
	if got := ptxHazards(hazardPTX, "sums"); !slices.Equal(got, want) {
		t.Errorf("sums: %v, want %v", got, want)
	}
	if got := ptxHazards(hazardPTX, ""); !slices.Equal(got, want) {
		t.Errorf("module: %v, want %v", got, want)
	}
	// The selftest_*.go comments say the lessons' kernels have none, which
	// is why they are held to the same bits.
	for _, m := range []*gpuext.Module{spmv.Module(), tiling.Module(), cg.Module()} {
		if got := ptxHazards(m.PTX, ""); len(got) != 0 {
			t.Errorf("%s's embedded PTX has %v: state a tolerance for its kernels in selftest_%s.go", m.Name, got, m.Name)
		}
	}
}

// TestCompareF32: the same bits pass; a kernel without hazards fails on one
// bit; one with hazards passes within its tolerance and fails without one.
func TestCompareF32(t *testing.T) {
	pc := &ptxCheck{text: hazardPTX}
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
		got := pc.compareF32(c.kernel, c.x, c.y, c.tol)
		if agrees(got) != c.ok || !strings.Contains(got, c.say) {
			t.Errorf("compareF32(%s, %v, %v, %g) = %q; want ok=%v saying %q", c.kernel, c.x, c.y, c.tol, got, c.ok, c.say)
		}
	}
}

// TestSelftestPTXColumn runs the CG and spmv self-tests with the PTX column
// on, with no GPU: the "GPU" is a simulator that also runs the PTX, so every
// row must come out the same bits, and the code line names the PTX that ran.
func TestSelftestPTXColumn(t *testing.T) {
	open := func(o gpuext.Options) *gpuext.Device {
		d, err := gpuext.OpenWith("sim", o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	for _, c := range []struct {
		name string
		test selftest
		rows int
	}{
		{"cg", selftestCG, 0},
		{"spmv", selftestSpMV, 2 * len(spmv.KernelNames())}, // both seed matrices
	} {
		devs := selftestDevs{dev: open(gpuext.Options{}), ptx: open(gpuext.Options{})}
		rows, code, err := c.test(context.Background(), devs)
		if err != nil {
			t.Fatal(err)
		}
		if len(code) != 1 || !strings.Contains(code[0], "nvcc 11.8") || !strings.Contains(code[0], "sm_75") {
			t.Errorf("%s: code lines %q; want one naming nvcc 11.8 and sm_75", c.name, code)
		}
		if len(rows) == 0 || (c.rows > 0 && len(rows) != c.rows) {
			t.Fatalf("%s: %d rows, want %d", c.name, len(rows), c.rows)
		}
		for _, r := range rows {
			if r.ptx != "ok (same bits)" || r.reference != "ok" {
				t.Errorf("%s %s: reference %q, PTX %q; want ok and the same bits", c.name, r.kernel, r.reference, r.ptx)
			}
		}
	}
}

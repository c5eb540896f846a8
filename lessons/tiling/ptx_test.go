package tiling

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// runStages runs the matmul, transpose and sparse stages with module m and
// returns the kernel runs.
func runStages(t *testing.T, dev *gpuext.Device, m *gpuext.Module, o Options) []KernelRun {
	t.Helper()
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{ctx: context.Background(), dev: dev, m: m, o: o, res: &Result{}}
	for _, f := range []func() error{r.matmul, r.transposes, r.sparse} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	return r.res.Runs
}

// allKernels is every kernel name the lesson declares.
func allKernels() []string {
	ks := []string{KMatmulNaive, KMatmulTiled, KMatmulTiledNoBounds, KMatmulTiledNoSync1, KMatmulTiledNoSync2,
		KTransposeNaive, KTransposeShared, KTransposeSharedPadded, KDenseRowCount, KDenseToCSR, KSpMVThread, KSpMVWarp, KSpMVWarpShfl}
	for _, c := range Coarsenings() {
		ks = append(ks, CoarseKernel(c))
	}
	return ks
}

// The module is CUDA C and its PTX, nothing else: the PTX's entries are
// exactly the kernels the lesson names, and the simulator says it ran a
// kernel from that PTX (nvcc 11.8, .target sm_75).
func TestModuleIsPTXOnly(t *testing.T) {
	m := Module()
	if len(m.Mirrors) != 0 {
		t.Fatalf("Module has %d Go mirrors; the simulator should run the PTX", len(m.Mirrors))
	}
	var entries []string
	for _, e := range regexp.MustCompile(`\.entry (\w+)\(`).FindAllStringSubmatch(PTX(), -1) {
		entries = append(entries, e[1])
	}
	want := allKernels()
	slices.Sort(entries)
	slices.Sort(want)
	if !slices.Equal(entries, want) {
		t.Errorf("PTX entries %v, lesson kernels %v", entries, want)
	}
	dev := openSim(t)
	_, _, l, err := launchMatmulLaunch(t, dev, KMatmulNaive, 16, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != "ptx" || !strings.Contains(l.PTX, "nvcc 11.8") || !strings.Contains(l.PTX, ".target sm_75") {
		t.Errorf("simulator path %q, PTX %q; want the embedded PTX (nvcc 11.8, .target sm_75)", l.Path, l.PTX)
	}
}

// Every kernel of the main stages, run from tiling.ptx on the simulator at
// two shapes (TILE 16 and 8, COARSE 2 and 4), gives the CPU reference's
// bits: the matmuls and transposes by construction, the SpMV kernels
// because each reference adds in its kernel's order.
func TestStagesFromPTX(t *testing.T) {
	dev := openSim(t)
	for _, o := range []Options{{N: 64, Tile: 16, Coarse: 2}, {N: 96, Tile: 8, Coarse: 4, TransposeTile: 32}} {
		o.NoSweep, o.NoDemos = true, true
		runs := runStages(t, dev, Module(), o)
		if len(runs) != 11 {
			t.Fatalf("N=%d: %d runs, want 11", o.N, len(runs))
		}
		for _, r := range runs {
			if !r.Correct || !r.BitIdentical {
				t.Errorf("N=%d TILE=%d COARSE=%d %s: correct %v, bit-identical %v", o.N, o.Tile, o.Coarse, r.Kernel, r.Correct, r.BitIdentical)
			}
		}
	}
}

// The load attribution (loads.go) follows an address back to exactly one
// pointer parameter, through cvta and 64-bit adds and a loop-carried
// pointer, and refuses an address that mixes two parameters or a kernel
// the PTX lacks, rather than guessing.
func TestLoadAttribution(t *testing.T) {
	const src = `.version 7.8
.target sm_75
.address_size 64

.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1,
	.param .u32 k_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<4>;
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
	add.s64 	%rd7, %rd3, %rd4;
	ld.global.f32 	%f3, [%rd7];
	ret;
}
`
	pl, err := parsePTXLoads(src, "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		label   string
		param   int
		wantErr string
	}{
		{"tiling.cu:3 y = b[i]; [ld.global.f32 %f1, [%rd6]]", 1, ""},
		{"tiling.ptx:29 ld.global.f32 %f2, [%rd3+4]", 0, ""},
		{"tiling.cu:5 z = *(a + b); [ld.global.f32 %f3, [%rd7]]", 0, "2 pointer parameters"},
		{"tiling.cu:6 w = q[0]; [ld.global.f32 %f9, [%rd9]]", 0, "no global load"},
	} {
		p, err := pl.siteParam(sim.SiteStats{Label: c.label, Space: "global", Op: "ld"})
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", c.label, err, c.wantErr)
		case c.wantErr == "" && (err != nil || p != c.param):
			t.Errorf("%s: parameter %d, error %v; want parameter %d", c.label, p, err, c.param)
		}
	}
	if _, err := parsePTXLoads(src, "nosuch"); err == nil || !strings.Contains(err.Error(), `no kernel "nosuch"`) {
		t.Errorf("missing kernel: %v", err)
	}
	if _, err := parsePTXLoads(".version 7.8\n.target sm_75\n.address_size 64\nbogus;\n", "k"); err == nil {
		t.Error("bad PTX: no error")
	}
}

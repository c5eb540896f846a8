package tiling

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
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
	for _, k := range allKernels() {
		if _, err := m.Kernel(k); err != nil {
			t.Error(err)
		}
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
	if l.Path != gpuext.PathPTX || !strings.Contains(l.PTX, "nvcc 11.8") || !strings.Contains(l.PTX, ".target sm_75") {
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

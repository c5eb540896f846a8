package spmv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ncu"
)

// The H200 runs whose ncu counters the simulator must equal: the lesson on
// the seed's matrices (one device call with the seed's own program), and on
// the four SuiteSparse matrices with #pragma unroll 1.
const (
	seedRunDir        = "../../evidence/spmv-seed-2p19-h200-2026-11-29"
	seedPTXRunDir     = "../../evidence/selftest-ptx-h200-2026-11-30"
	suiteSparseRunDir = "../../evidence/spmv-suitesparse-unroll1-h200-2026-11-29"
)

// compareWithNCU runs the lesson on the simulator with opts and checks every
// kernel's global-load requests and sectors against the ncu CSV csvPath, whose
// launches come in the lesson's order (per matrix: probe, thread per row,
// warp per row; each kernel launched many times, every launch counting the
// same).
func compareWithNCU(t *testing.T, csvPath string, opts Options) {
	t.Helper()
	compareWithNCUOn(t, openSim(t), csvPath, opts)
}

// compareWithNCUOn is compareWithNCU on a given simulator Device (one that
// runs the kernels from PTX, say).
func compareWithNCUOn(t *testing.T, dev *gpuext.Device, csvPath string, opts Options) {
	t.Helper()
	launches, err := ncu.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	groups := ncu.Groups(launches)
	res, err := Run(context.Background(), dev, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != len(res.Runs) {
		t.Fatalf("%s: %d kernel runs in the CSV, %d in the lesson", csvPath, len(groups), len(res.Runs))
	}
	for i, run := range res.Runs {
		g := groups[i][0]
		req, _ := g.Metric(ncu.LoadRequests)
		sec, _ := g.Metric(ncu.LoadSectors)
		if run.Requests == nil || run.Sectors == nil {
			t.Fatalf("%s %s: no simulator counters", run.Matrix, run.Kernel)
		}
		if *run.Requests != int64(req) || *run.Sectors != int64(sec) {
			t.Errorf("%s %s (%s): simulator %d requests / %d sectors, ncu on the H200 %d / %d",
				run.Matrix, run.Kernel, g.Kernel, *run.Requests, *run.Sectors, int64(req), int64(sec))
		}
	}
}

// The four SuiteSparse matrices with #pragma unroll 1: the simulator must
// give ncu's numbers exactly (DESIGN.md: the rules hold on real matrices).
func TestSimulatorEqualsNCURealMatrices(t *testing.T) {
	dir := matricesDir()
	if dir == "" {
		t.Skip("shared/matrices not found (set WARPLAB_MATRICES)")
	}
	for _, m := range []string{"bayer10", "bcsstk13", "cryg2500", "rajat01"} {
		t.Run(m, func(t *testing.T) {
			compareWithNCU(t, filepath.Join(suiteSparseRunDir, "ncu-"+m+".csv"), Options{
				Matrix: filepath.Join(dir, m+".mtx"), Unroll: 1, ProbeBlocks: SeedProbeBlocks})
		})
	}
}

// The seed's matrices at the seed's size, as nvcc compiles the kernels and
// with #pragma unroll 1, against ncu on the H200's cubins (2026-11-29).
// Each takes tens of seconds here, and TestFidelityDesignTable already
// checks DESIGN.md's ncu numbers, so these run only with WARPLAB_LONG=1.
func TestSimulatorEqualsNCUSeed(t *testing.T) {
	if os.Getenv("WARPLAB_LONG") == "" {
		t.Skip("set WARPLAB_LONG=1 to compare the seed-size runs with ncu")
	}
	compareWithNCU(t, filepath.Join(seedRunDir, "ncu-unroll4.csv"), Options{Unroll: 4, ProbeBlocks: SeedProbeBlocks})
	compareWithNCU(t, filepath.Join(seedRunDir, "ncu-unroll1.csv"), Options{Unroll: 1, ProbeBlocks: SeedProbeBlocks})
}

// The same seed-size runs (the simulator executing the embedded nvcc-11.8
// PTX, as it always does now) against ncu on that PTX JIT-loaded by the
// H200's driver (WARPLAB_PTX_ONLY=1), and against ncu on the nvcc-13.0
// cubin path of the same call (2026-11-30). WARPLAB_LONG=1 only, as above.
func TestPTXPathEqualsNCUSeed(t *testing.T) {
	if os.Getenv("WARPLAB_LONG") == "" {
		t.Skip("set WARPLAB_LONG=1 to compare the seed-size runs with ncu")
	}
	dev := openSim(t)
	for _, path := range []string{"ptx", "cubin"} {
		for _, u := range []int{4, 1} {
			csv := filepath.Join(seedPTXRunDir, fmt.Sprintf("ncu-%s-unroll%d.csv", path, u))
			compareWithNCUOn(t, dev, csv, Options{Unroll: u, ProbeBlocks: SeedProbeBlocks})
		}
	}
}

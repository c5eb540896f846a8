package tiling

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ncu"
)

// TestSimulatorEqualsNCU holds every lecture-4 kernel's simulator counters
// to Nsight Compute's on the H200 (evidence/tiling-ncu-256-h200-2026-11-29/ncu.csv,
// `warplab run tiling --n 256 --no-demos --no-sweep` under ncu): global load
// and store requests and sectors, shared-memory wavefronts and bank
// conflicts. All are exact but one: spmvCsrThread's row loop, which nvcc
// unrolls while the lanes' trip counts differ, so one load instruction pairs
// different iterations of different lanes (DESIGN.md); its requests are
// held to 10% and its sectors to 1%.
func TestSimulatorEqualsNCU(t *testing.T) {
	launches, err := ncu.ReadFile(filepath.Join("../../evidence/tiling-ncu-256-h200-2026-11-29", "ncu.csv"))
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]ncu.Launch{}
	for _, g := range ncu.Groups(launches) {
		if _, ok := first[g[0].Kernel]; !ok {
			first[g[0].Kernel] = g[0]
		}
	}
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	res, err := Run(context.Background(), dev, Options{N: 256, NoSweep: true, NoDemos: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		l, ok := first[r.Kernel]
		if !ok {
			t.Errorf("%s: not in the ncu run", r.Kernel)
			continue
		}
		m := func(names ...string) int64 {
			var s float64
			for _, n := range names {
				v, _ := l.Metric(n)
				s += v
			}
			return int64(s)
		}
		checks := []struct {
			what      string
			sim, hw   int64
			tolerance float64
		}{
			{"load requests", *r.LoadRequests, m(ncu.LoadRequests), 0},
			{"load sectors", *r.LoadSectors, m(ncu.LoadSectors), 0},
			{"store requests", *r.StoreRequests, m(ncu.StoreRequests), 0},
			{"store sectors", *r.StoreSectors, m(ncu.StoreSectors), 0},
			{"shared wavefronts", *r.SharedWavefronts, m(ncu.SharedLdWaves, ncu.SharedStWaves), 0},
			{"bank conflicts", *r.BankConflicts, m(ncu.SharedLdConfl, ncu.SharedStConfl), 0},
		}
		if r.Kernel == "spmvCsrThread" {
			checks[0].tolerance, checks[1].tolerance = 0.10, 0.01
		}
		for _, c := range checks {
			off := math.Abs(float64(c.sim-c.hw)) / math.Max(1, float64(c.hw))
			if off > c.tolerance {
				t.Errorf("%s %s: simulator %d, ncu %d", r.Kernel, c.what, c.sim, c.hw)
			}
		}
	}
}

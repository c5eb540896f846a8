//go:build cuda

package cg

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/warplab/warplab/gpuext"
)

// TestGPUDeviceLoopVariants takes stage 9's gain apart on a GPU: stages 9
// and 10 with their graphs of 16 iterations, with one graph for the whole
// loop (CheckEvery = max_iter − 1: no reads of the state at all), and with
// the same kernels launched one by one (PlainLaunches), three runs each, at
// WARPLAB_CG_GRID³ (default 100³). The histories of one stage must be
// identical across the variants (the same kernels in the same order). Each
// run is logged as one line; with WARPLAB_CG_OUT set, the results are also
// written there as JSON (variants.json). Only the cuda build has it, and it
// runs only on a GPU host (gorgonia.org/cu's init exits without one):
//
//	CGO_ENABLED=1 go test -tags cuda -c -ldflags='-s -w' -o .cache/device/cg.test ./lessons/cg
//	.cache/device/cg.test -test.run TestGPUDeviceLoopVariants -test.v
func TestGPUDeviceLoopVariants(t *testing.T) {
	grid := 100
	if v := os.Getenv("WARPLAB_CG_GRID"); v != "" {
		g, err := strconv.Atoi(v)
		if err != nil || g < 1 {
			t.Fatalf("WARPLAB_CG_GRID=%q: want a positive integer", v)
		}
		grid = g
	}
	dev, err := gpuext.Open("gpu")
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer dev.Close()
	p, err := Generate(Cube(grid), GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		Variant string       `json:"variant"`
		Result  *StageResult `json:"result"`
	}
	variants := []struct {
		name string
		opt  RunOptions
	}{
		{"graphs of 16", RunOptions{}},
		{"one graph", RunOptions{CheckEvery: DefaultMaxIter - 1}},
		{"plain launches", RunOptions{PlainLaunches: true}},
	}
	var out []run
	for _, s := range []int{9, 10} {
		var hist, x []float64
		for _, v := range variants {
			for rep := 1; rep <= 3; rep++ {
				r, err := RunStage(dev, p, s, v.opt)
				if err != nil {
					t.Fatalf("stage %d, %s: %v", s, v.name, err)
				}
				if x == nil {
					hist, x = r.Residuals, r.X
				} else if !equalBits(r.Residuals, hist) || !equalBits(r.X, x) {
					t.Errorf("stage %d, %s, run %d: the history differs from the first run's", s, v.name, rep)
				}
				a, l := r.Account, r.DeviceLoop
				t.Logf("stage %d %-14s run %d: %.3f ms, kernels %.3f ms, GPU idle %.3f ms; %d iterations, %d launches, %d graph launches, %d state reads; %s",
					s, v.name, rep, 1e3*r.WallSeconds, 1e3*a.KernelSeconds, 1e3*a.IdleSeconds, r.Iterations, r.Launches,
					l.GraphLaunches, l.Checks, r.Device)
				r.X = nil
				out = append(out, run{Variant: fmt.Sprintf("stage %d, %s", s, v.name), Result: r})
			}
		}
	}
	if d := os.Getenv("WARPLAB_CG_OUT"); d != "" {
		b, err := json.MarshalIndent(out, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "variants.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

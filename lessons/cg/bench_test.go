package cg

import (
	"testing"
	"time"
)

func benchProblem(b *testing.B, n int) *Problem {
	b.Helper()
	if n >= 100 && testing.Short() {
		b.Skipf("%d³ skipped with -short", n)
	}
	p, err := Generate(Cube(n), GenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func benchSolve(b *testing.B, n, workers int) {
	p := benchProblem(b, n)
	var r *StageResult
	for b.Loop() {
		var err error
		r, err = SolveCPU(p, SolveOptions{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.TotalMFLOPS, "MFLOPS")
	for _, k := range r.Kernels {
		b.ReportMetric(k.Seconds, k.Name+"-s")
	}
	b.Logf("%v, %s: %d iterations, final residual %.17g, total %.3f s, %.0f MFLOPS",
		p.Grid, r.Name, r.Iterations, r.FinalResidual, r.WallSeconds, r.TotalMFLOPS)
}

// BenchmarkStage0_100 is the article's profile run: HPCCG's 149 iterations
// at 100³ (HPCCG serial C++ in the article: 3.378 s, SpMV 2.819 s).
func BenchmarkStage0_100(b *testing.B) { benchSolve(b, 100, 1) }

// BenchmarkStage0Parallel_100 is the same solve with two goroutines.
func BenchmarkStage0Parallel_100(b *testing.B) { benchSolve(b, 100, 2) }

// BenchmarkStage0_20 is the small grid the simulator stages use.
func BenchmarkStage0_20(b *testing.B) { benchSolve(b, 20, 1) }

func benchSpMV(b *testing.B, n int) {
	p := benchProblem(b, n)
	x := make([]float64, p.A.Rows)
	for i := range x {
		x[i] = 1
	}
	y := make([]float64, p.A.Rows)
	b.SetBytes(int64(12*p.A.NNZ() + 4*(p.A.Rows+1) + 16*p.A.Rows)) // matrix, x once, y
	for b.Loop() {
		spmv(p.A, x, y)
	}
}

// BenchmarkSpMV_100 is one HPC_sparsemv at 100³ (26.5 M nonzeros).
func BenchmarkSpMV_100(b *testing.B) { benchSpMV(b, 100) }

// BenchmarkSpMV_20 is one SpMV at 20³.
func BenchmarkSpMV_20(b *testing.B) { benchSpMV(b, 20) }

// BenchmarkSimStages_16 runs stages 1–8 at 16³ on the simulator (every
// kernel from cg.ptx) and reports its speed as a ratio to the CPU baseline
// in the same run: sim-vs-cpu is the simulator's wall time for all eight
// stages over stage 0's (HPCCG's serial Go solve at 16³). Absolute seconds
// vary by machine and load; the ratio is what to compare across changes.
// Run it with -benchtime 1x: one pass takes tens of seconds.
func BenchmarkSimStages_16(b *testing.B) {
	p := benchProblem(b, 16)
	dev := openSim(b)
	var simSec, cpuSec float64
	for b.Loop() {
		t0 := time.Now()
		if _, err := SolveCPU(p, SolveOptions{}); err != nil {
			b.Fatal(err)
		}
		cpuSec += time.Since(t0).Seconds()
		t1 := time.Now()
		for s := 1; s < Stages; s++ {
			if _, err := RunStage(dev, p, s, RunOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		simSec += time.Since(t1).Seconds()
	}
	b.ReportMetric(simSec/cpuSec, "sim-vs-cpu")
	b.ReportMetric(simSec/float64(b.N), "sim-s/op")
}

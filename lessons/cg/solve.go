package cg

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/warplab/warplab/gpuext"
)

// HPCCG's solver settings: 150 as max_iter and a tolerance of 0, so the loop
// `for k = 1; k < max_iter && normr > tol; k++` always runs 149 iterations.
const (
	DefaultMaxIter   = 150
	DefaultTolerance = 0.0
)

// MaxIterLimit caps MaxIter (and --max-iter). The residual history is kept
// whole (8 bytes an iteration, on the device too in stages 9 and 10), and
// a count of 10^9 would allocate 8 GB before the first iteration; 10^5 is
// 670 times HPCCG's 150.
const MaxIterLimit = 100_000

// SolveOptions configures SolveCPU.
type SolveOptions struct {
	// MaxIter is HPCCG's max_iter; the loop runs at most MaxIter−1
	// iterations. Zero means DefaultMaxIter.
	MaxIter int
	// Tolerance stops the loop once normr ≤ Tolerance. HPCCG uses 0.
	Tolerance float64
	// Workers > 1 runs the parallel CPU version with that many fixed
	// chunks (one goroutine each); 0 or 1 runs HPCCG's serial kernels.
	Workers int
}

// SolveCPU runs stage 0, HPCCG's unpreconditioned CG on the CPU, and reports
// it like HPCCG (iterations, final residual, time and MFLOPS per kernel and
// in total) plus the true residual and the error against the exact solution.
//
// With Workers ≤ 1 every operation is HPCCG's serial one in HPCCG's order, so
// the residual history is HPCCG's bit for bit. The problem is not modified.
func SolveCPU(p *Problem, opt SolveOptions) (*StageResult, error) {
	return SolveCPUContext(context.Background(), p, opt)
}

// SolveCPUContext is SolveCPU that stops before the next iteration once ctx
// is done (at the article's 100³ an iteration is about 0.1 s on one core)
// and returns ctx's error.
func SolveCPUContext(ctx context.Context, p *Problem, opt SolveOptions) (*StageResult, error) {
	if err := checkProblem(p); err != nil {
		return nil, err
	}
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = DefaultMaxIter
	}
	switch {
	case maxIter < 0:
		return nil, fmt.Errorf("cg: MaxIter %d is negative", opt.MaxIter)
	case maxIter > MaxIterLimit:
		return nil, fmt.Errorf("cg: MaxIter %d: want at most %d (MaxIterLimit)", opt.MaxIter, MaxIterLimit)
	case math.IsNaN(opt.Tolerance) || opt.Tolerance < 0:
		return nil, fmt.Errorf("cg: Tolerance %v must be a number ≥ 0", opt.Tolerance)
	case opt.Workers < 0:
		return nil, fmt.Errorf("cg: Workers %d is negative", opt.Workers)
	}
	var ks kernels = serialKernels{}
	res := &StageResult{Name: "cpu-serial", Device: fmt.Sprintf("Go %s/%s, 1 goroutine", runtime.GOOS, runtime.GOARCH)}
	if opt.Workers > 1 {
		c := min(opt.Workers, p.A.Rows)
		ks = parallelKernels{chunks: c}
		res.Name = "cpu-parallel"
		res.Workers = c
		res.Device = fmt.Sprintf("Go %s/%s, %d goroutines over %d CPUs", runtime.GOOS, runtime.GOARCH, c, runtime.NumCPU())
	}
	res.Stage = 0
	res.Backend = "cpu"
	res.Grid = p.Grid.Dims()
	res.Rows = p.A.Rows
	res.NNZ = p.A.NNZ()
	res.TimeKind = gpuext.Measured
	if err := runCG(ctx, p, ks, maxIter, opt.Tolerance, res); err != nil {
		return nil, err
	}
	return res, nil
}

func checkProblem(p *Problem) error {
	switch {
	case p == nil || p.A == nil:
		return fmt.Errorf("cg: nil problem")
	case p.A.Rows <= 0 || len(p.A.RowPtr) != p.A.Rows+1 || len(p.B) != p.A.Rows:
		return fmt.Errorf("cg: malformed problem: %d rows, %d row pointers, %d entries in b", p.A.Rows, len(p.A.RowPtr), len(p.B))
	case len(p.A.ColIdx) != len(p.A.Val) || int(p.A.RowPtr[p.A.Rows]) != len(p.A.Val):
		return fmt.Errorf("cg: malformed CSR: %d columns, %d values, last row pointer %d", len(p.A.ColIdx), len(p.A.Val), p.A.RowPtr[p.A.Rows])
	}
	return nil
}

// timer accumulates one kernel's host time and calls, HPCCG's TICK/TOCK.
type timer struct {
	d     time.Duration
	calls int
}

func (t *timer) since(t0 time.Time) { t.d += time.Since(t0); t.calls++ }

// runCG is HPCCG's HPCCG() on the CPU, line by line, with its timers. It
// fills res's numeric and timing fields, or returns ctx's error when ctx is
// done before an iteration.
func runCG(ctx context.Context, p *Problem, ks kernels, maxIter int, tol float64, res *StageResult) error {
	a, b := p.A, p.B
	n := a.Rows
	x := make([]float64, n) // x0 = 0
	r := make([]float64, n)
	pv := make([]float64, n)
	ap := make([]float64, n)
	var tSpMV, tWaxpby, tDdot timer

	start := time.Now()
	t0 := time.Now()
	ks.waxpby(1.0, x, 0.0, x, pv) // p = x
	tWaxpby.since(t0)
	t0 = time.Now()
	ks.spmv(a, pv, ap) // Ap = A·p
	tSpMV.since(t0)
	t0 = time.Now()
	ks.waxpby(1.0, b, -1.0, ap, r) // r = b − Ap
	tWaxpby.since(t0)
	t0 = time.Now()
	rtrans := ks.dot(r, r)
	tDdot.since(t0)
	normr := math.Sqrt(rtrans)
	res.InitialResidual = normr
	res.Residuals = make([]float64, 0, max(maxIter-1, 0))

	iters := 0
	for k := 1; k < maxIter && normr > tol; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if k == 1 {
			t0 = time.Now()
			ks.waxpby(1.0, r, 0.0, r, pv) // p = r
			tWaxpby.since(t0)
		} else {
			oldrtrans := rtrans
			t0 = time.Now()
			rtrans = ks.dot(r, r)
			tDdot.since(t0)
			beta := rtrans / oldrtrans
			t0 = time.Now()
			ks.waxpby(1.0, r, beta, pv, pv) // p = r + beta·p
			tWaxpby.since(t0)
		}
		normr = math.Sqrt(rtrans)
		res.Residuals = append(res.Residuals, normr)

		t0 = time.Now()
		ks.spmv(a, pv, ap) // Ap = A·p
		tSpMV.since(t0)
		t0 = time.Now()
		pAp := ks.dot(pv, ap)
		tDdot.since(t0)
		// alpha = rtrans / (p·Ap), except when p·Ap is 0: then r, and so p,
		// is exactly zero (tiny grids solve exactly) or has underflowed,
		// HPCCG computes 0/0 and its x becomes NaN. Here alpha is 0 instead,
		// the two updates leave x and r as they are, and the loop ends on
		// normr = 0. This is the one departure from HPCCG; it changes no
		// bit of any run where HPCCG's x stays finite, and cgDivide in
		// cg.cu does the same on the GPU.
		alpha := 0.0
		if pAp != 0 {
			alpha = rtrans / pAp
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("breakdown at iteration %d: p·Ap = 0 with residual %g; alpha set to 0 where HPCCG computes rtrans/0", k, normr))
		}
		t0 = time.Now()
		ks.waxpby(1.0, x, alpha, pv, x)  // x = x + alpha·p
		ks.waxpby(1.0, r, -alpha, ap, r) // r = r − alpha·Ap
		tWaxpby.d += time.Since(t0)
		tWaxpby.calls += 2
		iters = k
	}
	wall := time.Since(start)

	res.Iterations = iters
	res.FinalResidual = normr
	res.WallSeconds = wall.Seconds()
	fs, fw, fd := HPCCGFlops(n, iters)
	res.Kernels = []KernelStat{
		kernelStat(KernelSpMV, tSpMV, fs),
		kernelStat(KernelWaxpby, tWaxpby, fw),
		kernelStat(KernelDdot, tDdot, fd),
	}
	res.TotalFlops = fs + fw + fd
	res.TotalMFLOPS = mflops(res.TotalFlops, res.WallSeconds)
	res.TrueResidual, res.MaxErr = checkSolution(p, x)
	res.X = x
	return nil
}

func kernelStat(name string, t timer, flops float64) KernelStat {
	s := t.d.Seconds()
	return KernelStat{
		Name: name, Seconds: s, Calls: t.calls, Flops: flops, MFLOPS: mflops(flops, s),
		Timer: TimerHost, TimeKind: gpuext.Measured, HostSeconds: s,
	}
}

// checkSolution returns ‖b − A·x‖ (computed serially, whatever produced x)
// and max |x_i − 1|.
func checkSolution(p *Problem, x []float64) (trueResidual, maxErr float64) {
	ax := make([]float64, p.A.Rows)
	spmv(p.A, x, ax)
	waxpby(1.0, p.B, -1.0, ax, ax)
	for _, xi := range x {
		maxErr = max(maxErr, math.Abs(xi-1))
	}
	return math.Sqrt(ddot(ax, ax)), maxErr
}

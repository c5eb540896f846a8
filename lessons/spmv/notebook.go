package spmv

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/cusrc"
	"github.com/warplab/warplab/internal/ncu"
	"github.com/warplab/warplab/sparse/spmvref"
	"github.com/warplab/warplab/table"
)

// The notebook's sizes. NotebookRows is what the notebook simulates for its
// first tables: an eighth of the seed's rows, so that the cells answer in
// seconds on a laptop. SeedRows is the Day-37 seed's size, at which the GPU
// runs and Nsight Compute measured.
const (
	NotebookRows = 1 << 16
	SeedRows     = defaultRows
)

// SuiteSparseNames are the four SuiteSparse matrices whose Nsight Compute
// counters are recorded (NCUSuiteSparse), in the order the notebook shows
// them (spmvref.SuiteSparseNames).
var SuiteSparseNames = spmvref.SuiteSparseNames

// KernelLabel names a run's kernel ("thread_per_row") as the tables print it
// ("thread per row").
func KernelLabel(kernel string) string { return kernelLabel(kernel) }

// KernelSource returns the CUDA C definition of one function of spmv.cu
// (spmvCsrThreadPerRow, spmvCsrWarpPerRow, probeNonzeroStream, ...), cut
// from the embedded source that the GPU runs, so the notebook shows the
// kernel it launches and not a copy that could drift from it.
func KernelSource(name string) (string, error) { return cusrc.Func(cudaSource, name) }

// NCUCount is Nsight Compute's count of one kernel's global loads on one
// matrix (l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_ld.sum, per
// launch), recorded on an H200.
type NCUCount struct {
	Matrix, Kernel    string // as in KernelRun: "even", ThreadPerRowRun
	Requests, Sectors int64
}

// SectorsPerRequest is Sectors / Requests.
func (c NCUCount) SectorsPerRequest() float64 { return float64(c.Sectors) / float64(c.Requests) }

// NCUSource labels every number NCUSeed and NCUSuiteSparse return: where
// and when it was measured.
const NCUSource = "ncu, NVIDIA H200, driver 580.159.04, 2026-11-29, recorded"

// recordedNCU names the embedded copies of the ncu CSVs (generated from
// evidence/ by internal/evidence.Copies).
const (
	ncuSeedFile        = "spmv-seed-2p19-h200-2026-11-29-ncu-unroll4.csv"
	ncuSuiteSparseFile = "spmv-suitesparse-unroll1-h200-2026-11-29-ncu-%s.csv"
)

// lessonOrder is the order the lesson launches its kernels on each matrix,
// which is the order of the launch groups in an ncu CSV of a lesson run.
var lessonOrder = []string{ProbeRun, ThreadPerRowRun, WarpPerRowRun}

// NCUSeed returns Nsight Compute's counts for the lesson's kernels as nvcc
// compiles them (-O3, row loops unrolled by four) on the seed matrices at
// SeedRows rows, the probe on the seed's 320 blocks: the H200 run of
// evidence/spmv-seed-2p19-h200-2026-11-29, read from its embedded CSV, so
// that the notebook shows the recorded measurement and not a copy of it.
func NCUSeed() ([]NCUCount, error) {
	return readNCU(ncuSeedFile, []string{"even", "skewed"})
}

// NCUSuiteSparse returns Nsight Compute's counts for the lesson's kernels
// with `#pragma unroll 1` on one of SuiteSparseNames (256 threads a block),
// from evidence/spmv-suitesparse-unroll1-h200-2026-11-29.
func NCUSuiteSparse(matrix string) ([]NCUCount, error) {
	return readNCU(fmt.Sprintf(ncuSuiteSparseFile, matrix), []string{matrix})
}

// readNCU reads an embedded ncu CSV whose launch groups are the lesson's
// kernels in lessonOrder, matrix after matrix.
func readNCU(name string, matrices []string) ([]NCUCount, error) {
	f, err := recordedRuns.Open(path.Join("recorded", name))
	if err != nil {
		return nil, fmt.Errorf("spmv: no recorded ncu run %s: %w", name, err)
	}
	defer f.Close()
	launches, err := ncu.Read(f)
	if err != nil {
		return nil, fmt.Errorf("spmv: %s: %w", name, err)
	}
	groups := ncu.Groups(launches)
	if len(groups) != len(matrices)*len(lessonOrder) {
		return nil, fmt.Errorf("spmv: %s: %d kernel groups, want %d", name, len(groups), len(matrices)*len(lessonOrder))
	}
	var out []NCUCount
	for i, g := range groups {
		req, ok1 := g[0].Metric(ncu.LoadRequests)
		sec, ok2 := g[0].Metric(ncu.LoadSectors)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("spmv: %s: launch %s has no load requests or sectors", name, g[0].Kernel)
		}
		out = append(out, NCUCount{Matrix: matrices[i/len(lessonOrder)], Kernel: lessonOrder[i%len(lessonOrder)],
			Requests: int64(req), Sectors: int64(sec)})
	}
	return out, nil
}

// FindNCU returns the count for one matrix and kernel.
func FindNCU(counts []NCUCount, matrix, kernel string) (NCUCount, bool) {
	for _, c := range counts {
		if c.Matrix == matrix && c.Kernel == kernel {
			return c, true
		}
	}
	return NCUCount{}, false
}

// MeasuredOrRecorded is the notebook's one rule for GPU numbers: when this
// build has the CUDA backend and a GPU answers, run the lesson on it now at
// SeedRows; otherwise return the recorded run (Recorded), whose times were
// measured on the GPU, driver and date it names. how says which it is
// ("measured now" or "recorded run").
func MeasuredOrRecorded(ctx context.Context) (res *Result, how string, err error) {
	if dev, err := gpuext.Open("gpu"); err == nil {
		defer dev.Close()
		res, err := Run(ctx, dev, Options{Rows: SeedRows})
		return res, "measured now", err
	}
	res, err = Recorded()
	return res, "recorded run", err
}

// MatricesTable is the notebook's Part 1 table: each matrix's size and row
// lengths.
func MatricesTable(r *Result) table.Table {
	t := table.Table{
		Caption: fmt.Sprintf("Part 1: two matrices, %s rows each", table.Count(int64(r.Matrices[0].Rows))),
		Header:  []string{"matrix", "rows", "nonzeros", "min row", "max row", "mean row"},
	}
	for _, m := range r.Matrices {
		t.Add(m.Name, table.Count(int64(m.Rows)), table.Count(int64(m.NNZ)), fmt.Sprint(m.MinRow), fmt.Sprint(m.MaxRow), fmt.Sprintf("%.2f", m.MeanRow))
	}
	return t
}

// LaneSlotsTable is the prediction: lane-slots each kernel issues, the share
// with a nonzero to do, and lane-slots per nonzero (what the probe costs
// ×1), all host arithmetic on the row lengths.
func LaneSlotsTable(r *Result) table.Table {
	t := table.Table{
		Caption: "Lane-slots issued, and the share with a nonzero to do (host arithmetic: the prediction)",
		Header:  []string{"matrix", "kernel", "lane-slots", "useful", "lane-slots per nonzero"},
	}
	for _, p := range r.Predictions {
		t.Add(p.Matrix, KernelLabel(p.Kernel), table.Count(p.LaneSlots), fmt.Sprintf("%.1f%%", 100*p.Useful), fmt.Sprintf("%.2f×", 1/p.Useful))
	}
	return t
}

// ComparisonTable puts, per matrix and kernel, the lane-slot prediction,
// the simulator's counters and modeled time (sim) and the GPU's time (gpu,
// nil when there is none; how says whether it was measured now or
// recorded) side by side, every time also as a multiple of the probe.
func ComparisonTable(sim, gpu *Result, how string) table.Table {
	gpuHead := "GPU time (ms): none"
	if gpu != nil {
		gpuHead = fmt.Sprintf("GPU time (ms; %s, %s)", how, gpu.Device.Name)
	}
	t := table.Table{
		Caption: fmt.Sprintf("Prediction (host arithmetic), simulator (%s, %s rows) and GPU", sim.Device.Name, table.Count(int64(sim.Matrices[0].Rows))),
		Header: []string{"matrix", "kernel", "lane-slots", "useful", "requests (sim)", "sectors (sim)", "sectors/request (sim)",
			"time (ms, modeled)", "× probe (modeled)", gpuHead, "× probe (GPU)"},
	}
	for _, r := range sim.Runs {
		slots, useful := "—", "—"
		if r.LaneSlots != nil && r.UsefulShare != nil {
			slots, useful = table.Count(*r.LaneSlots), fmt.Sprintf("%.1f%%", 100**r.UsefulShare)
		}
		gpuMs, gpuX := "—", "—"
		if g, ok := gpu.Find(r.Matrix, r.Kernel); ok {
			gpuMs, gpuX = fmt.Sprintf("%.3f", g.TimeMs), fmt.Sprintf("%.2f×", g.XFloor)
		}
		t.Add(r.Matrix, KernelLabel(r.Kernel), slots, useful, table.OptCount(r.Requests), table.OptCount(r.Sectors),
			table.Ratio(r.Sectors, r.Requests), fmt.Sprintf("%.4f", r.TimeMs), fmt.Sprintf("%.2f×", r.XFloor), gpuMs, gpuX)
	}
	return t
}

// Find returns the run of one kernel on one matrix; false when r is nil or
// has none.
func (r *Result) Find(matrix, kernel string) (KernelRun, bool) {
	if r == nil {
		return KernelRun{}, false
	}
	for _, run := range r.Runs {
		if run.Matrix == matrix && run.Kernel == kernel {
			return run, true
		}
	}
	return KernelRun{}, false
}

// SitesTable lists one simulated run's global loads by array and source
// line (LoadSites): rowPtr, colIdx, val, the gather from x, with how many
// PTX load instructions made them (an unrolled loop has a copy per step),
// their requests and sectors, so that the average sectors per request that
// a profiler reports can be taken apart: which loads touch a sector per
// lane and which are coalesced. It is empty for a GPU run, which has no
// per-site counters, and says so in its caption when the loads cannot be
// attributed.
func SitesTable(run KernelRun) table.Table {
	t := table.Table{
		Caption: fmt.Sprintf("%s on the %s matrix, %s rows: global loads by array (simulator counts)", KernelLabel(run.Kernel), run.Matrix, table.Count(int64(run.Rows))),
		Header:  []string{"load", "source line", "PTX loads", "requests", "sectors", "sectors/request"},
	}
	sites, err := LoadSites(run)
	if err != nil {
		t.Caption += ": " + err.Error()
		return t
	}
	for _, s := range sites {
		t.Add(s.Array, s.Source, fmt.Sprint(s.Instructions), table.Count(s.Requests), table.Count(s.Sectors), fmt.Sprintf("%.2f", float64(s.Sectors)/float64(s.Requests)))
	}
	return t
}

// Err is nil when every check of the run passed, and otherwise one error
// naming every failed check, for a notebook cell to stop on.
func (r *Result) Err() error {
	if r.OK() {
		return nil
	}
	return fmt.Errorf("spmv: %d checks failed: %s", len(r.Failures), strings.Join(r.Failures, "; "))
}

// TimesTable is the run's Part 2: each kernel's time (modeled on the
// simulator, measured on a GPU), its rate, its multiple of the probe on the
// same matrix, the simulator's load counters ("—" on a GPU) and whether y
// matched the CPU reference.
func TimesTable(r *Result) table.Table {
	kind := gpuext.Modeled
	if len(r.Runs) > 0 {
		kind = r.Runs[0].TimeKind
	}
	t := table.Table{
		Caption: fmt.Sprintf("Part 2: y = A x on %s, %s rows (%s times)", r.Device.Name, table.Count(int64(r.Matrices[0].Rows)), kind),
		Header:  []string{"matrix", "kernel", "time (ms, " + kind.String() + ")", "GFLOP/s", "× probe", "requests", "sectors", "correct"},
	}
	for _, run := range r.Runs {
		t.Add(run.Matrix, KernelLabel(run.Kernel), fmt.Sprintf("%.4f", run.TimeMs), fmt.Sprintf("%.1f", run.GFlops),
			fmt.Sprintf("%.2f×", run.XFloor), table.OptCount(run.Requests), table.OptCount(run.Sectors), fmt.Sprint(run.Correct))
	}
	return t
}

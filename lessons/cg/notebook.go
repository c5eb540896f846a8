package cg

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/cusrc"
	"github.com/warplab/warplab/table"
)

// NotebookGrid is the grid the notebook simulates, 10³ = 1,000 rows: every
// stage on the simulator in well under a minute. `warplab run cg --backend
// sim --grid 20` runs 20³ (8,000 rows) in about a minute more.
const NotebookGrid = 10

// GPUGrid is the size of the recorded GPU run and of a live one: 100³, one
// million rows, the article's size.
const GPUGrid = 100

// KernelSource returns the CUDA C definition of one kernel of cg.cu
// (spmvCsrThreadPerRow, spmvCsrSubwarp, spmvStencil27, ddotPartial, ...),
// cut from the embedded source the GPU runs, so the notebook shows the
// kernel it launches.
func KernelSource(name string) (string, error) { return cusrc.Func(cgCU, name) }

// SimulatedStages runs every stage at grid³ on a simulated H200 (stage 0 on
// this machine's CPU) and compares each stage's residual history with stage
// 0's. progress, if not nil, is told each stage's one-line summary as it
// finishes.
//
// GoNB runs each notebook cell as a program of its own, so a result cannot
// stay in memory from one cell to the next; simulating all stages again in
// every cell that plots them would cost most of a minute each time. The
// result is therefore kept in a JSON file in the temporary directory, named
// after the grid, the lesson's CUDA source and the parent process (the
// notebook kernel): later cells of the same notebook session read it, a new
// session or changed kernels simulate again.
func SimulatedStages(grid int, progress func(line string)) ([]*StageResult, error) {
	return cachedStages(fmt.Sprintf("sim-%d", grid), func() ([]*StageResult, error) {
		dev, err := gpuext.Open("sim:h200")
		if err != nil {
			return nil, err
		}
		defer dev.Close()
		return runAllStages(dev, grid, progress)
	})
}

// SimulatedVectorWidths is CompareVectorWidths at grid³ on a simulated
// H200 of its own: the notebook's table behind stage 9's SpMV width.
func SimulatedVectorWidths(grid int) ([]VectorChoice, error) {
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	return CompareVectorWidths(dev, Cube(grid))
}

// MeasuredOrRecorded is the notebook's one rule for GPU numbers: when this
// build has the CUDA backend and a GPU answers, run every stage at GPUGrid³
// on it now (kept for the session like SimulatedStages); otherwise return
// the recorded run (Recorded). label says where and when the numbers were
// measured, for captions and printed lines.
func MeasuredOrRecorded() (rs []*StageResult, label string, err error) {
	if dev, err := gpuext.Open("gpu"); err == nil {
		name := dev.Name()
		dev.Close()
		rs, err := cachedStages(fmt.Sprintf("gpu-%d", GPUGrid), func() ([]*StageResult, error) {
			dev, err := gpuext.Open("gpu")
			if err != nil {
				return nil, err
			}
			defer dev.Close()
			return runAllStages(dev, GPUGrid, nil)
		})
		return rs, "measured now on " + name, err
	}
	rs, err = Recorded()
	return rs, RecordedLabel(), err
}

// runAllStages runs stages 0 to Stages−1 on dev at grid³.
func runAllStages(dev *gpuext.Device, grid int, progress func(string)) ([]*StageResult, error) {
	p, err := Generate(Cube(grid), GenOptions{})
	if err != nil {
		return nil, err
	}
	var rs []*StageResult
	for s := range Stages {
		r, err := RunStage(dev, p, s, RunOptions{})
		if err != nil {
			return nil, err
		}
		if s > 0 {
			c := CompareResiduals(rs[0], r)
			r.VsStage0 = &c
		}
		rs = append(rs, r)
		if progress != nil {
			progress(StageLine(r))
		}
	}
	return rs, nil
}

// StageLine is one stage in a line: iterations, residuals, time and how
// the residual history compares with stage 0's.
func StageLine(r *StageResult) string {
	line := fmt.Sprintf("stage %d %-15s iterations: %d  final residual %.3e  true residual %.2e  %s %.3f ms",
		r.Stage, r.Name, r.Iterations, r.FinalResidual, r.TrueResidual, r.TimeKind, 1e3*r.WallSeconds)
	if r.VsStage0 != nil {
		line += "  vs stage 0: " + r.VsStage0.String()
	}
	return line
}

// cachedStages returns the stages kept under key for this notebook session,
// or computes and keeps them. A cache that cannot be read or written is
// not an error: the stages are computed.
func cachedStages(key string, compute func() ([]*StageResult, error)) ([]*StageResult, error) {
	sum := sha256.Sum256([]byte(cgCU + cgPTX))
	path := filepath.Join(os.TempDir(), fmt.Sprintf("warplab-cg-%s-%x-session%d.json", key, sum[:6], os.Getppid()))
	if b, err := os.ReadFile(path); err == nil {
		var rs []*StageResult
		if json.Unmarshal(b, &rs) == nil && len(rs) == Stages {
			return rs, nil
		}
	}
	rs, err := compute()
	if err != nil {
		return nil, err
	}
	if b, err := json.Marshal(rs); err == nil {
		tmp := path + ".tmp"
		if os.WriteFile(tmp, b, 0o644) == nil {
			_ = os.Rename(tmp, path) // whole or not at all, for a cell that reads it concurrently
		}
	}
	return rs, nil
}

// ProfileTable is stage 0's profile, HPCCG's own timers: each kernel's time,
// its share of the three and its rate; line gives the SpMV share beside the
// article's.
func ProfileTable(r *StageResult) (t table.Table, line string) {
	var total float64
	for _, k := range r.Kernels {
		total += k.Seconds
	}
	t = table.Table{
		Caption: fmt.Sprintf("Stage 0 at %d×%d×%d, measured on this machine (%s)", r.Grid[0], r.Grid[1], r.Grid[2], r.Device),
		Header:  []string{"kernel", "time (s)", "share", "MFLOPS"},
	}
	for _, k := range r.Kernels {
		t.Add(k.Name, fmt.Sprintf("%.3f", k.Seconds), fmt.Sprintf("%.1f%%", 100*k.Seconds/total), fmt.Sprintf("%.0f", k.MFLOPS))
	}
	sp, _ := r.Kernel(KernelSpMV)
	line = fmt.Sprintf("stage 0 at %d³: %d iterations, final residual %.3e, SpMV share %.0f%% (article at 100³: 83.5%%)",
		r.Grid[0], r.Iterations, r.FinalResidual, 100*sp.Seconds/total)
	return t, line
}

// HostTimersTable sets, for every kernel of every GPU stage, the host
// timer around its calls (what HPCCG's timers report) beside the kernel's
// own time (CUDA events on a GPU, the time model on the simulator).
func HostTimersTable(rs []*StageResult, label string) table.Table {
	t := table.Table{
		Caption: "Host timer against the kernel's own time, " + label,
		Header:  []string{"stage", "kernel", "where", "calls", "launches", "kernel time (ms)", "timer", "host timer (ms)"},
	}
	for _, r := range rs {
		if r.Backend == "cpu" {
			continue
		}
		for _, k := range r.Kernels {
			t.Add(fmt.Sprint(r.Stage), k.Name, k.Where, fmt.Sprint(k.Calls), fmt.Sprint(k.Launches),
				fmt.Sprintf("%.3f", 1e3*k.Seconds), k.Timer, fmt.Sprintf("%.3f", 1e3*k.HostSeconds))
		}
	}
	return t
}

// IdleTable accounts for the resident stages' time on a GPU (from stage 3
// on): the whole solve, the kernels (CUDA events, replayed warm after the
// solve, so a lower bound), the time the GPU ran no kernel, and two costs
// that could fill it, measured in the same run: the host issuing the
// launches, and the synchronous r·r downloads.
func IdleTable(rs []*StageResult, label string) table.Table {
	t := table.Table{
		Caption: "Where the resident stages' time goes, " + label,
		Header:  []string{"stage", "name", "total (ms)", "kernels (ms)", "GPU idle (ms)", "launches", "issuing them (ms)", "downloads (ms)"},
	}
	for _, r := range rs {
		a := r.Account
		if r.Stage < 3 || a == nil {
			continue
		}
		t.Add(fmt.Sprint(r.Stage), r.Name, fmt.Sprintf("%.1f", 1e3*r.WallSeconds), fmt.Sprintf("%.1f", 1e3*a.KernelSeconds),
			fmt.Sprintf("%.1f", 1e3*a.IdleSeconds), fmt.Sprint(r.Launches), fmt.Sprintf("%.1f", 1e3*a.LaunchSeconds),
			fmt.Sprintf("%.1f", 1e3*a.CopySeconds))
	}
	return t
}

// MeasuredLine is one stage of a GPU run in a line: total time, launches,
// and how its residual history compares with stage 0's.
func MeasuredLine(r *StageResult) string {
	vs := "reference"
	if r.VsStage0 != nil {
		vs = r.VsStage0.String()
	}
	return fmt.Sprintf("stage %d %-15s %9.1f ms %s; %d launches; vs stage 0: %s", r.Stage, r.Name, 1e3*r.WallSeconds, r.TimeKind, r.Launches, vs)
}

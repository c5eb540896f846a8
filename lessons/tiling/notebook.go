package tiling

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/cusrc"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/table"
)

// The notebook's sizes. NotebookN keeps every simulated cell (every kernel,
// the TILE sweep, the bug demonstrations) to a few seconds; RooflineN is
// large enough that modeled times are not all launch overhead and small
// enough to simulate on four device models; GPUN is the size of the
// recorded GPU run and of a live one.
const (
	NotebookN = 128
	RooflineN = 256
	GPUN      = 512
)

// KernelSource returns the CUDA C definition of one function of tiling.cu
// (a kernel, or a templated body such as matmulTiledBody that several
// kernels instantiate), cut from the embedded source the GPU runs, so the
// notebook shows the code it launches.
func KernelSource(name string) (string, error) { return cusrc.Func(cudaSource, name) }

// Simulate runs the lesson on a simulated H200 with opts (N defaults to
// NotebookN) and returns an error naming every output that differs from its
// CPU reference, so that a notebook cell is one call and stops on a wrong
// answer.
func Simulate(opts Options) (*Result, error) { return SimulateOn("h200", opts) }

// SimulateOn is Simulate on another simulated device model ("t4", "a100",
// "h100", "h200"; sim.Models lists them), for the rooflines of every model.
func SimulateOn(model string, opts Options) (*Result, error) {
	dev, err := gpuext.Open("sim:" + model)
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	if opts.N == 0 {
		opts.N = NotebookN
	}
	res, err := Run(context.Background(), dev, opts)
	if err != nil {
		return nil, err
	}
	if len(res.Failures) > 0 {
		return nil, errors.New(strings.Join(res.Failures, "; "))
	}
	return res, nil
}

// SimulateModels runs the lesson with opts on every simulated device model
// (sim.Models): res on the H200, the notebook's device, and others on the
// rest, in sim.Models order, for a roofline panel per model.
func SimulateModels(opts Options) (res *Result, others []*Result, err error) {
	for _, m := range sim.Models() {
		r, err := SimulateOn(m.Key, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("tiling: on the simulated %s: %w", m.Name, err)
		}
		if m.Key == "h200" {
			res = r
		} else {
			others = append(others, r)
		}
	}
	if res == nil {
		return nil, nil, errors.New("tiling: the simulator has no h200 model")
	}
	return res, others, nil
}

// MeasuredOrRecorded is the notebook's one rule for GPU numbers: when this
// build has the CUDA backend and a GPU answers, run the lesson on it now at
// GPUN (no demonstrations: a GPU reports neither races nor stray reads);
// otherwise return the recorded run (Recorded), measured on the GPU, driver
// and date it names. how says which ("measured now" or "recorded run").
func MeasuredOrRecorded(ctx context.Context) (res *Result, how string, err error) {
	if dev, err := gpuext.Open("gpu"); err == nil {
		defer dev.Close()
		res, err := Run(ctx, dev, Options{N: GPUN, NoDemos: true})
		return res, "measured now", err
	}
	res, err = Recorded()
	return res, "recorded run", err
}

// Label names where a GPU run was measured: GPU, driver and date (a live
// run has no driver or date recorded, and says "now").
func (r *Result) Label() string {
	if r.Driver == "" && r.Date == "" {
		return r.Device.Name + ", now"
	}
	return fmt.Sprintf("%s, driver %s, %s", r.Device.Name, r.Driver, r.Date)
}

// Find returns the run of one kernel.
func (r *Result) Find(kernel string) (KernelRun, bool) {
	for _, run := range r.Runs {
		if run.Kernel == kernel {
			return run, true
		}
	}
	return KernelRun{}, false
}

// SpMVDensity returns the share of nonzeros in the matrix the lesson's
// SpMV runs with opts, counted on the matrix itself. Options.Density is the
// base probability, which the generator scales by 1, 1.5, 2 and 2.5 from row
// to row so that rows differ in length; the matrix therefore holds about
// 1.75 times Density.
func SpMVDensity(opts Options) (float64, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return 0, err
	}
	M := randomSparse(o.N, o.N, o.Density, o.Seed+3)
	nnz := 0
	for _, v := range M {
		if v != 0 {
			nnz++
		}
	}
	return float64(nnz) / float64(len(M)), nil
}

// RunsTable lists every kernel of a simulated run with its counters, modeled
// DRAM bytes and time, and whether its output equals the CPU reference bit
// for bit; summary says how many did.
func RunsTable(res *Result) (t table.Table, summary string) {
	t = table.Table{
		Caption: fmt.Sprintf("Every kernel at N = %d on the %s: counters counted, DRAM bytes and times modeled", res.Options.N, res.Device.Name),
		Header: []string{"kernel", "TILE", "COARSE", "load requests", "load sectors", "sectors/request (loads)", "sectors/request (stores)",
			"shared wavefronts", "bank conflicts", "DRAM bytes (modeled)", "time ms (modeled)", "bits = reference"},
	}
	ident := 0
	for _, r := range res.Runs {
		t.Add(r.Kernel, fmt.Sprint(r.Tile), fmt.Sprint(r.Coarse), table.OptCount(r.LoadRequests), table.OptCount(r.LoadSectors),
			table.Ratio(r.LoadSectors, r.LoadRequests), table.Ratio(r.StoreSectors, r.StoreRequests), table.OptCount(r.SharedWavefronts),
			table.OptCount(r.BankConflicts), table.OptCount(r.DRAMBytes), fmt.Sprintf("%.4f", r.TimeMs), fmt.Sprint(r.BitIdentical))
		if r.BitIdentical {
			ident++
		}
	}
	summary = fmt.Sprintf("%d of %d kernel outputs equal their CPU reference bit for bit; failures: %d", ident, len(res.Runs), len(res.Failures))
	return t, summary
}

// LoadsTable is the TILE sweep: counted global element loads next to the
// lecture's formula, with one line per point for the notebook to print.
func LoadsTable(res *Result) (t table.Table, lines []string) {
	t = table.Table{
		Caption: fmt.Sprintf("Global element loads at N = %d: counted by the simulator, next to the lecture's formula", res.Options.SweepN),
		Header:  []string{"kernel", "TILE", "COARSE", "A loads", "B loads", "counted", "formula", "formula value", "", "sectors/request"},
	}
	for _, r := range res.Loads {
		eq := "equal"
		if r.Counted != r.Formula {
			eq = "DIFFERENT"
		}
		t.Add(r.Kernel, fmt.Sprint(r.Tile), fmt.Sprint(r.Coarse), table.Count(r.ALoads), table.Count(r.BLoads), table.Count(r.Counted),
			r.Text, table.Count(r.Formula), eq, fmt.Sprintf("%.2f", float64(r.Sectors)/float64(r.Requests)))
		lines = append(lines, fmt.Sprintf("%s TILE=%d COARSE=%d: counted %s, %s = %s (%s)", r.Kernel, r.Tile, r.Coarse,
			table.Count(r.Counted), r.Text, table.Count(r.Formula), eq))
	}
	return t, lines
}

// TransposesTable compares the three transposes' global sectors per request
// and their shared-memory wavefronts and bank conflicts.
func TransposesTable(res *Result) (t table.Table, lines []string) {
	t = table.Table{
		Caption: fmt.Sprintf("Transposes at N = %d, 32 × 32 blocks (simulator counts)", res.Options.N),
		Header: []string{"kernel", "sectors/request (global loads)", "sectors/request (global stores)", "shared store requests",
			"shared store wavefronts", "bank conflicts", "wavefronts/request (shared stores)", "wavefronts/request (shared loads)"},
	}
	for _, k := range []string{KTransposeNaive, KTransposeShared, KTransposeSharedPadded} {
		r, ok := res.Find(k)
		if !ok || r.Stats == nil {
			continue
		}
		st, ld := r.Stats.SharedStore, r.Stats.SharedLoad
		wst, wld := "—", "—"
		lines = append(lines, fmt.Sprintf("%s: %s sectors/request on loads, %s on stores", k, table.Ratio(r.LoadSectors, r.LoadRequests), table.Ratio(r.StoreSectors, r.StoreRequests)))
		if st.Requests > 0 {
			wst = fmt.Sprintf("%.1f", float64(st.Wavefronts)/float64(st.Requests))
			wld = fmt.Sprintf("%.1f", float64(ld.Wavefronts)/float64(ld.Requests))
			lines = append(lines, fmt.Sprintf("%s: shared stores %s wavefronts/request (%d-way), %s bank conflicts in %s store requests; shared loads %s wavefronts/request",
				k, wst, st.Wavefronts/st.Requests, table.Count(st.Conflicts), table.Count(st.Requests), wld))
		}
		t.Add(k, table.Ratio(r.LoadSectors, r.LoadRequests), table.Ratio(r.StoreSectors, r.StoreRequests),
			table.Count(st.Requests), table.Count(st.Wavefronts), table.Count(st.Conflicts), wst, wld)
	}
	return t, lines
}

// SparseTable shows the dense→CSR conversion and the three SpMV kernels; its
// caption gives the matrix's density as counted (SpMVDensity).
func SparseTable(res *Result) (t table.Table, lines []string, err error) {
	density, err := SpMVDensity(res.Options)
	if err != nil {
		return t, nil, err
	}
	t = table.Table{
		Caption: fmt.Sprintf("Dense → CSR and SpMV, %d × %d, %.1f%% nonzero (counters counted, times modeled)", res.Options.N, res.Options.N, 100*density),
		Header:  []string{"kernel", "load requests", "sectors/request (loads)", "shared wavefronts", "bank conflicts", "time ms (modeled)", "correct", "bits = its reference"},
	}
	for _, k := range []string{KDenseRowCount, KDenseToCSR, KSpMVThread, KSpMVWarp, KSpMVWarpShfl} {
		r, ok := res.Find(k)
		if !ok {
			continue
		}
		t.Add(k, table.OptCount(r.LoadRequests), table.Ratio(r.LoadSectors, r.LoadRequests), table.OptCount(r.SharedWavefronts), table.OptCount(r.BankConflicts),
			fmt.Sprintf("%.4f", r.TimeMs), fmt.Sprint(r.Correct), fmt.Sprint(r.BitIdentical))
		lines = append(lines, fmt.Sprintf("%s: %s sectors per load request, %s shared wavefronts", k, table.Ratio(r.LoadSectors, r.LoadRequests), table.OptCount(r.SharedWavefronts)))
	}
	lines = append(lines, fmt.Sprintf("the matrix: %d × %d, %.1f%% of its entries nonzero (base density %.3f, scaled by 1 to 2.5 from row to row)",
		res.Options.N, res.Options.N, 100*density, res.Options.Density))
	return t, lines, nil
}

// RooflineTable places res's kernels on its own device model's roofline:
// intensities from the simulator's counted loads and modeled DRAM bytes,
// the knee, the DRAM roof at the load intensity and the modeled rate.
func RooflineTable(res *Result) (t table.Table, lines []string) {
	t = table.Table{
		Caption: fmt.Sprintf("%s, N = %d: intensities from the simulator's counts, rates modeled", res.Device.Name, res.Options.N),
		Header: []string{"kernel", "flop/B (load bytes)", "flop/B (DRAM bytes, modeled)", "knee (flop/B)",
			"DRAM roof at load intensity (GFLOP/s)", "modeled GFLOP/s"},
	}
	intensity := map[string]float64{}
	for _, r := range res.Roofline {
		if r.Model != res.Device.Model {
			continue
		}
		run, _ := res.Find(r.Kernel)
		t.Add(r.Kernel, fmt.Sprintf("%.2f", r.IntensityLoads), fmt.Sprintf("%.2f", r.IntensityDRAM), fmt.Sprintf("%.1f", r.Ridge),
			fmt.Sprintf("%.0f", r.AttainableLoads/1e9), fmt.Sprintf("%.0f", run.GFlops))
		lines = append(lines, fmt.Sprintf("%s: %.2f flop per requested byte", r.Kernel, r.IntensityLoads))
		intensity[r.Kernel] = r.IntensityLoads
	}
	coarse := fmt.Sprintf("matmulTiledCoarse%d", res.Options.Coarse)
	if a, b := intensity[KMatmulTiled], intensity[coarse]; a > 0 && b > 0 {
		lines = append(lines, fmt.Sprintf("coarsening by %d: %.2f → %.2f flop per requested byte, %.0f%% more",
			res.Options.Coarse, a, b, 100*(b/a-1)))
	}
	return t, lines
}

// TimesTable lists a GPU run's measured times, rates and checks.
func TimesTable(res *Result, how string) table.Table {
	t := table.Table{
		Caption: fmt.Sprintf("Measured at N = %d, %s on %s", res.Options.N, how, res.Label()),
		Header:  []string{"kernel", "TILE", "COARSE", "time (ms, measured)", "GFLOP/s", "GB/s", "bits = CPU reference"},
	}
	for _, r := range res.Runs {
		t.Add(r.Kernel, fmt.Sprint(r.Tile), fmt.Sprint(r.Coarse), fmt.Sprintf("%.4f", r.TimeMs), fmt.Sprintf("%.0f", r.GFlops),
			fmt.Sprintf("%.0f", r.GBps), fmt.Sprint(r.BitIdentical))
	}
	return t
}

// counterNames are the counters NCUTable compares, in column order.
var counterNames = []string{"load requests", "load sectors", "store requests", "store sectors", "shared wavefronts", "bank conflicts"}

// NCUTable puts a simulated run beside Nsight Compute's counters (hw, from
// HardwareCounters, measured at the same N and options), counter by counter.
// lines has every difference and every shared-memory counter a kernel uses;
// summary counts the agreements. It is an error for the simulated run to
// lack a kernel or a counter that hw has.
func NCUTable(res *Result, hw []HWCounters) (t table.Table, lines []string, summary string, err error) {
	t.Header = []string{"kernel"}
	for _, n := range counterNames {
		t.Header = append(t.Header, n+" (simulator)", n+" (ncu)")
	}
	t.Header = append(t.Header, "equal")
	t.Caption = fmt.Sprintf("Simulator (counted, %s at N = %d) vs Nsight Compute (measured: %s)", res.Device.Name, res.Options.N, hw[0].Source)
	equal, total, kernelsEqual := 0, 0, 0
	for _, h := range hw {
		r, ok := res.Find(h.Kernel)
		if !ok {
			return t, nil, "", fmt.Errorf("tiling: the simulator run has no %s", h.Kernel)
		}
		sims := []*int64{r.LoadRequests, r.LoadSectors, r.StoreRequests, r.StoreSectors, r.SharedWavefronts, r.BankConflicts}
		hws := []int64{h.LoadRequests, h.LoadSectors, h.StoreRequests, h.StoreSectors, h.SharedWavefronts, h.BankConflicts}
		row := []string{h.Kernel}
		var diffs []string
		for i, s := range sims {
			if s == nil {
				return t, nil, "", fmt.Errorf("tiling: %s: the simulator run has no %s", h.Kernel, counterNames[i])
			}
			total++
			note := "equal"
			if *s == hws[i] {
				equal++
			} else {
				note = fmt.Sprintf("%+.1f%%", 100*float64(*s-hws[i])/float64(hws[i]))
				diffs = append(diffs, counterNames[i]+" "+note)
			}
			if *s != hws[i] || (i >= 4 && hws[i] != 0) {
				lines = append(lines, fmt.Sprintf("%s %s: simulator %s, ncu %s (%s)", h.Kernel, counterNames[i], table.Count(*s), table.Count(hws[i]), note))
			}
			row = append(row, table.Count(*s), table.Count(hws[i]))
		}
		eq := "yes"
		if len(diffs) > 0 {
			eq = "no: " + strings.Join(diffs, ", ")
		} else {
			kernelsEqual++
		}
		t.Add(append(row, eq)...)
	}
	summary = fmt.Sprintf("%d of %d counters equal Nsight Compute's exactly; %d of %d kernels equal on every counter", equal, total, kernelsEqual, len(hw))
	return t, lines, summary, nil
}

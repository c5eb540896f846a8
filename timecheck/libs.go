package timecheck

import (
	"fmt"
	"slices"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/stats"
	"github.com/warplab/warplab/lessons/libs"
)

// The libs lesson's kernels as held-out cases. No libs kernel is in the
// sweep or the lesson check, and no constant of the model came from one:
// a simulator run of the libs lesson (`warplab run libs --backend sim
// --json`) set beside a recorded GPU run of the same matrices and methods
// is the model on kernels and inputs it was not built against (issue 27's
// last goal), judged with the sweep's figures and pairs.

// LibsFamilyPrefix marks a libs case's family ("libs-powerlaw20") apart
// from the sweep's families.
const LibsFamilyPrefix = "libs-"

// LibsCases pairs each method run on each matrix of modeled (a simulator
// run) with the same matrix and method in the measured runs (GPU runs),
// one SweepCase each: family "libs-" + the corpus family (libs.Family),
// input the matrix key, kernel the method. A case timed by several
// measured runs (two leases' corpus runs; the SuiteSparse files, which
// every batch of a corpus run times) is measured as the median of their
// times, the sweep's rule for a case of several leases (SweepFiles), and
// names each run in Sources, the first's GPU, driver and date its own.
// Runs that were skipped, wrong or untimed on either side are left out.
// It fails when modeled is not a simulator run or a measured one is not
// a GPU run, so that a swap is not reported as a fit, and when the
// measured runs are of more than one GPU.
func LibsCases(modeled *libs.Result, measured ...*libs.Result) ([]SweepCase, error) {
	if modeled.Backend != gpuext.Sim {
		return nil, fmt.Errorf("timecheck: the modeled libs run is a %s run, not the simulator's", modeled.Backend)
	}
	type key struct{ matrix, method string }
	type timings struct {
		c     SweepCase // the measured side of a case: the first run's GPU, driver and date, every run's source
		times []float64 // its measured times, seconds
	}
	got := map[key]*timings{}
	for i, r := range measured {
		if r.Backend != gpuext.GPU {
			return nil, fmt.Errorf("timecheck: measured libs run %d is a %s run, not a GPU's", i+1, r.Backend)
		}
		if r.Device.Name != measured[0].Device.Name {
			// a median over two GPUs' times is neither's
			return nil, fmt.Errorf("timecheck: measured libs runs 1 and %d are of different GPUs (%s, %s)", i+1, measured[0].Device.Name, r.Device.Name)
		}
		src := fmt.Sprintf("libs run %d (%s)", i+1, r.Date)
		for _, m := range r.Matrices {
			for _, k := range m.Runs {
				if !timed(k) {
					continue
				}
				g := got[key{m.Key, k.Method}]
				if g == nil {
					g = &timings{c: SweepCase{GPU: r.Device.Name, Driver: r.Driver, Date: r.Date}}
					got[key{m.Key, k.Method}] = g
				}
				g.c.Sources = append(g.c.Sources, src)
				g.times = append(g.times, k.TimeMs/1e3)
			}
		}
	}
	var out []SweepCase
	for _, m := range modeled.Matrices {
		for _, k := range m.Runs {
			g, ok := got[key{m.Key, k.Method}]
			if !ok || !timed(k) {
				continue
			}
			c := g.c
			c.Measured = stats.Median(g.times)
			c.Family, c.Kernel, c.Input = LibsFamilyPrefix+libs.Family(m.Key), k.Method, m.Key
			c.Size, c.SizeUnit, c.Modeled = m.Rows, "rows", k.TimeMs/1e3
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("timecheck: no matrix and method is in both the modeled and the measured libs runs")
	}
	return out, nil
}

// LibsCasesOf is LibsCases for several simulator runs at once (one a
// size: the held-out check's 2^14, 2^17 and 2^20 batches), so that one
// report holds all their cases, each family across its sizes as the
// sweep's are. The runs must model one GPU. A matrix in several of them
// (every corpus batch runs the SuiteSparse files) is taken from the first
// alone, so that its cases count once: the same matrix, method and GPU
// model give the same time (to 0.3% for the last-arriver kernels, whose
// records follow scheduling: sim's package doc, Limits).
func LibsCasesOf(modeled []*libs.Result, measured ...*libs.Result) ([]SweepCase, error) {
	if len(modeled) == 0 {
		return nil, fmt.Errorf("timecheck: no modeled libs run")
	}
	seen := map[string]int{} // a case's matrix: the modeled run it came from
	var out []SweepCase
	for i, sim := range modeled {
		if sim.Device.Model != modeled[0].Device.Model {
			return nil, fmt.Errorf("timecheck: modeled libs runs 1 and %d model different GPUs (%s, %s)", i+1, modeled[0].Device.Model, sim.Device.Model)
		}
		cases, err := LibsCases(sim, measured...)
		if err != nil {
			return nil, fmt.Errorf("modeled run %d: %w", i+1, err)
		}
		for _, c := range cases {
			if j, dup := seen[c.Input]; dup && j != i {
				continue
			}
			seen[c.Input] = i
			out = append(out, c)
		}
	}
	return out, nil
}

// timed: a run with a time, not skipped, whose output was right.
func timed(k libs.KernelRun) bool {
	return k.Skipped == "" && k.Correct && k.TimeMs > 0
}

// SetLibsSizes groups r's cases, LibsCases' of the libs corpus, by the
// size their matrix's key names (libs.SizeClass) into r.BySize, each with
// the pairs on its inputs: "2^k rows" ("powerlaw20-2^17"; "stencil27-2^17"
// too, whose 50³ rows are about that), then "files" (the SuiteSparse
// matrices, whose keys name no size). The held-out check's figures by
// size, which docs/timemodel.md tabulates, come from one report this way.
func (r *SweepReport) SetLibsSizes() {
	name := func(k int) string {
		if k == 0 {
			return "files"
		}
		return fmt.Sprintf("2^%d rows", k)
	}
	var classes []int
	for _, c := range r.Cases {
		if k := libs.SizeClass(c.Input); !slices.Contains(classes, k) {
			classes = append(classes, k)
		}
	}
	slices.Sort(classes)
	if len(classes) > 0 && classes[0] == 0 {
		classes = append(classes[1:], 0) // the files last
	}
	names := make([]string, len(classes))
	for i, k := range classes {
		names[i] = name(k)
	}
	r.BySize = r.group(func(c SweepCase) string { return name(libs.SizeClass(c.Input)) },
		func(p Pair) string { return name(libs.SizeClass(p.Input)) }, names)
}

package libs

import (
	"fmt"
	"slices"

	"github.com/warplab/warplab/internal/stats"
)

// MedianRuns merges corpus runs of one GPU into one: each method's time on
// each matrix is the median of its correct times over the runs, and each
// cuSPARSE algorithm's on each matrix likewise. It is the rule the time
// model's held-out check takes for a case several runs time
// (timecheck.LibsCases), here for the chooser: a method's time moved 10%
// at the median at 2^14 rows from one H100 lease to the next, 0.5% at
// 2^20 (evidence/libs-corpus-planned-1944-h100-2026-12-07), so a fit or a
// goal line read on one lease reads that lease's noise where the goal's
// 1.1× is at stake, and on several leases' medians reads less of it.
//
// The first run gives the rest (device, date, copy reference, the
// matrices, their statistics and order; a method only a later run has
// comes after the first run's). A method no run timed correctly keeps the
// entry of the first run that has it; one that some run timed is timed,
// whatever the others say (skipped, wrong). Runs recorded on different
// GPUs are refused: a median of two GPUs' times is neither's. MedianRuns
// does not change its arguments.
func MedianRuns(recs ...*Recorded) (*Recorded, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("libs: MedianRuns: no runs")
	}
	first := recs[0]
	for _, r := range recs[1:] {
		if r.Ours.Device.Name != first.Ours.Device.Name {
			return nil, fmt.Errorf("libs: MedianRuns: %s ran on %s, %s on %s: a median over two GPUs is neither's",
				r.Dir, r.Ours.Device.Name, first.Dir, first.Ours.Device.Name)
		}
	}
	times := map[string][]float64{}   // matrix key "/" method: correct times
	later := map[string][]KernelRun{} // matrix key: methods the first run lacks, as a later run has them
	for i, r := range recs {
		for _, m := range r.Ours.Matrices {
			for _, k := range m.Runs {
				id := m.Key + "/" + k.Method
				if _, seen := times[id]; !seen {
					times[id] = nil
					if i > 0 {
						later[m.Key] = append(later[m.Key], k)
					}
				}
				if k.Correct && k.Skipped == "" && k.TimeMs > 0 {
					times[id] = append(times[id], k.TimeMs)
				}
			}
		}
	}
	res := *first.Ours
	res.Matrices = make([]MatrixResult, len(first.Ours.Matrices))
	for i, m := range first.Ours.Matrices {
		m.Runs = append(slices.Clone(m.Runs), later[m.Key]...)
		for j, k := range m.Runs {
			ts := times[m.Key+"/"+k.Method]
			if len(ts) == 0 {
				continue
			}
			t := stats.Median(ts)
			switch {
			case m.MinBytes > 0:
				k.GBs = float64(m.MinBytes) / (t * 1e-3) / 1e9 // as run measures it
			case k.TimeMs > 0:
				k.GBs *= k.TimeMs / t
			}
			k.TimeMs, k.Correct, k.Skipped = t, true, ""
			m.Runs[j] = k
		}
		res.Matrices[i] = m
	}
	out := *first
	out.Ours = &res
	out.Peer = medianPeer(recs)
	return &out, nil
}

// medianPeer is the peer's lines of recs, one for each matrix and
// algorithm in order of first appearance, its times the median of the
// correct lines'.
func medianPeer(recs []*Recorded) []PeerRun {
	type key struct{ matrix, alg string }
	var order []key
	lines := map[key]PeerRun{}
	means, mins := map[key][]float64{}, map[key][]float64{}
	for _, r := range recs {
		for _, p := range r.Peer {
			k := key{p.Matrix, p.Alg}
			if _, ok := lines[k]; !ok {
				order = append(order, k)
				lines[k] = p
			}
			if p.Correct {
				means[k] = append(means[k], p.MeanMs)
				mins[k] = append(mins[k], p.MinMs)
			}
		}
	}
	out := make([]PeerRun, 0, len(order))
	for _, k := range order {
		p := lines[k]
		if len(means[k]) > 0 {
			p.MeanMs, p.MinMs, p.Correct = stats.Median(means[k]), stats.Median(mins[k]), true
		}
		out = append(out, p)
	}
	return out
}

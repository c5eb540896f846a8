package sim

import (
	"fmt"
	"math"
	"regexp"

	"github.com/warplab/warplab/internal/stats"
)

// How a kernel's stores share DRAM with its loads (issue 27, the copy
// against saxpy), from the copyinflight microbenchmark
// (scripts/evidence/timemodel/copyinflight.cu): read, write, copy and
// saxpy at K = 1, 2, 4, 8 requests in flight a thread, float and float4,
// 2^24 and 2^26 floats. The rule was fixed in docs/timemodel.md before
// any row existed; no sweep or lesson run sets a constant here.

// copyinflightFile is the embedded copy of model key's copyinflight run.
func copyinflightFile(key string) string { return key + "-copyinflight" }

var copyinflightParam = regexp.MustCompile(`^K=(\d+) v=(\d+) n=2\^(\d+)$`)

// inflightCase is one K, width and n of the copyinflight run.
type inflightCase struct{ k, v, log2n int }

// copyinflightTimes reads the run's rows into seconds by kernel and case.
func copyinflightTimes(rows []MicrobenchRow) map[string]map[inflightCase]float64 {
	out := map[string]map[inflightCase]float64{}
	for _, r := range rows {
		if r.Unit != "us" || !positive(r.Value) {
			continue
		}
		p, ok := paramInts(copyinflightParam, r.Param)
		if !ok {
			continue
		}
		if out[r.Name] == nil {
			out[r.Name] = map[inflightCase]float64{}
		}
		out[r.Name][inflightCase{p[0], p[1], p[2]}] = r.Value * 1e-6
	}
	return out
}

// copyOverlap is α of a copy that took both seconds against its read and
// its write alone: (both − max(read, write)) / min(read, write), clipped
// to [0, 1].
func copyOverlap(both, read, write float64) float64 {
	a := (both - max(read, write)) / min(read, write)
	return min(1, max(0, a))
}

// applyCopyInflight sets DRAMWrite, the median over the write_inflight_gbs
// rows (bytes written over the time), and DRAMOverlap, the median over the
// copy_inflight rows of copyOverlap with the same case's read and write
// rows. Fewer than four rows of either, or a value out of range, leave
// both as they were.
func applyCopyInflight(m Model, rows []MicrobenchRow) Model {
	var rates []float64
	for _, r := range rows {
		if r.Name == "write_inflight_gbs" && r.Unit == "GB/s" && copyinflightParam.MatchString(r.Param) && positive(r.Value) {
			rates = append(rates, r.Value*1e9)
		}
	}
	t := copyinflightTimes(rows)
	var alphas []float64
	for c, tc := range t["copy_inflight"] {
		tr, okR := t["read_inflight"][c]
		tw, okW := t["write_inflight"][c]
		if okR && okW {
			alphas = append(alphas, copyOverlap(tc, tr, tw))
		}
	}
	if len(rates) < 4 || len(alphas) < 4 {
		return m
	}
	w, a := stats.Median(rates), stats.Median(alphas)
	if w < 1e9 || w > 1e14 || math.IsNaN(a) {
		return m
	}
	m.DRAMWrite, m.DRAMOverlap = w, a
	return m
}

// saxpyInflightErrors are the rule's errors on the saxpy rows, which it
// does not fit: saxpy(K) reads two arrays at 2K loads in flight a thread,
// as read(2K) reads one, and writes one as write(K); predicted
// max(2·t_read(2K), t_write(K)) + α·min(…), for K = 1, 2, 4. Each is
// predicted / measured − 1, by case.
func saxpyInflightErrors(rows []MicrobenchRow, alpha float64) map[inflightCase]float64 {
	t := copyinflightTimes(rows)
	out := map[inflightCase]float64{}
	for c, ts := range t["saxpy_inflight"] {
		tr, okR := t["read_inflight"][inflightCase{2 * c.k, c.v, c.log2n}]
		tw, okW := t["write_inflight"][c]
		if !okR || !okW {
			continue
		}
		r := 2 * tr
		out[c] = (max(r, tw)+alpha*min(r, tw))/ts - 1
	}
	return out
}

// copyinflightSource names DRAMWrite's and DRAMOverlap's rows and the
// embedded file they come from, or says the model has none.
func copyinflightSource(m Model) string {
	return microbenchSource(copyinflightFile(m.Key), m.DRAMWrite > 0,
		"none: no copyinflight microbenchmark for this model (written bytes go with the read bytes at the rate the loads in flight sustain)",
		func(file, device string) string {
			var errs []float64
			for _, e := range saxpyInflightErrors(calibrations()[copyinflightFile(m.Key)].rows, m.DRAMOverlap) {
				errs = append(errs, math.Abs(e))
			}
			return fmt.Sprintf("measured: DRAMWrite the median of write_inflight_gbs (%.2f TB/s), DRAMOverlap the median over copy_inflight's rows of (copy − max(read, write)) / min(read, write) (%.2f); saxpy_inflight's %d rows, not fitted, median |error| %.0f%% (%s; %s)", m.DRAMWrite/1e12, m.DRAMOverlap, len(errs), 100*stats.Median(errs), file, device)
		})
}

package sim

import (
	"fmt"
	"strconv"
)

// The L2's rate for stores' line transactions (issue 27, milestone 3),
// from the l2store microbenchmark (scripts/evidence/timemodel/l2store.cu,
// recorded on the H200 as evidence/timemodel-l2store-h200-2026-12-04,
// whose l2store.csv is embedded as sim/calibration/<key>-l2store.csv, a
// byte-for-byte copy TestCalibrationCopies holds to the recorded file).
// None is set from a sweep or lesson run.

// l2storeFile is the embedded copy of model key's l2store run.
func l2storeFile(key string) string { return key + "-l2store" }

// applyL2Store sets L2StoreLineSeconds: the slope of the least-squares line
// through the col_store rows, (N², µs) for N = 1024 to 8192: a thread of
// each stores one word of its own line (the naive transpose's store), so
// a warp's request is 32 line transactions and the grid's N² of them take
// the slope each (the intercept is the launch). Fewer than three rows, or
// a slope out of range, leave it as it was.
func applyL2Store(m Model, rows []MicrobenchRow) Model {
	var xs, ys []float64
	for _, r := range rows {
		if r.Name != "col_store" || r.Unit != "us" {
			continue
		}
		n, err := strconv.Atoi(r.Param)
		if err != nil || n <= 0 {
			continue
		}
		xs = append(xs, float64(n)*float64(n))
		ys = append(ys, r.Value*1e-6)
	}
	slope, _, ok := leastSquares(xs, ys)
	if !ok || len(xs) < 3 || slope <= 0 || slope > 1e-9 {
		return m
	}
	m.L2StoreLineSeconds = slope
	return m
}

// l2storeSource names L2StoreLineSeconds' rows and the embedded file they
// come from, or says the model has none.
func l2storeSource(m Model) string {
	return microbenchSource(l2storeFile(m.Key), m.L2StoreLineSeconds > 0,
		"none: no l2store microbenchmark for this model (a store's line transaction at the loads' rate, L2LineShare)",
		func(file, device string) string {
			return fmt.Sprintf("measured: the slope of the least-squares line through col_store's rows (an N×N matrix, N = 1,024 to 8,192, each thread storing one word of its own line, 32 line transactions a warp's request; the lessons' protocol): %.1f ps a store's line transaction, %.3g a second, against the loads' %.3g (%s; %s)", m.L2StoreLineSeconds*1e12, 1/m.L2StoreLineSeconds, m.L2LineShare*m.L2Bandwidth/32, file, device)
		})
}

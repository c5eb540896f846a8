package sim

import (
	"fmt"
	"strconv"

	"github.com/warplab/warplab/sim/timing"
)

// The L2's reuse capacity (issue 27, milestone 3), from the l2reuse
// microbenchmark (scripts/evidence/timemodel/l2reuse.cu, recorded on the
// H200 as evidence/timemodel-l2reuse-h200-2026-12-04, whose l2reuse.csv
// is embedded as sim/calibration/<key>-l2reuse.csv, a byte-for-byte copy
// TestCalibrationCopies holds to the recorded file). None is set from a
// sweep or lesson run.

// l2reuseFile is the embedded copy of model key's l2reuse run.
func l2reuseFile(key string) string { return key + "-l2reuse" }

// What l2reuse.cu launches: n gathers, each beside 8 streamed bytes (a
// float and an index), by 8 blocks of 256 threads an SM, each thread
// writing one float.
const (
	l2reuseN            = 1 << 26
	l2reuseStreamPerElt = 8
	l2reuseThreadsPerSM = 8 * 256
)

// applyL2Reuse sets L2ReuseBytes: the capacity at which the reuse rule
// (timing.RereadMissShare) best gives the l2reuse_dram rows' misses. Row
// X (MB) is one launch that streams 512 MB and gathers 2^26 times from X
// MB at random; its DRAM bytes less the stream-only launch's (row 0) and
// less X itself are the gathers' re-reads that missed, each a DRAM
// granule (DRAMGranuleBytes: a gather sends one sector). The capacity is
// the least-squares fit of the rule's miss share to those rows', searched
// over 1 MiB to twice the L2 by MiB and then by golden section. Fewer than
// three rows with gathers, or no stream row, leave it as it was.
func applyL2Reuse(m Model, rows []MicrobenchRow) Model {
	points := l2reusePoints(m, rows)
	if len(points) < 3 {
		return m
	}
	loss := func(capacity float64) float64 {
		var e float64
		for _, p := range points {
			d := l2reuseModeled(m, p.x, capacity) - p.measured
			e += d * d
		}
		return e
	}
	best, bestLoss := 0.0, 0.0
	for c := float64(1 << 20); c <= 2*float64(m.L2Bytes); c += 1 << 20 {
		if l := loss(c); best == 0 || l < bestLoss {
			best, bestLoss = c, l
		}
	}
	lo, hi := max(1<<20, best-(1<<20)), best+(1<<20)
	const phi = 0.6180339887498949
	for range 40 {
		a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
		if loss(a) < loss(b) {
			hi = b
		} else {
			lo = a
		}
	}
	if c := (lo + hi) / 2; c > 0 && c <= 2*float64(m.L2Bytes) {
		m.L2ReuseBytes = c
	}
	return m
}

// l2reuseSource names L2ReuseBytes' rows and the embedded file they come
// from, or says the model has none.
func l2reuseSource(m Model) string {
	return microbenchSource(l2reuseFile(m.Key), m.L2ReuseBytes > 0,
		"none: no l2reuse microbenchmark for this model (a re-read misses with probability 1 − L2Bytes / footprint when the footprint overflows the L2)",
		func(file, device string) string {
			return fmt.Sprintf("measured: the capacity at which the reuse rule best gives l2reuse_dram's misses (a 512 MB stream beside 2^26 random gathers from 1 to 256 MB, Nsight Compute's DRAM bytes of one launch each), least squares: %.1f MiB of the %d MiB L2 (%s; %s)", m.L2ReuseBytes/(1<<20), m.L2Bytes>>20, file, device)
		})
}

// l2reusePoint is one gather row of the l2reuse run: x's bytes and the
// share of the gathers' re-reads that missed L2.
type l2reusePoint struct{ x, measured float64 }

// l2reusePoints reads the l2reuse_dram rows: each row X (MB) less the
// stream-only row (X 0) and less X itself is its re-reads that missed, a
// DRAM granule each (DRAMGranuleBytes: a gather sends one sector), over
// its re-reads (the gathers less x's sectors). No stream row: none.
func l2reusePoints(m Model, rows []MicrobenchRow) []l2reusePoint {
	stream, ok := 0.0, false
	var points []l2reusePoint
	for _, r := range rows {
		if r.Name != "l2reuse_dram" || r.Unit != "B" {
			continue
		}
		mb, err := strconv.ParseFloat(r.Param, 64)
		switch {
		case err != nil || mb < 0:
		case mb == 0:
			stream, ok = r.Value, r.Value > 0
		default:
			points = append(points, l2reusePoint{x: mb * (1 << 20), measured: r.Value})
		}
	}
	if !ok {
		return nil
	}
	gran := max(32, m.DRAMGranuleBytes)
	for i, p := range points {
		rereads := float64(l2reuseN) - p.x/32
		points[i].measured = (p.measured - stream - p.x) / (rereads * gran)
	}
	return points
}

// l2reuseModeled is the reuse rule's miss share for l2reuse.cu's gathers
// from x bytes at the given capacity: the 512 MB stream read once, x
// gathered 2^26 times, a float written by each of the run's threads.
func l2reuseModeled(m Model, x, capacity float64) float64 {
	reads := []timing.BufferReads{
		{Unique: l2reuseN * l2reuseStreamPerElt, L2Sectors: l2reuseN * l2reuseStreamPerElt / 32,
			Lines: l2reuseN * l2reuseStreamPerElt / 128, LineTouches: l2reuseN * l2reuseStreamPerElt / 128},
		{Unique: int64(x), L2Sectors: l2reuseN, Lines: int64(x) / 128, LineTouches: l2reuseN},
	}
	return timing.RereadMissShare(reads, int64(m.SMs*l2reuseThreadsPerSM*4), 1, capacity)
}

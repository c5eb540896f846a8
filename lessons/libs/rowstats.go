package libs

import (
	"fmt"
	"math"
	"sort"
)

// RowStats are the row-length statistics the chooser reads: all of them are
// one pass over rowPtr, cheap next to one SpMV.
type RowStats struct {
	Rows   int     `json:"rows"`
	NNZ    int     `json:"nnz"`
	Min    int     `json:"min"`
	Max    int     `json:"max"`
	Mean   float64 `json:"mean"`
	Median int     `json:"median"`
	// CV is the coefficient of variation (standard deviation / mean) of the
	// row lengths: 0 when every row is alike.
	CV float64 `json:"cv"`
	// LongShare is the share of the nonzeros that sit in rows longer than
	// 4× the mean: the work a per-row mapping would leave to a few lanes.
	LongShare float64 `json:"long_share"`
	// XSectors is the columns' locality, XSectorsPerNonzero, for the
	// chooser's locality rule: 0 when unknown (a run recorded before it
	// was measured). Recorded once, as MatrixResult.XSectors, not here.
	XSectors float64 `json:"-"`
}

// StatsOf computes RowStats from the row lengths.
func StatsOf(lengths []int) RowStats {
	s := RowStats{Rows: len(lengths)}
	if len(lengths) == 0 {
		return s
	}
	s.Min = math.MaxInt
	for _, n := range lengths {
		s.NNZ += n
		s.Min = min(s.Min, n)
		s.Max = max(s.Max, n)
	}
	s.Mean = float64(s.NNZ) / float64(s.Rows)
	var ss float64
	long := 0
	for _, n := range lengths {
		d := float64(n) - s.Mean
		ss += d * d
		if float64(n) > 4*s.Mean {
			long += n
		}
	}
	if s.Mean > 0 {
		s.CV = math.Sqrt(ss/float64(s.Rows)) / s.Mean
	}
	if s.NNZ > 0 {
		s.LongShare = float64(long) / float64(s.NNZ)
	}
	sorted := append([]int(nil), lengths...)
	sort.Ints(sorted)
	s.Median = sorted[len(sorted)/2]
	return s
}

// Method names, the JSON's "kernel" for a run. A vector method is
// "vector<W>" or "vector<W>_v4".
const (
	MethodBinned = "binned"
	MethodMerge  = "merge_path"
	// MethodTile and MethodTileV4 are nonzero tiles (spmvTile): a warp
	// per TileNZ consecutive nonzeros, scalar or float4/int4 loads.
	MethodTile   = "tile"
	MethodTileV4 = "tile_v4"
)

// TileMethod names the nonzero-tile method, with float4/int4 loads when v4.
func TileMethod(v4 bool) string {
	if v4 {
		return MethodTileV4
	}
	return MethodTile
}

// VectorMethod names the CSR-vector method of width w.
func VectorMethod(w int, v4 bool) string {
	if v4 {
		return fmt.Sprintf("vector%d_v4", w)
	}
	return fmt.Sprintf("vector%d", w)
}

// SplitMethod names the split method of width w ("split4", "split4_v4").
func SplitMethod(w int, v4 bool) string {
	if v4 {
		return fmt.Sprintf("split%d_v4", w)
	}
	return fmt.Sprintf("split%d", w)
}

// Methods lists every method the lesson runs on a matrix, the chooser's
// candidates: ten CSR-vector variants, binned, merge path, ten split
// variants and the two nonzero-tile ones.
func Methods() []string {
	var out []string
	for _, w := range Widths {
		out = append(out, VectorMethod(w, false), VectorMethod(w, true))
	}
	out = append(out, MethodBinned, MethodMerge)
	for _, w := range Widths {
		out = append(out, SplitMethod(w, false), SplitMethod(w, true))
	}
	return append(out, MethodTile, MethodTileV4)
}

// parseSplit returns the width and v4 flag of a split method name.
func parseSplit(m string) (w int, v4, ok bool) {
	for _, ww := range Widths {
		switch m {
		case SplitMethod(ww, false):
			return ww, false, true
		case SplitMethod(ww, true):
			return ww, true, true
		}
	}
	return 0, false, false
}

// parseVector returns the width and v4 flag of a vector method name.
func parseVector(m string) (w int, v4, ok bool) {
	for _, ww := range Widths {
		switch m {
		case VectorMethod(ww, false):
			return ww, false, true
		case VectorMethod(ww, true):
			return ww, true, true
		}
	}
	return 0, false, false
}

// Thresholds of the chooser (see Choose).
const (
	SkewMaxOverMean = 8   // max row > 8× mean ...
	SkewMinMax      = 64  // ... and longer than two warp passes: skewed
	SpreadCV        = 0.5 // lengths spread this much (but no giant rows): binned
	V4MinMean       = 8.0 // rows hold two aligned quads on average: 16-byte loads
	lanesPerRowWork = 4.0 // each lane of a group should get about 4 nonzeros
)

// MergeCost is merge path's time per SpMV over the fastest streaming
// kernel's on a matrix that needs no balancing, the price of its searches,
// shared-memory staging and second launch. It is fitted on one half of the
// recorded H200 run (evidence/libs-spmv-h200-2026-12-01, the seed pair):
// on the even seed matrix merge path took 0.0482 ms against vector4's
// 0.0236 ms at 2^19 rows (2.04×) and 0.5433 against 0.2977 ms at 2^23
// (1.82×); rounded to 2. The four SuiteSparse matrices of the same run
// were left out of the fit, to check the rule on.
const MergeCost = 2.0

// LongestRowPasses is how many nonzeros one lane of binning's group for the
// longest row must do one after another: the row's length over its lanes
// (BinWidth's group, or a ThreadsPerBlock-thread block past BlockRowMin).
// It is binning's critical path: no schedule finishes that row sooner.
func LongestRowPasses(s RowStats) float64 {
	lanes := BinWidth(s.Max)
	if lanes == 0 {
		lanes = ThreadsPerBlock
	}
	return float64(s.Max) / float64(lanes)
}

// BalancedShare is how many nonzeros each of the device's resident threads
// gets when the work is spread evenly: the length of a perfectly balanced
// SpMV in the same units as LongestRowPasses.
func BalancedShare(s RowStats, residentThreads int) float64 {
	if residentThreads <= 0 {
		return 0
	}
	return float64(s.NNZ) / float64(residentThreads)
}

// WidthFor is the sub-warp width for rows of mean length mean: the power of
// two nearest above mean/4, from 2 to 32, so a lane gets about four
// nonzeros (four passes of scalar loads, or one float4). Narrower groups
// would leave the row to few lanes; wider ones would idle lanes on rows
// shorter than the group. It is widthFor with DefaultRules' LaneWork of 4.
func WidthFor(mean float64) int { return widthFor(mean, lanesPerRowWork) }

// widthFor is the narrowest power of two w from 2 to 32 with w × laneWork
// at least mean.
func widthFor(mean, laneWork float64) int {
	w := 2
	for w < 32 && float64(w)*laneWork < mean {
		w *= 2
	}
	return w
}

// Choice is the chooser's pick for one matrix and the reason, in words the
// notebook prints.
type Choice struct {
	Method string `json:"method"`
	Reason string `json:"reason"`
}

// shape says whether rows need balancing: skewed (the longest row over
// SkewMaxOverMean× the mean and over SkewMinMax) or spread (CV over
// SpreadCV).
func shape(s RowStats) (skewed, spread bool) {
	return s.Max > SkewMinMax && float64(s.Max) > SkewMaxOverMean*s.Mean, s.CV > SpreadCV
}

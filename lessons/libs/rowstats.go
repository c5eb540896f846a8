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
)

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
// candidates: ten CSR-vector variants, binned, merge path and ten split
// variants.
func Methods() []string {
	var out []string
	for _, w := range Widths {
		out = append(out, VectorMethod(w, false), VectorMethod(w, true))
	}
	out = append(out, MethodBinned, MethodMerge)
	for _, w := range Widths {
		out = append(out, SplitMethod(w, false), SplitMethod(w, true))
	}
	return out
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
// shorter than the group.
func WidthFor(mean float64) int {
	w := 2
	for w < 32 && float64(w)*lanesPerRowWork < mean {
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

// Choose picks the method for a matrix from its row statistics and the
// device's resident threads (SMs × threads per SM; 0 for a device of
// unknown size, which skips the size rule and the balance test):
//
//   - small (rows × WidthFor(mean) lanes would not fill the device once):
//     one launch of CSR-vector, as wide as filling the device asks (up to
//     32 lanes a row), because a matrix this small is latency-bound: a
//     second launch (binning, merge path's fixup) costs more than balance
//     saves, and wider groups finish each row in fewer dependent steps;
//   - uneven (the longest row is more than 8× the mean and longer than 64,
//     or the lengths' coefficient of variation is above 0.5): the rows need
//     balancing, by binning or by merge path. Binning gives each row a group
//     sized to it, and its critical path is the longest row
//     (LongestRowPasses); merge path splits even that row but costs about
//     MergeCost× a streaming kernel (measured). So merge path only when the
//     longest row's passes exceed MergeCost × BalancedShare — a few rows so
//     long that binning's widest group cannot finish them in the time the
//     whole device streams the rest — and binned otherwise. On a device of
//     unknown size a skewed matrix gets merge path, which no skew unbalances;
//   - otherwise even: CSR-vector at WidthFor(mean), with 16-byte loads when
//     the mean row holds at least 8 nonzeros.
//
// The rule reads only RowStats and the device's size, never a matrix's name.
func Choose(s RowStats, residentThreads int) Choice {
	if s.Rows == 0 || s.NNZ == 0 {
		return Choice{VectorMethod(2, false), "empty matrix: any kernel only writes zeros"}
	}
	if w := WidthFor(s.Mean); residentThreads > 0 && s.Rows*w < residentThreads {
		for w < WarpSize && s.Rows*w < residentThreads {
			w *= 2
		}
		return Choice{VectorMethod(w, false), fmt.Sprintf(
			"small: %d rows × %d lanes would not fill the device's %d resident threads once, so the SpMV is latency-bound; "+
				"one launch, %d lanes a row (%d threads), each row done in the fewest passes.",
			s.Rows, WidthFor(s.Mean), residentThreads, w, s.Rows*w)}
	}
	if skewed, spread := shape(s); skewed || spread {
		return chooseUneven(s, residentThreads, skewed)
	}
	w := WidthFor(s.Mean)
	v4 := s.Mean >= V4MinMean
	why := fmt.Sprintf("even: rows %d to %d (mean %.1f, CV %.2f); %d lanes a row gives each lane about %.0f nonzeros",
		s.Min, s.Max, s.Mean, s.CV, w, s.Mean/float64(w))
	if v4 {
		why += fmt.Sprintf(", and rows of %.0f hold aligned quads, so float4/int4 loads", s.Mean)
	} else {
		why += ", rows too short for float4 loads to pay"
	}
	return Choice{VectorMethod(w, v4), why + "."}
}

// shape says whether rows need balancing: skewed (the longest row over
// SkewMaxOverMean× the mean and over SkewMinMax) or spread (CV over
// SpreadCV).
func shape(s RowStats) (skewed, spread bool) {
	return s.Max > SkewMinMax && float64(s.Max) > SkewMaxOverMean*s.Mean, s.CV > SpreadCV
}

// chooseUneven is Choose's choice between binning and merge path for a
// matrix whose rows need balancing (see Choose).
func chooseUneven(s RowStats, residentThreads int, skewed bool) Choice {
	shape := fmt.Sprintf("skewed: longest row %d is %.0f× the mean %.1f, %.0f%% of the nonzeros in rows over 4× the mean",
		s.Max, float64(s.Max)/s.Mean, s.Mean, 100*s.LongShare)
	if !skewed {
		shape = fmt.Sprintf("spread: row lengths %d to %d, coefficient of variation %.2f > %.1f",
			s.Min, s.Max, s.CV, SpreadCV)
	}
	passes := LongestRowPasses(s)
	if residentThreads <= 0 {
		if skewed {
			return Choice{MethodMerge, shape + "; device size unknown, so merge path, which no skew can unbalance."}
		}
		return Choice{MethodBinned, shape + "; binning gives each length class its own group width."}
	}
	share := BalancedShare(s, residentThreads)
	if passes > MergeCost*share {
		return Choice{MethodMerge, fmt.Sprintf("%s. Binning's group for the longest row does %.1f nonzeros a lane in a row, "+
			"more than %.0f× the %.1f each of the %d resident threads gets when balanced: that row would be the critical path, "+
			"so merge path, which splits it (%d row ends plus nonzeros a thread).",
			shape, passes, MergeCost, share, residentThreads, MergeItems)}
	}
	return Choice{MethodBinned, fmt.Sprintf("%s. Binning's group for the longest row does %.1f nonzeros a lane in a row, "+
		"within %.0f× the %.1f each of the %d resident threads gets when balanced, so the long rows balance across the device "+
		"and binning beats merge path's %.0f× cost.",
		shape, passes, MergeCost, share, residentThreads, MergeCost)}
}

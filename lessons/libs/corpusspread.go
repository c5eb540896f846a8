package libs

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// The run-to-run spread of the goal's ratio. A pick "within 1.1× of our
// fastest" compares two times of one call; the same two methods on the
// same matrix in another call of the same kernels give another ratio. How
// far apart is measured here, from calls in evidence/, never assumed, and
// the goal line says how many of its misses are inside it.

// SpreadRuns are the evidence folders of H200 calls whose SpreadMethods
// ran the same kernels: the repeat call of 2026-12-04 02:15 UTC (2^14,
// 2^17, 2^20 rows and SuiteSparse), binning's call of 06:41 UTC that day
// and the corpus run (CorpusName, 2026-12-06 20:30 UTC). Those methods'
// kernels (CSR-vector, split, merge path) are the same in libs.cu from
// split's commit b09be8b, before the repeat call, to 9e94886 and on to the
// corpus run's build (libs.ptx as now, tiles of 512 in blocks of two
// warps; git diff: only the tiles' and binning's kernels changed), so the
// tiles and binning are left out. A corpus run with other CSR-vector, split or merge-path kernels
// must leave this list.
var SpreadRuns = []string{"libs-corpus-repeat-h200-2026-12-04", CorpusName, "libs-binning-h200-2026-12-04"}

// SpreadMethods says whether a method's kernel was the same in every call
// of SpreadRuns: CSR-vector, split and merge path.
func SpreadMethods(method string) bool {
	return strings.HasPrefix(method, "vector") || strings.HasPrefix(method, "split") || method == MethodMerge
}

// Spread is the measured run-to-run change of a method's time over
// another's on the same matrix, by size class (SizeClass: log2 of the
// rows, 0 for a file matrix).
type Spread struct {
	Runs   []string        // the folders it was measured on
	Median map[int]float64 // median |log change| of the ratio
	P90    map[int]float64 // its 90th percentile
	Pairs  map[int]int     // the ratios compared
}

// MeasureSpread compares every two runs of recs: for each matrix in both,
// the ratio of each method's time (same reports true, correct in both) to
// the fastest such method in the first run, against the same ratio in the
// second; |log| of their quotient, pooled by size class over every pair of
// runs.
func MeasureSpread(recs []*Recorded, same func(method string) bool) Spread {
	sp := Spread{Median: map[int]float64{}, P90: map[int]float64{}, Pairs: map[int]int{}}
	d := map[int][]float64{}
	for _, r := range recs {
		sp.Runs = append(sp.Runs, filepath.Base(r.Dir))
	}
	for i, a := range recs {
		for _, b := range recs[i+1:] {
			for _, ma := range a.Ours.Matrices {
				mb := b.Ours.Matrix(ma.Key)
				if mb == nil {
					continue
				}
				// the reference: the fastest method of the set in a
				// that b measured too.
				ref := ""
				refMs := 0.0
				for _, r := range ma.Runs {
					rb := mb.Run(r.Method)
					if same(r.Method) && r.Correct && r.TimeMs > 0 && rb.Correct && rb.TimeMs > 0 && (ref == "" || r.TimeMs < refMs) {
						ref, refMs = r.Method, r.TimeMs
					}
				}
				if ref == "" {
					continue
				}
				refB := mb.Run(ref).TimeMs
				size := SizeClass(ma.Key)
				for _, r := range ma.Runs {
					rb := mb.Run(r.Method)
					if r.Method == ref || !same(r.Method) || !r.Correct || r.TimeMs <= 0 || !rb.Correct || rb.TimeMs <= 0 {
						continue
					}
					d[size] = append(d[size], math.Abs(math.Log((rb.TimeMs/refB)/(r.TimeMs/refMs))))
				}
			}
		}
	}
	for size, xs := range d {
		sort.Float64s(xs)
		sp.Median[size] = quantile(xs, 0.5)
		sp.P90[size] = quantile(xs, 0.9)
		sp.Pairs[size] = len(xs)
	}
	return sp
}

// quantile of sorted xs, the nearest rank.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// Within says whether a pick over our fastest of ratio is inside 1.1× times
// the median spread of its size class (false where the class has none).
func (sp Spread) Within(size int, ratio float64) bool {
	m, ok := sp.Median[size]
	return ok && ratio <= 1.1*math.Exp(m)
}

// String is the spread per size class as percentages.
func (sp Spread) String() string {
	var parts []string
	for _, s := range sp.sizes() {
		parts = append(parts, fmt.Sprintf("%s %.1f%% (90th percentile %.1f%%, %d ratios)", sizeLabel(s),
			100*(math.Exp(sp.Median[s])-1), 100*(math.Exp(sp.P90[s])-1), sp.Pairs[s]))
	}
	return strings.Join(parts, ", ")
}

// sizes is the size classes the spread has, smallest first.
func (sp Spread) sizes() []int {
	sizes := slices.Collect(maps.Keys(sp.Median))
	slices.Sort(sizes)
	return sizes
}

func sizeLabel(size int) string {
	if size == 0 {
		return "SuiteSparse"
	}
	return fmt.Sprintf("2^%d", size)
}

// MissLine says how many of ls's picks over 1.1× our fastest are inside
// the spread at their size, and which are outside it.
func (sp Spread) MissLine(ls []CorpusLine) string {
	miss, within := 0, 0
	var outside []string
	for _, l := range ls {
		r := l.PickOverBest()
		if r <= 1.1 {
			continue
		}
		miss++
		if sp.Within(SizeClass(l.Key), r) {
			within++
		} else {
			outside = append(outside, fmt.Sprintf("%s %.2f×", l.Key, r))
		}
	}
	verb := "are"
	if within == 1 {
		verb = "is"
	}
	s := fmt.Sprintf("of the %d misses, %d %s within 1.1× × the run-to-run spread of the same ratio at their size (median change between calls of the same kernels: %s)",
		miss, within, verb, sp.Short())
	if len(outside) > 0 {
		s += "; outside it: " + strings.Join(outside, ", ")
	}
	return s
}

// Short is the median spread per size class, in percent.
func (sp Spread) Short() string {
	var parts []string
	for _, s := range sp.sizes() {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", sizeLabel(s), 100*(math.Exp(sp.Median[s])-1)))
	}
	return strings.Join(parts, ", ")
}

// FindSpread measures the spread on SpreadRuns found in evidence/ at or
// above the working directory (as FindCorpus finds its folder); the
// folders not found are left out, ErrNotRecorded when fewer than two are
// found.
func FindSpread() (Spread, error) {
	var recs []*Recorded
	for _, name := range SpreadRuns {
		rec, err := findEvidence(name, LoadCorpus)
		if errors.Is(err, ErrNotRecorded) {
			continue
		}
		if err != nil {
			return Spread{}, err
		}
		recs = append(recs, rec)
	}
	if len(recs) < 2 {
		return Spread{}, ErrNotRecorded
	}
	return MeasureSpread(recs, SpreadMethods), nil
}

// HeldoutLine is leave one family out as one goal line: its picks within
// 1.1× of our fastest, their geometric mean over it, and, with sp, how many
// of its misses are inside the spread (as MissLine).
func HeldoutLine(hs []Heldout, sp *Spread) string {
	var ls []CorpusLine
	within, logs := 0, 0.0
	for _, h := range hs {
		if h.OverBest() <= 1.1 {
			within++
		}
		logs += math.Log(h.OverBest())
		ls = append(ls, CorpusLine{Key: h.Key, Rows: sizeRows(h.Key), Pick: KernelRun{Method: h.Pick, TimeMs: h.PickMs}, Best: KernelRun{Method: h.Best, TimeMs: h.BestMs}})
	}
	s := fmt.Sprintf("leave one family out: within 1.1× of our fastest %d of %d, pick over our fastest %.3f× (geometric mean)", within, len(hs), math.Exp(logs/float64(max(1, len(hs)))))
	if sp != nil {
		s += "; " + sp.MissLine(ls)
	}
	return s
}

// sizeRows is the rows a key's size class names (2^k), 0 for a file.
func sizeRows(key string) int {
	if k := SizeClass(key); k > 0 {
		return 1 << k
	}
	return 0
}

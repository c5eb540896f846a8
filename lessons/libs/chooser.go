package libs

import (
	"fmt"
	"math"
	"strings"
)

// The chooser. Its rules come in a fixed order, set by what each term of an
// SpMV's time can cost, largest first:
//
//	time ≈ launches × launch cost + max(critical path, nonzeros / device rate)
//
// and every term is read off statistics the chooser has before anything
// runs: rows, nonzeros, the longest and the median row, the coefficient of
// variation, the device's resident threads, and, where it was measured,
// the columns' locality (XSectorsPerNonzero).
//
//  1. The critical path of the longest row has no bound: one group of W lanes
//     needs len/W dependent passes for it however small the rest is (one
//     dense row of 46,500 in a matrix of 3 nonzeros a row made CSR-vector
//     18× slower than merge path on the H200, issue 29). So a long row
//     outranks everything, "small" included: split<W>, whose one launch
//     cuts every row longer than SplitPasses passes into warps, or nonzero
//     tiles (tile, tile_v4), whose warps each take TileNZ consecutive
//     nonzeros whatever the rows: neither has a critical path longer than
//     16 passes, and the fit says which costs less per nonzero (LongTile),
//     and whether a small matrix's is the tiles (SmallTile, as rule 2).
//  2. Launches cost a few µs each, which matters only when the SpMV is a few
//     µs itself: a matrix whose natural launch (rows × the natural width)
//     fills under SmallFill of the device's resident threads is at the
//     launch floor, and gets one launch: the nonzero tiles, which start the
//     fewest warps of any method (nonzeros / TileNZ) with no row longer
//     than another's (SmallTile), or one wide CSR-vector launch. It comes
//     after rule 1 because a long row's path is not bounded by the size;
//     the nonzeros / rate term it neglects is.
//  3. Rows spread in length idle the lanes of a warp on its shorter rows: at
//     most the group's width over the typical row, a bounded factor. Binned,
//     split or nonzero tiles, as measured.
//  4. Width and load width move a streaming kernel by tens of percent:
//     CSR-vector at the width that gives a lane LaneWork nonzeros, float4
//     loads from a median row of V4MinMean.
//
// Column locality (LocalTile) is not a fifth rule but a choice inside
// rules 1 and 3, and rule 2 where it picked the tiles (wherever the pick
// is not CSR-vector): it moves neither a critical path nor a launch count,
// only the bytes each nonzero's gather of x costs, a bandwidth term of the
// same size as rule 4's. Where the columns are local (few sectors of x a
// warp's 32 consecutive nonzeros, XSectorsPerNonzero at most LocalTile)
// the gathers are cheap and the matrix's own stream is the bound, which
// the float4 nonzero tiles read coalesced whatever the rows; where they
// are scattered the gathers dominate and the rules' own method stands. So
// it can never outrank a long row or "small", and it never turns a
// CSR-vector pick (an even matrix, or a small one without SmallTile) into
// tiles.
//
// The order is not fitted. The thresholds and the method each rule picks
// (Rules) are: Fit picks them from measured per-method times, and
// LeaveOneFamilyOut judges them on families they were not fitted on.

// Rules are the chooser's thresholds.
type Rules struct {
	// LongFactor: rule 1 fires when the longest row's passes at the
	// natural width exceed SplitPasses and LongFactor × the balanced share
	// (the nonzeros each resident thread gets when the work is spread
	// evenly, at least 1).
	LongFactor float64 `json:"long_factor"`
	// SpreadCV: rule 3 fires above this coefficient of variation of the
	// row lengths; SpreadSplit picks split<W> there, else binned.
	SpreadCV    float64 `json:"spread_cv"`
	SpreadSplit bool    `json:"spread_split"`
	// SpreadTile picks nonzero tiles there instead (over SpreadSplit).
	SpreadTile bool `json:"spread_tile,omitempty"`
	// LongTile: rule 1 picks nonzero tiles instead of split<W>.
	LongTile bool `json:"long_tile,omitempty"`
	// LaneWork is the nonzeros a lane should get: the natural width is the
	// narrowest power of two W (2..32) with W × LaneWork ≥ the median row.
	LaneWork float64 `json:"lane_work"`
	// V4MinMean: float4 loads when the median row holds at least this many
	// nonzeros (+Inf: never).
	V4MinMean float64 `json:"v4_min_mean"`
	// LocalTile: where rule 1 or 3 fires and the columns' locality is
	// known and at most LocalTile x sectors a nonzero, the float4 nonzero
	// tiles (tile_v4) instead of the rule's method (0: never).
	LocalTile float64 `json:"local_tile,omitempty"`
	// SmallTile: a small matrix (rule 2's test) gets nonzero tiles, from
	// rule 2 instead of one wide CSR-vector launch and from rule 1 when it
	// has a long row too.
	SmallTile bool `json:"small_tile,omitempty"`
	// SmallFill: rule 2 fires when rows × the natural width are under
	// SmallFill × the resident threads (0 means 1).
	SmallFill float64 `json:"small_fill,omitempty"`
}

// defaultRules are the rules Choose uses: Fit's answer on every matrix of
// the H200 corpus run (evidence/libs-corpus-h200-2026-12-06, 20:30 UTC, 52
// matrices, every method timed, the tiles at 512 nonzeros a warp in blocks
// of two warps with a full tile's loads unrolled; its held-out seed-2
// draws are not in the fit): a long row beyond 2× the balanced share to
// the tiles, small (rows × width under the resident threads) to the tiles,
// spread above CV 0.5 to binned, 8 nonzeros a lane, no float4 loads. Their
// loss there is 0.0495; the rules fitted on the 08:07 UTC run of the same
// day (the tiles in blocks of eight warps: long rows beyond 64× to split,
// small to one wide CSR-vector launch, spread to the tiles, float4 from 32,
// local columns to tile_v4) judge 31 of this run's 52 within 1.1× of our
// fastest against these rules' 38, most of the difference at 2^14 rows,
// where a method's time moves 15% at the median from call to call
// (Spread); on the held-out draws they do better (20 of 24 against 15: the
// lessons/libs README). TestCorpusRun fails when they are not the fit of
// the recorded run.
var defaultRules = Rules{LongFactor: 2, SpreadCV: 0.5, LongTile: true, LaneWork: 8, V4MinMean: math.Inf(1), SmallTile: true, SmallFill: 1}

// DefaultRules returns the rules Choose uses (a copy: no global state
// changes through it).
func DefaultRules() Rules { return defaultRules }

func (r Rules) String() string {
	v4 := fmt.Sprintf("%g", r.V4MinMean)
	if math.IsInf(r.V4MinMean, 1) {
		v4 = "never"
	}
	cv := fmt.Sprintf("%g", r.SpreadCV)
	if math.IsInf(r.SpreadCV, 1) {
		cv = "never"
	}
	spread := MethodBinned
	if r.SpreadTile {
		spread = "tile"
	} else if r.SpreadSplit {
		spread = "split"
	}
	long := "split"
	if r.LongTile {
		long = "tile"
	}
	small := "one wide CSR-vector launch"
	if r.SmallTile {
		small = "tiles"
	}
	fill := r.SmallFill
	if fill <= 0 {
		fill = 1
	}
	out := fmt.Sprintf("long row > %g× balanced share → %s; small (rows × width < %g of resident) → %s; spread CV > %s → %s; %g nonzeros a lane; float4 from %s", r.LongFactor, long, fill, small, cv, spread, r.LaneWork, v4)
	if r.LocalTile > 0 {
		out += fmt.Sprintf("; there, x sectors a nonzero ≤ %g → tile_v4", r.LocalTile)
	}
	return out
}

// Choose picks the method for a matrix from its row statistics and the
// device's resident threads (SMs × threads per SM; 0 for a device of
// unknown size, which skips the size rule), by DefaultRules. It reads only
// RowStats and the device's size, never a matrix's name.
func Choose(s RowStats, residentThreads int) Choice {
	return ChooseWith(defaultRules, s, residentThreads)
}

// ChooseWith is Choose by the given rules, in the fixed order above.
func ChooseWith(r Rules, s RowStats, residentThreads int) Choice {
	return choose(r, s, residentThreads, true)
}

// pickWith is ChooseWith's method alone: Fit and LeaveOneFamilyOut ask it
// thousands of times, and the reasons' formatting was most of their time.
func pickWith(r Rules, s RowStats, residentThreads int) string {
	return choose(r, s, residentThreads, false).Method
}

// choose is ChooseWith: the four rules, then the locality choice inside
// rules 1 and 3 (local); with explain false the reasons are left empty.
func choose(r Rules, s RowStats, residentThreads int, explain bool) Choice {
	c := chooseRules(r, s, residentThreads, explain)
	if m := localPick(r.LocalTile, s.XSectors, c.Method); m != c.Method {
		if explain {
			c.Reason += fmt.Sprintf(" But the columns are local, %.3f sectors of x a nonzero (≤ %g): the gathers are cheap and the matrix's stream is the bound, so the float4 nonzero tiles, which read it coalesced whatever the rows.", s.XSectors, r.LocalTile)
		}
		c.Method = m
	}
	return c
}

// localPick is the locality choice: method, as rules 1 to 4 picked it, or
// tile_v4 where the pick is anything but CSR-vector (a balancing method of
// rule 1 or 3, or rule 2's tiles) and the locality xs is known and at most
// localTile. Fit
// applies it to the rules' picks with LocalTile 0, as choose does.
func localPick(localTile, xs float64, method string) string {
	if localTile <= 0 || xs <= 0 || xs > localTile || strings.HasPrefix(method, "vector") {
		return method
	}
	return MethodTileV4
}

// chooseRules is rules 1 to 4 in their order.
func chooseRules(r Rules, s RowStats, residentThreads int, explain bool) Choice {
	sprintf := func(format string, a ...any) string {
		if !explain {
			return ""
		}
		return fmt.Sprintf(format, a...)
	}
	if s.Rows == 0 || s.NNZ == 0 {
		return Choice{VectorMethod(2, false), "empty matrix: any kernel only writes zeros"}
	}
	w := widthFor(float64(s.Median), r.LaneWork)
	v4 := float64(s.Median) >= r.V4MinMean
	share := 1.0
	if residentThreads > 0 {
		share = max(1, BalancedShare(s, residentThreads))
	}
	fill := r.SmallFill
	if fill <= 0 {
		fill = 1
	}
	small := residentThreads > 0 && float64(s.Rows*w) < fill*float64(residentThreads)
	// 1. A long row: its passes at the natural width against the balanced
	// share.
	if passes := float64(s.Max) / float64(w); passes > SplitPasses && passes > r.LongFactor*share {
		why := sprintf("long row: the longest row (%d) is %.0f passes of a %d-lane group, more than %g× the %.1f nonzeros each of the %d resident threads gets when balanced: "+
			"it would be the critical path, whatever the size, so ", s.Max, passes, w, r.LongFactor, share, residentThreads)
		switch {
		case small && r.SmallTile:
			return Choice{TileMethod(v4), why + sprintf(
				"nonzero tiles, which also serve a small matrix (%d rows × %d lanes under the %d resident threads) best: one launch of the fewest warps (%d nonzeros each, whatever the rows), a row crossing tiles finished by its last piece.",
				s.Rows, w, residentThreads, TileNZ)}
		case r.LongTile:
			return Choice{TileMethod(v4), why + sprintf(
				"nonzero tiles: one launch, every warp %d consecutive nonzeros whatever the rows, a row crossing tiles finished by its last piece.", TileNZ)}
		}
		return Choice{SplitMethod(w, v4), why + sprintf(
			"split%d: one launch, rows up to %d by groups of %d in order, longer rows cut into warps of %d nonzeros.",
			w, SplitLongMin(w), w, SplitChunk)}
	}
	// 2. Small: one launch.
	if small {
		if r.SmallTile {
			return Choice{TileMethod(v4), sprintf(
				"small: %d rows × %d lanes would not fill the device's %d resident threads once, so the SpMV is at the launch floor; "+
					"one launch of nonzero tiles, the fewest warps of any method (%d, each %d consecutive nonzeros whatever the rows).",
				s.Rows, w, residentThreads, (s.NNZ+TileNZ-1)/TileNZ, TileNZ)}
		}
		wide := w
		for wide < WarpSize && s.Rows*wide < residentThreads {
			wide *= 2
		}
		return Choice{VectorMethod(wide, false), sprintf(
			"small: %d rows × %d lanes would not fill the device's %d resident threads once, so the SpMV is latency-bound; "+
				"one launch, %d lanes a row (%d threads), each row done in the fewest passes.",
			s.Rows, w, residentThreads, wide, s.Rows*wide)}
	}
	// 3. Spread.
	if s.CV > r.SpreadCV {
		why := sprintf("spread: row lengths %d to %d, coefficient of variation %.2f > %g, no row long enough to be the critical path", s.Min, s.Max, s.CV, r.SpreadCV)
		if r.SpreadTile {
			return Choice{TileMethod(v4), why + sprintf("; nonzero tiles give every warp %d consecutive nonzeros, whatever the rows, in one launch.", TileNZ)}
		}
		if r.SpreadSplit {
			return Choice{SplitMethod(w, v4), why + sprintf("; split%d keeps one launch and gives rows over %d their own warps.", w, SplitLongMin(w))}
		}
		return Choice{MethodBinned, why + "; binning gives each length class its own group width."}
	}
	// 4. Even.
	why := sprintf("even: rows %d to %d (median %d, CV %.2f); %d lanes a row gives each lane about %.0f nonzeros",
		s.Min, s.Max, s.Median, s.CV, w, float64(s.Median)/float64(w))
	switch {
	case v4:
		why += sprintf(", and rows of %d hold aligned quads, so float4/int4 loads", s.Median)
	case math.IsInf(r.V4MinMean, 1):
		why += ", scalar loads (the fitted rules never use float4)"
	default:
		why += ", rows too short for float4 loads to pay"
	}
	return Choice{VectorMethod(w, v4), why + "."}
}

// LocalTiles are the locality thresholds Fit tries for each of
// baseRulesGrid's rules, 0 (off) first so that it wins ties: around the
// corpus's clustered power-law columns at 2^20 (0.24-0.29) and the
// dense-rows and stencil families (0.35, 0.52); random columns read 1.
var LocalTiles = []float64{0, 0.3, 0.4, 0.55}

// RulesGrid is the thresholds Fit tries, in the order it breaks ties by
// (the first of equal losses wins): every combination of these values,
// LocalTiles innermost.
func RulesGrid() []Rules {
	var out []Rules
	for _, r := range baseRulesGrid() {
		for _, lt := range LocalTiles {
			r.LocalTile = lt
			out = append(out, r)
		}
	}
	return out
}

// baseRulesGrid is RulesGrid without the locality threshold (LocalTile 0).
func baseRulesGrid() []Rules {
	var out []Rules
	inf := math.Inf(1)
	for _, lf := range []float64{2, 1, 4, 8, 16, 32, 64} {
		for _, cv := range []float64{0.5, 1, 2, 4, inf} {
			for _, sp := range []struct{ split, tile bool }{{false, false}, {true, false}, {false, true}} {
				for _, lw := range []float64{4, 2, 8, 1} {
					for _, v4 := range []float64{8, 4, 16, 32, inf} {
						for _, lt := range []bool{false, true} {
							for _, st := range []bool{false, true} {
								for _, sf := range []float64{1, 0.5, 0.25} {
									out = append(out, Rules{LongFactor: lf, SpreadCV: cv, SpreadSplit: sp.split, SpreadTile: sp.tile, LaneWork: lw, V4MinMean: v4, LongTile: lt, SmallTile: st, SmallFill: sf})
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// Loss is the rules' cost on measured matrices: the mean over them of
// log(time of the pick / time of the fastest method measured), so 0 when
// every pick is the fastest and log 1.1 when every pick is 1.1× it. A pick
// that was not measured makes the loss +Inf (the rules cannot be judged).
func Loss(r Rules, ms []MatrixResult, residentThreads int) float64 {
	if len(ms) == 0 {
		return 0
	}
	return lossOf(ms, func(i int) string { return pickWith(r, ms[i].ChooserStats(), residentThreads) })
}

// lossOf is Loss of the picks pick(i) on ms.
func lossOf(ms []MatrixResult, pickOf func(i int) string) float64 {
	if len(ms) == 0 {
		return 0
	}
	var sum float64
	for i, m := range ms {
		pick := m.Run(pickOf(i))
		best := m.Best()
		if pick.TimeMs <= 0 || !pick.Correct || best.TimeMs <= 0 {
			return math.Inf(1)
		}
		sum += math.Log(pick.TimeMs / best.TimeMs)
	}
	return sum / float64(len(ms))
}

// fitSet is a set of measured matrices grouped by family, ready for Fit's
// sweep of RulesGrid: each matrix's log(time / fastest) per method, looked
// up instead of searched for each of the grid's rules.
type fitSet struct {
	stats []RowStats
	xs    []float64
	fam   []int                // each matrix's family, an index into fams
	fams  []string             // in order of first appearance
	n     []int                // matrices per family
	logs  []map[string]float64 // +Inf where the method was not measured, or wrong
}

func newFitSet(ms []MatrixResult) *fitSet {
	f := &fitSet{}
	idx := map[string]int{}
	for _, m := range ms {
		fam := Family(m.Key)
		i, ok := idx[fam]
		if !ok {
			i = len(f.fams)
			idx[fam] = i
			f.fams = append(f.fams, fam)
			f.n = append(f.n, 0)
		}
		f.n[i]++
		f.fam = append(f.fam, i)
		f.stats = append(f.stats, m.ChooserStats())
		f.xs = append(f.xs, m.XSectors)
		best := m.Best()
		l := map[string]float64{}
		for _, r := range m.Runs {
			if r.TimeMs > 0 && r.Correct && best.TimeMs > 0 {
				l[r.Method] = math.Log(r.TimeMs / best.TimeMs)
			}
		}
		f.logs = append(f.logs, l)
	}
	return f
}

func (f *fitSet) log(i int, method string) float64 {
	if l, ok := f.logs[i][method]; ok {
		return l
	}
	return math.Inf(1)
}

// sweep calls visit for each rules of RulesGrid, in its order, with the
// sum of log(pick / fastest) over each family's matrices (in order of the
// matrices). The four rules' picks are made once per base rules and the
// locality choice applied to them per threshold (what choose does); a
// threshold that moves no pick is skipped (its sums are LocalTile 0's,
// which came first).
func (f *fitSet) sweep(residentThreads int, grid []Rules, visit func(r Rules, famSums []float64)) {
	picks := make([]string, len(f.stats))
	sums := make([]float64, len(f.fams))
	for _, r := range grid {
		for i, s := range f.stats {
			picks[i] = pickWith(r, s, residentThreads)
		}
		for _, lt := range LocalTiles {
			moved := lt == 0
			for i := range picks {
				moved = moved || localPick(lt, f.xs[i], picks[i]) != picks[i]
			}
			if !moved {
				continue
			}
			clear(sums)
			for i, p := range picks {
				sums[f.fam[i]] += f.log(i, localPick(lt, f.xs[i], p))
			}
			r.LocalTile = lt
			visit(r, sums)
		}
	}
}

// Fit returns the rules of RulesGrid with the least Loss on ms (the first
// such in the grid's order) and that loss. The loss is summed family by
// family (families in order of first appearance), so that
// LeaveOneFamilyOut, which sums the same family sums without one family,
// finds exactly Fit's answer on the other families.
func Fit(ms []MatrixResult, residentThreads int) (Rules, float64) {
	if len(ms) == 0 {
		return Rules{}, math.Inf(1)
	}
	f := newFitSet(ms)
	best, bestLoss := Rules{}, math.Inf(1)
	f.sweep(residentThreads, baseRulesGrid(), func(r Rules, sums []float64) {
		var total float64
		for _, s := range sums {
			total += s
		}
		if l := total / float64(len(ms)); l < bestLoss {
			best, bestLoss = r, l
		}
	})
	return best, bestLoss
}

// Heldout is one matrix judged by rules fitted without its family.
type Heldout struct {
	Key, Family string
	Rules       Rules   // fitted on every other family
	Pick        string  // those rules' pick
	PickMs      float64 // its measured time
	Best        string  // our fastest method measured
	BestMs      float64
	PeerMs      float64 // cuSPARSE's best, 0 without a peer line
}

// OverBest is the pick's time over our fastest.
func (h Heldout) OverBest() float64 { return h.PickMs / h.BestMs }

// OverPeer is the pick's time over cuSPARSE's best, 0 without one.
func (h Heldout) OverPeer() float64 {
	if h.PeerMs <= 0 {
		return 0
	}
	return h.PickMs / h.PeerMs
}

// LeaveOneFamilyOut judges the chooser as the issue asks: for every family
// of r's matrices (Family of the key), the rules are fitted on all the
// other families' matrices and applied to this family's, and each of its
// matrices gets the pick's measured time beside our fastest and, where
// peer has lines, cuSPARSE's best. A family whose fitted rules pick a
// method r did not measure is an error.
func LeaveOneFamilyOut(r *Result, peer []PeerRun) ([]Heldout, error) {
	return leaveOneFamilyOut(r, peer, baseRulesGrid())
}

// leaveOneFamilyOut is LeaveOneFamilyOut over the base rules grid (each
// with LocalTiles): a smaller grid gives what the chooser did before a
// choice was added to it.
func leaveOneFamilyOut(r *Result, peer []PeerRun, grid []Rules) ([]Heldout, error) {
	return judgeHeldout(r, r, peer, grid)
}

// UnseenHeldout judges the held-out draws twice held out: each of
// unseen's matrices by the rules fitted on fit's matrices without its
// family (as LeaveOneFamilyOut fits them), so neither the draw nor any
// matrix of its family was in the fit. A family of unseen that fit lacks
// is an error.
func UnseenHeldout(fit, unseen *Recorded) ([]Heldout, error) {
	return judgeHeldout(fit.Ours, unseen.Ours, unseen.Peer, baseRulesGrid())
}

// judgeHeldout fits the rules without each family of fit's matrices and
// judges judge's matrices of that family by them.
func judgeHeldout(fit, judge *Result, peer []PeerRun, grid []Rules) ([]Heldout, error) {
	resident, err := ResidentThreadsOf(fit)
	if err != nil {
		return nil, err
	}
	byFam := map[string][]MatrixResult{}
	var fams []string
	for _, m := range fit.Matrices {
		f := Family(m.Key)
		if _, ok := byFam[f]; !ok {
			fams = append(fams, f)
		}
		byFam[f] = append(byFam[f], m)
	}
	// One sweep of the grid gives every rules' sum per family; leaving
	// family f out is the same sums without f's, which is Fit on the
	// other families (Fit sums family by family in the same order).
	all := make([]MatrixResult, 0, len(fit.Matrices))
	for _, f := range fams {
		all = append(all, byFam[f]...)
	}
	set := newFitSet(all)
	type held struct {
		rules Rules
		loss  float64
		n     int
	}
	fits := make([]held, len(set.fams))
	for i := range fits {
		fits[i].loss = math.Inf(1)
		fits[i].n = len(all) - set.n[i]
	}
	set.sweep(resident, grid, func(rules Rules, sums []float64) {
		for out := range fits {
			var total float64
			for g, s := range sums {
				if g != out {
					total += s
				}
			}
			if l := total / float64(fits[out].n); l < fits[out].loss {
				fits[out].rules, fits[out].loss = rules, l
			}
		}
	})
	famIndex := map[string]int{}
	for i, f := range set.fams {
		famIndex[f] = i
	}
	judged := map[string][]MatrixResult{}
	var order []string
	for _, m := range judge.Matrices {
		f := Family(m.Key)
		if _, ok := famIndex[f]; !ok {
			return nil, fmt.Errorf("libs: %s: family %s is not in the fitted run", m.Key, f)
		}
		if _, ok := judged[f]; !ok {
			order = append(order, f)
		}
		judged[f] = append(judged[f], m)
	}
	var out []Heldout
	for _, f := range order {
		fi := famIndex[f]
		rules, loss := fits[fi].rules, fits[fi].loss
		if math.IsInf(loss, 1) || fits[fi].n == 0 {
			return nil, fmt.Errorf("libs: leaving out %s: no rules in the grid have all their picks measured on the other families", f)
		}
		for _, m := range judged[f] {
			pick := pickWith(rules, m.ChooserStats(), resident)
			run, best := m.Run(pick), m.Best()
			if run.TimeMs <= 0 {
				return nil, fmt.Errorf("libs: %s: the rules fitted without %s pick %s, which was not measured", m.Key, f, pick)
			}
			h := Heldout{Key: m.Key, Family: f, Rules: rules, Pick: pick, PickMs: run.TimeMs, Best: best.Method, BestMs: best.TimeMs}
			if p, ok := PeerBest(peer, m.Key); ok {
				h.PeerMs = p.MeanMs
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// FamilySummary is LeaveOneFamilyOut per family: its matrices, the worst
// and geometric-mean pick over our fastest, and over cuSPARSE's best.
type FamilySummary struct {
	Family                   string
	Matrices                 int
	WorstBest, GeoBest       float64
	WorstPeer, GeoPeer       float64 // 0 without peer lines
	Rules                    Rules
	WorstKey, WorstPeerKey   string
	PeerMatrices, WithinGoal int // matrices with a peer line; picks within 1.1× our fastest
}

// SummarizeHeldout groups LeaveOneFamilyOut's lines by family, in order.
func SummarizeHeldout(hs []Heldout) []FamilySummary {
	var out []FamilySummary
	idx := map[string]int{}
	logs := map[string][2]float64{}
	for _, h := range hs {
		i, ok := idx[h.Family]
		if !ok {
			i = len(out)
			idx[h.Family] = i
			out = append(out, FamilySummary{Family: h.Family, Rules: h.Rules})
		}
		s := &out[i]
		s.Matrices++
		l := logs[h.Family]
		l[0] += math.Log(h.OverBest())
		if h.OverBest() > s.WorstBest {
			s.WorstBest, s.WorstKey = h.OverBest(), h.Key
		}
		if h.OverBest() <= 1.1 {
			s.WithinGoal++
		}
		if p := h.OverPeer(); p > 0 {
			s.PeerMatrices++
			l[1] += math.Log(p)
			if p > s.WorstPeer {
				s.WorstPeer, s.WorstPeerKey = p, h.Key
			}
		}
		logs[h.Family] = l
	}
	for i := range out {
		l := logs[out[i].Family]
		out[i].GeoBest = math.Exp(l[0] / float64(out[i].Matrices))
		if out[i].PeerMatrices > 0 {
			out[i].GeoPeer = math.Exp(l[1] / float64(out[i].PeerMatrices))
		}
	}
	return out
}

package libs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/warplab/warplab/table"
)

// CorpusName is the evidence folder of issue 29's H200 run over the corpus
// (scripts/evidence/libs-corpus.sh): one libs-<batch>.json per batch (a
// size, or one power-law family at 2^23) and cusparse.jsonl from the same
// call (the 08:07 UTC run it replaced, in git history at 7097d03, also had
// Nsight Compute's counters on the two worst cases).
const CorpusName = "libs-corpus-h200-2026-12-06"

// UnseenSeed and UnseenRows are the corpus's held-out draws (issue 29:
// "we also run matrices you have not seen"): every sparse/gen family
// generated from a second seed, at 2^17 and 2^20 rows (`warplab run libs
// --unseen`). The shapes are the families', the matrices are other draws
// (other row lengths, other columns, other longest rows). Their keys carry
// the seed (FamilySeedKey: "powerlaw20-s2-2^20"); LoadCorpus leaves them
// out of the run the chooser is fitted and judged on, and LoadUnseen reads
// them alone, so no rule is ever fitted on them.
const UnseenSeed = 2

// UnseenRows are the held-out draws' sizes: the two sizes where the
// measurements resolve 1.1× (at 2^14 the launch floor moves more than that
// between calls), and where a draw takes seconds to generate.
var UnseenRows = []int{1 << 17, 1 << 20}

// FamilySeedKey names a generated matrix drawn from seed: FamilyKey for the
// corpus's CorpusSeed ("powerlaw20-2^20", as every recorded run names it),
// else with the seed between the family and the size ("powerlaw20-s2-2^20"),
// so that two draws of one family and size never share a key, Family still
// reads the family and the size stays last.
func FamilySeedKey(family string, rows int, seed uint64) string {
	if seed == CorpusSeed || seed == 0 {
		return FamilyKey(family, rows)
	}
	return FamilyKey(fmt.Sprintf("%s-s%d", family, seed), rows)
}

// KeySeed is the generator seed a matrix key names: the n of "-s<n>-"
// (FamilySeedKey), CorpusSeed for every other key (the corpus's families,
// the seed pair, files).
func KeySeed(key string) uint64 {
	parts := strings.Split(key, "-")
	if len(parts) == 3 && strings.HasPrefix(parts[1], "s") && strings.HasPrefix(parts[2], "2^") {
		if n, err := strconv.ParseUint(parts[1][1:], 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return CorpusSeed
}

// Unseen says whether a matrix is one of the held-out draws: a generated
// matrix from a seed other than CorpusSeed.
func Unseen(key string) bool { return KeySeed(key) != CorpusSeed }

// LoadCorpus reads a corpus run: every libs-*.json in dir merged into one
// Result (the batches of 2^14, 2^17, 2^20 rows in that order, then the
// 2^23 families), and cusparse.jsonl. Device, driver, date and protocol
// are the first batch's; the copy reference is the batch that measured it.
// The held-out draws (Unseen keys) are left out: LoadUnseen reads them.
func LoadCorpus(dir string) (*Recorded, error) {
	return loadCorpus(dir, func(key string) bool { return !Unseen(key) })
}

// LoadUnseen reads the held-out draws of a corpus run (Unseen keys) alone,
// with the same device, copy reference and peer lines as LoadCorpus;
// ErrNotRecorded when the run has none.
func LoadUnseen(dir string) (*Recorded, error) {
	rec, err := loadCorpus(dir, Unseen)
	if err == nil && len(rec.Ours.Matrices) == 0 {
		return nil, ErrNotRecorded
	}
	return rec, err
}

// FindUnseen is LoadUnseen on evidence/CorpusName, found as FindCorpus
// finds it.
func FindUnseen() (*Recorded, error) { return findEvidence(CorpusName, LoadUnseen) }

// UnseenOrNote is FindUnseen for a notebook cell: nil and a note on w when
// the corpus run has no held-out draws (or is not in evidence/).
func UnseenOrNote(w interface{ Write([]byte) (int, error) }) (*Recorded, error) {
	rec, err := FindUnseen()
	if errors.Is(err, ErrNotRecorded) {
		_, werr := fmt.Fprintf(w, "evidence/%s has no held-out draws (keys family-s%d-2^k, `warplab run libs --unseen`): nothing measured to show.\n", CorpusName, UnseenSeed)
		return nil, werr
	}
	return rec, err
}

// SpreadOrNote is FindSpread for a notebook cell: nil and a note on w when
// fewer than two of SpreadRuns are in evidence/.
func SpreadOrNote(w interface{ Write([]byte) (int, error) }) (*Spread, error) {
	sp, err := FindSpread()
	if errors.Is(err, ErrNotRecorded) {
		_, werr := fmt.Fprintf(w, "fewer than two of %s are in evidence/ here: the run-to-run spread is not measured.\n", strings.Join(SpreadRuns, ", "))
		return nil, werr
	}
	if err != nil {
		return nil, err
	}
	return &sp, nil
}

// loadCorpus is LoadCorpus keeping the matrices whose key keep accepts.
func loadCorpus(dir string, keep func(key string) bool) (*Recorded, error) {
	files, err := filepath.Glob(filepath.Join(dir, "libs-*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, ErrNotRecorded
	}
	order := func(f string) (int, string) {
		b := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "libs-"), ".json")
		if n, err := strconv.Atoi(b); err == nil {
			return n, ""
		}
		return math.MaxInt, b
	}
	sort.Slice(files, func(i, j int) bool {
		ni, si := order(files[i])
		nj, sj := order(files[j])
		if ni != nj {
			return ni < nj
		}
		return si < sj
	})
	rec := &Recorded{Dir: dir}
	for _, f := range files {
		one, err := LoadRecordedFile(f)
		if err != nil {
			return nil, err
		}
		if rec.Ours == nil {
			cp := *one
			cp.Matrices = nil
			rec.Ours = &cp
		}
		if len(one.Copy) > 0 {
			rec.Ours.Copy = one.Copy
		}
		for _, m := range one.Matrices {
			if keep(m.Key) {
				rec.Ours.Matrices = append(rec.Ours.Matrices, m)
			}
		}
		rec.Ours.Failures = append(rec.Ours.Failures, one.Failures...)
	}
	if err := rec.readPeerAndREADME(dir); err != nil {
		return nil, err
	}
	return rec, nil
}

// FindCorpus looks for evidence/CorpusName at or above the working
// directory, as FindChosen does.
func FindCorpus() (*Recorded, error) { return findEvidence(CorpusName, LoadCorpus) }

// CorpusOrNote is FindCorpus for a notebook cell: nil and a note on w when
// the run is not in evidence/.
func CorpusOrNote(w interface{ Write([]byte) (int, error) }) (*Recorded, error) {
	rec, err := FindCorpus()
	if errors.Is(err, ErrNotRecorded) {
		_, werr := fmt.Fprintf(w, "evidence/%s does not exist here: the corpus run is not recorded; nothing measured to show.\n", CorpusName)
		return nil, werr
	}
	return rec, err
}

// CorpusLine is one matrix of a corpus run: our pick (by the rules given),
// our fastest and cuSPARSE's best, with bandwidth by minimum bytes.
type CorpusLine struct {
	Key, Family      string
	Rows, NNZ        int
	Pick             KernelRun
	Best             KernelRun
	Peer             PeerRun // cuSPARSE's best correct algorithm; zero without
	PickGBs, BestGBs float64
	PeerGBs          float64
	OfCopy           float64 // the pick's GB/s over the copy reference
	PeerOfCopy       float64
}

// PickOverPeer and PickOverBest are the ratios the goals read.
func (l CorpusLine) PickOverPeer() float64 {
	if l.Peer.MeanMs <= 0 {
		return 0
	}
	return l.Pick.TimeMs / l.Peer.MeanMs
}

// PickOverBest is the pick's time over our fastest.
func (l CorpusLine) PickOverBest() float64 { return l.Pick.TimeMs / l.Best.TimeMs }

// BestOverPeer is our fastest over cuSPARSE's best, 0 without a peer.
func (l CorpusLine) BestOverPeer() float64 {
	if l.Peer.MeanMs <= 0 {
		return 0
	}
	return l.Best.TimeMs / l.Peer.MeanMs
}

// CorpusLines reads rec with the given rules: each matrix's pick is
// ChooseWith(rules) on its recorded statistics (every method was timed, so
// the pick's time is recorded), beside our fastest and cuSPARSE's best.
func CorpusLines(rec *Recorded, rules Rules) ([]CorpusLine, error) {
	resident, err := ResidentThreadsOf(rec.Ours)
	if err != nil {
		return nil, err
	}
	copyGBs := rec.Ours.CopyGBs()
	var out []CorpusLine
	for _, m := range rec.Ours.Matrices {
		pick := ChooseWith(rules, m.ChooserStats(), resident).Method
		l := CorpusLine{Key: m.Key, Family: Family(m.Key), Rows: m.Rows, NNZ: m.NNZ, Pick: m.Run(pick), Best: m.Best()}
		if l.Pick.TimeMs <= 0 {
			return nil, fmt.Errorf("libs: %s: pick %s not measured in %s", m.Key, pick, rec.Dir)
		}
		gbs := func(ms float64) float64 { return float64(m.MinBytes) / (ms * 1e-3) / 1e9 }
		l.PickGBs, l.BestGBs = gbs(l.Pick.TimeMs), gbs(l.Best.TimeMs)
		if p, ok := PeerBest(rec.Peer, m.Key); ok {
			l.Peer, l.PeerGBs = p, gbs(p.MeanMs)
		}
		if copyGBs > 0 {
			l.OfCopy, l.PeerOfCopy = l.PickGBs/copyGBs, l.PeerGBs/copyGBs
		}
		out = append(out, l)
	}
	return out, nil
}

// CorpusTable is CorpusLines as the lesson's table.
func CorpusTable(rec *Recorded, rules Rules) (table.Table, error) {
	ls, err := CorpusLines(rec, rules)
	if err != nil {
		return table.Table{}, err
	}
	t := table.Table{Caption: fmt.Sprintf("The corpus, %s; GB/s by minimum bytes, copy %.0f GB/s; picks by %v",
		rec.Ours.timeWord(), rec.Ours.CopyGBs(), rules),
		Header: []string{"matrix", "rows", "nonzeros", "pick", "ms", "GB/s", "of copy", "our fastest", "ms", "cuSPARSE best", "ms", "of copy", "pick / fastest", "pick / cuSPARSE"}}
	for _, l := range ls {
		peer, pms, pcopy, ratio := "–", "–", "–", "–"
		if l.Peer.MeanMs > 0 {
			peer, pms = strings.TrimPrefix(l.Peer.Alg, "CUSPARSE_SPMV_"), fmt.Sprintf("%.4f", l.Peer.MeanMs)
			pcopy, ratio = fmt.Sprintf("%.0f%%", 100*l.PeerOfCopy), fmt.Sprintf("%.2f×", l.PickOverPeer())
		}
		t.Add(l.Key, commas(int64(l.Rows)), commas(int64(l.NNZ)), l.Pick.Method, fmt.Sprintf("%.4f", l.Pick.TimeMs),
			fmt.Sprintf("%.0f", l.PickGBs), fmt.Sprintf("%.0f%%", 100*l.OfCopy), l.Best.Method, fmt.Sprintf("%.4f", l.Best.TimeMs),
			peer, pms, pcopy, fmt.Sprintf("%.2f×", l.PickOverBest()), ratio)
	}
	return t, nil
}

// HeldoutTable is LeaveOneFamilyOut per family: the rules fitted without
// the family, its worst and geometric-mean pick over our fastest and over
// cuSPARSE's best.
func HeldoutTable(rec *Recorded) (table.Table, []FamilySummary, error) {
	hs, err := LeaveOneFamilyOut(rec.Ours, rec.Peer)
	if err != nil {
		return table.Table{}, nil, err
	}
	sum := SummarizeHeldout(hs)
	t := table.Table{Caption: "Leave one family out: the rules fitted on every other family, judged on this one (" + rec.Ours.timeWord() + ")",
		Header: []string{"family", "matrices", "pick / our fastest: worst", "geomean", "within 1.1×", "pick / cuSPARSE: worst", "geomean", "rules fitted without it"}}
	for _, s := range sum {
		wp, gp := "–", "–"
		if s.PeerMatrices > 0 {
			wp, gp = fmt.Sprintf("%.2f× (%s)", s.WorstPeer, s.WorstPeerKey), fmt.Sprintf("%.2f×", s.GeoPeer)
		}
		t.Add(s.Family, fmt.Sprint(s.Matrices), fmt.Sprintf("%.2f× (%s)", s.WorstBest, s.WorstKey), fmt.Sprintf("%.2f×", s.GeoBest),
			fmt.Sprintf("%d of %d", s.WithinGoal, s.Matrices), wp, gp, s.Rules.String())
	}
	return t, sum, nil
}

// LoadRecordedFile reads one of our result JSON files.
func LoadRecordedFile(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &Result{}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("libs: %s: %w", path, err)
	}
	return r, nil
}

// GoalLines are issue 29's goals read on a corpus run with the given rules,
// one line each: picks at or under cuSPARSE's best on the matrices of at
// least 2^20 rows (and each loss), picks within 1.1× of our fastest (per
// size), and the power-law matrices at 2^23 rows as a share of the copy
// bandwidth by minimum bytes (pick, our fastest, cuSPARSE).
func GoalLines(rec *Recorded, rules Rules) ([]string, error) { return goalLines(rec, rules, nil) }

// GoalLinesSpread is GoalLines with the 1.1× line followed by how many of
// its misses are inside the measured run-to-run spread sp of the same
// ratio at their size (Spread.Within): the goal stays 1.1×; the figure
// says which of its misses one call cannot tell from a pick within it.
// A nil sp gives GoalLines.
func GoalLinesSpread(rec *Recorded, rules Rules, sp *Spread) ([]string, error) {
	return goalLines(rec, rules, sp)
}

func goalLines(rec *Recorded, rules Rules, sp *Spread) ([]string, error) {
	ls, err := CorpusLines(rec, rules)
	if err != nil {
		return nil, err
	}
	var out []string
	n, under := 0, 0
	var losses []string
	for _, l := range ls {
		if l.Rows < 1<<20*9/10 || l.Peer.MeanMs <= 0 {
			continue
		}
		n++
		if l.PickOverPeer() <= 1 {
			under++
		} else {
			losses = append(losses, fmt.Sprintf("%s %.2f×", l.Key, l.PickOverPeer()))
		}
	}
	s := fmt.Sprintf("at least 2^20 rows: the pick is at or under cuSPARSE's best on %d of %d", under, n)
	if len(losses) > 0 {
		s += "; it loses on " + strings.Join(losses, ", ")
	}
	out = append(out, s)
	type cnt struct{ n, ok int }
	bySize := map[int]*cnt{}
	var sizes []int
	for _, l := range ls {
		size := SizeClass(l.Key)
		if bySize[size] == nil {
			bySize[size] = &cnt{}
			sizes = append(sizes, size)
		}
		bySize[size].n++
		if l.PickOverBest() <= 1.1 {
			bySize[size].ok++
		}
	}
	sort.Ints(sizes)
	var parts []string
	total, ok := 0, 0
	for _, sz := range sizes {
		c := bySize[sz]
		total, ok = total+c.n, ok+c.ok
		label := fmt.Sprintf("2^%d", sz)
		if sz == 0 {
			label = "SuiteSparse"
		}
		parts = append(parts, fmt.Sprintf("%s %d of %d", label, c.ok, c.n))
	}
	line := fmt.Sprintf("within 1.1× of our fastest: %d of %d (%s)", ok, total, strings.Join(parts, ", "))
	if sp != nil {
		line += "; " + sp.MissLine(ls)
	}
	out = append(out, line)
	var pl []string
	for _, l := range ls {
		if strings.HasPrefix(l.Family, "powerlaw") && l.Rows == 1<<23 {
			pl = append(pl, fmt.Sprintf("%s %.0f%% (fastest %.0f%%, cuSPARSE %.0f%%)", l.Family, 100*l.OfCopy,
				100*l.BestGBs/rec.Ours.CopyGBs(), 100*l.PeerOfCopy))
		}
	}
	if len(pl) > 0 {
		out = append(out, "power law at 2^23 rows, share of the copy bandwidth by minimum bytes, pick: "+strings.Join(pl, "; "))
	}
	return out, nil
}

// SizeClass is the log2 of the rows a generated matrix's key names
// ("powerlaw20-2^17" → 17, "road-s2-2^20" → 20), 0 for a key that names
// none (a file matrix).
func SizeClass(key string) int {
	if i := strings.LastIndex(key, "-2^"); i >= 0 {
		if n, err := strconv.Atoi(key[i+3:]); err == nil {
			return n
		}
	}
	return 0
}

// CorpusPrepTable is the one-time preparation on the matrices of at least
// 2^20 rows of a corpus run: the pick's (split's long-row list or the
// tiles' first rows on the device, none for CSR-vector), merge path's
// partitions and binning's lists, each in SpMVs of its own method. Every
// preparation runs on the device since binning moved there; a run recorded
// before that has only binning's host wall clock, marked "(host)".
func CorpusPrepTable(rec *Recorded, rules Rules) (table.Table, error) {
	ls, err := CorpusLines(rec, rules)
	if err != nil {
		return table.Table{}, err
	}
	t := table.Table{Caption: "Preparation against one SpMV of its own method, " + rec.Ours.timeWord() +
		"; the preparation's kernels on the device timed as an SpMV is ((host): the host's wall clock, in a run made before binning moved to the device)",
		Header: []string{"matrix", "pick", "pick's preparation (ms)", "= SpMVs", "merge path partitions (ms)", "= SpMVs", "binning (ms)", "= SpMVs"}}
	for _, l := range ls {
		if l.Rows < 1<<20*9/10 {
			continue
		}
		m := rec.Ours.Matrix(l.Key)
		cell := func(method string) (string, string) {
			run := m.Run(method)
			for _, p := range m.Prep {
				// The two tile methods share one preparation, recorded
				// under the first of them to run.
				same := p.Method == method || (method == MethodTileV4 && p.Method == MethodTile)
				if !same || run.TimeMs <= 0 {
					continue
				}
				v, where := p.DeviceMs, ""
				if v <= 0 {
					v, where = p.HostMs, " (host)"
				}
				return fmt.Sprintf("%.4f%s", v, where), fmt.Sprintf("%.2f", v/run.TimeMs)
			}
			return "–", "–"
		}
		pp, ps := cell(l.Pick.Method)
		mp, msp := cell(MethodMerge)
		bp, bs := cell(MethodBinned)
		t.Add(l.Key, l.Pick.Method, pp, ps, mp, msp, bp, bs)
	}
	return t, nil
}

// CorpusReasonsTable is each pick of a corpus run next to the numbers that
// made it: the rules' reason (row statistics, the device's resident
// threads, the thresholds) beside the pick's measured time over our fastest.
func CorpusReasonsTable(rec *Recorded, rules Rules, minRows int) (table.Table, error) {
	resident, err := ResidentThreadsOf(rec.Ours)
	if err != nil {
		return table.Table{}, err
	}
	t := table.Table{Caption: "Why each pick (" + rules.String() + "), and what it measured: " + rec.Ours.timeWord(),
		Header: []string{"matrix", "pick", "pick / our fastest", "reason"}}
	for _, m := range rec.Ours.Matrices {
		if m.Rows < minRows {
			continue
		}
		c := ChooseWith(rules, m.ChooserStats(), resident)
		run, best := m.Run(c.Method), m.Best()
		ratio := "–"
		if run.TimeMs > 0 && best.TimeMs > 0 {
			ratio = fmt.Sprintf("%.2f× (%s)", run.TimeMs/best.TimeMs, best.Method)
		}
		t.Add(m.Key, c.Method, ratio, c.Reason)
	}
	return t, nil
}

package libs

import (
	"fmt"
	"strings"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/table"
)

// The recorded GPU run read again with today's chooser. The run recorded
// every method's time on every matrix, so what a changed rule would have
// picked can be read off it without a new run; every table here says that
// its times are the recorded per-method times.

// ResidentThreadsOf is the resident threads of the device r ran on: the SMs
// r records times the threads per SM of the simulator's model of that GPU
// (r.Device.Model, e.g. "h200").
func ResidentThreadsOf(r *Result) (int, error) {
	m, err := sim.ModelByKey(r.Device.Model)
	if err != nil {
		return 0, fmt.Errorf("libs: resident threads of %q: %w", r.Device.Name, err)
	}
	sms := r.Device.SMs
	if sms <= 0 {
		sms = m.SMs
	}
	return sms * m.MaxThreadsPerSM, nil
}

// Half names which half of the recorded run a matrix is in: the seed pair,
// on which MergeCost was fitted, or the SuiteSparse matrices held out.
func Half(key string) string {
	if strings.HasPrefix(key, "even-") || strings.HasPrefix(key, "skewed-") {
		return "fit (seed pair)"
	}
	return "held out"
}

// Repick is one recorded matrix: the pick recorded in the run, today's
// Choose on the same recorded row statistics and device, and the recorded
// runs of both, of our fastest method and of cuSPARSE's best.
type Repick struct {
	Key, Half    string
	Then, Now    KernelRun // the recorded runs of the recorded pick and of today's pick
	NowReason    string
	Fastest      KernelRun
	Peer         PeerRun
	HasPeer      bool
	NowOverPeer  float64 // today's pick's recorded time / cuSPARSE best; 0 without a peer
	ThenOverPeer float64
}

// Repicks applies today's Choose to every matrix of the recorded run.
func Repicks(rec *Recorded) ([]Repick, error) {
	resident, err := ResidentThreadsOf(rec.Ours)
	if err != nil {
		return nil, err
	}
	var out []Repick
	for _, m := range rec.Ours.Matrices {
		now := Choose(m.ChooserStats(), resident)
		p := Repick{Key: m.Key, Half: Half(m.Key), Then: m.Run(m.Choice.Method), Now: m.Run(now.Method),
			NowReason: now.Reason, Fastest: m.Best()}
		if p.Now.Method == "" {
			// A method the run did not have (split, after issue 29).
			p.Now.Method = now.Method
		}
		if p.Peer, p.HasPeer = PeerBest(rec.Peer, m.Key); p.HasPeer && p.Peer.MeanMs > 0 && p.Now.TimeMs > 0 {
			p.NowOverPeer = p.Now.TimeMs / p.Peer.MeanMs
			p.ThenOverPeer = p.Then.TimeMs / p.Peer.MeanMs
		}
		out = append(out, p)
	}
	return out, nil
}

// RepickTable is Repicks as a table.
func RepickTable(rec *Recorded) (table.Table, error) {
	ps, err := Repicks(rec)
	if err != nil {
		return table.Table{}, err
	}
	t := table.Table{Caption: "Today's chooser on the recorded run: " + rec.Ours.timeWord() +
		"; recorded per-method times, not a new run",
		Header: []string{"matrix", "half", "picked then", "ms", "picked now", "ms", "fastest ours", "ms", "cuSPARSE best (ms)", "then / cuSPARSE", "now / cuSPARSE"}}
	for _, p := range ps {
		peer, then, now := "–", "–", "–"
		if p.HasPeer {
			peer = fmt.Sprintf("%.4f", p.Peer.MeanMs)
			then, now = fmt.Sprintf("%.2f×", p.ThenOverPeer), fmt.Sprintf("%.2f×", p.NowOverPeer)
		}
		t.Add(p.Key, p.Half, p.Then.Method, fmt.Sprintf("%.4f", p.Then.TimeMs), p.Now.Method, fmt.Sprintf("%.4f", p.Now.TimeMs),
			p.Fastest.Method, fmt.Sprintf("%.4f", p.Fastest.TimeMs), peer, then, now)
	}
	return t, nil
}

// RepickLines are the notebook's summary of Repicks: per half, how many
// matrices the recorded pick and today's pick have at or under cuSPARSE's
// best, and each loss with its size.
func RepickLines(rec *Recorded) ([]string, error) {
	ps, err := Repicks(rec)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, half := range []string{Half("even-"), Half("")} {
		n, then, now, changed := 0, 0, 0, 0
		var losses []string
		for _, p := range ps {
			if p.Half != half || !p.HasPeer {
				continue
			}
			n++
			if p.ThenOverPeer <= 1 {
				then++
			}
			if p.NowOverPeer <= 1 {
				now++
			} else {
				losses = append(losses, fmt.Sprintf("%s %s %.2f× cuSPARSE", p.Key, p.Now.Method, p.NowOverPeer))
			}
			if p.Then.Method != p.Now.Method {
				changed++
			}
		}
		s := fmt.Sprintf("%s: %d matrices, %d picks changed; at or under cuSPARSE's best: %d recorded picks, %d of today's picks",
			half, n, changed, then, now)
		if len(losses) > 0 {
			s += "; still losing: " + strings.Join(losses, ", ")
		}
		out = append(out, s)
	}
	return out, nil
}

// BalanceTable shows the numbers Choose weighs between binning and merge
// path on each matrix of r: binning's longest-row passes against MergeCost
// times the balanced share (asked only of uneven matrices; a small one gets
// CSR-vector before it is asked, but the column shows what it would say),
// and, where r ran them, the two methods' times
// (modeled or measured, as r's backend says).
func BalanceTable(r *Result) (table.Table, error) {
	resident, err := ResidentThreadsOf(r)
	if err != nil {
		return table.Table{}, err
	}
	t := table.Table{Caption: fmt.Sprintf("Binning or merge path: longest row's passes against %.0f× the balanced share on %d resident threads; times %s",
		MergeCost, resident, r.timeWord()),
		Header: []string{"matrix", "longest row", "its lanes", "passes", "balanced share", "rule says", "chosen", "binned (ms)", "merge path (ms)", "time says"}}
	for _, m := range r.Matrices {
		lanes := BinWidth(m.Stats.Max)
		if lanes == 0 {
			lanes = ThreadsPerBlock
		}
		passes, share := LongestRowPasses(m.Stats), BalancedShare(m.Stats, resident)
		rule := MethodBinned
		if passes > MergeCost*share {
			rule = MethodMerge
		}
		if skewed, spread := shape(m.Stats); !skewed && !spread {
			rule = "– (even)"
		}
		b, g := m.Run(MethodBinned), m.Run(MethodMerge)
		bs, gs, says := "–", "–", "–"
		if b.TimeMs > 0 {
			bs = fmt.Sprintf("%.4f", b.TimeMs)
		}
		if g.TimeMs > 0 {
			gs = fmt.Sprintf("%.4f", g.TimeMs)
		}
		if b.TimeMs > 0 && g.TimeMs > 0 {
			says = MethodBinned
			if g.TimeMs < b.TimeMs {
				says = MethodMerge
			}
		}
		t.Add(m.Key, fmt.Sprint(m.Stats.Max), fmt.Sprint(lanes), fmt.Sprintf("%.1f", passes), fmt.Sprintf("%.2f", share),
			rule, m.Choice.Method, bs, gs, says)
	}
	return t, nil
}

// ModelCheckTable sets the simulator's modeled times beside the recorded
// GPU times for every matrix and method both hold, each also as a multiple
// of its own fastest of those methods on that matrix: where the two
// multiples differ, the model and the GPU disagree on the ranking or the gap.
func ModelCheckTable(modeled *Result, rec *Recorded) table.Table {
	t := table.Table{Caption: "Modeled (" + modeled.Device.Name + ") against " + rec.Ours.timeWord(),
		Header: []string{"matrix", "method", "modeled (ms)", "× fastest", "measured (ms)", "× fastest"}}
	for _, sm := range modeled.Matrices {
		gm := rec.Ours.Matrix(sm.Key)
		if gm == nil {
			continue
		}
		var both []string
		fastS, fastG := 0.0, 0.0
		for _, r := range sm.Runs {
			g := gm.Run(r.Method)
			if r.TimeMs <= 0 || g.TimeMs <= 0 {
				continue
			}
			both = append(both, r.Method)
			if fastS == 0 || r.TimeMs < fastS {
				fastS = r.TimeMs
			}
			if fastG == 0 || g.TimeMs < fastG {
				fastG = g.TimeMs
			}
		}
		for _, meth := range both {
			s, g := sm.Run(meth).TimeMs, gm.Run(meth).TimeMs
			t.Add(sm.Key, meth, fmt.Sprintf("%.4f", s), fmt.Sprintf("%.2f", s/fastS), fmt.Sprintf("%.4f", g), fmt.Sprintf("%.2f", g/fastG))
		}
	}
	return t
}

// PaybackTable weighs each recorded preparation against the SpMVs it
// serves: the preparation in SpMVs of its own method, and, where the
// method beats cuSPARSE's best, how many SpMVs its per-SpMV saving takes to
// repay the preparation (less cuSPARSE's own). Host preparation, recorded
// on the GPU machine's host; SpMV times by CUDA events.
func PaybackTable(rec *Recorded) table.Table {
	t := table.Table{Caption: "Preparation against the SpMVs it serves, " + rec.Ours.timeWord() + "; preparation on the host's clock",
		Header: []string{"matrix", "method", "preparation (ms)", "one SpMV (ms)", "= SpMVs", "cuSPARSE best: SpMV / prep (ms)", "SpMVs to repay against cuSPARSE"}}
	for _, m := range rec.Ours.Matrices {
		pb, ok := PeerBest(rec.Peer, m.Key)
		for _, p := range m.Prep {
			run := m.Run(p.Method)
			if run.TimeMs <= 0 {
				continue
			}
			peer, repay := "–", "–"
			if ok {
				peer = fmt.Sprintf("%.4f / %.2f", pb.MeanMs, pb.PrepMs)
				if save := pb.MeanMs - run.TimeMs; save > 0 {
					repay = fmt.Sprintf("%.0f", max(0, p.HostMs-pb.PrepMs)/save)
				} else {
					repay = "never (slower)"
				}
			}
			t.Add(m.Key, p.Method, fmt.Sprintf("%.2f", p.HostMs), fmt.Sprintf("%.4f", run.TimeMs),
				fmt.Sprintf("%.0f", p.HostMs/run.TimeMs), peer, repay)
		}
	}
	return t
}

// MergeCostLines are merge path's recorded time over the fastest method on
// each even seed matrix of rec, where nothing needs balancing: the numbers
// MergeCost is fitted on.
func MergeCostLines(rec *Recorded) []string {
	var out []string
	for _, m := range rec.Ours.Matrices {
		g, b := m.Run(MethodMerge), m.Best()
		if !strings.HasPrefix(m.Key, "even-") || g.TimeMs <= 0 || b.TimeMs <= 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s: merge path %.4f ms = %.2f× the fastest (%s %.4f ms)", m.Key, g.TimeMs, g.TimeMs/b.TimeMs, b.Method, b.TimeMs))
	}
	return append(out, fmt.Sprintf("MergeCost = %.0f", MergeCost))
}

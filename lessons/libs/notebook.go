package libs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/warplab/warplab/sparse/spmvref"
	"github.com/warplab/warplab/table"
)

// NotebookRows is the seed pair's size in the notebook: 2^17 rows (2 Mi
// nonzeros), the smallest power of two at which the even matrix at 4 lanes
// a row fills an H200 (132 SMs × 2048 threads) and so is not "small" to
// the chooser; the simulator runs every method on it in seconds.
const NotebookRows = 1 << 17

// NotebookOptions are the notebook's inputs: the seed pair at NotebookRows
// and the four SuiteSparse matrices when spmvref.MatricesDir finds them,
// in matrices (the notebook passes lab.FromEnv().MatricesDir()) or, when
// it is "", in the default places.
func NotebookOptions(matrices string) Options {
	o := Options{SeedRows: []int{NotebookRows}}
	if dir := spmvref.MatricesDir(matrices); dir != "" {
		for _, n := range spmvref.SuiteSparseNames {
			p := filepath.Join(dir, n+".mtx")
			if _, err := os.Stat(p); err == nil {
				o.Matrices = append(o.Matrices, p)
			}
		}
	}
	return o
}

// Plan builds the inputs of opts and returns, without running anything, a
// Result with each matrix's row statistics, the chooser's pick for a device
// of residentThreads threads, the bins, and every method's lane-slot
// prediction (Runs hold PredSlots and PredUseful only).
func Plan(opts Options, residentThreads int) (*Result, error) {
	ins, err := Inputs(opts)
	if err != nil {
		return nil, err
	}
	r := &Result{Lesson: "libs", Backend: "none", Failures: []string{}, Copy: []CopyRun{}}
	for _, in := range ins {
		c := in.CSR
		st := StatsOf(in.Lengths)
		m := MatrixResult{Key: in.Key, Rows: c.Rows, Cols: c.Cols, NNZ: c.NNZ(), Stats: st,
			Choice: Choose(st, residentThreads), MinBytes: MinBytes(c.Rows, c.Cols, c.NNZ()), Bins: Bins(c.RowPtr)}
		for _, meth := range Methods() {
			slots, useful := Predict(c, meth)
			m.Runs = append(m.Runs, KernelRun{Method: meth, PredSlots: slots, PredUseful: useful})
		}
		r.Matrices = append(r.Matrices, m)
	}
	return r, nil
}

// PredictTable is the lane-slot prediction for every method (columns) on
// every matrix (rows): the share of the nonzero loop's lane-slots that do a
// nonzero, before anything runs.
func PredictTable(r *Result) table.Table {
	t := table.Table{Caption: "Predicted useful lane-slots of the nonzero loop (host arithmetic on the row lengths; float4 slots count 4)",
		Header: append([]string{"matrix"}, Methods()...)}
	for _, m := range r.Matrices {
		row := []string{m.Key}
		for _, meth := range Methods() {
			cell := fmt.Sprintf("%.0f%%", 100*m.Run(meth).PredUseful)
			if meth == m.Choice.Method {
				cell += " ◀"
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// BinsTable lists the binned method's bins per matrix.
func BinsTable(r *Result) table.Table {
	t := table.Table{Caption: "The binned method's length classes (rows per bin)",
		Header: []string{"matrix", "thread (≤4)", "2 lanes (≤8)", "4 (≤16)", "8 (≤32)", "16 (≤64)", "32 (≤1024)", "block (>1024)"}}
	for _, m := range r.Matrices {
		count := map[int]int{}
		for _, b := range m.Bins {
			count[b.Width] = b.Count
		}
		row := []string{m.Key}
		for _, w := range []int{1, 2, 4, 8, 16, 32, 0} {
			row = append(row, commas(int64(count[w])))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Findings are one line per matrix with the numbers the notebook's prose
// reads: the chosen method's time and bandwidth against the copy, and the
// fastest method.
func Findings(r *Result) []string {
	var out []string
	copyGBs := r.CopyGBs()
	for _, m := range r.Matrices {
		c, b := m.Run(m.Choice.Method), m.Best()
		s := fmt.Sprintf("%s: chosen %s %.4f ms (%s), %.0f GB/s", m.Key, c.Method, c.TimeMs, c.TimeKind, c.GBs)
		if copyGBs > 0 {
			s += fmt.Sprintf(" = %.0f%% of the copy's %.0f GB/s", 100*c.GBs/copyGBs, copyGBs)
		}
		if b.Method == c.Method {
			s += "; the fastest method"
		} else if b.TimeMs > 0 {
			s += fmt.Sprintf("; fastest %s %.4f ms (chosen is %.2f×)", b.Method, b.TimeMs, c.TimeMs/b.TimeMs)
		}
		out = append(out, s)
	}
	return out
}

// RecordedLines are the lines the notebook prints for a recorded GPU run:
// where and when, then per matrix ours against cuSPARSE's best.
func RecordedLines(rec *Recorded) []string {
	o := rec.Ours
	out := []string{fmt.Sprintf("recorded on %s, driver %s, %s (%s): %d warm-ups + %d timed runs, CUDA events, measured",
		o.Device.Name, strings.TrimPrefix(o.Driver, "driver "), dateOf(o.Date), filepath.Base(rec.Dir), o.Warmups, o.TimedRuns)}
	copyGBs := max(o.CopyGBs(), PeerCopyGBs(rec.Peer))
	for _, m := range o.Matrices {
		c := m.Run(m.Choice.Method)
		s := fmt.Sprintf("%s: ours (%s) %.4f ms, %.0f GB/s", m.Key, c.Method, c.TimeMs, c.GBs)
		if copyGBs > 0 {
			s += fmt.Sprintf(" (%.0f%% of copy)", 100*c.GBs/copyGBs)
		}
		if p, ok := PeerBest(rec.Peer, m.Key); ok {
			pg := float64(m.MinBytes) / (p.MeanMs * 1e-3) / 1e9
			s += fmt.Sprintf("; cuSPARSE best (%s) %.4f ms, %.0f GB/s; ours/cuSPARSE %.2f×", p.Alg, p.MeanMs, pg, c.TimeMs/p.MeanMs)
		} else {
			s += "; no correct cuSPARSE run recorded"
		}
		out = append(out, s)
	}
	return append(out, AgainstPeerLine(rec))
}

// AgainstPeerLine is issue 14's goal read off a recorded run in one line:
// on how many matrices the recorded pick is at or under cuSPARSE's best, of
// those with a correct cuSPARSE run, and the range of chosen / cuSPARSE.
func AgainstPeerLine(rec *Recorded) string {
	n, of := 0, 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range rec.Ours.Matrices {
		c := m.Run(m.Choice.Method)
		p, ok := PeerBest(rec.Peer, m.Key)
		if !ok || c.TimeMs <= 0 || p.MeanMs <= 0 {
			continue
		}
		of++
		x := c.TimeMs / p.MeanMs
		if x <= 1 {
			n++
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	if of == 0 {
		return "chosen against cuSPARSE's best: no matrix has both a recorded pick and a correct cuSPARSE run"
	}
	return fmt.Sprintf("chosen at or under cuSPARSE's best on %d of %d matrices (chosen / cuSPARSE %.2f×–%.2f×)", n, of, lo, hi)
}

// RecordedOrNote is FindRecorded for a notebook cell: when no run is
// recorded it writes one line saying so to w and returns nil and no error,
// so that the cell shows no GPU number rather than failing. fallback is
// FindRecorded's (the notebook passes lab.FromEnv().LibsRecorded).
func RecordedOrNote(w io.Writer, fallback string) (*Recorded, error) {
	return orNote(w, RecordedName, func() (*Recorded, error) { return FindRecorded(fallback) })
}

// ChosenOrNote is RecordedOrNote for the run of the refitted chooser
// (FindChosen, evidence/ChosenName).
func ChosenOrNote(w io.Writer) (*Recorded, error) { return orNote(w, ChosenName, FindChosen) }

func orNote(w io.Writer, name string, find func() (*Recorded, error)) (*Recorded, error) {
	rec, err := find()
	if errors.Is(err, ErrNotRecorded) {
		_, err = fmt.Fprintln(w, "No H200 run is recorded yet: evidence/"+name+" does not exist, so there is no measured number to show.")
		return nil, err
	}
	return rec, err
}

// ModelCheckOptions run, on the simulator, the seed pair at the recorded
// run's smaller size (2^19 rows) with the methods the binned-or-merge
// question turns on and the even matrix's fastest: for ModelCheckTable.
func ModelCheckOptions() Options {
	return Options{SeedRows: []int{1 << 19}, Methods: []string{VectorMethod(4, false), MethodBinned, MethodMerge}, CopyBytes: -1}
}

// notebookResultPath is where the notebook's run cell leaves its result
// for the cells after it (each GoNB cell is its own program).
func notebookResultPath() string { return filepath.Join(os.TempDir(), "warplab-libs-notebook.json") }

// SaveNotebookResult keeps r for the notebook's later cells.
func SaveNotebookResult(r *Result) error {
	f, err := os.Create(notebookResultPath())
	if err != nil {
		return err
	}
	if err := r.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoadNotebookResult reads what SaveNotebookResult kept; the error says to
// run the notebook's run cell first when there is nothing.
func LoadNotebookResult() (*Result, error) {
	b, err := os.ReadFile(notebookResultPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, errors.New("libs: no result yet: run the cell that runs every method first")
	}
	if err != nil {
		return nil, err
	}
	r := &Result{}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("libs: %s: %w", notebookResultPath(), err)
	}
	return r, nil
}

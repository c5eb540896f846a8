package libs

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/warplab/warplab/table"
)

// The tables the command prints and the notebook shows. Every caption says
// whether its times are modeled or measured, and where.

func (r *Result) timeWord() string {
	if r.Backend == "gpu" {
		return fmt.Sprintf("measured on %s (driver %s, %s), CUDA events, mean of %d runs after %d warm-ups",
			r.Device.Name, strings.TrimPrefix(r.Driver, "driver "), dateOf(r.Date), r.TimedRuns, r.Warmups)
	}
	return fmt.Sprintf("modeled by the simulator (%s), from %s", r.Device.Name, r.Device.Timing())
}

func dateOf(rfc string) string {
	if len(rfc) >= 10 {
		return rfc[:10]
	}
	return rfc
}

// MatricesTable shows each matrix's row statistics and the chooser's pick.
func MatricesTable(r *Result) table.Table {
	t := table.Table{Caption: "The matrices, their row statistics, and the chooser's pick (host arithmetic on rowPtr)",
		Header: []string{"matrix", "rows", "nonzeros", "row min / median / mean / max", "CV", "nnz in rows > 4× mean", "chosen"}}
	for _, m := range r.Matrices {
		s := m.Stats
		t.Add(m.Key, commas(int64(m.Rows)), commas(int64(m.NNZ)),
			fmt.Sprintf("%d / %d / %.1f / %d", s.Min, s.Median, s.Mean, s.Max),
			fmt.Sprintf("%.2f", s.CV), fmt.Sprintf("%.0f%%", 100*s.LongShare), m.Choice.Method)
	}
	return t
}

// ReasonsTable is the chooser's reasoning per matrix, in words.
func ReasonsTable(r *Result) table.Table {
	t := table.Table{Caption: "Why the chooser picked what it did (Choose reads only the row statistics)",
		Header: []string{"matrix", "chosen", "reason"}}
	for _, m := range r.Matrices {
		t.Add(m.Key, m.Choice.Method, m.Choice.Reason)
	}
	return t
}

// RunsTable is every method on one matrix: time, bandwidth against the
// copy reference, the lane-slot prediction and, on the simulator, the
// executed lane-slots and sectors per nonzero.
func RunsTable(r *Result, key string) (table.Table, error) {
	m := r.Matrix(key)
	if m == nil {
		return table.Table{}, fmt.Errorf("libs: no matrix %q in the result", key)
	}
	copyGBs := r.CopyGBs()
	t := table.Table{Caption: fmt.Sprintf("%s: every method, times %s; GB/s count the minimum bytes (%s)", key, r.timeWord(), human(m.MinBytes)),
		Header: []string{"method", "launches", "time (ms)", "GB/s", "of copy", "useful lane-slots: predicted", "simulated", "sectors / nonzero", "max rel. error", "check"}}
	for _, run := range m.Runs {
		name := run.Method
		if name == m.Choice.Method {
			name += " (chosen)"
		}
		ofCopy, sim, sect := "–", "–", "–"
		if copyGBs > 0 {
			ofCopy = fmt.Sprintf("%.0f%%", 100*run.GBs/copyGBs)
		}
		if run.SimUseful != nil {
			sim = fmt.Sprintf("%.1f%%", 100**run.SimUseful)
		}
		if run.Sectors != nil && m.NNZ > 0 {
			sect = fmt.Sprintf("%.3f", float64(*run.Sectors)/float64(m.NNZ))
		}
		check := "ok"
		if run.Skipped != "" {
			check = "skipped"
		} else if !run.Correct {
			check = "WRONG"
		}
		t.Add(name, fmt.Sprint(run.Launches), fmt.Sprintf("%.4f", run.TimeMs), fmt.Sprintf("%.0f", run.GBs), ofCopy,
			fmt.Sprintf("%.1f%%", 100*run.PredUseful), sim, sect, fmt.Sprintf("%.1e", run.MaxErr), check)
	}
	return t, nil
}

// PrepTable is the one-time preparation per matrix, next to one SpMV of
// the same method: the host's wall clock for all of it (allocation,
// building, upload, read-back), and, where it runs on the device, its
// kernels alone timed as an SpMV is.
func PrepTable(r *Result) table.Table {
	t := table.Table{Caption: "One-time preparation, apart from the per-SpMV time: host wall clock for the whole, device time of its kernels (" + r.timeWord() + ")",
		Header: []string{"matrix", "method", "host (ms)", "device (ms)", "device bytes", "one SpMV (ms)", "device prep / SpMV", "what"}}
	for _, m := range r.Matrices {
		for _, p := range m.Prep {
			spmvMs := m.Run(p.Method).TimeMs
			dev, ratio := "– (host)", "–"
			if p.DeviceMs > 0 {
				dev = fmt.Sprintf("%.4f", p.DeviceMs)
				if spmvMs > 0 {
					ratio = fmt.Sprintf("%.2f×", p.DeviceMs/spmvMs)
				}
			} else if spmvMs > 0 {
				ratio = fmt.Sprintf("%.0f× (host)", p.HostMs/spmvMs)
			}
			t.Add(m.Key, p.Method, fmt.Sprintf("%.3f", p.HostMs), dev, human(p.Bytes), fmt.Sprintf("%.4f", spmvMs), ratio, p.Note)
		}
	}
	return t
}

// Matrix returns the result for key, nil if none.
func (r *Result) Matrix(key string) *MatrixResult {
	for i := range r.Matrices {
		if r.Matrices[i].Key == key {
			return &r.Matrices[i]
		}
	}
	return nil
}

// Run returns the run of method, the zero KernelRun if none.
func (m *MatrixResult) Run(method string) KernelRun {
	for _, r := range m.Runs {
		if r.Method == method {
			return r
		}
	}
	return KernelRun{}
}

// Best returns the fastest correct run.
func (m *MatrixResult) Best() KernelRun {
	var best KernelRun
	for _, r := range m.Runs {
		if r.Correct && r.TimeMs > 0 && (best.TimeMs == 0 || r.TimeMs < best.TimeMs) {
			best = r
		}
	}
	return best
}

// CopyGBs is the copy reference's bandwidth: the driver's copy on a GPU,
// else the copy kernel; 0 when none ran.
func (r *Result) CopyGBs() float64 {
	best := 0.0
	for _, c := range r.Copy {
		best = math.Max(best, c.GBs)
	}
	return best
}

// ChoiceTable sets the chooser's pick beside the fastest method per matrix:
// where they differ, the rule was wrong for that matrix on this device.
func ChoiceTable(r *Result) table.Table {
	t := table.Table{Caption: "The chooser's pick against the fastest method, times " + r.timeWord(),
		Header: []string{"matrix", "chosen", "time (ms)", "GB/s", "fastest", "time (ms)", "chosen / fastest"}}
	for _, m := range r.Matrices {
		c, b := m.Run(m.Choice.Method), m.Best()
		ratio := "–"
		if b.TimeMs > 0 {
			ratio = fmt.Sprintf("%.2f×", c.TimeMs/b.TimeMs)
		}
		t.Add(m.Key, c.Method, fmt.Sprintf("%.4f", c.TimeMs), fmt.Sprintf("%.0f", c.GBs), b.Method, fmt.Sprintf("%.4f", b.TimeMs), ratio)
	}
	return t
}

// PeerBest returns cuSPARSE's fastest correct algorithm on a matrix.
func PeerBest(peer []PeerRun, key string) (PeerRun, bool) {
	var best PeerRun
	ok := false
	for _, p := range peer {
		if p.Matrix == key && p.Alg != "memcpy" && p.Correct && (!ok || p.MeanMs < best.MeanMs) {
			best, ok = p, true
		}
	}
	return best, ok
}

// PeerCopyGBs is the peer's cudaMemcpy device-to-device bandwidth (read
// plus write), 0 if it has none.
func PeerCopyGBs(peer []PeerRun) float64 {
	for _, p := range peer {
		if p.Alg == "memcpy" && p.MeanMs > 0 {
			return 2 * float64(p.Bytes) / (p.MeanMs * 1e-3) / 1e9
		}
	}
	return 0
}

// CompareTable is the lesson's answer: per matrix, our chosen kernel and
// our fastest against cuSPARSE's two algorithms, from one GPU call.
func CompareTable(ours *Result, peer []PeerRun) table.Table {
	t := table.Table{Caption: "Ours against cuSPARSE, per SpMV (preparation excluded on both sides), " + ours.timeWord(),
		Header: []string{"matrix", "ours: chosen", "ms", "GB/s", "ours: fastest", "ms", "cuSPARSE default (ms)", "cuSPARSE ALG2 (ms)", "chosen / cuSPARSE best", "verdict"}}
	for _, m := range ours.Matrices {
		c, b := m.Run(m.Choice.Method), m.Best()
		def, alg2 := "–", "–"
		for _, p := range peer {
			if p.Matrix != m.Key {
				continue
			}
			s := fmt.Sprintf("%.4f", p.MeanMs)
			if !p.Correct {
				s += " (wrong)"
			}
			switch p.Alg {
			case "CUSPARSE_SPMV_ALG_DEFAULT":
				def = s
			case "CUSPARSE_SPMV_CSR_ALG2":
				alg2 = s
			}
		}
		ratio, verdict := "–", "no peer number"
		if pb, ok := PeerBest(peer, m.Key); ok && c.TimeMs > 0 {
			x := c.TimeMs / pb.MeanMs
			ratio = fmt.Sprintf("%.2f×", x)
			if x <= 1 {
				verdict = "at or above cuSPARSE"
			} else {
				verdict = fmt.Sprintf("%.0f%% slower", 100*(x-1))
			}
		}
		t.Add(m.Key, c.Method, fmt.Sprintf("%.4f", c.TimeMs), fmt.Sprintf("%.0f", c.GBs), b.Method, fmt.Sprintf("%.4f", b.TimeMs), def, alg2, ratio, verdict)
	}
	return t
}

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// WriteText prints the lesson's tables as plain text.
func (r *Result) WriteText(w io.Writer) error {
	tabs := []table.Table{MatricesTable(r), ReasonsTable(r)}
	for _, m := range r.Matrices {
		t, err := RunsTable(r, m.Key)
		if err != nil {
			return err
		}
		tabs = append(tabs, t)
	}
	tabs = append(tabs, PrepTable(r), ChoiceTable(r))
	var b strings.Builder
	for _, c := range r.Copy {
		fmt.Fprintf(&b, "copy reference: %s of %s: %.4f ms, %.0f GB/s (read + write, %s)\n", c.What, human(c.Bytes), c.TimeMs, c.GBs, c.TimeKind)
	}
	b.WriteString("\n")
	for _, t := range tabs {
		b.WriteString(Text(t))
		b.WriteString("\n")
	}
	if r.OK() {
		fmt.Fprintf(&b, "all checks passed: %d method runs on %d matrices\n", r.RunCount(), len(r.Matrices))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RunCount is how many method runs the result holds.
func (r *Result) RunCount() int {
	n := 0
	for _, m := range r.Matrices {
		n += len(m.Runs)
	}
	return n
}

// Text renders a table as aligned plain text, caption first.
func Text(t table.Table) string {
	widths := make([]int, len(t.Header))
	for i, h := range t.Header {
		widths[i] = len([]rune(h))
	}
	for _, row := range t.Rows {
		for i, c := range row {
			if i < len(widths) && i != len(widths)-1 {
				widths[i] = max(widths[i], len([]rune(c)))
			}
		}
	}
	var b strings.Builder
	b.WriteString(t.Caption + "\n")
	line := func(cells []string) {
		for i, c := range cells {
			if i == len(cells)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))+2))
		}
		b.WriteString("\n")
	}
	line(t.Header)
	for _, row := range t.Rows {
		line(row)
	}
	return b.String()
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func human(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

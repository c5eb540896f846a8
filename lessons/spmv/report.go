package spmv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// The text the seed prints, table by table, in its printf layout. The
// prediction (Part 1 and the lane-slot table) can be written before any
// kernel runs; the timings after.

// nameWidth is the width of the matrix column: the seed's 8, or wider for a
// long file name.
func (r *Result) nameWidth() int {
	w := 8
	for _, m := range r.Matrices {
		w = max(w, len(m.Name))
	}
	return w
}

// WriteText writes everything the seed prints: the device line, Part 1, the
// lane-slot table, Part 2, the closing statement, the notes, and the failed
// checks, if any (the command line sends those to stderr instead).
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	r.writeHeader(bw)
	r.writePrediction(bw)
	r.writeTimings(bw)
	r.writeFailures(bw)
	return bw.Flush()
}

// WritePrediction writes the device line, the Part 1 table and the lane-slot
// table: what the lesson predicts before any kernel runs.
func (r *Result) WritePrediction(w io.Writer) error {
	bw := bufio.NewWriter(w)
	r.writeHeader(bw)
	r.writePrediction(bw)
	return bw.Flush()
}

// WriteTimings writes the Part 2 table, the closing statement and the notes.
func (r *Result) WriteTimings(w io.Writer) error {
	bw := bufio.NewWriter(w)
	r.writeTimings(bw)
	return bw.Flush()
}

// WriteFailures writes one line per failed check and the count, as the seed
// writes them to stderr; nothing when every check passed.
func (r *Result) WriteFailures(w io.Writer) error {
	bw := bufio.NewWriter(w)
	r.writeFailures(bw)
	return bw.Flush()
}

func (r *Result) writeHeader(w io.Writer) {
	if r.Device.Name == "" {
		return
	}
	fmt.Fprintf(w, "GPU: %s (compute capability %s, %d SMs)\n", r.Device.Name, r.Device.CC, r.Device.SMs)
	if r.Code != "" {
		fmt.Fprintf(w, "Code: %s\n", r.Code)
	}
}

func (r *Result) writePrediction(w io.Writer) {
	nw := r.nameWidth()
	dash := strings.Repeat("-", nw)
	if r.seedPair() {
		fmt.Fprintf(w, "\nPart 1: two matrices, %d rows, %d nonzeros each\n", r.Matrices[0].Rows, r.Matrices[0].NNZ)
	} else if len(r.Matrices) == 1 {
		m := r.Matrices[0]
		fmt.Fprintf(w, "\nPart 1: one matrix, %d rows, %d columns, %d nonzeros\n", m.Rows, m.Cols, m.NNZ)
	} else {
		fmt.Fprintf(w, "\nPart 1: %d matrices\n", len(r.Matrices))
	}
	fmt.Fprintf(w, "%-*s %10s %8s %8s %9s\n", nw, "matrix", "nonzeros", "min row", "max row", "mean row")
	fmt.Fprintf(w, "%-*s %10s %8s %8s %9s\n", nw, dash, "----------", "--------", "--------", "---------")
	for _, m := range r.Matrices {
		fmt.Fprintf(w, "%-*s %10d %8d %8d %9.2f\n", nw, m.Name, m.NNZ, m.MinRow, m.MaxRow, m.MeanRow)
	}

	fmt.Fprintf(w, "\nLane-slots issued, and the share with a nonzero to do\n")
	fmt.Fprintf(w, "%-*s %-16s %12s %8s\n", nw, "matrix", "kernel", "lane-slots", "useful")
	fmt.Fprintf(w, "%-*s %-16s %12s %8s\n", nw, dash, "----------------", "------------", "--------")
	for _, p := range r.Predictions {
		fmt.Fprintf(w, "%-*s %-16s %12d %7.1f%%\n", nw, p.Matrix, kernelLabel(p.Kernel), p.LaneSlots, 100*p.Useful)
	}
}

func (r *Result) writeTimings(w io.Writer) {
	if len(r.Runs) == 0 {
		return
	}
	nw := r.nameWidth()
	flops := 2 * r.Runs[0].NNZ
	timeCol := "time (ms)"
	if r.Runs[0].TimeKind == gpuext.Modeled {
		timeCol = "model (ms)"
		fmt.Fprintf(w, "\nPart 2: y = A x, times modeled by the simulator, not measured (one checked launch each), %d flops per run\n", flops)
	} else {
		fmt.Fprintf(w, "\nPart 2: y = A x, %d timed runs after %d warm-ups, %d flops per run\n", r.TimedRuns, r.Warmups, flops)
		if r.Driver != "" {
			fmt.Fprintf(w, "measured on %s (driver: %s), %s\n", r.Device.Name, r.Driver, r.Date)
		}
	}
	fmt.Fprintf(w, "%-*s %-22s %11s %11s %9s\n", nw, "matrix", "kernel", timeCol, "GFLOP/s", "x floor")
	fmt.Fprintf(w, "%-*s %-22s %11s %11s %9s\n", nw, strings.Repeat("-", nw), "----------------------", "-----------", "-----------", "---------")
	for _, run := range r.Runs {
		fmt.Fprintf(w, "%-*s %-22s %11.3f %11.1f %9.2f\n", nw, run.Matrix, kernelLabel(run.Kernel), run.TimeMs, run.GFlops, run.XFloor)
	}

	nnz := r.Runs[0].NNZ
	if r.seedPair() {
		fmt.Fprintf(w, "\nAll six rows above ran the same %d flops over the same %d\n"+
			"values and %d column indices. The two matrices hold the same\n"+
			"nonzeros in a different set of rows, and nothing else differs.\n", flops, nnz, nnz)
	} else {
		fmt.Fprintf(w, "\nAll three rows above ran the same %d flops over the same %d\n"+
			"values and %d column indices; only the way the kernels walk them differs.\n", flops, nnz, nnz)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%s\n", wrap(n, 78))
	}
}

func (r *Result) writeFailures(w io.Writer) {
	if len(r.Failures) == 0 {
		return
	}
	for _, f := range r.Failures {
		fmt.Fprintln(w, f)
	}
	fmt.Fprintf(w, "%d check(s) failed\n", len(r.Failures))
}

// wrap breaks s into lines of at most width characters at spaces.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(word) > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// WriteJSON writes r as indented JSON, the shape `warplab run spmv --json`
// writes: nulls where a number is not known (no lane-slots for the probe, no
// counters on a GPU).
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// HTMLTables returns the same tables as HTML, for notebooks.
func (r *Result) HTMLTables() string {
	var b strings.Builder
	esc := html.EscapeString
	row := func(cells ...string) {
		b.WriteString("<tr>")
		for _, c := range cells {
			b.WriteString("<td>" + esc(c) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	head := func(caption string, cols ...string) {
		b.WriteString("<table>\n<caption>" + esc(caption) + "</caption>\n<tr>")
		for _, c := range cols {
			b.WriteString("<th>" + esc(c) + "</th>")
		}
		b.WriteString("</tr>\n")
	}
	if r.Device.Name != "" {
		fmt.Fprintf(&b, "<p>GPU: %s (compute capability %s, %d SMs)</p>\n", esc(r.Device.Name), esc(r.Device.CC), r.Device.SMs)
	}
	head("Part 1: the matrices", "matrix", "nonzeros", "min row", "max row", "mean row")
	for _, m := range r.Matrices {
		row(m.Name, fmt.Sprint(m.NNZ), fmt.Sprint(m.MinRow), fmt.Sprint(m.MaxRow), fmt.Sprintf("%.2f", m.MeanRow))
	}
	b.WriteString("</table>\n")
	head("Lane-slots issued, and the share with a nonzero to do (the prediction)", "matrix", "kernel", "lane-slots", "useful")
	for _, p := range r.Predictions {
		row(p.Matrix, kernelLabel(p.Kernel), fmt.Sprint(p.LaneSlots), fmt.Sprintf("%.1f%%", 100*p.Useful))
	}
	b.WriteString("</table>\n")
	if len(r.Runs) > 0 {
		kind := r.Runs[0].TimeKind
		head(fmt.Sprintf("Part 2: y = A x (%s times)", kind), "matrix", "kernel", "time (ms, "+kind.String()+")", "GFLOP/s", "x floor", "requests", "sectors", "correct")
		for _, run := range r.Runs {
			row(run.Matrix, kernelLabel(run.Kernel), fmt.Sprintf("%.3f", run.TimeMs), fmt.Sprintf("%.1f", run.GFlops),
				fmt.Sprintf("%.2f", run.XFloor), optInt(run.Requests), optInt(run.Sectors), fmt.Sprint(run.Correct))
		}
		b.WriteString("</table>\n")
	}
	for _, n := range r.Notes {
		b.WriteString("<p>" + esc(n) + "</p>\n")
	}
	for _, f := range r.Failures {
		b.WriteString("<p><b>check failed:</b> " + esc(f) + "</p>\n")
	}
	return b.String()
}

func optInt(p *int64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprint(*p)
}

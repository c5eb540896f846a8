package gpuext

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/table"
)

// LineRow is one memory instruction of a launch, at the CUDA line it came
// from: the per-source-line view a student reads beside the kernel. A line
// with several accesses (SAXPY's y[i] = a*x[i] + y[i]: two loads and a
// store) has one row each, in instruction order, because their coalescing
// can differ and summing them would hide which one is slow.
type LineRow struct {
	File   string // "saxpy.cu"; "" when the PTX has no line information
	Line   int    // 1-based line in the CUDA source; 0 when unknown
	Source string // the line's text
	Instr  string // the PTX instruction, e.g. "ld.global.f32"
	// Array names what the access reads or writes: the kernel parameter its
	// address derives from, as the .cu names it ("x"), or the __shared__
	// array; "" when the simulator cannot tell (sim.SiteStats.Array). Two
	// loads on one line (SAXPY's x[i] and y[i]) are told apart by it.
	Array string
	Space sim.Space // sim.SpaceGlobal or sim.SpaceShared
	Op    sim.Op    // sim.OpLoad, OpStore or OpAtom

	Requests          int64   // warp-level requests
	SectorsPerRequest float64 // global: 32-byte sectors per request (4 is coalesced floats)
	BankConflicts     int64   // shared: wavefronts beyond the conflict-free count
	ActiveLanes       float64 // share of the requests' lane slots that had an active lane, 0..1
	Label             string  // the simulator's site label, in full
}

// siteLabelRE reads the labels sim.PTXKernel.SetSource gives sites:
// "saxpy.cu:4 if (i < n) y[i] = a * x[i] + y[i]; [ld.global.f32 %f1, [%rd6]]".
var siteLabelRE = regexp.MustCompile(`^(\S+\.cu):([0-9]+) (.*?) \[((?:ld|st|atom|red)\.[^\s\]]*)`)

// String is the row as one line of text: "line 4 x[] ld.global.f32: 32768
// requests, 4.00 sectors/request, 100.0% lanes active" (bank conflicts
// instead of sectors for shared memory; no "x[]" when the array is not
// known).
func (r LineRow) String() string {
	what := fmt.Sprintf("%.2f sectors/request", r.SectorsPerRequest)
	if r.Space == sim.SpaceShared {
		what = fmt.Sprintf("%d bank conflicts", r.BankConflicts)
	}
	where := r.Label
	if r.Line > 0 {
		where = fmt.Sprintf("line %d %s", r.Line, r.Instr)
		if r.Array != "" {
			where = fmt.Sprintf("line %d %s[] %s", r.Line, r.Array, r.Instr)
		}
	}
	return fmt.Sprintf("%s: %d requests, %s, %.1f%% lanes active", where, r.Requests, what, 100*r.ActiveLanes)
}

// Lines returns the launch's memory sites as rows ordered by source line
// (instruction order within a line): the per-line view of what the
// simulator counted. Sites without line information (PTX compiled without
// -lineinfo, kernels written in Go) come last, labelled as the simulator
// labels them. Nil on a GPU, which counts nothing.
func (l *Launch) Lines() []LineRow {
	if l == nil || l.Stats == nil {
		return nil
	}
	st := l.Stats
	rows := make([]LineRow, 0, len(st.Sites))
	for _, s := range st.Sites {
		r := LineRow{Space: s.Space, Op: s.Op, Requests: s.Requests, BankConflicts: s.Conflicts,
			ActiveLanes: s.UsefulShare(), Label: s.Label, Source: s.Label, Array: s.Array}
		if s.Requests > 0 && s.Space == sim.SpaceGlobal {
			r.SectorsPerRequest = float64(s.Sectors) / float64(s.Requests)
		}
		if m := siteLabelRE.FindStringSubmatch(s.Label); m != nil {
			r.File, r.Source, r.Instr = m[1], m[3], m[4]
			r.Line, _ = strconv.Atoi(m[2])
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Line, rows[j].Line
		if (a == 0) != (b == 0) {
			return b == 0
		}
		return a < b
	})
	return rows
}

// LinesTable is Lines as a table for plots.ShowTable, captioned with the
// kernel, model, launch shape and modeled time.
func (l *Launch) LinesTable() table.Table {
	t := table.Table{Header: []string{"line", "array", "source", "access", "requests", "sectors/request", "bank conflicts", "active lanes"}}
	if l == nil || l.Stats == nil {
		return t
	}
	st := l.Stats
	t.Caption = fmt.Sprintf("%s on simulated %s, grid %v × block %v: per source line; modeled time %.2f µs (%s-bound)",
		st.Kernel, st.Model, st.Grid, st.Block, st.Time.Seconds*1e6, st.Time.Bound)
	for _, r := range l.Lines() {
		line, access, spr, bc := "?", r.Space.String()+" "+r.Op.String(), "—", "—"
		if r.Line > 0 {
			line = strconv.Itoa(r.Line)
			access = r.Instr
		}
		if r.Space == sim.SpaceGlobal {
			spr = fmt.Sprintf("%.2f", r.SectorsPerRequest)
		} else {
			bc = strconv.FormatInt(r.BankConflicts, 10)
		}
		array := "—"
		if r.Array != "" {
			array = r.Array + "[]"
		}
		t.Add(line, array, r.Source, access, strconv.FormatInt(r.Requests, 10), spr, bc, fmt.Sprintf("%.1f%%", 100*r.ActiveLanes))
	}
	return t
}

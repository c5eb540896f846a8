package nbtest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLongCells(t *testing.T) {
	lines := func(n int) string { return strings.Repeat("x := 1\n", n) }
	tests := []struct {
		name  string
		cells []Cell
		want  []int // indices of the cells reported
	}{
		{"at the limit", []Cell{{Index: 0, Type: "code", Source: lines(25)}}, nil},
		{"trailing newlines do not count", []Cell{{Index: 0, Type: "code", Source: lines(25) + "\n\n"}}, nil},
		{"one over", []Cell{{Index: 0, Type: "code", Source: lines(26)}}, []int{0}},
		{"markdown is prose, not code", []Cell{{Index: 0, Type: "markdown", Source: lines(40)}}, nil},
		{"only the long one", []Cell{{Index: 0, Type: "code", Source: lines(3)}, {Index: 1, Type: "code", Source: lines(60)}}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs := LongCells(&Notebook{Cells: tt.cells}, MaxCellLines)
			var got []int
			for _, p := range probs {
				got = append(got, p.Cell)
			}
			if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Errorf("LongCells reported cells %v, want %v (%v)", got, tt.want, probs)
			}
		})
	}
}

func TestCellIDs(t *testing.T) {
	cell := func(i int, id string) Cell { return Cell{Index: i, ID: id, Type: "code", Source: "x := 1"} }
	tests := []struct {
		name  string
		nb    Notebook
		cells []int // cells reported (-1: the notebook)
	}{
		{"every cell its own id", Notebook{Minor: 5, Cells: []Cell{cell(0, "lesson-00"), cell(1, "lesson-01")}}, nil},
		{"a missing id", Notebook{Minor: 5, Cells: []Cell{cell(0, "lesson-00"), cell(1, "")}}, []int{1}},
		{"a duplicate", Notebook{Minor: 5, Cells: []Cell{cell(0, "a"), cell(1, "b"), cell(2, "a")}}, []int{2}},
		{"not an nbformat id", Notebook{Minor: 5, Cells: []Cell{cell(0, "two words")}}, []int{0}},
		{"nbformat 4.4", Notebook{Minor: 4, Cells: []Cell{cell(0, "a")}}, []int{-1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, p := range CellIDs(&tt.nb) {
				got = append(got, p.Cell)
			}
			if !slices.Equal(got, tt.cells) {
				t.Errorf("CellIDs reported cells %v, want %v (%v)", got, tt.cells, CellIDs(&tt.nb))
			}
		})
	}
}

// TestNotebookCellIDs checks that every cell of every notebook in notebooks/
// has an id of its own (nbformat 4.5), so that JupyterLab opens them
// unmodified and saving them does not churn (CellIDs).
func TestNotebookCellIDs(t *testing.T) {
	paths, err := Notebooks(filepath.Join(moduleRoot(t), "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no notebooks in notebooks/")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			nb, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, prob := range CellIDs(nb) {
				t.Error(prob)
			}
		})
	}
}

package nbtest

import (
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

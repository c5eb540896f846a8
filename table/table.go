// Package table is the one shape a lesson hands a table to a notebook in:
// a caption, column heads and rows of already formatted cells. The lessons
// build their tables (so that the notebook cell is one call, and `go test`
// reaches the formatting), and plots.ShowTable renders every lesson's
// tables the same way; neither needs to import the other. Count, OptCount
// and Ratio format the cells that every lesson prints (counts, counters a
// run may lack, sectors per request), so that two lessons' tables agree.
package table

import "strconv"

// Table is a table ready to show: every cell is text, formatted by the
// lesson, and the caption says where the numbers come from (counted,
// modeled, or measured on a named GPU).
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// The cells every lesson table prints, formatted one way.

// Count prints n with thousands separators (1,048,576), as the lesson
// tables print counts, so that a reader can compare them at a glance.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// OptCount is Count of *p, or "—" for a counter the run does not have (a
// GPU run has no simulator-only counters, and the reverse).
func OptCount(p *int64) string {
	if p == nil {
		return "—"
	}
	return Count(*p)
}

// Ratio prints a/b with two decimals (sectors per request, say), or "—"
// when either is missing or b is 0.
func Ratio(a, b *int64) string {
	if a == nil || b == nil || *b == 0 {
		return "—"
	}
	return strconv.FormatFloat(float64(*a)/float64(*b), 'f', 2, 64)
}

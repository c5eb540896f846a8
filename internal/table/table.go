// Package table is the one shape a lesson hands a table to a notebook in:
// a caption, column heads and rows of already formatted cells. The lessons
// build their tables (so that the notebook cell is one call, and `go test`
// reaches the formatting), and plots.ShowTable renders every lesson's
// tables the same way; neither needs to import the other.
package table

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

package plots

import (
	"os"

	"github.com/warplab/warplab/table"
)

// Must ends a notebook cell when err is not nil: ShowError shows it as one
// readable line (no stack trace), then the cell's program exits with status
// 1, so that the notebook harness sees the cell fail. Every lesson notebook
// uses it the same way, `plots.Must(err)`, instead of a helper of its own.
func Must(err error) {
	if ShowError(err) {
		os.Exit(1)
	}
}

// ShowTable displays a lesson's table (package table) as an HTML table
// with its caption, rendered by HTMLTableCaption like every other table in
// the notebooks.
func ShowTable(t table.Table) {
	DisplayHTML(HTMLTableCaption(t.Caption, t.Header, t.Rows))
}

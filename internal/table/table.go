// Package table forwards to github.com/warplab/warplab/table, where the
// table type moved so that public APIs (gpuext.Launch.LinesTable, the
// lessons' tables) return a public type. It stays only until the last
// uncommitted user moves; import github.com/warplab/warplab/table.
//
// Deprecated: use github.com/warplab/warplab/table.
package table

import "github.com/warplab/warplab/table"

// Table is table.Table.
type Table = table.Table

// Count is table.Count.
func Count(n int64) string { return table.Count(n) }

// OptCount is table.OptCount.
func OptCount(p *int64) string { return table.OptCount(p) }

// Ratio is table.Ratio.
func Ratio(a, b *int64) string { return table.Ratio(a, b) }

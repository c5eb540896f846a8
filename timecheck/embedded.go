package timecheck

import (
	"bytes"
	_ "embed"
)

// checkH200 is the report of `warplab timemodel check --json
// timecheck/recorded/check-h200.json`: the recorded H200 runs with
// the simulator's modeled times as of the commit that wrote it. It is
// generated, never edited; TestEmbeddedMeasuredCurrent fails when its
// measured side no longer matches evidence/, and with WARPLAB_LONG=1
// TestEmbeddedModeledCurrent fails when the model has moved since.
//
//go:embed recorded/check-h200.json
var checkH200 []byte

// Embedded returns the recorded check for the H200, what the lessons'
// modeled-against-measured figure draws where nothing is re-simulated.
func Embedded() (*Report, error) { return ReadReport(bytes.NewReader(checkH200)) }

// sweepH200 is the report of `warplab timemodel check --sweep-only
// --sweep-json timecheck/recorded/sweep-h200.json`: the recorded
// H200 sweep with the simulator's modeled times as of the commit that
// wrote it (docs/timemodel-sweep.md names it). Generated, never edited;
// TestEmbeddedSweepMeasuredCurrent fails when its measured side no longer
// matches evidence/.
//
//go:embed recorded/sweep-h200.json
var sweepH200 []byte

// EmbeddedSweep returns the recorded sweep's check for the H200, what the
// per-family figure draws where nothing is re-simulated.
func EmbeddedSweep() (*SweepReport, error) { return ReadSweepReport(bytes.NewReader(sweepH200)) }

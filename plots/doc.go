// Package plots is the notebooks' side of warplab's figures: Display and
// the other GoNB helpers, HTML tables, and the figures that belong to no one
// lesson (simulator counters against a profiler's, stride and access maps).
// The time model's figures, which read the recorded checks, are package
// timefig's, above the lessons.
//
// A lesson draws its own figures, in its own package (lessons/cg/figure.go
// and the like), with the toolkit in plots/chart: the notebook style,
// bars, legends outside the data area, the roofline, multi-panel figures and
// rendering. This package imports no lesson and nothing above the lessons,
// so a new lesson's figures need no edit here. Drawer, Figure, SVG, PNG, WriteFile
// and CounterRow are chart's, under the names the notebooks use.
//
// Figures are built from results (a lesson's Result, counter rows, roofline
// points), never from devices, so the same figure can be drawn from a live
// run, a simulator run or a recorded GPU run. Every number drawn is labeled
// with where it came from: "modeled" for the simulator, the GPU, driver and
// date for a measurement.
//
// Legends stand outside the data area (above it, or right of it for many
// short entries), so that no legend covers data in any viewer's fonts.
// Every figure constructor, here, in plots/chart and in the lessons, has an
// Example that draws it from fixed inputs (testdata JSON, recorded GPU runs)
// into its package's testdata/NAME.png, and a golden test compares that
// picture with testdata/NAME_golden.png at cmpimg's default tolerance; after
// a deliberate change, `go test ./PACKAGE -run Golden -regen` redraws the
// goldens, which a person looks at before they are committed.
//
// The notebook helpers (Display, Progress, ShowError) talk to GoNB through
// gonbui; outside a GoNB kernel they do nothing or fall back to plain text, so
// the command line can import this package freely.
package plots

// Package plots draws warplab's figures from lesson results: what the
// simulator predicted next to what a GPU measured, as SVG inline in a GoNB
// notebook or as SVG/PNG files for the lesson pages.
//
// Figures are built from results (a lesson's Result, counter rows, roofline
// points), never from devices, so the same figure can be drawn from a live
// run, a simulator run or a recorded GPU run. Every number drawn is labeled
// with where it came from: "modeled" for the simulator, the GPU, driver and
// date for a measurement.
//
// Legends stand outside the data area (above it, or right of it for many
// short entries), so that no legend covers data in any viewer's fonts.
// Every figure constructor has an Example that draws it from fixed inputs
// (testdata JSON, recorded GPU runs) into testdata/NAME.png, and a golden
// test compares that picture with testdata/NAME_golden.png at cmpimg's
// default tolerance; after a deliberate change, `go test ./plots -run
// Golden -regen` redraws the goldens, which a person looks at before they
// are committed.
//
// The notebook helpers (Display, Progress, ShowError) talk to GoNB through
// gonbui; outside a GoNB kernel they do nothing or fall back to plain text, so
// the command line can import this package freely.
package plots

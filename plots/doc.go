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
// The notebook helpers (Display, Progress, ShowError) talk to GoNB through
// gonbui; outside a GoNB kernel they do nothing or fall back to plain text, so
// the command line can import this package freely.
package plots

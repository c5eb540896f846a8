// Package chart is the figure toolkit every warplab figure is drawn with:
// the notebook style, grouped bars that work on a log axis, reference
// lines, tick markers, legends outside the data area, multi-panel figures,
// and rendering to SVG or PNG (written atomically).
//
// It is its own package, importing gonum/plot and nothing of warplab, so
// that a lesson package can draw its own figures: package plots imports
// internal/timecheck, which imports the lessons, so a lesson cannot import
// plots. A lesson's figure code (lessons/cg/figure.go and the like) lives
// with the lesson and uses this package; plots keeps the generic figures
// (roofline, counters, access maps, the time model) and the notebook
// helpers, and needs no edit for a new lesson's figures.
package chart

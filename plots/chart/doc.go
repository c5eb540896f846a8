// Package chart is the figure toolkit every warplab figure is drawn with:
// the notebook style, the colours of predicted, modeled and measured
// numbers, grouped bars that work on a log axis, reference lines, tick
// markers, legends outside the data area, the roofline, point labels that
// keep clear of each other, multi-panel figures, rendering to SVG or PNG
// (written atomically), and CounterRow, the simulator's counters beside a
// profiler's.
//
// It is its own package, importing gonum/plot and of warplab only sim (the
// device models a roofline is drawn for), so that a lesson package draws
// its own figures with a toolkit that brings in nothing else. A lesson's
// figure code (lessons/cg/figure.go and the like) lives with the lesson
// and uses this package; plots keeps the figures of no one lesson
// (counters against a profiler, strides, access maps) and the notebook
// helpers, timefig the time model's, and neither needs an edit for a new
// lesson's figures.
package chart

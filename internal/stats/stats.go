// Package stats holds the small statistics the checks share, so that a
// figure computed by one package and checked by another is computed one
// way.
package stats

import "slices"

// Median is the median of v, the mean of the middle two for an even
// count, 0 for none; v is left as it was. The recorded runs' medians
// (each sweep case over its passes and leases, each held-out case over
// its runs, a lease's floor over its records) are all this one.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

package stats

import "testing"

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float64
		want float64
	}{
		{"none", nil, 0},
		{"one", []float64{3}, 3},
		{"two: their mean", []float64{4, 2}, 3},
		{"odd, unsorted", []float64{9, 1, 5}, 5},
		{"even, unsorted", []float64{8, 1, 4, 2}, 3},
	} {
		v := append([]float64(nil), tc.v...)
		if got := Median(tc.v); got != tc.want {
			t.Errorf("%s: Median(%v) = %g, want %g", tc.name, tc.v, got, tc.want)
		}
		for i := range v {
			if v[i] != tc.v[i] {
				t.Errorf("%s: Median changed its argument", tc.name)
			}
		}
	}
}

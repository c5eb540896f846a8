package cg

import (
	"math"
	"testing"
)

// smallCSR is [[2, 0, 1], [0, 3, 0], [4, 5, 6]].
func smallCSR() *CSR {
	return &CSR{
		Rows: 3, Cols: 3,
		RowPtr: []int32{0, 2, 3, 6},
		ColIdx: []int32{0, 2, 1, 0, 1, 2},
		Val:    []float64{2, 1, 3, 4, 5, 6},
	}
}

func TestSpMVSmall(t *testing.T) {
	y := make([]float64, 3)
	spmv(smallCSR(), []float64{1, 2, 3}, y)
	if want := []float64{5, 6, 32}; !equalBits(y, want) {
		t.Errorf("A·x = %v, want %v", y, want)
	}
}

// TestSpMVStoredOrder checks that a row is summed from 0.0 in stored order:
// (1e16 + 1) − 1e16 is 0 in float64 (1e16 + 1 rounds to 1e16), while any
// other order that adds the +1 last gives 1.
func TestSpMVStoredOrder(t *testing.T) {
	a := &CSR{Rows: 3, Cols: 3, RowPtr: []int32{0, 3, 3, 3}, ColIdx: []int32{0, 1, 2}, Val: []float64{1, 1, 1}}
	y := make([]float64, 3)
	spmv(a, []float64{1e16, 1, -1e16}, y)
	if y[0] != 0 {
		t.Errorf("row sum = %v, want 0 (sequential order)", y[0])
	}
}

func TestDdotSequential(t *testing.T) {
	tests := []struct {
		x, y []float64
		want float64
	}{
		{nil, nil, 0},
		{[]float64{3}, []float64{4}, 12},
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 32},
		{[]float64{1e16, 1, -1e16}, []float64{1, 1, 1}, 0}, // sequential: (1e16+1) rounds to 1e16
		{[]float64{1, 1e16, -1e16}, []float64{1, 1, 1}, 0}, // 1+1e16 = 1e16 again
		{[]float64{1e16, -1e16, 1}, []float64{1, 1, 1}, 1},
	}
	for _, tt := range tests {
		if got := ddot(tt.x, tt.y); got != tt.want {
			t.Errorf("ddot(%v, %v) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

func TestWaxpbyBranches(t *testing.T) {
	x := []float64{1, 2, 3}
	y := []float64{10, 20, 30}
	tests := []struct {
		alpha, beta float64
		want        []float64
	}{
		{1, 2, []float64{21, 42, 63}},
		{1, 0, []float64{1, 2, 3}},
		{1, -1, []float64{-9, -18, -27}},
		{2, 1, []float64{12, 24, 36}},
		{3, -2, []float64{-17, -34, -51}},
	}
	for _, tt := range tests {
		w := make([]float64, 3)
		waxpby(tt.alpha, x, tt.beta, y, w)
		if !equalBits(w, tt.want) {
			t.Errorf("waxpby(%v, x, %v, y) = %v, want %v", tt.alpha, tt.beta, w, tt.want)
		}
	}
	// In place, as HPCCG calls it: x = x + alpha·p.
	xx := []float64{1, 2, 3}
	waxpby(1, xx, 0.5, y, xx)
	if want := []float64{6, 12, 18}; !equalBits(xx, want) {
		t.Errorf("in-place waxpby = %v, want %v", xx, want)
	}
}

func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

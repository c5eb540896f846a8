package sim

import (
	"fmt"
	"math"
	"testing"
)

// inflightRows makes a copyinflight run whose kernels take the given
// times (µs) at every K, width and n, with write's GB/s from its time.
func inflightRows(read, write, copy, saxpy float64) []MicrobenchRow {
	var rows []MicrobenchRow
	for _, e := range []int{24, 26} {
		for _, v := range []int{1, 4} {
			for _, k := range []int{1, 2, 4, 8} {
				p := fmt.Sprintf("K=%d v=%d n=2^%d", k, v, e)
				n := float64(int64(1) << e)
				rows = append(rows,
					MicrobenchRow{Name: "read_inflight", Param: p, Value: read, Unit: "us"},
					MicrobenchRow{Name: "write_inflight", Param: p, Value: write, Unit: "us"},
					MicrobenchRow{Name: "write_inflight_gbs", Param: p, Value: 4 * n / (write * 1e-6) / 1e9, Unit: "GB/s"},
					MicrobenchRow{Name: "copy_inflight", Param: p, Value: copy, Unit: "us"},
					MicrobenchRow{Name: "saxpy_inflight", Param: p, Value: saxpy, Unit: "us"})
			}
		}
	}
	return rows
}

// TestApplyCopyInflight: α is where the copy falls between its read and
// write overlapped (0) and one after the other (1), clipped; DRAMWrite is
// the write rows' median rate; too few rows leave the model as it was.
func TestApplyCopyInflight(t *testing.T) {
	for _, c := range []struct {
		name              string
		read, write, copy float64
		alpha             float64
	}{
		{"overlapped", 100, 60, 100, 0},
		{"serial", 100, 60, 160, 1},
		{"between", 100, 60, 130, 0.5},
		{"faster than either", 100, 60, 90, 0},
		{"slower than both", 100, 60, 200, 1},
	} {
		rows := inflightRows(c.read, c.write, c.copy, 150)
		m := applyCopyInflight(Model{}, rows)
		if math.Abs(m.DRAMOverlap-c.alpha) > 1e-9 {
			t.Errorf("%s: DRAMOverlap %g, want %g", c.name, m.DRAMOverlap, c.alpha)
		}
		// The median is halfway between 2^24's rate and 2^26's (four
		// times as many bytes in the same 60 µs): 2.5 × 4·2^24 bytes.
		if want := 2.5 * 4 * float64(int64(1)<<24) / 60e-6; math.Abs(m.DRAMWrite-want) > 1e-6*want {
			t.Errorf("%s: DRAMWrite %g, want %g", c.name, m.DRAMWrite, want)
		}
	}
	if m := applyCopyInflight(Model{}, inflightRows(100, 60, 130, 150)[:10]); m.DRAMWrite != 0 || m.DRAMOverlap != 0 {
		t.Errorf("two cases' rows set DRAMWrite %g, DRAMOverlap %g; want both left at 0", m.DRAMWrite, m.DRAMOverlap)
	}
}

// TestSaxpyInflightErrors: saxpy(K) is predicted from read(2K) (twice its
// time: two arrays) and write(K), for K = 1, 2, 4 (read(16) is not run).
func TestSaxpyInflightErrors(t *testing.T) {
	// read 100, write 60, α 0.5: 200 + 30 = 230 predicted against 250.
	errs := saxpyInflightErrors(inflightRows(100, 60, 130, 250), 0.5)
	if len(errs) != 12 {
		t.Fatalf("%d saxpy cases predicted, want 12 (K = 1, 2, 4; two widths; two n)", len(errs))
	}
	for c, e := range errs {
		if c.k == 8 || math.Abs(e-(230.0/250-1)) > 1e-9 {
			t.Errorf("%+v: error %g, want %g", c, e, 230.0/250-1)
		}
	}
}

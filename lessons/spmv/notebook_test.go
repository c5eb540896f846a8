package spmv

import (
	"context"
	"strings"
	"testing"
)

// The ncu counts the notebook shows come from the embedded CSVs; these are
// the values DESIGN.md's table and the notebook's expectations quote.
func TestNCUSeed(t *testing.T) {
	counts, err := NCUSeed()
	if err != nil {
		t.Fatal(err)
	}
	want := []NCUCount{
		{"even", ProbeRun, 786_432, 2_883_576},
		{"even", ThreadPerRowRun, 819_200, 18_202_594},
		{"even", WarpPerRowRun, 2_621_440, 4_653_042},
		{"skewed", ProbeRun, 786_432, 3_276_630},
		{"skewed", ThreadPerRowRun, 20_627_456, 22_003_736},
		{"skewed", WarpPerRowRun, 3_260_416, 5_816_137},
	}
	for _, w := range want {
		got, ok := FindNCU(counts, w.Matrix, w.Kernel)
		if !ok || got != w {
			t.Errorf("%s %s: got %+v (found %v), want %+v", w.Matrix, w.Kernel, got, ok, w)
		}
	}
	even, _ := FindNCU(counts, "even", ThreadPerRowRun)
	if spr := even.SectorsPerRequest(); spr < 22.2 || spr >= 22.25 {
		t.Errorf("even thread per row: %.3f sectors per request, the notebook says 22.2", spr)
	}
}

func TestNCUSuiteSparse(t *testing.T) {
	tests := []struct {
		matrix            string
		requests, sectors int64 // thread per row
	}{
		{"bayer10", 23_466, 184_920},
		{"bcsstk13", 13_047, 199_032},
		{"cryg2500", 1_340, 18_227},
		{"rajat01", 20_519, 88_345},
	}
	for _, tt := range tests {
		t.Run(tt.matrix, func(t *testing.T) {
			counts, err := NCUSuiteSparse(tt.matrix)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := FindNCU(counts, tt.matrix, ThreadPerRowRun)
			if !ok || got.Requests != tt.requests || got.Sectors != tt.sectors {
				t.Errorf("thread per row: %+v, want %d / %d", got, tt.requests, tt.sectors)
			}
		})
	}
	if _, err := NCUSuiteSparse("nosuch"); err == nil {
		t.Error("NCUSuiteSparse(nosuch): want an error")
	}
}

func TestKernelSource(t *testing.T) {
	for _, name := range []string{KernelThreadPerRow, KernelWarpPerRow, KernelProbe} {
		src, err := KernelSource(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, "__global__ void "+name+"(") || !strings.HasSuffix(src, "}\n") {
			t.Errorf("KernelSource(%s) =\n%s", name, src)
		}
	}
}

func TestNotebookTables(t *testing.T) {
	pred, err := Predict(Options{Rows: 1024})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rows    int
		first   string // first row, cells joined by " | "
		columns int
	}{
		{"matrices", 2, "even | 1,024 | 16,384 | 16 | 16 | 16.00", 6},
		{"lane-slots", 4, "even | thread per row | 16,384 | 100.0% | 1.00×", 5},
	}
	for i, tab := range []struct{ rows [][]string }{{MatricesTable(pred).Rows}, {LaneSlotsTable(pred).Rows}} {
		tt := tests[i]
		if len(tab.rows) != tt.rows || strings.Join(tab.rows[0], " | ") != tt.first || len(tab.rows[0]) != tt.columns {
			t.Errorf("%s table: %q, want %d rows starting %q", tt.name, tab.rows, tt.rows, tt.first)
		}
	}
	res, err := Run(context.Background(), openSim(t), Options{Rows: 1024})
	if err != nil {
		t.Fatal(err)
	}
	cmp := ComparisonTable(res, nil, "")
	if len(cmp.Rows) != 6 || cmp.Rows[0][len(cmp.Rows[0])-1] != "—" {
		t.Errorf("comparison without a GPU run: %q", cmp.Rows)
	}
	run, _ := res.Find("even", ThreadPerRowRun)
	// Even rows of 16 run nvcc's unrolled loop 4 times and its remainder
	// loop never: the two rowPtr loads, then 4 copies each of colIdx[j],
	// val[j] and x[colIdx[j]]; colIdx and val are a sector per lane (rows
	// 64 bytes apart), 32.00 a request.
	sites := SitesTable(run)
	got := map[string]string{}
	for _, r := range sites.Rows {
		got[r[0]+" "+r[1][:10]] = r[2] + " " + r[5]
	}
	want := map[string]string{"rowPtr spmv.cu:62": "1 4.00", "rowPtr spmv.cu:63": "1 5.00", "colIdx spmv.cu:66": "4 32.00", "val spmv.cu:66": "4 32.00"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("sites of even thread per row: %s: %q, want %q (all: %q)", k, got[k], w, sites.Rows)
		}
	}
	if x := got["x spmv.cu:66"]; len(sites.Rows) != 5 || !strings.HasPrefix(x, "4 ") || len(sites.Header) != 6 {
		t.Errorf("sites of even thread per row: %q", sites.Rows)
	}
}

func TestTimesTable(t *testing.T) {
	res, err := Run(context.Background(), openSim(t), Options{Rows: 1024})
	if err != nil {
		t.Fatal(err)
	}
	tab := TimesTable(res)
	if len(tab.Rows) != 6 || tab.Rows[0][1] != "stream probe (floor)" || tab.Rows[0][4] != "1.00×" || !strings.Contains(tab.Caption, "modeled") {
		t.Errorf("TimesTable: %q %q", tab.Caption, tab.Rows)
	}
	if res.Err() != nil {
		t.Errorf("Err() = %v on a passing run", res.Err())
	}
	res.Failures = []string{"a", "b"}
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "2 checks failed: a; b") {
		t.Errorf("Err() = %v", err)
	}
}

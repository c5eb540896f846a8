package cg

import (
	"strings"
	"testing"
)

// occCSV builds an ncu CSV with the lesson's device line before the header
// and one launch per (kernel, achieved, eligible, active) tuple; a metric
// given as "" is left out.
func occCSV(device string, launches [][4]string) string {
	var b strings.Builder
	b.WriteString("==WARNING== Note: Running with unmodified GPU clocks.\n")
	if device != "" {
		b.WriteString("   device: " + device + "\n")
	}
	b.WriteString(`"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n")
	for id, l := range launches {
		for i, m := range []string{MetricAchievedOccupancy, MetricEligibleWarps, MetricActiveWarps} {
			if l[i+1] == "" {
				continue
			}
			b.WriteString(`"` + string(rune('0'+id)) + `","1","w","h","` + l[0] + `","1","7","(256, 1, 1)","(3907, 1, 1)","0","9.0","s","` + m + `","","` + l[i+1] + `"` + "\n")
		}
	}
	return b.String()
}

func TestReadOccupancy(t *testing.T) {
	const dev = "NVIDIA H200, driver 580.159.04, CUDA 13.0 driver API, 2026-12-01T03:12:16Z"
	cases := []struct {
		name     string
		csv      string
		want     []Occupancy // Stage 4 throughout
		wantDev  string
		errMatch string
	}{
		{
			name: "launches of one kernel averaged, kernels in first-launch order",
			csv: occCSV(dev, [][4]string{
				{"waxpby", "72", "0.5", "11"},
				{"spmvCsrThreadPerRow", "88", "0.10", "14"},
				{"waxpby", "74", "0.7", "12"},
				{"spmvCsrThreadPerRow", "89", "0.12", "14.5"},
			}),
			want: []Occupancy{
				{Stage: 4, Kernel: "waxpby", Launches: 2, AchievedPct: 73, Eligible: 0.6, Active: 11.5},
				{Stage: 4, Kernel: "spmvCsrThreadPerRow", Launches: 2, AchievedPct: 88.5, Eligible: 0.11, Active: 14.25},
			},
			wantDev: dev,
		},
		{
			name:    "no device line",
			csv:     occCSV("", [][4]string{{"ddotFinal", "12.5", "0.09", "1.99"}}),
			want:    []Occupancy{{Stage: 4, Kernel: "ddotFinal", Launches: 1, AchievedPct: 12.5, Eligible: 0.09, Active: 1.99}},
			wantDev: "",
		},
		{
			name:     "a launch without eligible warps",
			csv:      occCSV(dev, [][4]string{{"waxpby", "72", "", "11"}}),
			errMatch: "launch 0 (waxpby) has no " + MetricEligibleWarps,
		},
		{
			name:     "no CSV header",
			csv:      "the program failed before ncu wrote anything\n",
			errMatch: "no CSV header",
		},
		{
			name:     "a header and no launches",
			csv:      occCSV(dev, nil),
			errMatch: "no launches",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, gotDev, err := ReadOccupancy(4, strings.NewReader(c.csv))
			if c.errMatch != "" {
				if err == nil || !strings.Contains(err.Error(), c.errMatch) {
					t.Fatalf("error %v, want one containing %q", err, c.errMatch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gotDev != c.wantDev {
				t.Errorf("device %q, want %q", gotDev, c.wantDev)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d rows, want %d: %+v", len(got), len(c.want), got)
			}
			near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
			for i, w := range c.want {
				g := got[i]
				if g.Stage != w.Stage || g.Kernel != w.Kernel || g.Launches != w.Launches ||
					!near(g.AchievedPct, w.AchievedPct) || !near(g.Eligible, w.Eligible) || !near(g.Active, w.Active) {
					t.Errorf("row %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestRecordedOccupancy reads the embedded H200 run and holds it to what
// the notebook says of it: every SpMV ran at high achieved occupancy in all
// three stages, and what rose from stage 4 to 5 to 8 is the number of warps
// ready to issue.
func TestRecordedOccupancy(t *testing.T) {
	rows, label, err := RecordedOccupancy()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NVIDIA H200", "driver 580.159.04", "2026-12-01", OccupancyRun} {
		if !strings.Contains(label, want) {
			t.Errorf("label %q does not name %q", label, want)
		}
	}
	if strings.Contains(label, "T03:") {
		t.Errorf("label %q keeps a stage's time of day", label)
	}
	spmv := map[int]string{4: kSpMVThreadPerRow, 5: kSpMVSubwarp, 8: kSpMVStencil27}
	got := map[int]Occupancy{}
	launches := map[int]int{}
	for _, o := range rows {
		launches[o.Stage] += o.Launches
		if o.AchievedPct <= 0 || o.AchievedPct > 100 || o.Eligible < 0 || o.Active <= 0 {
			t.Errorf("stage %d %s: out of range: %+v", o.Stage, o.Kernel, o)
		}
		if o.Kernel == spmv[o.Stage] {
			got[o.Stage] = o
		}
	}
	for _, s := range OccupancyStages {
		if launches[s] != 12 {
			t.Errorf("stage %d: %d launches, want the 12 cg-occupancy.sh profiles", s, launches[s])
		}
		o, ok := got[s]
		if !ok {
			t.Fatalf("stage %d: no %s", s, spmv[s])
		}
		if o.AchievedPct < 75 {
			t.Errorf("stage %d %s: achieved occupancy %.1f%%, the notebook says it was high in every stage", s, o.Kernel, o.AchievedPct)
		}
	}
	if !(got[4].Eligible < got[5].Eligible && got[5].Eligible < got[8].Eligible) {
		t.Errorf("eligible warps per cycle %.2f, %.2f, %.2f for stages 4, 5, 8: the notebook says they rise",
			got[4].Eligible, got[5].Eligible, got[8].Eligible)
	}
	table := OccupancyTable(rows)
	if n := strings.Count(table, "\n"); n != len(rows)+1 {
		t.Errorf("table has %d lines, want %d:\n%s", n, len(rows)+1, table)
	}
	t.Logf("%s\n%s", label, table)
}

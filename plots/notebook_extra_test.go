package plots

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/table"
)

func TestSitesAndStrideTables(t *testing.T) {
	s := &sim.Stats{Kernel: "saxpy", Model: "t4", Grid: sim.Dim1(4), Block: sim.Dim1(256),
		Sites:      []sim.SiteStats{{Label: "x ld", Requests: 32, Sectors: 128, LaneSlots: 1024, ActiveLanes: 1024}},
		GlobalLoad: sim.Traffic{Requests: 32, Sectors: 128}, GlobalStore: sim.Traffic{Requests: 32, Sectors: 128},
		Time: sim.Modeled{Seconds: 2e-6, Bound: "dram", Kind: "modeled"}}
	tests := []struct {
		name          string
		tab           table.Table
		caption, row0 string
	}{
		{"sites", SitesTable(s), "saxpy on t4, grid 4 × block 256; modeled kernel time 2.0 µs (dram-bound, modeled)", "x ld | 32 | 128 | 4.00 | 1,024 | 1,024"},
		{"strides", StrideTable("simulated T4", []int{2}, []*sim.Stats{s}), "strided copy on a simulated T4", "2 | 32 | 128 | 4.00 | 4.00 | 2.0"},
	}
	for _, tt := range tests {
		if tt.tab.Caption != tt.caption || len(tt.tab.Rows) != 1 || strings.Join(tt.tab.Rows[0], " | ") != tt.row0 {
			t.Errorf("%s: %q %q", tt.name, tt.tab.Caption, tt.tab.Rows)
		}
	}
}

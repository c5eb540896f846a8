package plots_test

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/cmpimg"

	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/sim"
)

func TestGoldenAccessSectors(t *testing.T) {
	cmpimg.CheckPlot(ExampleAccessMaps_sectors, t, "access_sectors.png")
}

func TestGoldenAccessBanks(t *testing.T) {
	cmpimg.CheckPlot(ExampleAccessMaps_banks, t, "access_banks.png")
}

// TestAccessSummary: the verdict line counts what the picture shows.
func TestAccessSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   sim.MemEvent
		want string
	}{
		{"coalesced", warpAccess("global", "ld", "x", 1<<20, 4, func(l int) uint64 { return uint64(4 * l) }),
			"32 lanes → 4 sectors: 128 B moved, 128 B used"},
		{"stride 2", warpAccess("global", "ld", "x", 1<<20, 4, func(l int) uint64 { return uint64(8 * l) }),
			"32 lanes → 8 sectors: 256 B moved, 128 B used"},
		{"one address", warpAccess("global", "ld", "x", 1<<20, 4, func(int) uint64 { return 64 }),
			"32 lanes → 1 sector: 32 B moved, 128 B used"},
		{"column", warpAccess("shared", "ld", "tile", 0, 4, func(l int) uint64 { return uint64(128 * l) }),
			"32 lanes → 32 wavefronts (32-way bank conflict)"},
		{"stride 2 shared", warpAccess("shared", "st", "s", 0, 4, func(l int) uint64 { return uint64(8 * l) }),
			"32 lanes → 2 wavefronts (2-way bank conflict)"},
		{"padded", warpAccess("shared", "ld", "tile", 0, 4, func(l int) uint64 { return uint64(132 * l) }),
			"32 lanes → 1 wavefront (no bank conflict)"},
	} {
		if got := plots.AccessSummary(tc.ev); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestAccessMapErrors: bad events are refused with a message, not drawn.
func TestAccessMapErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   sim.MemEvent
		want string
	}{
		{"no lanes", sim.MemEvent{Space: "global", Op: "ld", Width: 4}, "no active lanes"},
		{"local", sim.MemEvent{Space: "local", Op: "ld", Width: 4, Lanes: []sim.LaneAccess{{Lane: 0}}}, "space"},
		{"lane 40", sim.MemEvent{Space: "global", Op: "ld", Width: 4, Lanes: []sim.LaneAccess{{Lane: 40}}}, "lane 40"},
	} {
		if _, err := plots.AccessMap(tc.name, tc.ev); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if _, err := plots.FindAccess(nil, sim.WarpRef{}, "global", "ld"); err == nil {
		t.Error("FindAccess(nil): no error")
	}
}

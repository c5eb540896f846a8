package plots

import (
	"fmt"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/table"
)

// SitesTable lists one launch's memory sites (each load or store of the
// kernel body): requests, 32-byte sectors, sectors per request, lane-slots
// and active lanes, with the modeled time in the caption, so that the first
// notebook shows what the simulator counted without a table builder in a
// cell.
func SitesTable(s *sim.Stats) table.Table {
	t := table.Table{
		Caption: fmt.Sprintf("%s on %s, grid %d × block %d; modeled kernel time %.1f µs (%s-bound, %s)",
			s.Kernel, s.Model, s.Grid.X, s.Block.X, s.Time.Seconds*1e6, s.Time.Bound, s.Time.Kind),
		Header: []string{"site", "requests", "sectors", "sectors/request", "lane slots", "active lanes"},
	}
	for _, st := range s.Sites {
		t.Add(st.Label, Thousands(st.Requests), Thousands(st.Sectors), fmt.Sprintf("%.2f", ratio(st.Sectors, st.Requests)),
			Thousands(st.LaneSlots), Thousands(st.ActiveLanes))
	}
	return t
}

// StrideTable is the first notebook's strided-copy sweep: per stride, the
// launch's load requests and sectors, sectors per load and per store
// request, and its modeled time. stats[i] is the launch with strides[i];
// device names the simulated GPU for the caption.
func StrideTable(device string, strides []int, stats []*sim.Stats) table.Table {
	t := table.Table{
		Caption: "strided copy on a " + device,
		Header:  []string{"stride", "load requests", "load sectors", "sectors per load request", "sectors per store request", "modeled time (µs)"},
	}
	for i, s := range stats {
		t.Add(fmt.Sprint(strides[i]), Thousands(s.GlobalLoad.Requests), Thousands(s.GlobalLoad.Sectors),
			fmt.Sprintf("%.2f", s.GlobalLoad.SectorsPerRequest()), fmt.Sprintf("%.2f", s.GlobalStore.SectorsPerRequest()),
			fmt.Sprintf("%.1f", s.Time.Seconds*1e6))
	}
	return t
}

package plots_test

import (
	"log"

	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/sim"
)

// warpAccess is one traced instruction of warp 0: lane l at byte offset
// off(l) of buffer name (device address base+off for global; offset in
// shared memory for shared), width bytes each.
func warpAccess(space sim.Space, op sim.Op, name string, base uint64, width int, off func(l int) uint64) sim.MemEvent {
	ev := sim.MemEvent{Space: space, Op: op, Width: width}
	for l := range 32 {
		o := off(l)
		ev.Lanes = append(ev.Lanes, sim.LaneAccess{Lane: l, Addr: base + o, Buffer: name, Offset: o})
	}
	return ev
}

// AccessMaps draws the first notebook's coalescing lesson as students draw
// it: a warp reading 32 neighbouring floats touches 4 sectors (8 lanes in
// each); read every 8th float and each lane has a sector to itself, 32 of
// them. The events are typed in (what the simulator's trace holds for
// strided_copy's load at strides 1 and 8), so the golden moves only when
// the figure does.
func ExampleAccessMaps_sectors() {
	const base = 0x7f0000000000
	evs := []sim.MemEvent{
		warpAccess("global", "ld", "src", base, 4, func(l int) uint64 { return uint64(4 * l) }),
		warpAccess("global", "ld", "src", base, 4, func(l int) uint64 { return uint64(4 * 8 * l) }),
	}
	r, err := plots.AccessMaps([]string{"stride 1", "stride 8"}, evs)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/access_sectors.png", r, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

// AccessMaps of a shared-memory transpose's column read, tile[threadIdx.x]
// [threadIdx.y] with threadIdx.y = 0: rows of 32 floats put every lane in
// bank 0 (32 wavefronts); rows padded to 33 floats spread the lanes over
// all 32 banks (one wavefront).
func ExampleAccessMaps_banks() {
	evs := []sim.MemEvent{
		warpAccess("shared", "ld", "tile", 0, 4, func(l int) uint64 { return uint64(4 * 32 * l) }),
		warpAccess("shared", "ld", "tile", 0, 4, func(l int) uint64 { return uint64(4 * 33 * l) }),
	}
	r, err := plots.AccessMaps([]string{"tile[32][32]", "tile[32][33]"}, evs)
	if err != nil {
		log.Panic(err)
	}
	if err := plots.WriteFile("testdata/access_banks.png", r, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		log.Panic(err)
	}
}

package tiling

import (
	"fmt"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The load sweep splits a matmul's global element loads into those of A and
// those of B. The simulator runs the kernels from tiling.ptx and names each
// memory site by its source line and PTX instruction; in matmulNaive both
// arrays are read on one source line (acc += A[..] * B[..]), and nvcc
// unrolls that loop into several loads of each, so neither the line nor the
// order of the loads says which array one reads. Where its address comes
// from does: the PTX package follows each load's address back to the one
// pointer parameter it derives from (ptx.Module.LoadParams, which says how):
// A is parameter 0, B parameter 1. A load whose address reaches none or
// several is an error, never guessed.

// ptxLoads holds a kernel's global loads, each with the pointer parameter
// its address derives from.
type ptxLoads struct {
	kernel string
	loads  []ptx.LoadParam
}

// parsePTXLoads reads kernel name of the PTX src (the lesson's: tiling.ptx)
// and attributes its global loads.
func parsePTXLoads(src, name string) (*ptxLoads, error) {
	mod, err := ptx.Parse("tiling.ptx", src)
	if err != nil {
		return nil, fmt.Errorf("tiling: the PTX: %w", err)
	}
	if _, err := mod.Kernel(name); err != nil {
		return nil, fmt.Errorf("tiling: no kernel %q in tiling.ptx", name)
	}
	loads, err := mod.LoadParams(name)
	if err != nil {
		return nil, fmt.Errorf("tiling: %w", err)
	}
	return &ptxLoads{kernel: name, loads: loads}, nil
}

// siteParam says which pointer parameter the global load at site reads:
// the load whose text ends the site's label (ptx.LoadForLabel).
func (pl *ptxLoads) siteParam(site sim.SiteStats) (int, error) {
	ld, ok := ptx.LoadForLabel(pl.loads, site.Label)
	if !ok {
		return 0, fmt.Errorf("tiling: %s: site %q is no global load of tiling.ptx", pl.kernel, site.Label)
	}
	if ld.Err != nil {
		return 0, fmt.Errorf("tiling: %s: %v", pl.kernel, ld.Err)
	}
	return ld.Param, nil
}

// loadsByParam sums the active lanes (element loads) of a launch's global
// load sites by the pointer parameter each reads.
func loadsByParam(s *sim.Stats, kernel string) (lanes, requests, sectors map[int]int64, err error) {
	pl, err := parsePTXLoads(ptxSource, kernel)
	if err != nil {
		return nil, nil, nil, err
	}
	lanes, requests, sectors = map[int]int64{}, map[int]int64{}, map[int]int64{}
	for _, site := range s.Sites {
		if site.Space != sim.SpaceGlobal || site.Op != sim.OpLoad {
			continue
		}
		p, err := pl.siteParam(site)
		if err != nil {
			return nil, nil, nil, err
		}
		lanes[p] += site.ActiveLanes
		requests[p] += site.Requests
		sectors[p] += site.Sectors
	}
	return lanes, requests, sectors, nil
}

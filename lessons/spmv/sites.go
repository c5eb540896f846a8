package spmv

import (
	"fmt"
	"strings"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// Which array each global load reads. The simulator runs the kernels from
// spmv.ptx and names each memory site by its .cu line and PTX instruction;
// the row loop reads colIdx, val and x on one line, and nvcc unrolls it into
// four copies of each, so neither the line nor the order of the loads says
// which array one reads. Where its address comes from does: the PTX package
// follows each load's address back to the one pointer parameter it derives
// from (ptx.Module.LoadParams, which says how), and a load whose address
// reaches none or several parameters is an error, never guessed.
// (lessons/tiling and lessons/cg name their loads the same way.)

// kernelParams are the parameter names of spmv.cu's kernels, in order:
// the four SpMV kernels share theirs. TestKernelParamsMatchSource holds
// them to the CUDA C.
func kernelParams(kernel string) []string {
	if kernel == KernelProbe {
		return []string{"colIdx", "val", "x", "partials", "nnz"}
	}
	return []string{"rowPtr", "colIdx", "val", "x", "y", "nRows"}
}

// loadArrays holds the global loads of kernel in spmv.ptx, each with the
// pointer parameter its address derives from (ptx.Module.LoadParams); loads
// that reach none or several carry why.
type loadArrays struct {
	loads []ptx.LoadParam
}

func parseLoadArrays(kernel string) (*loadArrays, error) {
	mod, err := ptx.Parse("spmv.ptx", ptxSource)
	if err != nil {
		return nil, fmt.Errorf("spmv: the PTX: %w", err)
	}
	if _, err := mod.Kernel(kernel); err != nil {
		return nil, fmt.Errorf("spmv: no kernel %q in spmv.ptx", kernel)
	}
	loads, err := mod.LoadParams(kernel)
	if err != nil {
		return nil, fmt.Errorf("spmv: %w", err)
	}
	return &loadArrays{loads: loads}, nil
}

// array names the array the global load at site reads: the load whose text
// ends the site's label (ptx.LoadForLabel), named by kernelParams.
func (la *loadArrays) array(kernel string, site sim.SiteStats) (string, error) {
	ld, ok := ptx.LoadForLabel(la.loads, site.Label)
	if !ok {
		return "", fmt.Errorf("spmv: %s: site %q is no global load of spmv.ptx", kernel, site.Label)
	}
	if ld.Err != nil {
		return "", fmt.Errorf("spmv: %s: %v", kernel, ld.Err)
	}
	names := kernelParams(kernel)
	p := ld.Param
	if p >= len(names) {
		return "", fmt.Errorf("spmv: %s: site %q reads parameter %d of %d", kernel, site.Label, p, len(names))
	}
	return names[p], nil
}

// LoadSite is one row of SitesTable: the global loads of one array on one
// source line, over every PTX instruction that makes them (an unrolled loop
// has a copy of each load per unrolled step).
type LoadSite struct {
	Array        string // the kernel parameter the addresses derive from: "val"
	Source       string // the .cu line and its text
	Instructions int    // PTX load instructions that issued a request
	Requests     int64
	Sectors      int64
}

// LoadSites groups a simulated run's global loads by array and source line,
// in the order the PTX first issues them. It fails when a load's array
// cannot be told from the PTX, and gives nothing for a GPU run, which has no
// per-site counters.
func LoadSites(run KernelRun) ([]LoadSite, error) {
	if run.Stats == nil {
		return nil, nil
	}
	la, err := parseLoadArrays(run.CUDAKernel)
	if err != nil {
		return nil, err
	}
	var out []LoadSite
	at := map[[2]string]int{}
	for _, s := range run.Stats.Sites {
		if s.Space != sim.SpaceGlobal || s.Op != sim.OpLoad || s.Requests == 0 {
			continue
		}
		arr, err := la.array(run.CUDAKernel, s)
		if err != nil {
			return nil, err
		}
		src, _ := splitSiteLabel(s.Label)
		key := [2]string{arr, src}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, LoadSite{Array: arr, Source: src})
		}
		out[i].Instructions++
		out[i].Requests += s.Requests
		out[i].Sectors += s.Sectors
	}
	return out, nil
}

// splitSiteLabel splits a PTX site's label, "spmv.cu:66 acc += ...; [ld.global.nc.f32 %f1, [%rd2]]",
// into its source line and its PTX instruction; a label without the
// instruction comes back whole, with "" for it.
func splitSiteLabel(label string) (src, instr string) {
	if i := strings.LastIndex(label, " [ld"); i >= 0 && strings.HasSuffix(label, "]") {
		return label[:i], label[i+2 : len(label)-1]
	}
	return label, ""
}

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
// which array one reads. What does is where its address comes from: nvcc
// computes every address from the pointer parameter it indexes (ld.param,
// cvta.to.global, then 64-bit arithmetic), so following a load's address
// register back through the 64-bit registers that define it reaches exactly
// one pointer parameter. An index loaded from memory (colIdx[j] in
// x[colIdx[j]]) enters as a 32-bit register widened by mul.wide, where the
// walk stops. A load whose address reaches none or several parameters is an
// error, never guessed. (lessons/tiling/loads.go splits the matmul's loads
// between A and B the same way.)

// kernelParams are the parameter names of spmv.cu's kernels, in order:
// the four SpMV kernels share theirs. TestKernelParamsMatchSource holds
// them to the CUDA C.
func kernelParams(kernel string) []string {
	if kernel == KernelProbe {
		return []string{"colIdx", "val", "x", "partials", "nnz"}
	}
	return []string{"rowPtr", "colIdx", "val", "x", "y", "nRows"}
}

// loadArrays maps each global load of kernel in spmv.ptx, by its
// instruction text as site labels end with it, to the index of the pointer
// parameter its address derives from; loads that reach none or several are
// in bad, with why.
type loadArrays struct {
	param map[string]int
	bad   map[string]string
}

func parseLoadArrays(kernel string) (*loadArrays, error) {
	mod, err := ptx.Parse("spmv.ptx", ptxSource)
	if err != nil {
		return nil, fmt.Errorf("spmv: the PTX: %w", err)
	}
	var k *ptx.Kernel
	for _, x := range mod.Kernels {
		if x.Name == kernel {
			k = x
		}
	}
	if k == nil {
		return nil, fmt.Errorf("spmv: no kernel %q in spmv.ptx", kernel)
	}
	defs := map[int32][]*ptx.Instr{}
	for i := range k.Instrs {
		in := &k.Instrs[i]
		for d := range int(in.NDst) {
			if in.Dst[d].Kind == ptx.OpdReg {
				defs[in.Dst[d].Reg] = append(defs[in.Dst[d].Reg], in)
			}
		}
	}
	la := &loadArrays{param: map[string]int{}, bad: map[string]string{}}
	for i := range k.Instrs {
		in := &k.Instrs[i]
		if in.Op != ptx.OpLd || in.Space != ptx.SpaceGlobal {
			continue
		}
		text := instrText(in)
		ps := pointerParams(k, defs, in.Src[0])
		if len(ps) != 1 {
			la.bad[text] = fmt.Sprintf("spmv.ptx:%d %s: its address derives from %d pointer parameters %v, not one", in.Line, text, len(ps), ps)
			continue
		}
		la.param[text] = ps[0]
	}
	return la, nil
}

// pointerParams follows addr's base register back through every
// instruction that writes it, and through their 64-bit register sources, to
// the 64-bit parameters loaded by ld.param, and returns their indices in
// order.
func pointerParams(k *ptx.Kernel, defs map[int32][]*ptx.Instr, addr ptx.Operand) []int {
	if addr.Kind != ptx.OpdAddr || addr.Reg < 0 {
		return nil
	}
	found := map[int]bool{}
	seen := map[int32]bool{addr.Reg: true}
	work := []int32{addr.Reg}
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		for _, in := range defs[r] {
			if in.Op == ptx.OpLd && in.Space == ptx.SpaceParam {
				if p := in.Src[0].Param; p >= 0 && is64(k.Params[p].Type) {
					found[int(p)] = true
				}
				continue
			}
			for s := range int(in.NSrc) {
				o := in.Src[s]
				if o.Kind == ptx.OpdReg && is64(k.Regs[o.Reg].Type) && !seen[o.Reg] {
					seen[o.Reg] = true
					work = append(work, o.Reg)
				}
			}
		}
	}
	var ps []int
	for p := range len(k.Params) {
		if found[p] {
			ps = append(ps, p)
		}
	}
	return ps
}

func is64(t ptx.Type) bool { return t == ptx.U64 || t == ptx.S64 || t == ptx.B64 }

// instrText is the instruction as the simulator's site labels end with it:
// its text on one line, without the semicolon.
func instrText(in *ptx.Instr) string {
	return strings.TrimSuffix(strings.Join(strings.Fields(in.Text), " "), ";")
}

// array names the array the global load at site reads. The label ends with
// the instruction's text (bracketed after the source line's text); the
// longest text that ends it is the instruction, so "@%p1 ld..." is not
// taken for a plain "ld..." with the same operands.
func (la *loadArrays) array(kernel string, site sim.SiteStats) (string, error) {
	ends := func(text string) bool {
		return strings.HasSuffix(site.Label, "["+text+"]") || strings.HasSuffix(site.Label, " "+text)
	}
	best := ""
	for text := range la.param {
		if ends(text) && len(text) > len(best) {
			best = text
		}
	}
	for text, why := range la.bad {
		if ends(text) && len(text) > len(best) {
			return "", fmt.Errorf("spmv: %s: %s", kernel, why)
		}
	}
	if best == "" {
		return "", fmt.Errorf("spmv: %s: site %q is no global load of spmv.ptx", kernel, site.Label)
	}
	names := kernelParams(kernel)
	p := la.param[best]
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
		if s.Space != "global" || s.Op != "ld" || s.Requests == 0 {
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

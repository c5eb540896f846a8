package tiling

import (
	"fmt"
	"strings"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The load sweep splits a matmul's global element loads into those of A and
// those of B. The simulator runs the kernels from tiling.ptx and names each
// memory site by its source line and PTX instruction; in matmulNaive both
// arrays are read on one source line (acc += A[..] * B[..]), and nvcc
// unrolls that loop into several loads of each, so neither the line nor the
// order of the loads says which array one reads. What does is where its
// address comes from: nvcc computes every address from the pointer
// parameter it indexes (ld.param, cvta.to.global, then 64-bit adds), so
// following a load's address register back through the 64-bit arithmetic
// that defines it reaches exactly one pointer parameter: A is parameter 0,
// B parameter 1. A load whose address reaches none or several is an error,
// never guessed.

// ptxLoads maps a kernel's global-load site labels to the pointer parameter
// each load's address derives from.
type ptxLoads struct {
	kernel *ptx.Kernel
	param  map[string]int // instruction text (as the site label ends) -> parameter index
	bad    map[string]string
}

// parsePTXLoads reads kernel name of the PTX src (the lesson's: tiling.ptx)
// and attributes its global loads.
func parsePTXLoads(src, name string) (*ptxLoads, error) {
	mod, err := ptx.Parse("tiling.ptx", src)
	if err != nil {
		return nil, fmt.Errorf("tiling: the PTX: %w", err)
	}
	var k *ptx.Kernel
	for _, x := range mod.Kernels {
		if x.Name == name {
			k = x
		}
	}
	if k == nil {
		return nil, fmt.Errorf("tiling: no kernel %q in tiling.ptx", name)
	}
	defs := map[int32][]*ptx.Instr{}
	for i := range k.Instrs {
		in := &k.Instrs[i]
		for d := 0; d < int(in.NDst); d++ {
			if in.Dst[d].Kind == ptx.OpdReg {
				defs[in.Dst[d].Reg] = append(defs[in.Dst[d].Reg], in)
			}
		}
	}
	pl := &ptxLoads{kernel: k, param: map[string]int{}, bad: map[string]string{}}
	for i := range k.Instrs {
		in := &k.Instrs[i]
		if in.Op != ptx.OpLd || in.Space != ptx.SpaceGlobal {
			continue
		}
		text := instrText(in)
		ps := pointerParams(k, defs, in.Src[0])
		if len(ps) != 1 {
			pl.bad[text] = fmt.Sprintf("tiling.ptx:%d %s: its address derives from %d pointer parameters %v, not one", in.Line, text, len(ps), ps)
			continue
		}
		pl.param[text] = ps[0]
	}
	return pl, nil
}

// pointerParams follows addr's base register back through every instruction
// that writes it, and through their 64-bit register sources, to the .u64
// parameters loaded by ld.param; it returns their indices in order.
// Registers narrower than 64 bits hold indices and sizes, not addresses, so
// the walk stops at them (mul.wide.s32 turns an index into a byte offset).
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
			for s := 0; s < int(in.NSrc); s++ {
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

// siteParam says which pointer parameter the global load at site reads. The
// label ends with the instruction's text (bracketed when it carries the
// source line's text); the longest text that ends it is the instruction, so
// "@%p1 ld..." is not taken for a plain "ld..." with the same operands.
func (pl *ptxLoads) siteParam(site sim.SiteStats) (int, error) {
	ends := func(text string) bool {
		return strings.HasSuffix(site.Label, "["+text+"]") || strings.HasSuffix(site.Label, " "+text)
	}
	best := ""
	for text := range pl.param {
		if ends(text) && len(text) > len(best) {
			best = text
		}
	}
	for text, why := range pl.bad {
		if ends(text) && len(text) > len(best) {
			return 0, fmt.Errorf("tiling: %s: %s", pl.kernel.Name, why)
		}
	}
	if best == "" {
		return 0, fmt.Errorf("tiling: %s: site %q is no global load of tiling.ptx", pl.kernel.Name, site.Label)
	}
	return pl.param[best], nil
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
		if site.Space != "global" || site.Op != "ld" {
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

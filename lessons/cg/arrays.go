package cg

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/warplab/warplab/internal/cusrc"
	"github.com/warplab/warplab/sim/ptx"
)

// Which array each global load of a CG kernel reads. The simulator runs
// cg.ptx and names a memory site by its cg.cu line and PTX instruction; the
// CSR row loop reads cols, vals and x on one line, and nvcc unrolls the
// thread-per-row loop into four copies of each, so neither the line nor the
// order says which array a load reads. Where its address comes from does:
// nvcc computes every address from the pointer parameter it indexes
// (ld.param, cvta.to.global, 64-bit arithmetic), so following a load's
// address register back through the 64-bit registers that define it reaches
// one pointer parameter. An index loaded from memory (cols[j] in
// x[cols[j]]) enters as a 32-bit register widened by mul.wide, where the walk
// stops. A load whose address reaches no parameter or several gets no name,
// never a guess. (lessons/spmv/sites.go and lessons/tiling/loads.go name
// their loads the same way.)

// loadArrays maps each global load of one kernel in cg.ptx, by its
// instruction text as site labels end with it, to the name of the pointer
// parameter its address derives from, as cg.cu spells it.
func loadArrays(kernel string) (map[string]string, error) {
	mod, err := ptx.Parse("cg.ptx", cgPTX)
	if err != nil {
		return nil, fmt.Errorf("cg: cg.ptx: %w", err)
	}
	var k *ptx.Kernel
	for _, x := range mod.Kernels {
		if x.Name == kernel {
			k = x
		}
	}
	if k == nil {
		return nil, fmt.Errorf("cg: no kernel %q in cg.ptx", kernel)
	}
	names, err := paramNames(kernel)
	if err != nil {
		return nil, err
	}
	if len(names) != len(k.Params) {
		return nil, fmt.Errorf("cg: %s has %d parameters in cg.cu and %d in cg.ptx", kernel, len(names), len(k.Params))
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
	out := map[string]string{}
	for i := range k.Instrs {
		in := &k.Instrs[i]
		if in.Op != ptx.OpLd || in.Space != ptx.SpaceGlobal {
			continue
		}
		if ps := pointerParams(k, defs, in.Src[0]); len(ps) == 1 {
			out[strings.TrimSuffix(strings.Join(strings.Fields(in.Text), " "), ";")] = names[ps[0]]
		}
	}
	return out, nil
}

// pointerParams follows addr's base register back through every
// instruction that writes it, and through their 64-bit register sources, to
// the 64-bit parameters loaded by ld.param, and returns their indices.
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

var paramName = regexp.MustCompile(`(\w+)\s*$`)

// paramNames are kernel's parameter names in cg.cu, in order: the last
// identifier of each declaration in its signature ("const double*
// __restrict__ vals" gives vals).
func paramNames(kernel string) ([]string, error) {
	src, err := cusrc.Func(cgCU, kernel)
	if err != nil {
		return nil, err
	}
	open := strings.IndexByte(src, '(')
	end := strings.IndexByte(src, ')')
	if open < 0 || end < open {
		return nil, fmt.Errorf("cg: %s: no parameter list in cg.cu", kernel)
	}
	var names []string
	for _, d := range strings.Split(src[open+1:end], ",") {
		m := paramName.FindStringSubmatch(strings.TrimSpace(d))
		if m == nil {
			return nil, fmt.Errorf("cg: %s: parameter %q has no name", kernel, strings.TrimSpace(d))
		}
		names = append(names, m[1])
	}
	return names, nil
}

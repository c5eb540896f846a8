package ptx

import (
	"fmt"
	"strings"
)

// Which array a global load reads. The simulator names each memory site by
// its source line and PTX instruction, but a loop that reads several arrays
// on one line, unrolled by nvcc into several copies of each load, leaves
// neither the line nor the order of the loads saying which array one reads.
// Where its address comes from does: nvcc computes every address from the
// pointer parameter it indexes (ld.param, cvta.to.global, then 64-bit
// arithmetic), so following a load's address register back through the
// 64-bit registers that define it reaches exactly one pointer parameter. An
// index loaded from memory (colIdx[j] in x[colIdx[j]]) enters as a 32-bit
// register widened by mul.wide, where the walk stops. A load whose address
// reaches none or several parameters gets an error, never a guess. The
// lessons (spmv, tiling, cg) name the arrays in their load tables this way.

// LoadParam is one global load of a kernel and the pointer parameter its
// address derives from.
type LoadParam struct {
	Line  int32  // the load's line in the PTX text
	Text  string // its text on one line without the semicolon, as the simulator's site labels end with it
	Param int    // index into Kernel.Params; -1 when Err is set
	Err   error  // the address derives from no pointer parameter or from several
}

// LoadParams lists the global loads of kernel in program order, each with
// the pointer parameter its address derives from. The walk is over every
// instruction that writes a register, wherever it stands (a loop-carried
// pointer is followed through its update), so two loads with the same text
// always get the same answer. The error is for a kernel the module lacks;
// a load that derives from none or several parameters has its own Err,
// naming its PTX line.
func (m *Module) LoadParams(kernel string) ([]LoadParam, error) {
	k, err := m.Kernel(kernel)
	if err != nil {
		return nil, err
	}
	defs := regDefs(k)
	var out []LoadParam
	for i := range k.Instrs {
		in := &k.Instrs[i]
		if in.Op != OpLd || in.Space != SpaceGlobal {
			continue
		}
		ld := LoadParam{Line: in.Line, Text: loadText(in), Param: -1}
		ps := pointerParams(k, defs, in.Src[0])
		if len(ps) == 1 {
			ld.Param = ps[0]
		} else {
			ld.Err = fmt.Errorf("%s:%d %s: its address derives from %d pointer parameters %v, not one", m.Name, in.Line, ld.Text, len(ps), ps)
		}
		out = append(out, ld)
	}
	return out, nil
}

// LoadForLabel finds the load a memory site label names. The label ends
// with the instruction's text, bracketed after the source line's text or
// after a space; the longest text that ends it is the instruction, so
// "@%p1 ld..." is not taken for a plain "ld..." with the same operands. A
// load without a parameter (Err set) is returned only when its text is
// strictly longer than every attributed one that ends the label. ok is
// false when no load of loads ends the label.
func LoadForLabel(loads []LoadParam, label string) (ld LoadParam, ok bool) {
	ends := func(text string) bool {
		return strings.HasSuffix(label, "["+text+"]") || strings.HasSuffix(label, " "+text)
	}
	best, bad := -1, -1
	for i, l := range loads {
		if !ends(l.Text) {
			continue
		}
		if l.Err == nil && (best < 0 || len(l.Text) > len(loads[best].Text)) {
			best = i
		}
		if l.Err != nil && (bad < 0 || len(l.Text) > len(loads[bad].Text)) {
			bad = i
		}
	}
	switch {
	case bad >= 0 && (best < 0 || len(loads[bad].Text) > len(loads[best].Text)):
		return loads[bad], true
	case best >= 0:
		return loads[best], true
	}
	return LoadParam{Param: -1}, false
}

// pointerParams follows addr's base register back through every
// instruction that writes it, and through their 64-bit register sources, to
// the 64-bit parameters loaded by ld.param, and returns their indices in
// order. Registers narrower than 64 bits hold indices and sizes, not
// addresses, so the walk stops at them (mul.wide.s32 turns an index into a
// byte offset).
func pointerParams(k *Kernel, defs map[int32][]*Instr, addr Operand) []int {
	if addr.Kind != OpdAddr || addr.Reg < 0 {
		return nil
	}
	found := map[int]bool{}
	seen := map[int32]bool{addr.Reg: true}
	work := []int32{addr.Reg}
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		for _, in := range defs[r] {
			if in.Op == OpLd && in.Space == SpaceParam {
				if p := in.Src[0].Param; p >= 0 && is64(k.Params[p].Type) {
					found[int(p)] = true
				}
				continue
			}
			for s := range int(in.NSrc) {
				o := in.Src[s]
				if o.Kind == OpdReg && is64(k.Regs[o.Reg].Type) && !seen[o.Reg] {
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

func is64(t Type) bool { return t == U64 || t == S64 || t == B64 }

// loadText is the instruction as the simulator's site labels end with it:
// its text on one line, without the semicolon.
func loadText(in *Instr) string {
	return strings.TrimSuffix(strings.Join(strings.Fields(in.Text), " "), ";")
}

// AccessParams is, by instruction of k, the pointer parameter (an index
// into k.Params) a global (or generic) ld, st, atom or red addresses (a
// cp.async, its global source),
// found as LoadParams finds a load's; -1 for other instructions and for
// an access whose address derives from no parameter or from several. The
// simulator names its memory sites by it ("x[]"), so that two loads on
// one line (SAXPY's x[i] and y[i]) read apart.
func AccessParams(k *Kernel) []int {
	defs := regDefs(k)
	out := make([]int, len(k.Instrs))
	for i := range k.Instrs {
		out[i] = -1
		in := &k.Instrs[i]
		a := in.Src[0]
		switch in.Op {
		case OpLd, OpSt, OpAtom, OpRed:
			if in.Space != SpaceGlobal && in.Space != SpaceGeneric {
				continue
			}
		case OpCpAsync: // cp.async's global source
			a = in.Src[1]
		default:
			continue
		}
		if ps := pointerParams(k, defs, a); len(ps) == 1 {
			out[i] = ps[0]
		}
	}
	return out
}

// AccessSharedVars is, by instruction of k, the __shared__ variable (an
// index into k.Vars) a shared-memory ld, st or atom (a cp.async: its
// destination) addresses: the one its address names, or the one whose
// address a register of the address was computed from (mov or cvta of the
// variable, then arithmetic); -1 for other instructions, and when none or
// several are found. A value loaded from memory is data, not an address
// base, so the walk does not go through loads (s[idx[t]] is s's).
func AccessSharedVars(k *Kernel) []int32 {
	defs := regDefs(k)
	shared := func(v int32) bool { return v >= 0 && int(v) < len(k.Vars) && k.Vars[v].Space == SpaceShared }
	out := make([]int32, len(k.Instrs))
	for i := range k.Instrs {
		out[i] = -1
		in := &k.Instrs[i]
		switch {
		case in.Op == OpCpAsync && in.Async == AsyncCopy:
		case (in.Op == OpLd || in.Op == OpSt || in.Op == OpAtom || in.Op == OpRed) && in.Space == SpaceShared:
		default:
			continue
		}
		a := in.Src[0]
		if a.Kind != OpdAddr {
			continue
		}
		found := map[int32]bool{}
		if shared(a.Var) {
			found[a.Var] = true
		}
		if a.Reg >= 0 {
			seen := map[int32]bool{a.Reg: true}
			work := []int32{a.Reg}
			for len(work) > 0 {
				r := work[len(work)-1]
				work = work[:len(work)-1]
				for _, d := range defs[r] {
					if d.Op == OpLd || d.Op == OpAtom {
						continue
					}
					for s := range int(d.NSrc) {
						o := d.Src[s]
						switch {
						case (o.Kind == OpdSym || o.Kind == OpdAddr) && shared(o.Var):
							found[o.Var] = true
						case o.Kind == OpdReg && !seen[o.Reg]:
							seen[o.Reg] = true
							work = append(work, o.Reg)
						}
					}
				}
			}
		}
		if len(found) == 1 {
			for v := range found {
				out[i] = v
			}
		}
	}
	return out
}

// regDefs is, by register, every instruction of k that writes it: the
// walks from an address back to its parameter or variable follow these.
func regDefs(k *Kernel) map[int32][]*Instr {
	defs := map[int32][]*Instr{}
	for i := range k.Instrs {
		in := &k.Instrs[i]
		for d := range int(in.NDst) {
			if in.Dst[d].Kind == OpdReg {
				defs[in.Dst[d].Reg] = append(defs[in.Dst[d].Reg], in)
			}
		}
	}
	return defs
}

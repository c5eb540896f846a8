package ptx

import "fmt"

// MaxFuncs bounds the device functions one kernel may reach, so that a
// hostile module cannot make Flatten build an enormous kernel.
const MaxFuncs = 1 << 10

// Flatten returns kernel k of m with the device functions it calls, directly
// or not, appended as one instruction list for the executor: k's own
// instructions first (Instrs[:CodeEnd]), then each function's (Funcs), each
// with its registers and variables renumbered into the flat kernel's and
// its branch targets and reconvergence points moved to its place; each
// call's Callee indexes Funcs. A kernel without calls comes back as it is
// (CodeEnd set). k must be a kernel of m without errors.
func (m *Module) Flatten(k *Kernel) (*Kernel, error) {
	if k.Err != nil {
		return nil, k.Err
	}
	// The functions k reaches, in the order first called.
	order := []int32{}
	seen := map[int32]int{}
	var walk func(b *Kernel) error
	walk = func(b *Kernel) error {
		for i := range b.Instrs {
			c := b.Instrs[i].Call
			if c == nil || c.Callee < 0 {
				continue
			}
			if _, ok := seen[c.Callee]; ok {
				continue
			}
			if int(c.Callee) >= len(m.Funcs) || len(order) >= MaxFuncs {
				return fmt.Errorf("ptx: kernel %s: call of %s cannot be linked", k.Name, c.Func)
			}
			seen[c.Callee] = len(order)
			order = append(order, c.Callee)
			if err := walk(m.Funcs[c.Callee]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(k); err != nil {
		return nil, err
	}
	// An indirect call may reach any function whose address the module
	// takes, and what those call.
	if hasIndirect(k) || hasIndirectIn(m, order) {
		for _, fi := range m.AddrTaken {
			if _, ok := seen[fi]; ok || len(order) >= MaxFuncs {
				continue
			}
			seen[fi] = len(order)
			order = append(order, fi)
			if err := walk(m.Funcs[fi]); err != nil {
				return nil, err
			}
		}
	}
	if len(order) == 0 {
		flat := *k
		flat.CodeEnd = int32(len(k.Instrs))
		flat.VarFunc = make([]int32, len(k.Vars))
		if !hasCalls(k) {
			return &flat, nil
		}
	}
	flat := *k
	flat.Instrs = nil
	flat.Regs = append([]Reg(nil), k.Regs...)
	flat.Vars = append([]*Var(nil), k.Vars...)
	flat.VarFunc = make([]int32, len(k.Vars))
	flat.CodeEnd = int32(len(k.Instrs))
	modVar := map[*Var]int32{}
	for i, v := range k.Vars {
		if v.Space != SpaceLocal && v.Space != SpaceParam {
			modVar[v] = int32(i)
		}
	}
	flat.Funcs = make([]FuncCode, len(order))
	start := int32(len(k.Instrs))
	for fi, idx := range order {
		f := m.Funcs[idx]
		fc := &flat.Funcs[fi]
		fc.Name, fc.ModIdx = f.Name, idx
		fc.Start, fc.End = start, start+int32(len(f.Instrs))
		start = fc.End
		fc.RegLo = int32(len(flat.Regs))
		flat.Regs = append(flat.Regs, f.Regs...)
		fc.RegHi = int32(len(flat.Regs))
	}
	// Variables and instructions, body by body.
	bodies := append([]*Kernel{k}, make([]*Kernel, len(order))...)
	for fi, idx := range order {
		bodies[fi+1] = m.Funcs[idx]
	}
	for bi, b := range bodies {
		var regOff, codeOff int32
		varMap := make([]int32, len(b.Vars))
		if bi == 0 {
			for i := range varMap {
				varMap[i] = int32(i)
			}
		} else {
			fc := &flat.Funcs[bi-1]
			regOff, codeOff = fc.RegLo, fc.Start
			for i, v := range b.Vars {
				if v.Space != SpaceLocal && v.Space != SpaceParam {
					if j, ok := modVar[v]; ok {
						varMap[i] = j
						continue
					}
					modVar[v] = int32(len(flat.Vars))
				}
				varMap[i] = int32(len(flat.Vars))
				flat.Vars = append(flat.Vars, v)
				fn := int32(0)
				if v.Space == SpaceLocal || v.Space == SpaceParam {
					fn = int32(bi)
				}
				flat.VarFunc = append(flat.VarFunc, fn)
			}
			for _, v := range b.ParamVars {
				fc.ParamVars = append(fc.ParamVars, varMap[v])
			}
			for _, v := range b.RetVars {
				fc.RetVars = append(fc.RetVars, varMap[v])
			}
		}
		for i := range b.Instrs {
			in := b.Instrs[i] // a copy
			if bi > 0 {
				relocate(&in, regOff, codeOff, varMap)
			}
			if c := in.Call; c != nil {
				cc := *c
				if c.Callee >= 0 {
					cc.Callee = int32(seen[c.Callee])
				}
				if c.Callee == CalleeIndirect {
					cc.Reg = c.Reg + regOff
				}
				cc.Rets = remap(c.Rets, varMap)
				cc.Args = remap(c.Args, varMap)
				in.Call = &cc
			}
			flat.Instrs = append(flat.Instrs, in)
		}
	}
	// Which functions can reach themselves.
	indirect := hasIndirect(&flat)
	for fi := range flat.Funcs {
		// Through a function pointer any function may come back to
		// itself: each keeps its registers across its calls.
		flat.Funcs[fi].Recursive = indirect || reaches(&flat, int32(fi), int32(fi))
	}
	return &flat, nil
}

func hasCalls(k *Kernel) bool {
	for i := range k.Instrs {
		if k.Instrs[i].Op == OpCall {
			return true
		}
	}
	return false
}

func remap(vs []int32, m []int32) []int32 {
	out := make([]int32, len(vs))
	for i, v := range vs {
		out[i] = m[v]
	}
	return out
}

// relocate moves a function's instruction into the flat kernel: registers
// by regOff, code positions by codeOff, variables through varMap.
func relocate(in *Instr, regOff, codeOff int32, varMap []int32) {
	if in.Guard >= 0 {
		in.Guard += regOff
	}
	fix := func(o *Operand) {
		if o.Reg >= 0 {
			o.Reg += regOff
		}
		if o.Var >= 0 {
			o.Var = varMap[o.Var]
		}
		if o.Vec != nil {
			v := make([]int32, len(o.Vec))
			for i, r := range o.Vec {
				v[i] = r
				if r >= 0 {
					v[i] = r + regOff
				}
			}
			o.Vec = v
		}
	}
	for i := range in.Dst {
		fix(&in.Dst[i])
	}
	for i := range in.Src {
		fix(&in.Src[i])
	}
	if in.Op == OpBra {
		in.Target += codeOff
		in.Reconv += codeOff
	}
}

// reaches reports whether function from can call function to (through
// any chain of calls) in flat kernel k.
func reaches(k *Kernel, from, to int32) bool {
	seen := make([]bool, len(k.Funcs))
	stack := []int32{from}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fc := &k.Funcs[f]
		for i := fc.Start; i < fc.End; i++ {
			c := k.Instrs[i].Call
			if c == nil || c.Callee < 0 {
				continue
			}
			if c.Callee == to {
				return true
			}
			if !seen[c.Callee] {
				seen[c.Callee] = true
				stack = append(stack, c.Callee)
			}
		}
	}
	return false
}

func hasIndirect(k *Kernel) bool {
	for i := range k.Instrs {
		if c := k.Instrs[i].Call; c != nil && c.Callee == CalleeIndirect {
			return true
		}
	}
	return false
}

func hasIndirectIn(m *Module, fs []int32) bool {
	for _, f := range fs {
		if hasIndirect(m.Funcs[f]) {
			return true
		}
	}
	return false
}

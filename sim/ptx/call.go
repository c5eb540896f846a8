package ptx

import (
	"fmt"
	"strings"
)

// Device functions and calls.
//
// nvcc inlines the __device__ functions of most kernels, but not all: a
// recursive function, one marked __noinline__, code built with -G, and
// printf (a call of the runtime's vprintf) stay calls. The PTX of a call:
//
//	{ // callseq 0, 0
//	.param .b32 param0;
//	st.param.b32 [param0+0], %r1;
//	.param .b32 retval0;
//	call.uni (retval0), _Z5addsqii, (param0);
//	ld.param.b32 %r44, [retval0+0];
//	}
//
// and the callee reads its parameters with ld.param [_Z5addsqii_param_0]
// and writes st.param [func_retval0+0]. The parser makes every .param
// variable, the caller's (scoped to its { }) and the callee's, a Var of
// the .param space, which the executor keeps in the thread's frame; call
// copies the arguments into the callee's frame and the return values
// back.

// funcDecl parses `.func [(rets)] name [(params)] [.noreturn] { body }` or
// its declaration ending in ';' (an .extern function such as vprintf).
func (p *parser) funcDecl() {
	line := p.tok().line
	p.next()
	k := &Kernel{Line: line, IsFunc: true}
	kp := &kparser{p: p, k: k, vars: map[string]int32{}, own: map[string]bool{}, params: map[string]int32{}, labels: map[string]int32{}, outer: map[Loc]Loc{}, cc: -1}
	var rets []Param
	if p.isPunct("(") {
		p.next()
		if !kp.paramList() {
			p.skipStatement()
			return
		}
		rets, k.Params, k.ParamBytes = k.Params, nil, 0
		kp.params = map[string]int32{}
	}
	t := p.tok()
	if t.kind != tIdent || strings.HasPrefix(t.text, "%") {
		p.errorf(t.line, "expected a function name, found %s", describe(t))
		p.skipStatement()
		return
	}
	p.next()
	k.Name = t.text
	p.funcs[k.Name] = true
	if p.accept("(") && !kp.paramList() {
		p.skipStatement()
		return
	}
	k.Rets = rets
	if !kp.perfDirectives() {
		p.skipStatement()
		return
	}
	if p.accept(";") {
		p.externs[k.Name] = k
		return
	}
	if !p.expect("{") {
		p.skipStatement()
		return
	}
	if _, dup := p.funcDefs[k.Name]; dup || p.kernels[k.Name] {
		p.errorf(line, "function %s defined twice", k.Name)
	}
	// The parameters and return values are .param variables of the
	// function's frame, which ld.param and st.param address by name.
	kp.params = map[string]int32{}
	for _, pr := range k.Params {
		k.ParamVars = append(k.ParamVars, int32(len(k.Vars)))
		kp.addVar(&Var{Name: pr.Name, Space: SpaceParam, Type: pr.Type, Align: pr.Align, Size: pr.Size, Line: line})
	}
	for _, pr := range k.Rets {
		k.RetVars = append(k.RetVars, int32(len(k.Vars)))
		kp.addVar(&Var{Name: pr.Name, Space: SpaceParam, Type: pr.Type, Align: pr.Align, Size: pr.Size, Line: line})
	}
	p.funcDefs[k.Name] = int32(len(p.mod.Funcs))
	kp.e0 = len(p.errs)
	kp.body()
	kp.finish()
	kp.takeErrors()
	p.mod.Funcs = append(p.mod.Funcs, k)
}

// paramList parses `.param ..., .param ...)` after the opening '('.
func (kp *kparser) paramList() bool {
	p := kp.p
	if p.accept(")") {
		return true
	}
	for !p.full() {
		if !kp.param() {
			return false
		}
		if p.accept(",") {
			continue
		}
		return p.expect(")")
	}
	return false
}

// callOperands reads `call[.uni] [(ret, ...),] name [, (arg, ...)]`: the
// return and argument operands are the caller's .param variables.
func (kp *kparser) callOperands(in *Instr, toks []token) string {
	groups := splitOperands(toks)
	c := &Call{Callee: -1}
	i := 0
	parenNames := func(g []token) ([]int32, string) {
		var out []int32
		for j := 1; j < len(g)-1; j++ {
			t := g[j]
			if isPunctTok(t, ",") {
				continue
			}
			if t.kind != tIdent {
				return nil, fmt.Sprintf("bad call operand %s", describe(t))
			}
			v, ok := kp.lookupVar(t.text)
			if !ok || kp.k.Vars[v].Space != SpaceParam {
				return nil, fmt.Sprintf("call operand %s is not a .param variable", t.text)
			}
			out = append(out, v)
		}
		return out, ""
	}
	isParen := func(g []token) bool {
		return len(g) >= 2 && isPunctTok(g[0], "(") && isPunctTok(g[len(g)-1], ")")
	}
	if i < len(groups) && isParen(groups[i]) {
		rets, msg := parenNames(groups[i])
		if msg != "" {
			return msg
		}
		c.Rets = rets
		i++
	}
	if i >= len(groups) || len(groups[i]) != 1 || groups[i][0].kind != tIdent {
		return "call needs a function name"
	}
	name := groups[i][0].text
	indirect := strings.HasPrefix(name, "%") || kp.isReg(name)
	if indirect {
		r, msg := kp.regOf(name, U64, false)
		if msg != "" {
			return msg
		}
		c.Callee, c.Reg = CalleeIndirect, r
	}
	c.Func = name
	i++
	if i < len(groups) && isParen(groups[i]) {
		args, msg := parenNames(groups[i])
		if msg != "" {
			return msg
		}
		c.Args = args
		i++
	}
	if indirect && i < len(groups) && len(groups[i]) == 1 && groups[i][0].kind == tIdent {
		i++ // the .callprototype's label
	}
	if i != len(groups) {
		return "unexpected operands after the call's arguments"
	}
	in.Call = c
	return ""
}

// builtins are the runtime functions the simulator provides.
var builtins = map[string]Builtin{"vprintf": BuiltinVprintf, "__assertfail": BuiltinAssert, "malloc": BuiltinMalloc, "free": BuiltinFree}

// linkCalls resolves each call to a function of the module or a built-in
// and checks its arguments, once the whole module is read; a call the
// simulator cannot make is an error of the calling body. A kernel or
// function that calls one the simulator cannot run is refused too, naming
// the callee and its first error.
func (p *parser) linkCalls() {
	bodies := append(append([]*Kernel(nil), p.mod.Kernels...), p.mod.Funcs...)
	taken := map[int32]bool{}
	for _, r := range p.funcRefs {
		fi, ok := p.funcDefs[r.name]
		if !ok {
			msg := fmt.Sprintf("the address of %s, which this module declares but does not define", r.name)
			if r.k != nil {
				in := &r.k.Instrs[r.instr]
				r.k.Err = append(r.k.Err, &Error{File: p.name, Line: int(r.line), Msg: msg, loc: outermost(in)})
			} else {
				p.errorf(r.line, "%s", msg)
			}
			continue
		}
		addr := FuncAddr(fi)
		if r.k != nil {
			in := &r.k.Instrs[r.instr]
			for j := range in.Src {
				if in.Src[j].Kind == OpdImm && in.Src[j].Imm == 0 && in.Op == OpMov {
					in.Src[j].Imm = addr
				}
			}
		} else {
			for b := 0; b < 8; b++ {
				r.v.Init[r.off+b] = byte(addr >> (8 * b))
			}
		}
		if !taken[fi] {
			taken[fi] = true
			p.mod.AddrTaken = append(p.mod.AddrTaken, fi)
		}
	}
	for _, k := range bodies {
		for i := range k.Instrs {
			in := &k.Instrs[i]
			if in.Op != OpCall || in.Call == nil || in.Call.Callee == CalleeIndirect {
				continue
			}
			if msg := p.link(k, in.Call); msg != "" {
				k.Err = append(k.Err, &Error{File: p.name, Line: int(in.Line), Msg: fmt.Sprintf("%s in %q", msg, in.Text), loc: outermost(in)})
			}
		}
	}
	// A body that calls a body with errors cannot run either.
	for changed := true; changed; {
		changed = false
		for _, k := range bodies {
			if k.Err != nil {
				continue
			}
			for i := range k.Instrs {
				c := k.Instrs[i].Call
				if c == nil || c.Callee < 0 {
					continue
				}
				if f := p.mod.Funcs[c.Callee]; f.Err != nil {
					in := &k.Instrs[i]
					k.Err = append(k.Err, &Error{File: p.name, Line: int(in.Line), loc: outermost(in),
						Msg: fmt.Sprintf("calls %s, which the simulator cannot run: %s", f.Name, f.Err[0])})
					changed = true
					break
				}
			}
		}
	}
	for _, k := range bodies {
		k.Err.sortErrors()
	}
}

// outermost is the source position an error about in names.
func outermost(in *Instr) Loc {
	if in.Caller != (Loc{}) {
		return in.Caller
	}
	return in.Loc
}

// link resolves one call of k and checks it against the callee.
func (p *parser) link(k *Kernel, c *Call) string {
	size := func(vs []int32) []int {
		out := make([]int, len(vs))
		for i, v := range vs {
			out[i] = k.Vars[v].Size
		}
		return out
	}
	if fi, ok := p.funcDefs[c.Func]; ok {
		f := p.mod.Funcs[fi]
		c.Callee = fi
		if len(c.Args) != len(f.Params) {
			return fmt.Sprintf("%d arguments for %s's %d parameters", len(c.Args), f.Name, len(f.Params))
		}
		if len(c.Rets) > len(f.Rets) {
			return fmt.Sprintf("%d return values from %s, which returns %d", len(c.Rets), f.Name, len(f.Rets))
		}
		for i, s := range size(c.Args) {
			if s != f.Params[i].Size {
				return fmt.Sprintf("argument %d is %d bytes, %s's parameter %s %d", i, s, f.Name, f.Params[i].Name, f.Params[i].Size)
			}
		}
		for i, s := range size(c.Rets) {
			if s != f.Rets[i].Size {
				return fmt.Sprintf("return value %d is %d bytes, %s returns %d", i, s, f.Name, f.Rets[i].Size)
			}
		}
		return ""
	}
	b, ok := builtins[c.Func]
	if !ok {
		if _, declared := p.externs[c.Func]; declared {
			return fmt.Sprintf("call of %s, which this module declares but does not define (the simulator provides vprintf, __assertfail, malloc and free, and links no other module)", c.Func)
		}
		return fmt.Sprintf("call of %s, which is not a function of this module", c.Func)
	}
	c.Builtin = b
	args := size(c.Args)
	switch b {
	case BuiltinVprintf:
		if len(args) != 2 || args[0] != 8 || args[1] != 8 {
			return "vprintf takes two 64-bit arguments (the format and the argument buffer)"
		}
	case BuiltinAssert:
		if len(args) != 5 {
			return "__assertfail takes five arguments"
		}
	case BuiltinMalloc:
		if len(args) != 1 || args[0] != 8 || len(c.Rets) != 1 || size(c.Rets)[0] != 8 {
			return "malloc takes a 64-bit size and returns a 64-bit pointer"
		}
	case BuiltinFree:
		if len(args) != 1 || args[0] != 8 {
			return "free takes a 64-bit pointer"
		}
	}
	return ""
}

// funcRef is a place that takes a function's address: an initializer's
// 8 bytes at off of v, or instruction instr of k (a mov).
type funcRef struct {
	v     *Var
	off   int
	k     *Kernel
	instr int
	name  string
	line  int32
}

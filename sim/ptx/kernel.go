package ptx

import (
	"sort"
	"strings"
)

// kparser holds the state of one kernel being parsed.
type kparser struct {
	p      *parser
	k      *Kernel
	scopes []*regScope      // registers by { } scope, innermost last
	vars   map[string]int32 // variables named so far (own and module-scope): index into k.Vars
	own    map[string]bool  // the kernel's own variables, to catch a second declaration
	params map[string]int32 // parameters by name: index into k.Params
	labels map[string]int32 // label: index of the instruction it names
	fixups []fixup          // branches whose labels are resolved at the end
	loc    Loc              // the latest .loc
	caller Loc              // its outermost inlined_at call site
	outer  map[Loc]Loc      // each inlined .loc position's outermost call site
	e0     int              // len(p.errs) when the body began: later errors are the kernel's
	// pre are instructions to insert before the one being read: the movs
	// that give a mov's packed immediates ({0, %rs1}) registers of their
	// own (instr.go's vector).
	pre []Instr
	// cc is the hidden register of the carry flag (alu_carry.go), made
	// when the kernel first uses it; -1 before.
	cc int32
}

// fixup is a bra whose target label is resolved once the body is read.
type fixup struct {
	instr int
	label string
	line  int32
}

// entry parses `.entry name ( params ) directives { body }`.
func (p *parser) entry() {
	line := p.tok().line
	p.next()
	t := p.tok()
	if t.kind != tIdent || strings.HasPrefix(t.text, "%") {
		p.errorf(t.line, "expected a kernel name, found %s", describe(t))
		p.skipStatement()
		return
	}
	p.next()
	k := &Kernel{Name: t.text, Line: line}
	kp := &kparser{p: p, k: k, vars: map[string]int32{}, own: map[string]bool{}, params: map[string]int32{}, labels: map[string]int32{}, outer: map[Loc]Loc{}, cc: -1}
	if p.accept("(") && !p.accept(")") {
		for !p.full() {
			if !kp.param() {
				p.skipStatement()
				return
			}
			if p.accept(",") {
				continue
			}
			if !p.expect(")") {
				p.skipStatement()
				return
			}
			break
		}
	}
	if !kp.perfDirectives() {
		p.skipStatement()
		return
	}
	if p.accept(";") { // a declaration only
		return
	}
	if !p.expect("{") {
		p.skipStatement()
		return
	}
	if p.kernels[k.Name] {
		p.errorf(line, "kernel %s defined twice", k.Name)
	}
	p.kernels[k.Name] = true
	kp.e0 = len(p.errs)
	kp.body()
	kp.finish()
	kp.takeErrors()
	p.mod.Kernels = append(p.mod.Kernels, k)
}

// takeErrors moves the errors found in the body into Kernel.Err: what the
// simulator cannot run in one kernel refuses that kernel, at its launch,
// and not the module (ParseKernels).
func (kp *kparser) takeErrors() {
	p := kp.p
	p.curLoc = Loc{}
	if len(p.errs) > kp.e0 {
		kp.k.Err = append(ErrorList(nil), p.errs[kp.e0:]...)
		kp.k.Err.sortErrors()
		p.errs = p.errs[:kp.e0]
	}
}

// addVar declares one of the kernel's own variables; it shadows a
// module-scope variable of the same name.
func (kp *kparser) addVar(v *Var) {
	if kp.own[v.Name] {
		kp.p.errorf(v.Line, "variable %s declared twice", v.Name)
		return
	}
	kp.own[v.Name] = true
	kp.vars[v.Name] = int32(len(kp.k.Vars))
	kp.k.Vars = append(kp.k.Vars, v)
}

// lookupVar finds a variable by name: the kernel's own, or a module-scope
// one, which enters k.Vars when first named. A kernel's Vars thus hold
// only the module variables it uses, as ptxas allocates shared memory
// only for the variables a kernel uses.
func (kp *kparser) lookupVar(name string) (int32, bool) {
	for i := len(kp.scopes) - 1; i >= 0; i-- {
		if v, ok := kp.scopes[i].vars[name]; ok {
			return v, true
		}
	}
	if i, ok := kp.vars[name]; ok {
		return i, true
	}
	v, ok := kp.p.vars[name]
	if !ok {
		return -1, false
	}
	i := int32(len(kp.k.Vars))
	kp.vars[name] = i
	kp.k.Vars = append(kp.k.Vars, v)
	return i, true
}

// orderVars puts the module variables of k.Vars first, in module order,
// then the kernel's own in declaration order, and renumbers the operands.
func (kp *kparser) orderVars() {
	k := kp.k
	if len(k.Vars) == 0 {
		return
	}
	idx := make([]int, len(k.Vars)) // sort key: module position, or after all of them
	order := make([]int32, len(k.Vars))
	for i, v := range k.Vars {
		order[i] = int32(i)
		if m, ok := kp.p.modIdx[v]; ok && !kp.own[v.Name] {
			idx[i] = m
		} else {
			idx[i] = len(kp.p.mod.Vars) + i
		}
	}
	sort.Slice(order, func(a, b int) bool { return idx[order[a]] < idx[order[b]] })
	renum := make([]int32, len(k.Vars))
	vars := make([]*Var, len(k.Vars))
	for to, from := range order {
		renum[from] = int32(to)
		vars[to] = k.Vars[from]
	}
	k.Vars = vars
	for i := range k.Instrs {
		in := &k.Instrs[i]
		for j := range in.Dst {
			if in.Dst[j].Var >= 0 {
				in.Dst[j].Var = renum[in.Dst[j].Var]
			}
		}
		for j := range in.Src {
			if in.Src[j].Var >= 0 {
				in.Src[j].Var = renum[in.Src[j].Var]
			}
		}
		if c := in.Call; c != nil {
			c.Rets, c.Args = renumAll(c.Rets, renum), renumAll(c.Args, renum)
		}
	}
	k.ParamVars, k.RetVars = renumAll(k.ParamVars, renum), renumAll(k.RetVars, renum)
}

// renumAll maps variable indices through renum, in place.
func renumAll(vs []int32, renum []int32) []int32 {
	for i, v := range vs {
		vs[i] = renum[v]
	}
	return vs
}

// param parses one `.param .type [.ptr [.space] [.align N]] name[N]` or
// `.param .align N .b8 name[N]`. The .align after .ptr is the alignment of
// the memory pointed to, not of the parameter, so it does not move offsets.
func (kp *kparser) param() bool {
	p := kp.p
	if p.tok().text != ".param" {
		p.errorf(p.tok().line, "expected .param, found %s", describe(p.tok()))
		return false
	}
	p.next()
	var pr Param
	ptr := false
	for p.tok().kind == tDirective {
		t := p.tok()
		p.next()
		switch {
		case t.text == ".align":
			n, ok := p.intTok("alignment", 1<<16)
			if !ok || n == 0 || n&(n-1) != 0 {
				p.errorf(t.line, "bad parameter alignment")
				return false
			}
			if !ptr {
				pr.Align = int(n)
			}
		case t.text == ".ptr":
			ptr, pr.Ptr = true, true
		case ptr && (t.text == ".global" || t.text == ".shared" || t.text == ".const" || t.text == ".local"):
		case typeByName[t.text[1:]] != TypeNone && pr.Type == TypeNone && t.text != ".pred":
			pr.Type = typeByName[t.text[1:]]
		default:
			p.errorf(t.line, "unsupported parameter attribute %q", t.text)
			return false
		}
	}
	t := p.tok()
	if pr.Type == TypeNone || t.kind != tIdent || strings.HasPrefix(t.text, "%") {
		p.errorf(t.line, "expected a typed parameter name, found %s", describe(t))
		return false
	}
	p.next()
	pr.Name = t.text
	size := int64(pr.Type.Size())
	for p.accept("[") {
		n, ok := p.intTok("array size", maxVarSize)
		if !ok || !p.expect("]") {
			return false
		}
		size *= n
		if size > maxVarSize {
			p.errorf(t.line, "parameter %s too large", pr.Name)
			return false
		}
	}
	pr.Size = int(size)
	if pr.Align == 0 {
		pr.Align = pr.Type.Size()
	}
	off := kp.k.ParamBytes
	off = (off + pr.Align - 1) &^ (pr.Align - 1)
	pr.Offset = off
	kp.k.ParamBytes = off + pr.Size
	if _, dup := kp.params[pr.Name]; dup {
		p.errorf(t.line, "parameter %s declared twice", pr.Name)
	}
	kp.params[pr.Name] = int32(len(kp.k.Params))
	kp.k.Params = append(kp.k.Params, pr)
	return true
}

// perfDirectives reads .maxntid, .reqntid, .minnctapersm, .maxnreg (and
// .pragma) between the parameter list and the body.
func (kp *kparser) perfDirectives() bool {
	p := kp.p
	for p.tok().kind == tDirective {
		t := p.tok()
		p.next()
		switch t.text {
		case ".maxntid", ".reqntid":
			var dims [3]int
			for i := 0; i < 3; i++ {
				n, ok := p.intTok(t.text+" size", 1<<31-1)
				if !ok {
					return false
				}
				dims[i] = int(n)
				if !p.accept(",") {
					break
				}
			}
			for i := range dims {
				if dims[i] == 0 {
					dims[i] = 1
				}
			}
			if t.text == ".maxntid" {
				kp.k.MaxNTid = dims
			} else {
				kp.k.ReqNTid = dims
			}
		case ".minnctapersm", ".maxnctapersm", ".maxnreg", ".maxclusterrank":
			if _, ok := p.intTok(t.text+" value", 1<<31-1); !ok {
				return false
			}
		case ".pragma":
			if p.tok().kind == tString {
				p.next()
			}
			p.accept(";")
		case ".noreturn":
		default:
			p.errorf(t.line, "unsupported kernel directive %q", t.text)
			return false
		}
	}
	return true
}

// body parses statements up to the kernel's closing brace: declarations,
// labels, instructions, and nested { } scopes (whose registers shadow).
func (kp *kparser) body() {
	p := kp.p
	kp.scopes = []*regScope{newScope()}
	defer func() {
		// Past the error cap, skip to the body's closing brace, so that
		// parsing goes on with the next kernel.
		for depth := len(kp.scopes); depth > 0 && !p.eof(); p.next() {
			if t := p.tok(); t.kind == tPunct && t.text == "{" {
				depth++
			} else if t.kind == tPunct && t.text == "}" {
				depth--
			}
		}
	}()
	for !p.full() {
		t := p.tok()
		switch {
		case t.kind == tEOF:
			p.errorf(kp.k.Line, "kernel %s not terminated", kp.k.Name)
			return
		case t.kind == tPunct && t.text == "}":
			p.next()
			kp.scopes = kp.scopes[:len(kp.scopes)-1]
			if len(kp.scopes) == 0 {
				return
			}
		case t.kind == tPunct && t.text == "{":
			p.next()
			if len(kp.scopes) >= maxScopes {
				p.errorf(t.line, "{ } scopes nested deeper than %d", maxScopes)
				return
			}
			kp.scopes = append(kp.scopes, newScope())
		case t.kind == tDirective:
			kp.directive()
		case t.kind == tIdent && p.peek(1).kind == tPunct && p.peek(1).text == ":" && !strings.HasPrefix(t.text, "%"):
			p.next()
			p.next()
			if _, dup := kp.labels[t.text]; dup {
				p.errorf(t.line, "label %s defined twice", t.text)
			}
			kp.labels[t.text] = int32(len(kp.k.Instrs))
		case t.kind == tIdent || t.kind == tPunct && t.text == "@":
			kp.instruction()
		default:
			p.errorf(t.line, "unexpected %s", describe(t))
			p.skipStatement()
		}
	}
}

// directive handles a directive inside a kernel body.
func (kp *kparser) directive() {
	p := kp.p
	t := p.tok()
	switch t.text {
	case ".reg":
		p.next()
		kp.regDecl(t.line)
	case ".loc":
		kp.loc, kp.caller = p.loc(kp.outer)
		p.curLoc = kp.loc
		if kp.caller != (Loc{}) {
			p.curLoc = kp.caller
		}
	case ".pragma", ".callprototype":
		// .callprototype describes an indirect call's signature, which
		// the call checks against its callee when it runs.
		p.skipStatement()
	case ".shared", ".local":
		p.next()
		for _, v := range p.varDecl(spaceByName[t.text[1:]], false, t.line) {
			kp.addVar(v)
		}
	case ".param":
		// A call's arguments and return values (callseq): variables of
		// the { } scope they are declared in, nvcc reusing their names
		// (param0, retval0) in each.
		p.next()
		scope := kp.scopes[len(kp.scopes)-1]
		for _, v := range p.varDecl(SpaceParam, false, t.line) {
			if _, dup := scope.vars[v.Name]; dup {
				p.errorf(v.Line, "variable %s declared twice", v.Name)
				continue
			}
			scope.vars[v.Name] = int32(len(kp.k.Vars))
			kp.k.Vars = append(kp.k.Vars, v)
		}
	default:
		p.errorf(t.line, "unsupported directive %q in a kernel body", t.text)
		p.skipStatement()
	}
}

// regDecl parses `.reg .type %r<N>, %x, ...;` after `.reg`: %r<26> declares
// %r0 to %r25.
func (kp *kparser) regDecl(line int32) {
	p := kp.p
	t := p.tok()
	typ := TypeNone
	if t.kind == tDirective {
		typ = typeByName[t.text[1:]]
	}
	if typ == TypeNone || typ == B8 || typ == U8 || typ == S8 {
		p.errorf(line, "unsupported register type %s", describe(t))
		p.skipStatement()
		return
	}
	p.next()
	scope := kp.scopes[len(kp.scopes)-1]
	for !p.full() {
		t := p.tok()
		// Registers are named %r1 by nvcc, but inline asm may declare
		// names without the %: `.reg .pred p;`.
		if t.kind != tIdent || strings.Contains(t.text, ".") || t.text == "_" || t.text == "WARP_SZ" {
			p.errorf(t.line, "expected a register name, found %s", describe(t))
			p.skipStatement()
			return
		}
		p.next()
		n := int64(-1)
		if p.accept("<") {
			var ok bool
			if n, ok = p.intTok("register count", maxRegs); !ok || !p.expect(">") {
				p.skipStatement()
				return
			}
		}
		if int64(len(kp.k.Regs))+max(n, 1) > maxRegs {
			p.errorf(t.line, "too many registers")
			p.skipStatement()
			return
		}
		first := int32(len(kp.k.Regs))
		switch {
		case n < 0:
			if _, dup := scope.lookup(t.text); dup {
				p.errorf(t.line, "register %s declared twice", t.text)
				break
			}
			scope.names[t.text] = first
			kp.k.Regs = append(kp.k.Regs, Reg{Name: t.text, Type: typ})
		case scope.ranges[t.text].n > 0 || isDigit(t.text[len(t.text)-1]):
			// A range declared twice, or one whose prefix ends in a digit
			// (%r1<5> names %r10 to %r14): spelled out, one name each.
			for i := int64(0); i < n; i++ {
				name := t.text + itoa(i)
				if _, dup := scope.lookup(name); dup {
					p.errorf(t.line, "register %s declared twice", name)
					break
				}
				scope.names[name] = int32(len(kp.k.Regs))
				kp.k.Regs = append(kp.k.Regs, Reg{Name: name, Type: typ})
			}
		default:
			// One string holds all the range's names; each Reg slices it.
			var b strings.Builder
			ends := make([]int, n)
			for i := int64(0); i < n; i++ {
				b.WriteString(t.text)
				b.WriteString(itoa(i))
				ends[i] = b.Len()
			}
			all, prev := b.String(), 0
			for i := range ends {
				kp.k.Regs = append(kp.k.Regs, Reg{Name: all[prev:ends[i]], Type: typ})
				prev = ends[i]
			}
			scope.ranges[t.text] = regRange{first: first, n: n}
		}
		if p.accept(",") {
			continue
		}
		p.expect(";")
		return
	}
}

func itoa(i int64) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// regScope holds the registers one { } scope declares: single names, and
// ranges (%r<26>) kept as a prefix and a count rather than 26 names, since
// nvcc declares hundreds of registers a kernel and names few of them.
type regScope struct {
	names  map[string]int32
	ranges map[string]regRange
	vars   map[string]int32 // the scope's .param variables (a call's arguments): index into Kernel.Vars
}

// regRange is %prefix<n>: registers first to first+n-1.
type regRange struct {
	first int32
	n     int64
}

func newScope() *regScope {
	return &regScope{names: map[string]int32{}, ranges: map[string]regRange{}, vars: map[string]int32{}}
}

// lookup finds a register of this scope: a single name, or prefix+number
// inside a range (the number spelled without leading zeros, as PTX names it).
func (s *regScope) lookup(name string) (int32, bool) {
	if r, ok := s.names[name]; ok {
		return r, true
	}
	i := len(name)
	for i > 0 && isDigit(name[i-1]) {
		i--
	}
	digits := name[i:]
	if digits == "" || len(digits) > 9 || len(digits) > 1 && digits[0] == '0' {
		return -1, false
	}
	rg, ok := s.ranges[name[:i]]
	if !ok {
		return -1, false
	}
	num := int64(0)
	for _, c := range []byte(digits) {
		num = num*10 + int64(c-'0')
	}
	if num >= rg.n {
		return -1, false
	}
	return rg.first + int32(num), true
}

// isReg reports whether name is a declared register (inline asm may name
// registers without a %, so a plain name can be one).
func (kp *kparser) isReg(name string) bool {
	_, ok := kp.reg(name)
	return ok
}

// reg looks a register name up, innermost scope first.
func (kp *kparser) reg(name string) (int32, bool) {
	for i := len(kp.scopes) - 1; i >= 0; i-- {
		if r, ok := kp.scopes[i].lookup(name); ok {
			return r, true
		}
	}
	return -1, false
}

// finish sets each bra's Target from its label and computes reconvergence.
func (kp *kparser) finish() {
	kp.orderVars()
	for _, f := range kp.fixups {
		t, ok := kp.labels[f.label]
		if !ok {
			kp.p.errorf(f.line, "undefined label %s", f.label)
			continue
		}
		kp.k.Instrs[f.instr].Target = t
	}
	if len(kp.p.errs) == kp.e0 {
		computeReconv(kp.k)
	}
}

// collapseSpace turns runs of blanks into one space, so that listings and
// messages show nvcc's tab-aligned instructions on one plain line.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

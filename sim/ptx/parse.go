package ptx

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Limits that keep a hostile or garbled text from costing much: PTX from
// nvcc stays far below each.
const (
	maxRegs     = 1 << 17 // registers one kernel may declare
	maxFiles    = 1 << 16 // highest .file number
	maxInitSize = 1 << 24 // bytes of an initialized variable
	maxVarSize  = 1 << 40 // bytes of any variable or parameter
	maxScopes   = 64      // depth of nested { } scopes in a kernel
)

// Parse reads one PTX module, decodes every kernel (.entry) and checks it:
// every instruction must be one the simulator executes, every register,
// label and symbol must be declared and of a fitting type. name is used in
// messages (a file name such as "spmv.ptx"). On any problem Parse returns
// a nil module and an ErrorList of *Error, sorted by line. ParseKernels
// is the form that keeps a module whose only problems are inside kernels.
func Parse(name, src string) (*Module, error) {
	m, all := parse(name, src)
	for _, k := range m.Kernels {
		all = append(all, k.Err...)
	}
	for _, f := range m.Funcs {
		all = append(all, f.Err...)
	}
	if len(all) > 0 {
		all.sortErrors()
		if len(all) > maxErrors {
			all = all[:maxErrors]
		}
		return nil, all
	}
	return m, nil
}

// ParseKernels reads a module as Parse does, except that a kernel (or
// device function) whose body the simulator cannot run does not sink the
// module: its errors go to its Kernel.Err (each with the PTX line and,
// with line information, the .cu line), and the module's other kernels
// stay runnable. A module is still refused whole for what is wrong
// outside any body: its .version or .target, a module-scope declaration,
// the lexical structure.
func ParseKernels(name, src string) (*Module, error) {
	m, errs := parse(name, src)
	if len(errs) > 0 {
		errs.sortErrors()
		if len(errs) > maxErrors {
			errs = errs[:maxErrors]
		}
		return nil, errs
	}
	return m, nil
}

// parse reads the module; the errors it returns are those outside the
// kernels' and functions' bodies (theirs are in Kernel.Err).
func parse(name, src string) (*Module, ErrorList) {
	toks, compiler, lexErrs := lex(name, src)
	p := &parser{
		name:    name,
		src:     src,
		toks:    toks,
		errs:    lexErrs,
		mod:     &Module{Name: name, Compiler: compiler, Files: []string{""}},
		vars:    map[string]*Var{},
		modIdx:  map[*Var]int{},
		kernels: map[string]bool{},
		funcs:   map[string]bool{},

		funcDefs: map[string]int32{},
		externs:  map[string]*Kernel{},
	}
	p.module()
	p.checkLocs()
	p.linkCalls()
	for _, e := range p.errs {
		e.Src = p.mod.SourceLine(e.loc)
	}
	for _, k := range append(append([]*Kernel(nil), p.mod.Kernels...), p.mod.Funcs...) {
		for _, e := range k.Err {
			e.Src = p.mod.SourceLine(e.loc)
		}
	}
	return p.mod, p.errs
}

// parser holds the state of one Parse.
type parser struct {
	name    string
	src     string
	toks    []token
	pos     int
	errs    ErrorList
	mod     *Module
	vars    map[string]*Var // module-scope variables by name
	modIdx  map[*Var]int    // module-scope variables: their index in mod.Vars
	kernels map[string]bool // kernel names, to catch a second definition
	funcs   map[string]bool // .func names, so that a call names what it calls
	// funcDefs are the .func definitions by name (index into mod.Funcs);
	// externs the declarations without a body (vprintf).
	funcDefs map[string]int32
	externs  map[string]*Kernel
	// funcRefs are the places that take a function's address, filled in
	// once every function is defined (linkCalls).
	funcRefs []funcRef
	locs     []fileRef // .loc file numbers, checked against .file at the end
	// curLoc is the source position of the statement being parsed in a
	// body (the outermost of an inlined chain), which errors carry.
	curLoc Loc
}

// fileRef is a .loc's file number and line, checked once all .file
// directives are read (nvcc puts them after the kernels).
type fileRef struct {
	file int32
	line int32
}

func (p *parser) errorf(line int32, format string, args ...any) {
	if len(p.errs) < maxErrors {
		p.errs = append(p.errs, &Error{File: p.name, Line: int(line), Msg: fmt.Sprintf(format, args...), loc: p.curLoc})
	}
}

// full reports that the error list is at its cap: parsing stops early.
func (p *parser) full() bool { return len(p.errs) >= maxErrors }

func (p *parser) tok() token { return p.toks[p.pos] }

// peek returns the token n ahead, or the final tEOF.
func (p *parser) peek(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() {
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
}

func (p *parser) eof() bool { return p.tok().kind == tEOF }

func (p *parser) isPunct(s string) bool {
	t := p.tok()
	return t.kind == tPunct && t.text == s
}

// accept consumes the punctuation s if it is next.
func (p *parser) accept(s string) bool {
	if p.isPunct(s) {
		p.next()
		return true
	}
	return false
}

// expect consumes the punctuation s or reports it missing.
func (p *parser) expect(s string) bool {
	if p.accept(s) {
		return true
	}
	p.errorf(p.tok().line, "expected %q, found %s", s, describe(p.tok()))
	return false
}

// describe names a token for a message.
func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

// skipLine skips the rest of the current line (line-ended directives).
func (p *parser) skipLine() {
	for !p.eof() && !p.tok().nl {
		p.next()
	}
}

// skipStatement skips to the end of a statement: past the next ';' at
// depth zero, or past a balanced { } block, whichever comes first. It
// always moves at least one token, so error recovery cannot loop.
func (p *parser) skipStatement() {
	depth := 0
	start := p.pos
	for !p.eof() {
		t := p.tok()
		p.next()
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "{":
			depth++
		case "}":
			depth--
			if depth <= 0 {
				return
			}
		case ";":
			if depth == 0 {
				return
			}
		}
	}
	if p.pos == start {
		p.next()
	}
}

// intTok reads a non-negative decimal (or hex) integer token no larger than max.
func (p *parser) intTok(what string, max int64) (int64, bool) {
	t := p.tok()
	if t.kind != tNumber {
		p.errorf(t.line, "expected %s, found %s", what, describe(t))
		return 0, false
	}
	lit, err := parseNumber(t.text, false)
	if err != "" || lit.kind != litInt || lit.u > uint64(max) {
		p.errorf(t.line, "bad %s %q", what, t.text)
		p.next()
		return 0, false
	}
	p.next()
	return int64(lit.u), true
}

// module parses top-level statements until the end of the text.
func (p *parser) module() {
	for !p.eof() && !p.full() {
		t := p.tok()
		if t.kind != tDirective {
			p.errorf(t.line, "unexpected %s at module scope", describe(t))
			p.skipStatement()
			continue
		}
		switch t.text {
		case ".version":
			p.next()
			p.mod.Version = p.restOfLine()
			if msg := checkVersion(p.mod.Version); msg != "" {
				p.errorf(t.line, "%s", msg)
			}
		case ".target":
			p.next()
			p.mod.Target = p.restOfLine()
			if msg := checkTarget(p.mod.Target); msg != "" {
				p.errorf(t.line, "%s", msg)
			}
		case ".address_size":
			p.next()
			if n, ok := p.intTok("address size", 64); ok {
				if n != 32 && n != 64 {
					p.errorf(t.line, "bad address size %d", n)
				}
				p.mod.AddressSize = int(n)
			}
			p.skipLine()
		case ".file":
			p.file()
		case ".loc":
			p.loc(nil)
		case ".section":
			p.section()
		case ".pragma":
			p.skipStatement()
		case ".visible", ".extern", ".weak", ".common", ".entry", ".func",
			".global", ".const", ".shared", ".local":
			p.declaration()
		default:
			p.errorf(t.line, "unsupported directive %q", t.text)
			p.skipStatement()
		}
	}
}

// restOfLine returns the remaining tokens of the line, joined as written
// (".target sm_75, debug" gives "sm_75, debug").
func (p *parser) restOfLine() string {
	t := p.tok()
	if t.nl || t.kind == tEOF {
		p.errorf(t.line, "missing value")
		return ""
	}
	start := t.start
	end := t.end
	for !p.eof() && !p.tok().nl {
		end = p.tok().end
		p.next()
	}
	return strings.TrimSpace(p.src[start:end])
}

// file reads `.file N "path"` (with nvcc's optional timestamp and size).
func (p *parser) file() {
	line := p.tok().line
	p.next()
	n, ok := p.intTok("file number", maxFiles)
	if !ok {
		p.skipLine()
		return
	}
	t := p.tok()
	if t.kind != tString || t.nl {
		p.errorf(line, ".file %d needs a quoted path", n)
		p.skipLine()
		return
	}
	p.next()
	for int64(len(p.mod.Files)) <= n {
		p.mod.Files = append(p.mod.Files, "")
	}
	if n == 0 {
		p.errorf(line, ".file numbers start at 1")
	} else if p.mod.Files[n] != "" && p.mod.Files[n] != t.text {
		p.errorf(line, ".file %d declared twice", n)
	} else {
		p.mod.Files[n] = t.text
	}
	p.skipLine()
}

// loc reads `.loc F L C` and, from nvcc 12's longer form
// `.loc 2 402 31, function_name $L__info_string1, inlined_at 2 527 7`, the
// call site. The returned position is that of the code itself; caller is
// the outermost call site of an inlined chain (zero if not inlined),
// followed through the .loc directives seen before in the kernel.
func (p *parser) loc(outer map[Loc]Loc) (pos, caller Loc) {
	line := p.tok().line
	p.next()
	nums := func() (Loc, bool) {
		var v [3]int64
		for i := range v {
			if p.tok().nl || p.eof() || p.tok().kind != tNumber {
				if i < 2 {
					p.errorf(line, ".loc needs a file and a line")
					return Loc{}, false
				}
				break
			}
			n, ok := p.intTok(".loc number", math.MaxInt32)
			if !ok {
				return Loc{}, false
			}
			v[i] = n
		}
		p.locs = append(p.locs, fileRef{int32(v[0]), line})
		return Loc{File: int32(v[0]), Line: int32(v[1]), Col: int32(v[2])}, true
	}
	pos, ok := nums()
	for ok && !p.eof() && !p.tok().nl {
		t := p.tok()
		p.next()
		if t.kind == tIdent && t.text == "inlined_at" {
			var at Loc
			if at, ok = nums(); ok {
				caller = at
				if c, seen := outer[at]; seen {
					caller = c
				}
				if outer != nil {
					outer[pos] = caller
				}
			}
		}
	}
	p.skipLine()
	if !ok {
		return Loc{}, Loc{}
	}
	return pos, caller
}

// checkLocs reports .loc directives whose file no .file declares.
func (p *parser) checkLocs() {
	for _, r := range p.locs {
		if int(r.file) >= len(p.mod.Files) || p.mod.Files[r.file] == "" {
			p.errorf(r.line, ".loc names file %d, which no .file declares", r.file)
			return
		}
	}
}

// section skips a `.section .debug_* { ... }` block: debug information
// the simulator does not use (line numbers come from .loc).
func (p *parser) section() {
	line := p.tok().line
	p.next()
	for !p.eof() && !p.isPunct("{") {
		if p.isPunct(";") || p.isPunct("}") {
			p.errorf(line, ".section without a { } body")
			p.next()
			return
		}
		p.next()
	}
	depth := 0
	for !p.eof() {
		t := p.tok()
		p.next()
		if t.kind == tPunct && t.text == "{" {
			depth++
		} else if t.kind == tPunct && t.text == "}" {
			depth--
			if depth == 0 {
				return
			}
		}
	}
	p.errorf(line, ".section not terminated")
}

// declaration parses what follows linkage directives at module scope: a
// kernel, a device function, or variables.
func (p *parser) declaration() {
	extern := false
	for !p.eof() {
		switch p.tok().text {
		case ".visible", ".weak", ".common":
			p.next()
			continue
		case ".extern":
			extern = true
			p.next()
			continue
		}
		break
	}
	t := p.tok()
	switch t.text {
	case ".entry":
		p.entry()
	case ".func":
		p.funcDecl()
	case ".global", ".const", ".shared":
		p.next()
		for _, v := range p.varDecl(spaceByName[t.text[1:]], extern, t.line) {
			if _, dup := p.vars[v.Name]; dup {
				p.errorf(v.Line, "variable %s declared twice", v.Name)
				continue
			}
			p.vars[v.Name] = v
			p.modIdx[v] = len(p.mod.Vars)
			p.mod.Vars = append(p.mod.Vars, v)
		}
	default:
		p.errorf(t.line, "unsupported declaration %s", describe(t))
		p.skipStatement()
	}
}

// varDecl parses `[.align N] [.v2|.v4] .type name[dims] [= init] [, name...] ;`
// after the state-space directive.
func (p *parser) varDecl(space Space, extern bool, line int32) []*Var {
	align, vec := 0, 1
	typ := TypeNone
	for p.tok().kind == tDirective {
		t := p.tok()
		switch {
		case t.text == ".align":
			p.next()
			n, ok := p.intTok("alignment", 1<<16)
			if !ok || n == 0 || n&(n-1) != 0 {
				if ok {
					p.errorf(t.line, "alignment %d is not a power of two", n)
				}
				p.skipStatement()
				return nil
			}
			align = int(n)
			continue
		case t.text == ".v2" || t.text == ".v4":
			vec = int(t.text[2] - '0')
		case typeByName[t.text[1:]] != TypeNone && typ == TypeNone:
			typ = typeByName[t.text[1:]]
		default:
			p.errorf(t.line, "unsupported variable attribute %q", t.text)
			p.skipStatement()
			return nil
		}
		p.next()
	}
	if typ == TypeNone || typ == Pred {
		p.errorf(line, "variable needs a type")
		p.skipStatement()
		return nil
	}
	if align == 0 {
		align = typ.Size() * vec
	}
	var out []*Var
	for !p.full() {
		t := p.tok()
		if t.kind != tIdent || strings.HasPrefix(t.text, "%") {
			p.errorf(t.line, "expected a variable name, found %s", describe(t))
			p.skipStatement()
			return out
		}
		p.next()
		v := &Var{Name: t.text, Space: space, Type: typ, Align: align, Extern: extern, Line: t.line}
		size := int64(typ.Size() * vec)
		open := false
		for p.isPunct("[") {
			p.next()
			if p.accept("]") {
				if !extern || space != SpaceShared || open {
					p.errorf(t.line, "array %s has no size", v.Name)
				}
				open = true
				continue
			}
			n, ok := p.intTok("array size", maxVarSize)
			if !ok || !p.expect("]") {
				p.skipStatement()
				return out
			}
			size *= n
			if size > maxVarSize {
				p.errorf(t.line, "variable %s too large", v.Name)
				p.skipStatement()
				return out
			}
		}
		if open {
			size = 0
		}
		v.Size = int(size)
		if p.accept("=") {
			if extern || open {
				p.errorf(t.line, "extern variable %s cannot have an initializer", v.Name)
				p.skipStatement()
				return out
			}
			if !p.initializer(v) {
				p.skipStatement()
				return out
			}
		}
		out = append(out, v)
		if p.accept(",") {
			continue
		}
		p.expect(";")
		return out
	}
	return out
}

// initializer reads `{1, 2, ...}` (nested braces flatten) or a single value
// into v.Init, little-endian at v's type, zero-padded to v.Size.
func (p *parser) initializer(v *Var) bool {
	line := p.tok().line
	if v.Size > maxInitSize {
		p.errorf(line, "initialized variable %s too large", v.Name)
		return false
	}
	v.Init = make([]byte, 0, v.Size)
	es := v.Type.Size()
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.kind == tPunct && t.text == "{":
			depth++
			p.next()
			continue
		case t.kind == tPunct && t.text == "}" && depth > 0:
			depth--
			p.next()
		case t.kind == tIdent && p.funcs[t.text] && v.Type.Size() == 8:
			// A function's address (a table of function pointers, a
			// vtable): filled in once the function is defined.
			p.funcRefs = append(p.funcRefs, funcRef{v: v, off: len(v.Init), name: t.text, line: t.line})
			if len(v.Init)+8 > v.Size {
				p.errorf(t.line, "too many initializers in the initializer of %s", v.Name)
				return false
			}
			v.Init = append(v.Init, make([]byte, 8)...)
			p.next()
		default:
			neg := p.accept("-")
			t = p.tok()
			if t.kind != tNumber {
				p.errorf(t.line, "unsupported initializer %s for %s (numbers only)", describe(t), v.Name)
				return false
			}
			lit, msg := parseNumber(t.text, neg)
			if msg == "" {
				var bits uint64
				bits, msg = lit.bitsAt(v.Type)
				if len(v.Init)+es > v.Size {
					msg = "too many initializers"
				}
				for i := 0; msg == "" && i < es; i++ {
					v.Init = append(v.Init, byte(bits>>(8*i)))
				}
			}
			if msg != "" {
				p.errorf(t.line, "%s in the initializer of %s", msg, v.Name)
				return false
			}
			p.next()
		}
		if depth == 0 {
			break
		}
		if !p.accept(",") && !p.isPunct("}") {
			p.errorf(p.tok().line, "expected ',' or '}' in the initializer of %s, found %s", v.Name, describe(p.tok()))
			return false
		}
	}
	for len(v.Init) < v.Size {
		v.Init = append(v.Init, 0)
	}
	return true
}

// litKind says how a numeric literal was written.
type litKind uint8

const (
	litInt   litKind = iota // 42, -1, 0x1f: u holds the two's complement bits
	litF32                  // 0f3F800000: u holds the float32 bits
	litF64                  // 0d3FF0000000000000: u holds the float64 bits
	litFloat                // 1.5, 1e3: f holds the value
)

// literal is a parsed number before it is fitted to an operand's type.
type literal struct {
	kind litKind
	u    uint64
	f    float64
}

// parseNumber reads a numeric token (neg: a '-' preceded it). It returns
// "" or what is wrong.
func parseNumber(text string, neg bool) (literal, string) {
	s := strings.TrimSuffix(text, "U")
	bad := func() (literal, string) { return literal{}, fmt.Sprintf("bad number %q", text) }
	if len(s) >= 2 && s[0] == '0' {
		switch s[1] {
		case 'f', 'F', 'd', 'D':
			digits := s[2:]
			want, kind := 8, litF32
			if s[1] == 'd' || s[1] == 'D' {
				want, kind = 16, litF64
			}
			if len(digits) != want || s != text {
				return bad()
			}
			u, err := strconv.ParseUint(digits, 16, 64)
			if err != nil {
				return bad()
			}
			if neg {
				u ^= 1 << (4*want - 1)
			}
			return literal{kind: kind, u: u}, ""
		}
	}
	if strings.ContainsAny(s, ".eE") && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || s != text {
			return bad()
		}
		if neg {
			f = -f
		}
		return literal{kind: litFloat, f: f}, ""
	}
	base, digits := 10, s
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, digits = 16, s[2:]
	case len(s) > 2 && (s[:2] == "0b" || s[:2] == "0B"):
		base, digits = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	u, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return bad()
	}
	if neg {
		u = -u
	}
	return literal{kind: litInt, u: u}, ""
}

// bitsAt fits a literal to type t: integers are truncated to t's width (a
// plain integer given for a float type is converted to that float, as ptxas
// does), float literals are converted to f32 or f64 bits, and 0f/0d bits
// are taken as they are by bit and integer types.
func (l literal) bitsAt(t Type) (uint64, string) {
	size := t.Size()
	mask := ^uint64(0)
	if size > 0 && size < 8 {
		mask = 1<<(8*size) - 1
	}
	switch t {
	case Pred:
		if l.kind != litInt {
			return 0, "a predicate takes 0 or 1"
		}
		if l.u != 0 {
			return 1, ""
		}
		return 0, ""
	case F32, F64:
		var f float64
		switch l.kind {
		case litInt:
			f = float64(int64(l.u))
		case litF32:
			if t == F32 {
				return l.u, ""
			}
			f = float64(math.Float32frombits(uint32(l.u)))
		case litF64:
			if t == F64 {
				return l.u, ""
			}
			f = math.Float64frombits(l.u)
		case litFloat:
			f = l.f
		}
		if t == F32 {
			return uint64(math.Float32bits(float32(f))), ""
		}
		return math.Float64bits(f), ""
	case F16, TypeNone:
		return 0, fmt.Sprintf("no immediate of type .%s", t)
	}
	switch l.kind {
	case litFloat:
		return 0, fmt.Sprintf("float literal for type .%s", t)
	case litF32, litF64:
		if (l.kind == litF32) != (size == 4) {
			return 0, fmt.Sprintf("float bits of the wrong width for .%s", t)
		}
	}
	return l.u & mask, ""
}

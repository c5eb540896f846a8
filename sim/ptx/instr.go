package ptx

import (
	"fmt"
	"strings"
)

var specialByName = map[string]Special{
	"%tid.x": SpecialTidX, "%tid.y": SpecialTidY, "%tid.z": SpecialTidZ,
	"%ntid.x": SpecialNtidX, "%ntid.y": SpecialNtidY, "%ntid.z": SpecialNtidZ,
	"%ctaid.x": SpecialCtaidX, "%ctaid.y": SpecialCtaidY, "%ctaid.z": SpecialCtaidZ,
	"%nctaid.x": SpecialNctaidX, "%nctaid.y": SpecialNctaidY, "%nctaid.z": SpecialNctaidZ,
	"%laneid": SpecialLaneID, "%warpid": SpecialWarpID, "%nwarpid": SpecialNWarpID,
	"%lanemask_eq": SpecialLaneMaskEq, "%lanemask_lt": SpecialLaneMaskLt,
	"%lanemask_le": SpecialLaneMaskLe, "%lanemask_gt": SpecialLaneMaskGt,
	"%lanemask_ge": SpecialLaneMaskGe,
	"%clock":       SpecialClock, "%clock64": SpecialClock64, "%globaltimer": SpecialGlobalTimer,
}

// specialWidth is a special register's width: 64 bits for %clock64 and
// %globaltimer, 32 for the others.
func specialWidth(sp Special) Type {
	if sp == SpecialClock64 || sp == SpecialGlobalTimer {
		return U64
	}
	return U32
}

// unsupportedSpecials are special registers PTX has and the simulator does
// not provide (clocks, SM ids, timers): named as such in messages.
var unsupportedSpecials = map[string]bool{
	"%clock_hi": true, "%smid": true, "%nsmid": true,
	"%gridid": true, "%globaltimer_lo": true, "%globaltimer_hi": true,
	"%tid": true, "%ntid": true, "%ctaid": true, "%nctaid": true, "%dynamic_smem_size": true,
	"%total_smem_size": true, "%aggr_smem_size": true, "%pm0": true, "%cluster_ctarank": true,
}

// instruction parses `[@[!]%p] opcode operands ;` and appends the decoded,
// checked Instr. An instruction that fails is reported and left out (the
// module is not returned then).
func (kp *kparser) instruction() {
	p := kp.p
	first := p.tok()
	in := Instr{Guard: -1, Line: first.line, Loc: kp.loc, Caller: kp.caller}
	for i := range in.Dst {
		in.Dst[i] = Operand{Reg: -1, Var: -1, Param: -1}
	}
	for i := range in.Src {
		in.Src[i] = Operand{Reg: -1, Var: -1, Param: -1}
	}
	if p.accept("@") {
		neg := p.accept("!")
		g := p.tok()
		if g.kind != tIdent {
			p.errorf(g.line, "expected a guard predicate, found %s", describe(g))
			p.skipStatement()
			return
		}
		p.next()
		r, ok := kp.reg(g.text)
		switch {
		case !ok:
			p.errorf(g.line, "unknown register %s", g.text)
		case kp.k.Regs[r].Type != Pred:
			p.errorf(g.line, "guard %s is not a predicate", g.text)
		}
		in.Guard, in.GuardNeg = r, neg
	}
	opTok := p.tok()
	if opTok.kind != tIdent || strings.HasPrefix(opTok.text, "%") {
		p.errorf(opTok.line, "expected an instruction, found %s", describe(opTok))
		p.skipStatement()
		return
	}
	p.next()
	start := p.pos
	depth := 0
scan:
	for {
		t := p.tok()
		switch {
		case t.kind == tEOF || t.kind == tDirective && t.nl:
			p.errorf(first.line, "missing ';' after %q", opTok.text)
			return
		case t.kind != tPunct:
		case t.text == ";" && depth == 0:
			break scan
		case t.text == "{" || t.text == "[" || t.text == "(":
			depth++
		case t.text == "}" || t.text == "]" || t.text == ")":
			if depth == 0 {
				p.errorf(first.line, "missing ';' after %q", opTok.text)
				return
			}
			depth--
		}
		p.next()
	}
	ops := p.toks[start:p.pos]
	semi := p.tok()
	p.next()
	in.Text = collapseSpace(p.src[first.start:semi.end])
	if msg := decodeOpcode(&in, opTok.text); msg != "" {
		p.errorf(first.line, "%s", msg)
		return
	}
	if in.Op == OpWmma {
		if msg := kp.wmmaOperands(&in, ops); msg != "" {
			p.errorf(first.line, "%s in %q", msg, in.Text)
			return
		}
		kp.k.Instrs = append(kp.k.Instrs, in)
		return
	}
	if in.Op == OpCall {
		if msg := kp.callOperands(&in, ops); msg != "" {
			p.errorf(first.line, "%s in %q", msg, in.Text)
			return
		}
		kp.k.Instrs = append(kp.k.Instrs, in)
		return
	}
	kp.pre = kp.pre[:0]
	if msg := kp.operands(&in, ops); msg != "" {
		p.errorf(first.line, "%s in %q", msg, in.Text)
		return
	}
	if in.CarryIn || in.CarryOut {
		kp.carryOperands(&in)
	}
	for _, pre := range kp.pre {
		pre.Line, pre.Loc, pre.Caller, pre.Text = in.Line, in.Loc, in.Caller, in.Text
		kp.k.Instrs = append(kp.k.Instrs, pre)
	}
	kp.k.Instrs = append(kp.k.Instrs, in)
}

// rawKind is an operand's written form, before it is resolved.
type rawKind uint8

const (
	rkReg  rawKind = iota // %r1, %tid.x
	rkNeg                 // !%p1
	rkPair                // %p1|%p2, %r3|%p4
	rkNum                 // 42, -1, 0f3F800000
	rkName                // a label, a variable, a parameter, WARP_SZ
	rkVec                 // {%f1, %f2, _}
	rkAddr                // [%rd1+4], [sym], [param]
	rkSink                // _
)

// rawOpd is one operand as written.
type rawOpd struct {
	kind  rawKind
	name  string // register or name; the base of an address ("" for [imm])
	name2 string // rkPair: the second name
	lit   literal
	vec   []string
	off   uint64 // rkAddr: the offset, two's complement
	text  string
}

// splitOperands splits an instruction's operand tokens at top-level commas.
func splitOperands(toks []token) [][]token {
	if len(toks) == 0 {
		return nil
	}
	var out [][]token
	depth, start := 0, 0
	for i, t := range toks {
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "{", "[", "(":
			depth++
		case "}", "]", ")":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, toks[start:i])
				start = i + 1
			}
		}
	}
	return append(out, toks[start:])
}

func isPunctTok(t token, s string) bool { return t.kind == tPunct && t.text == s }

// parseRaw reads one operand's tokens. It returns "" or what is wrong.
func (kp *kparser) parseRaw(g []token) (rawOpd, string) {
	var r rawOpd
	if len(g) == 0 {
		return r, "missing operand"
	}
	r.text = kp.p.src[g[0].start:g[len(g)-1].end]
	bad := "bad operand" // spelled out below, only when it is wrong
	switch {
	case len(g) == 1 && g[0].kind == tIdent:
		r.name = g[0].text
		switch {
		case r.name == "_":
			r.kind = rkSink
		case strings.HasPrefix(r.name, "%") || kp.isReg(r.name):
			r.kind = rkReg
		default:
			r.kind = rkName
		}
		return r, ""
	case len(g) == 1 && g[0].kind == tNumber, len(g) == 2 && isPunctTok(g[0], "-") && g[1].kind == tNumber:
		lit, msg := parseNumber(g[len(g)-1].text, len(g) == 2)
		r.kind, r.lit = rkNum, lit
		return r, msg
	case len(g) == 2 && isPunctTok(g[0], "!") && g[1].kind == tIdent:
		r.kind, r.name = rkNeg, g[1].text
		return r, ""
	case len(g) == 3 && g[0].kind == tIdent && isPunctTok(g[1], "|") && g[2].kind == tIdent:
		r.kind, r.name, r.name2 = rkPair, g[0].text, g[2].text
		return r, ""
	case isPunctTok(g[0], "{") && isPunctTok(g[len(g)-1], "}"):
		r.kind = rkVec
		for i := 1; i < len(g)-1; i += 2 {
			if g[i].kind != tIdent && g[i].kind != tNumber || !(isPunctTok(g[i+1], ",") || i+1 == len(g)-1) {
				return r, bad
			}
			r.vec = append(r.vec, g[i].text)
		}
		if len(r.vec) == 0 {
			return r, bad
		}
		return r, ""
	case isPunctTok(g[0], "[") && isPunctTok(g[len(g)-1], "]"):
		r.kind = rkAddr
		in := g[1 : len(g)-1]
		if len(in) > 0 && in[0].kind == tIdent {
			r.name = in[0].text
			in = in[1:]
			if len(in) == 0 {
				return r, ""
			}
			if !isPunctTok(in[0], "+") && !isPunctTok(in[0], "-") {
				return r, bad
			}
			if isPunctTok(in[0], "+") {
				in = in[1:]
			}
		}
		neg := false
		if len(in) == 2 && isPunctTok(in[0], "-") {
			neg, in = true, in[1:]
		}
		if len(in) != 1 || in[0].kind != tNumber {
			return r, bad
		}
		lit, msg := parseNumber(in[0].text, neg)
		if msg == "" && lit.kind != litInt {
			msg = bad
		}
		r.off = lit.u
		return r, msg
	}
	return r, bad
}

// Operand forms a slot accepts.
const (
	aReg = 1 << iota
	aImm
	aSpecial
	aSym
	aAddr
	aVec
	aNeg
	aPair
	aSink
)

// spec is what one operand slot takes: its type, the forms allowed, and
// whether a register may be wider than the type (ld, st and cvt, by PTX's
// relaxed type-checking rules).
type spec struct {
	t     Type
	allow uint16
	relax bool
}

// wide is the type of mul.wide's and mad.wide's result.
func wide(t Type) Type {
	switch t {
	case U16:
		return U32
	case U32:
		return U64
	case S16:
		return S32
	case S32:
		return S64
	}
	return t
}

// signature gives the destination and source slots of in (by opcode and
// type); minSrc is the fewest sources it takes.
func signature(in *Instr) (dst, src []spec, minSrc int) {
	t := in.Type
	val := spec{t: t, allow: aReg | aImm}
	reg := spec{t: t, allow: aReg}
	u32 := spec{t: U32, allow: aReg | aImm}
	b32 := spec{t: B32, allow: aReg | aImm}
	addr := spec{allow: aAddr}
	one := func(d spec, s ...spec) ([]spec, []spec, int) { return []spec{d}, s, len(s) }
	switch in.Op {
	case OpMov:
		if t == Pred {
			return one(reg, val)
		}
		return one(spec{t: t, allow: aReg | aVec}, spec{t: t, allow: aReg | aImm | aSpecial | aSym | aVec})
	case OpLd:
		return one(spec{t: t, allow: aReg | aVec, relax: true}, addr)
	case OpSt:
		return nil, []spec{addr, {t: t, allow: aReg | aImm | aVec, relax: true}}, 2
	case OpCvta:
		return one(reg, spec{t: t, allow: aReg | aSym})
	case OpCvt:
		if in.Pair {
			return one(spec{t: t, allow: aReg, relax: true}, spec{t: in.SrcType, allow: aReg | aImm, relax: true}, spec{t: in.SrcType, allow: aReg | aImm, relax: true})
		}
		return one(spec{t: t, allow: aReg, relax: true}, spec{t: in.SrcType, allow: aReg | aImm | aSpecial, relax: true})
	case OpAdd, OpSub, OpMin, OpMax, OpDiv, OpRem, OpAnd, OpOr, OpXor:
		return one(reg, val, val)
	case OpMul:
		if in.Mul == MulWide {
			return one(spec{t: wide(t), allow: aReg}, val, val)
		}
		return one(reg, val, val)
	case OpMad:
		if in.Mul == MulWide {
			return one(spec{t: wide(t), allow: aReg}, val, val, spec{t: wide(t), allow: aReg | aImm})
		}
		return one(reg, val, val, val)
	case OpFma:
		return one(reg, val, val, val)
	case OpAbs, OpNeg, OpNot, OpRcp, OpSqrt, OpRsqrt, OpEx2, OpLg2, OpBrev:
		return one(reg, val)
	case OpPopc, OpClz:
		return one(spec{t: U32, allow: aReg}, val)
	case OpShl, OpShr:
		return one(reg, val, u32)
	case OpBfe:
		return one(reg, val, u32, u32)
	case OpBfi:
		return one(reg, val, val, u32, u32)
	case OpSelp:
		return one(reg, val, val, spec{t: Pred, allow: aReg})
	case OpSetp:
		d := spec{t: Pred, allow: aReg | aPair}
		if in.Bool != BoolNone {
			return one(d, val, val, spec{t: Pred, allow: aReg | aNeg})
		}
		return one(d, val, val)
	case OpBar:
		if in.Red != RedNone { // bar.red: d, a{, b}, {!}c
			d := spec{t: U32, allow: aReg}
			if in.Red != RedPopc {
				d = spec{t: Pred, allow: aReg}
			}
			return []spec{d}, []spec{u32, u32, {t: Pred, allow: aReg | aNeg}}, 2
		}
		return nil, []spec{u32, u32}, 1
	case OpShfl:
		return one(spec{t: B32, allow: aReg | aPair}, b32, u32, u32, b32)
	case OpVote:
		return one(reg, spec{t: Pred, allow: aReg | aNeg}, b32)
	case OpAtom:
		if in.Atom == AtomCAS {
			return one(reg, addr, val, val)
		}
		return one(reg, addr, val)
	case OpRed:
		return nil, []spec{addr, val}, 2
	case OpMembar:
		if in.Sync { // bar.warp.sync membermask
			return nil, []spec{b32}, 1
		}
		if in.Prefetch {
			return nil, []spec{addr}, 1
		}
	case OpShf:
		return one(reg, val, val, u32)
	case OpSin, OpCos:
		return one(reg, val)
	case OpBfind:
		return one(spec{t: U32, allow: aReg}, val)
	case OpPrmt:
		return one(reg, val, val, val)
	case OpSad:
		return one(reg, val, val, val)
	case OpActivemask:
		return []spec{reg}, nil, 0
	case OpNanosleep:
		return nil, []spec{u32}, 1
	case OpMatch:
		return one(spec{t: B32, allow: aReg | aPair}, val, b32)
	case OpRedux:
		return one(reg, spec{t: t, allow: aReg}, b32)
	case OpCpAsync:
		switch in.Async {
		case AsyncCopy:
			return nil, []spec{addr, addr, u32, u32}, 3
		case AsyncWait:
			return nil, []spec{u32}, 1
		}
	}
	return nil, nil, 0 // ret, exit, membar; bra is handled by the caller
}

// operands parses, resolves and checks in's operands against its signature.
func (kp *kparser) operands(in *Instr, toks []token) string {
	groups := splitOperands(toks)
	raws := make([]rawOpd, len(groups))
	for i, g := range groups {
		r, msg := kp.parseRaw(g)
		if msg == "bad operand" {
			msg = fmt.Sprintf("bad operand %q", r.text)
		}
		if msg != "" {
			return msg
		}
		raws[i] = r
	}
	if in.Op == OpBra {
		if len(raws) != 1 || raws[0].kind != rkName {
			return "bra takes one label"
		}
		kp.fixups = append(kp.fixups, fixup{instr: len(kp.k.Instrs), label: raws[0].name, line: in.Line})
		return ""
	}
	dst, src, minSrc := signature(in)
	nd := len(dst)
	if len(raws) < nd+minSrc || len(raws) > nd+len(src) {
		if minSrc == len(src) {
			return fmt.Sprintf("%d operands where %s takes %d", len(raws), in.Op, nd+len(src))
		}
		return fmt.Sprintf("%d operands where %s takes %d to %d", len(raws), in.Op, nd+minSrc, nd+len(src))
	}
	for i := 0; i < nd; i++ {
		r := raws[i]
		if r.kind == rkPair {
			if dst[i].allow&aPair == 0 {
				return fmt.Sprintf("%q: a register pair is not allowed here", r.text)
			}
			a, msg := kp.resolve(in, rawOpd{kind: rkReg, name: r.name, text: r.name}, dst[i], true)
			if msg != "" {
				return msg
			}
			b, msg := kp.resolve(in, rawOpd{kind: rkReg, name: r.name2, text: r.name2}, spec{t: Pred, allow: aReg}, true)
			if msg != "" {
				return msg
			}
			in.Dst[0], in.Dst[1], in.NDst = a, b, 2
			continue
		}
		o, msg := kp.resolve(in, r, dst[i], true)
		if msg != "" {
			return msg
		}
		in.Dst[i] = o
		in.NDst = uint8(i + 1)
	}
	srcRaws := raws[nd:]
	if in.Op == OpBar && in.Red != RedNone && len(srcRaws) == 2 {
		// bar.red without a thread count: the predicate goes to Src[2].
		srcRaws = []rawOpd{srcRaws[0], {kind: rkSink, text: "_"}, srcRaws[1]}
	}
	for i, r := range srcRaws {
		if r.kind == rkSink && in.Op == OpBar {
			// No thread count: the whole block (an immediate 0 here).
			in.Src[i] = Operand{Kind: OpdImm, Reg: -1, Var: -1, Param: -1}
			in.NSrc = uint8(i + 1)
			continue
		}
		if in.Op == OpCpAsync && i < 2 {
			// The destination is in shared memory, the source in global.
			sp := in.Space
			in.Space = [2]Space{SpaceShared, SpaceGlobal}[i]
			o, msg := kp.resolve(in, r, src[i], false)
			in.Space = sp
			if msg != "" {
				return msg
			}
			in.Src[i] = o
			in.NSrc = uint8(i + 1)
			continue
		}
		o, msg := kp.resolve(in, r, src[i], false)
		if msg != "" {
			return msg
		}
		in.Src[i] = o
		in.NSrc = uint8(i + 1)
	}
	// ld and st move a vector exactly when the opcode says .v2 or .v4.
	if in.Op == OpLd || in.Op == OpSt {
		v := in.Dst[0]
		if in.Op == OpSt {
			v = in.Src[1]
		}
		if (v.Kind == OpdVec) != (in.Vec > 1) || v.Kind == OpdVec && len(v.Vec) != int(in.Vec) {
			return fmt.Sprintf("a .v%d %s needs a vector of %d registers", in.Vec, in.Op, in.Vec)
		}
	}
	return ""
}

// fits reports whether a register of type reg may stand for an operand of
// type want, by PTX's type-checking rules: same size, and a float type
// takes only its own type or a bit type; integers of one size mix. With
// relax (ld, st, cvt), an integer or bit operand takes any wider integer
// or bit register.
func fits(reg, want Type, relax bool) bool {
	if reg == Pred || want == Pred {
		return reg == want
	}
	rs, ws := reg.Size(), want.Size()
	switch {
	case want.IsFloat():
		return reg == want || isBits(reg) && rs == ws
	case reg.IsFloat():
		return isBits(want) && rs == ws
	case relax:
		return rs >= ws
	}
	return rs == ws
}

// resolve turns one written operand into an Operand for slot s.
func (kp *kparser) resolve(in *Instr, r rawOpd, s spec, isDst bool) (Operand, string) {
	o, msg := kp.resolveOpd(in, r, s, isDst)
	if msg == "not allowed here" {
		msg = fmt.Sprintf("operand %q not allowed here", r.text)
	}
	return o, msg
}

// resolveOpd does resolve's work; its messages are formatted only on error.
func (kp *kparser) resolveOpd(in *Instr, r rawOpd, s spec, isDst bool) (Operand, string) {
	o := Operand{Reg: -1, Var: -1, Param: -1}
	const notHere = "not allowed here" // completed by resolve
	switch r.kind {
	case rkReg:
		if sp, ok := specialByName[r.name]; ok {
			if s.allow&aSpecial == 0 || isDst {
				return o, notHere
			}
			if w := specialWidth(sp); !fits(w, s.t, s.relax) {
				return o, fmt.Sprintf("%s is %d bits wide, not .%s", r.name, 8*w.Size(), s.t)
			}
			o.Kind, o.Special = OpdSpecial, sp
			return o, ""
		}
		if s.allow&aReg == 0 {
			return o, notHere
		}
		reg, msg := kp.regOf(r.name, s.t, s.relax)
		o.Kind, o.Reg = OpdReg, reg
		return o, msg
	case rkNeg:
		if s.allow&aNeg == 0 {
			return o, notHere
		}
		reg, msg := kp.regOf(r.name, Pred, false)
		o.Kind, o.Reg, o.Neg = OpdReg, reg, true
		return o, msg
	case rkNum:
		if s.allow&aImm == 0 {
			return o, notHere
		}
		bits, msg := r.lit.bitsAt(s.t)
		o.Kind, o.Imm = OpdImm, bits
		return o, msg
	case rkName:
		if r.name == "WARP_SZ" && s.allow&aImm != 0 && !isDst {
			// The warp size is a constant of the target: an immediate 32.
			bits, msg := literal{kind: litInt, u: 32}.bitsAt(s.t)
			o.Kind, o.Imm = OpdImm, bits
			return o, msg
		}
		if v, ok := kp.lookupVar(r.name); ok {
			if s.allow&aSym == 0 {
				return o, notHere
			}
			if s.t.IsFloat() || s.t == Pred || (s.t.Size() != 4 && s.t.Size() != 8) {
				return o, fmt.Sprintf("the address of %s does not fit .%s", r.name, s.t)
			}
			o.Kind, o.Var = OpdSym, v
			return o, ""
		}
		if _, ok := kp.params[r.name]; ok {
			return o, fmt.Sprintf("parameter %s used as a value (read it with ld.param)", r.name)
		}
		if kp.p.funcs[r.name] {
			// A function's address (a function pointer): filled in once
			// the function is defined (linkCalls).
			if s.allow&aSym == 0 || s.t.Size() != 8 || isDst {
				return o, fmt.Sprintf("function %s used as a value", r.name)
			}
			kp.p.funcRefs = append(kp.p.funcRefs, funcRef{k: kp.k, instr: len(kp.k.Instrs), name: r.name, line: in.Line})
			o.Kind = OpdImm
			return o, ""
		}
		return o, fmt.Sprintf("unknown symbol %s", r.name)
	case rkSink:
		if s.allow&aSink == 0 || !isDst {
			return o, notHere
		}
		o.Kind = OpdSink
		return o, ""
	case rkVec:
		if s.allow&aVec == 0 {
			return o, notHere
		}
		return kp.vector(in, r, s, isDst)
	case rkAddr:
		if s.allow&aAddr == 0 {
			return o, notHere
		}
		return kp.address(in, r)
	}
	return o, notHere
}

// regOf looks a register up and checks its type against want.
func (kp *kparser) regOf(name string, want Type, relax bool) (int32, string) {
	r, ok := kp.reg(name)
	if !ok {
		if strings.HasPrefix(name, "%envreg") {
			// cooperative_groups::this_grid().sync() reads the grid's
			// workspace from the driver's environment registers.
			return -1, fmt.Sprintf("unsupported special register %s (a grid-wide sync needs a cooperative launch, which the simulator does not run)", name)
		}
		if unsupportedSpecials[name] || strings.Contains(name, ".") {
			return -1, fmt.Sprintf("unsupported special register %s", name)
		}
		return -1, fmt.Sprintf("unknown register %s", name)
	}
	if have := kp.k.Regs[r].Type; !fits(have, want, relax) {
		return r, fmt.Sprintf("register %s is .%s, not .%s", name, have, want)
	}
	return r, ""
}

// vector resolves {a, b, ...}: the registers of ld.vN/st.vN (each at the
// instruction's type), or the halves mov packs into or unpacks from a
// wider register (mov.b64 %rd1, {%r1, %r2}).
func (kp *kparser) vector(in *Instr, r rawOpd, s spec, isDst bool) (Operand, string) {
	o := Operand{Kind: OpdVec, Reg: -1, Var: -1, Param: -1}
	et := s.t
	if in.Op == OpMov {
		n := len(r.vec)
		switch {
		case s.t == B64 && n == 2:
			et = B32
		case s.t == B64 && n == 4, s.t == B32 && n == 2:
			et = B16
		default:
			return o, fmt.Sprintf("mov.%s cannot pack or unpack %d registers", s.t, n)
		}
	} else if len(r.vec) != 2 && len(r.vec) != 4 {
		return o, fmt.Sprintf("bad vector %q", r.text)
	}
	for _, name := range r.vec {
		if name == "_" {
			if !isDst {
				return o, fmt.Sprintf("_ in source vector %q", r.text)
			}
			o.Vec = append(o.Vec, -1)
			continue
		}
		if isDigit(name[0]) {
			// A constant packed by mov (mov.b32 %f1, {0, %rs1}, as
			// __bfloat162float compiles): a register of its own, set by a
			// mov inserted before this instruction.
			if isDst || in.Op != OpMov {
				return o, fmt.Sprintf("a number in vector %q", r.text)
			}
			lit, msg := parseNumber(name, false)
			if msg != "" {
				return o, msg
			}
			bits, msg := lit.bitsAt(et)
			if msg != "" {
				return o, msg
			}
			reg := int32(len(kp.k.Regs))
			kp.k.Regs = append(kp.k.Regs, Reg{Name: fmt.Sprintf("%%imm.%d", reg), Type: et})
			mov := Instr{Op: OpMov, Type: et, Guard: -1, NDst: 1, NSrc: 1}
			mov.Dst[0] = Operand{Kind: OpdReg, Reg: reg, Var: -1, Param: -1}
			mov.Src[0] = Operand{Kind: OpdImm, Imm: bits, Reg: -1, Var: -1, Param: -1}
			kp.pre = append(kp.pre, mov)
			o.Vec = append(o.Vec, reg)
			continue
		}
		reg, msg := kp.regOf(name, et, s.relax)
		if msg != "" {
			return o, msg
		}
		o.Vec = append(o.Vec, reg)
	}
	return o, ""
}

// address resolves [base+offset] for in's state space: the base is a
// register, a variable of that space (any variable for a generic access),
// a parameter (ld.param only), or nothing ([imm]).
func (kp *kparser) address(in *Instr, r rawOpd) (Operand, string) {
	o := Operand{Kind: OpdAddr, Reg: -1, Var: -1, Param: -1, Imm: r.off}
	switch {
	case r.name == "":
		if in.Space == SpaceParam {
			return o, "ld.param needs a parameter name"
		}
	case strings.HasPrefix(r.name, "%") || kp.isReg(r.name):
		if in.Space == SpaceParam {
			return o, "ld.param needs a parameter name, not a register"
		}
		reg, ok := kp.reg(r.name)
		if !ok {
			return o, fmt.Sprintf("unknown register %s", r.name)
		}
		if t := kp.k.Regs[reg].Type; t.IsFloat() || t == Pred || t.Size() < 4 {
			return o, fmt.Sprintf("address register %s is .%s, not a 32- or 64-bit integer", r.name, t)
		}
		o.Reg = reg
	default:
		if pi, ok := kp.params[r.name]; ok {
			if in.Space != SpaceParam {
				return o, fmt.Sprintf("%s is a parameter: only ld.param reads it", r.name)
			}
			o.Param = pi
			return o, ""
		}
		vi, ok := kp.lookupVar(r.name)
		if !ok {
			return o, fmt.Sprintf("unknown symbol %s", r.name)
		}
		if in.Space == SpaceParam && kp.k.Vars[vi].Space != SpaceParam {
			return o, fmt.Sprintf("%s is not a parameter", r.name)
		}
		if vs := kp.k.Vars[vi].Space; in.Space != SpaceGeneric && vs != in.Space {
			return o, fmt.Sprintf("%s is in the %s space, not %s", r.name, spaceName(vs), spaceName(in.Space))
		}
		o.Var = vi
	}
	return o, ""
}

// spaceName spells a state space for messages.
func spaceName(s Space) string {
	return [...]string{"none", "generic", ".global", ".shared", ".local", ".param", ".const", ".reg", "?"}[min(int(s), 8)]
}

// wmmaOperands reads a wmma or mma.sync instruction's fragments (vectors
// of as many registers as the PTX manual gives the fragment: .b32 for A
// and B and for .f16 C and D, .f32 for .f32 C and D), and a load's or
// store's address and stride.
func (kp *kparser) wmmaOperands(in *Instr, toks []token) string {
	groups := splitOperands(toks)
	w := in.Wmma
	addrStride := func(ga []token, gs [][]token) (Operand, Operand, string) {
		r, msg := kp.parseRaw(ga)
		if msg == "" && r.kind != rkAddr {
			msg = "a wmma address is [reg+imm]"
		}
		if msg != "" {
			return Operand{}, Operand{}, msg
		}
		a, msg := kp.address(in, r)
		if msg != "" {
			return a, Operand{}, msg
		}
		stride := Operand{Kind: OpdImm, Imm: 16, Reg: -1, Var: -1, Param: -1}
		if len(gs) > 0 {
			rs, msg := kp.parseRaw(gs[0])
			if msg != "" {
				return a, stride, msg
			}
			if stride, msg = kp.resolve(in, rs, spec{t: U32, allow: aReg | aImm}, false); msg != "" {
				return a, stride, msg
			}
		}
		return a, stride, ""
	}
	// A fragment's registers: .b32 for A and B and for .f16 C and D
	// (pairs of halves, one tf32), .f32 for .f32 C and D.
	regType := func(m MatType, ab bool) Type {
		if ab || m != MatF32 {
			return B32
		}
		return F32
	}
	fragN := func(g []token, t Type, n int) (Operand, string) {
		r, msg := kp.parseRaw(g)
		if msg != "" || r.kind != rkVec || len(r.vec) != n {
			return Operand{}, fmt.Sprintf("a fragment of %d registers", n)
		}
		o := Operand{Kind: OpdVec, Reg: -1, Var: -1, Param: -1}
		for _, name := range r.vec {
			reg, msg := kp.regOf(name, t, false)
			if msg != "" {
				return o, msg
			}
			o.Vec = append(o.Vec, reg)
		}
		return o, ""
	}
	var msg string
	switch w.Op {
	case 'M':
		if len(groups) != 4 {
			return "mma.sync takes four fragments (D, A, B, C)"
		}
		// Registers a fragment: A 16×K, B K×8, C and D 16×8 elements
		// over 32 lanes, two 16-bit elements or one 32-bit one a register.
		n := func(elems int, m MatType) int { return elems * m.Bits() / 32 / 32 }
		if in.Dst[0], msg = fragN(groups[0], regType(w.D, false), n(128, w.D)); msg != "" {
			return msg
		}
		for i, c := range []struct {
			elems int
			m     MatType
			ab    bool
		}{{16 * w.K, w.AB, true}, {8 * w.K, w.AB, true}, {128, w.C, false}} {
			if in.Src[i], msg = fragN(groups[i+1], regType(c.m, c.ab), n(c.elems, c.m)); msg != "" {
				return msg
			}
		}
		in.NDst, in.NSrc = 1, 3
		return ""
	case 'L':
		if len(groups) != 2 {
			return "ldmatrix takes a vector of registers and an address"
		}
		if in.Dst[0], msg = fragN(groups[0], B32, w.N); msg != "" {
			return msg
		}
		if in.Src[0], _, msg = addrStride(groups[1], nil); msg != "" {
			return msg
		}
		in.NDst, in.NSrc = 1, 1
		return ""
	case 'l':
		if len(groups) < 2 || len(groups) > 3 {
			return "wmma.load takes a fragment, an address and a stride"
		}
		if in.Dst[0], msg = fragN(groups[0], regType(w.Mat, w.Frag <= 'b'), FragRegs(w.Frag, w.Mat, w.M, w.N, w.K)); msg != "" {
			return msg
		}
		if in.Src[0], in.Src[1], msg = addrStride(groups[1], groups[2:]); msg != "" {
			return msg
		}
		in.NDst, in.NSrc = 1, 2
	case 's':
		if len(groups) < 2 || len(groups) > 3 {
			return "wmma.store takes an address, a fragment and a stride"
		}
		if in.Src[1], msg = fragN(groups[1], regType(w.Mat, false), FragRegs('d', w.Mat, w.M, w.N, w.K)); msg != "" {
			return msg
		}
		if in.Src[0], in.Src[2], msg = addrStride(groups[0], groups[2:]); msg != "" {
			return msg
		}
		in.NSrc = 3
	case 'm':
		if len(groups) != 4 {
			return "wmma.mma takes four fragments (D, A, B, C)"
		}
		if in.Dst[0], msg = fragN(groups[0], regType(w.D, false), FragRegs('d', w.D, w.M, w.N, w.K)); msg != "" {
			return msg
		}
		for i, f := range []struct {
			frag byte
			m    MatType
		}{{'a', w.AB}, {'b', w.AB}, {'c', w.C}} {
			if in.Src[i], msg = fragN(groups[i+1], regType(f.m, f.frag <= 'b'), FragRegs(f.frag, f.m, w.M, w.N, w.K)); msg != "" {
				return msg
			}
		}
		in.NDst, in.NSrc = 1, 3
	}
	return ""
}

// carryOperands adds the carry flag's hidden register to an add, sub or
// mad that reads it (a last source) or writes it (Dst[1]).
func (kp *kparser) carryOperands(in *Instr) {
	if kp.cc < 0 {
		kp.cc = int32(len(kp.k.Regs))
		kp.k.Regs = append(kp.k.Regs, Reg{Name: "%cc", Type: B32})
	}
	cc := Operand{Kind: OpdReg, Reg: kp.cc, Var: -1, Param: -1}
	if in.CarryIn {
		in.Src[in.NSrc] = cc
		in.NSrc++
	}
	if in.CarryOut {
		in.Dst[1] = cc
		in.NDst = 2
	}
}

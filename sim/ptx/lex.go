package ptx

import "strings"

// tokKind is the class of a lexical token.
type tokKind uint8

const (
	tEOF       tokKind = iota
	tIdent             // ld.global.u32, %r1, %tid.x, $L__BB0_1, _Z3fooPf, _
	tDirective         // .reg, .b32, .param (a dot and a name)
	tNumber            // 42, 0x1f, 0f3F800000, 0d3FF0000000000000, 1.5e3
	tString            // "spmv.cu" (Text holds it without quotes)
	tPunct             // one of , ; : { } [ ] ( ) + - | ! @ < > =
)

// token is one lexical token with its line and byte span in the source
// (the span lets an instruction keep its text exactly as written).
type token struct {
	kind       tokKind
	text       string
	line       int32
	start, end int
	nl         bool // the token is the first on its line
}

// lexer splits PTX text into tokens. It is written by hand, in the manner of
// go/scanner, because PTX mixes line-ended directives (.loc, .file) with
// semicolon-ended statements, and dotted opcodes with dotted special
// registers; a token records whether it starts a line so the parser can end
// the line-ended directives.
type lexer struct {
	src      string
	pos      int
	line     int32
	toks     []token
	errs     []*Error
	name     string
	compiler string // "Cuda compilation tools, release ..." from a comment
	nl       bool
}

// lex tokenizes src, ending the slice with a tEOF token. Problems (an
// unterminated comment or string, a stray character) are returned as errors
// with their lines; the tokens around them are still produced.
func lex(name, src string) ([]token, string, []*Error) {
	lx := &lexer{src: src, line: 1, name: name, nl: true}
	lx.toks = make([]token, 0, len(src)/6+16) // nvcc's PTX runs about 6 bytes a token
	lx.run()
	lx.toks = append(lx.toks, token{kind: tEOF, line: lx.line, start: len(src), end: len(src), nl: true})
	return lx.toks, lx.compiler, lx.errs
}

func (lx *lexer) errorf(line int32, msg string) {
	if len(lx.errs) < maxErrors {
		lx.errs = append(lx.errs, &Error{File: lx.name, Line: int(line), Msg: msg})
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isIdentChar reports the characters that may follow the first of a name.
func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' || c == '$' }

func (lx *lexer) emit(k tokKind, start int, text string) {
	lx.toks = append(lx.toks, token{kind: k, text: text, line: lx.line, start: start, end: lx.pos, nl: lx.nl})
	lx.nl = false
}

func (lx *lexer) run() {
	src := lx.src
	for lx.pos < len(src) {
		c := src[lx.pos]
		start := lx.pos
		switch {
		case c == '\n':
			lx.line++
			lx.nl = true
			lx.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.pos++
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '/':
			end := strings.IndexByte(src[lx.pos:], '\n')
			if end < 0 {
				end = len(src) - lx.pos
			}
			lx.comment(src[lx.pos+2 : lx.pos+end])
			lx.pos += end
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '*':
			end := strings.Index(src[lx.pos+2:], "*/")
			if end < 0 {
				lx.errorf(lx.line, "comment not terminated")
				lx.pos = len(src)
				break
			}
			body := src[lx.pos+2 : lx.pos+2+end]
			lx.line += int32(strings.Count(body, "\n"))
			if strings.Contains(body, "\n") {
				lx.nl = true
			}
			lx.pos += end + 4
		case c == '"':
			end := strings.IndexAny(src[lx.pos+1:], "\"\n")
			if end < 0 || src[lx.pos+1+end] != '"' {
				lx.errorf(lx.line, "string not terminated")
				if end < 0 {
					end = len(src) - lx.pos - 1
				}
				lx.pos += 1 + end
				break
			}
			lx.pos += end + 2
			lx.emit(tString, start, src[start+1:lx.pos-1])
		case isDigit(c):
			lx.number()
		case c == '.' && lx.pos+1 < len(src) && (isLetter(src[lx.pos+1]) || src[lx.pos+1] == '_'):
			lx.pos++
			lx.scanName(false)
			lx.emit(tDirective, start, src[start:lx.pos])
		case isLetter(c) || c == '_' || c == '$' || c == '%':
			lx.pos++
			lx.scanName(true)
			lx.emit(tIdent, start, src[start:lx.pos])
		case strings.IndexByte(",;:{}[]()+-|!@<>=", c) >= 0:
			lx.pos++
			lx.emit(tPunct, start, src[start:lx.pos])
		default:
			lx.errorf(lx.line, "unexpected character "+quoteChar(c))
			lx.pos++
		}
	}
}

// quoteChar spells a byte for a message, printable or not.
func quoteChar(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	const hex = "0123456789abcdef"
	return "0x" + string([]byte{hex[c>>4], hex[c&15]})
}

// scanName scans the rest of a name. Dotted names (opcodes with their
// modifiers, %tid.x) are one token when dots is set; "::" joins the
// cache-hint and state-space qualifiers (ld.global.L1::evict_last,
// .shared::cta) while a single ':' ends a label.
func (lx *lexer) scanName(dots bool) {
	src := lx.src
	for lx.pos < len(src) {
		c := src[lx.pos]
		switch {
		case isIdentChar(c):
			lx.pos++
		case c == '.' && dots:
			lx.pos++
		case c == ':' && lx.pos+1 < len(src) && src[lx.pos+1] == ':':
			lx.pos += 2
		default:
			return
		}
	}
}

// number scans a numeric literal: decimal, 0x hex, 0b binary, octal with a
// leading 0, the 0f/0d float-bit forms, and decimal floats; an optional U
// suffix marks unsigned. Validation and conversion happen in the parser.
func (lx *lexer) number() {
	src := lx.src
	start := lx.pos
	if src[lx.pos] == '0' && lx.pos+1 < len(src) {
		switch src[lx.pos+1] {
		case 'f', 'F', 'd', 'D', 'x', 'X':
			lx.pos += 2
			for lx.pos < len(src) && isHex(src[lx.pos]) {
				lx.pos++
			}
			if lx.pos < len(src) && src[lx.pos] == 'U' {
				lx.pos++
			}
			lx.emit(tNumber, start, src[start:lx.pos])
			return
		case 'b', 'B':
			lx.pos += 2
			for lx.pos < len(src) && (src[lx.pos] == '0' || src[lx.pos] == '1') {
				lx.pos++
			}
			if lx.pos < len(src) && src[lx.pos] == 'U' {
				lx.pos++
			}
			lx.emit(tNumber, start, src[start:lx.pos])
			return
		}
	}
	for lx.pos < len(src) && isDigit(src[lx.pos]) {
		lx.pos++
	}
	if lx.pos < len(src) && src[lx.pos] == '.' && lx.pos+1 < len(src) && isDigit(src[lx.pos+1]) {
		lx.pos++
		for lx.pos < len(src) && isDigit(src[lx.pos]) {
			lx.pos++
		}
	}
	if lx.pos < len(src) && (src[lx.pos] == 'e' || src[lx.pos] == 'E') {
		p := lx.pos + 1
		if p < len(src) && (src[p] == '+' || src[p] == '-') {
			p++
		}
		if p < len(src) && isDigit(src[p]) {
			lx.pos = p
			for lx.pos < len(src) && isDigit(src[lx.pos]) {
				lx.pos++
			}
		}
	}
	if lx.pos < len(src) && src[lx.pos] == 'U' {
		lx.pos++
	}
	lx.emit(tNumber, start, src[start:lx.pos])
}

// comment keeps what the parser wants from comments: nvcc's
// "Cuda compilation tools, release X, VY" line names the compiler.
func (lx *lexer) comment(text string) {
	if lx.compiler != "" {
		return
	}
	if i := strings.Index(text, "Cuda compilation tools"); i >= 0 {
		lx.compiler = strings.TrimSpace(text[i:])
	}
}

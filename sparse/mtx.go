package sparse

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
)

// Header is what a Matrix Market file says about itself: the four banner
// keywords (lower-cased) and the size line. Entries is the number of entries
// the file stores, before symmetric expansion and duplicate summing; the
// COO returned next to it holds the expanded, combined count.
type Header struct {
	Object, Format, Field, Symmetry string
	Rows, Cols, Entries             int
}

// ParseError is a malformed Matrix Market file. Line is 1-based and always
// set, so a bad file can be fixed with an editor; Err, when set, is the
// underlying error: a read error, or (ReadCSR) a *DimLimitError.
type ParseError struct {
	Line int
	Msg  string
	Err  error
}

func (e *ParseError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("line %d: %s: %v", e.Line, e.Msg, e.Err)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Unwrap returns the underlying error, if any.
func (e *ParseError) Unwrap() error { return e.Err }

// maxDataLine bounds a data or size line (three numbers); a longer one is an
// error rather than an unbounded allocation. Comment lines may be any length.
const maxDataLine = 64 << 10

// maxPrealloc caps how many entries are allocated up front from the size
// line, so a header that promises 2^31 entries and then stops costs nothing;
// beyond it storage grows with the entries actually read.
const maxPrealloc = 1 << 16

// ReadMatrixMarket reads a Matrix Market "matrix coordinate" file into COO
// form, 0-based.
//
// Supported: fields real, integer and pattern (each pattern entry gets the
// value 1); symmetries general, symmetric and skew-symmetric. Array format,
// complex fields and hermitian symmetry are rejected as not supported.
// Banner keywords are case-insensitive. Lines whose first non-blank
// character is '%' are comments and blank lines are skipped, anywhere after
// the banner. Data lines hold exactly 2 (pattern) or 3 whitespace-separated
// tokens; indices are 1-based decimal integers.
//
// Symmetric files are expanded: an entry (i, j) with i != j also stores
// (j, i) with the same value (negated for skew-symmetric), placed right after
// it. Either triangle is accepted; if a file stores both (i, j) and (j, i),
// the mirrors become duplicates and are summed as below. A skew-symmetric
// file may not store a diagonal entry (its diagonal is zero by definition).
//
// Duplicates (the same (i, j) more than once, after expansion) are combined
// into one entry at the position of the first occurrence: their values are
// added in float64 in file order (a mirror counts at its source line) and the
// sum rounded to float32 once. Explicitly stored zeros, and duplicates that
// sum to zero, are kept as entries. Otherwise the COO keeps file order.
//
// Values must be finite decimal numbers that fit float32: NaN, Inf, hex
// floats and values (or duplicate sums) that overflow float32 are errors,
// because the kernels' results are checked against a reference with a
// relative tolerance, which NaN or Inf would silently defeat. Values too
// small for float32 round to a subnormal or to zero and stay entries (85 of
// bayer10's values do).
//
// Rows, columns, stored entries and expanded entries above 2^31-1 are refused
// (a CSR indexes them with int32), before anything is allocated for them.
// Below that, the size line may claim any rows and columns: a COO costs
// nothing per row. ReadCSR, whose CSR does, limits them (DimLimit).
//
// Every error from a malformed file is a *ParseError naming the line.
func ReadMatrixMarket(r io.Reader) (*COO, Header, error) {
	p := parser{br: bufio.NewReaderSize(r, maxDataLine)}
	coo, err := p.read()
	if err != nil {
		return nil, Header{}, err
	}
	return coo, p.h, nil
}

// ReadMatrixMarketFile is ReadMatrixMarket on the named file; errors start
// with the path.
func ReadMatrixMarketFile(path string) (*COO, Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Header{}, err
	}
	defer f.Close()
	coo, h, err := ReadMatrixMarket(f)
	if err != nil {
		return nil, Header{}, fmt.Errorf("%s: %w", path, err)
	}
	return coo, h, nil
}

// ReadCSR reads a Matrix Market file straight into the CSR the lessons use:
// symmetric files expanded, duplicates summed, columns ascending within a
// row, explicitly stored zeros kept as entries.
//
// Rows and columns beyond DimLimit of the entries are refused before the
// CSR is allocated (see MinDimLimit): with a *ParseError naming the size
// line, wrapping a *DimLimitError. When even twice the declared entries
// (a symmetric file's most) cannot reach the declared size, the file is
// refused at the size line, before its entries are read.
func ReadCSR(r io.Reader) (*CSR, Header, error) {
	p := parser{br: bufio.NewReaderSize(r, maxDataLine), csr: true}
	coo, err := p.read()
	if err != nil {
		return nil, Header{}, err
	}
	csr, err := p.sortedCSR(coo)
	if err != nil {
		return nil, Header{}, err
	}
	return csr, p.h, nil
}

// ReadCSRFile is ReadCSR on the named file; errors start with the path.
func ReadCSRFile(path string) (*CSR, Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Header{}, err
	}
	defer f.Close()
	csr, h, err := ReadCSR(f)
	if err != nil {
		return nil, Header{}, fmt.Errorf("%s: %w", path, err)
	}
	return csr, h, nil
}

// sortedCSR converts coo and sorts each row's columns; a size beyond the
// CSR limit is a *ParseError at the size line.
func (p *parser) sortedCSR(coo *COO) (*CSR, error) {
	if err := checkDimLimit(coo.Rows, coo.Cols, coo.NNZ()); err != nil {
		return nil, &ParseError{Line: p.sizeLine, Msg: fmt.Sprintf("size line %d %d %d: %d entries after symmetric expansion and duplicate summing",
			p.h.Rows, p.h.Cols, p.h.Entries, coo.NNZ()), Err: err}
	}
	csr, err := ToCSR(coo)
	if err != nil {
		return nil, err
	}
	csr.SortRows()
	return csr, nil
}

// parser holds the state of one read.
type parser struct {
	br   *bufio.Reader
	line int  // number of the line last returned by next
	eof  bool // the reader is exhausted
	buf  []byte
	h    Header

	csr      bool // reading for ReadCSR: refuse a size beyond the CSR limit at the size line
	sizeLine int  // the size line's number
}

func (p *parser) errf(line int, format string, args ...any) error {
	return &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// next returns the next line without its line ending, or ok == false at the
// end of input. Lines longer than maxDataLine are returned truncated to a
// prefix with long == true (their remainder is consumed), which is enough to
// recognize a comment.
func (p *parser) next() (line []byte, long bool, ok bool, err error) {
	if p.eof {
		return nil, false, false, nil
	}
	b, err := p.br.ReadSlice('\n')
	switch {
	case err == nil:
	case errors.Is(err, bufio.ErrBufferFull):
		// Keep a prefix, discard the rest of the line.
		p.buf = append(p.buf[:0], b...)
		b = p.buf
		long = true
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = p.br.ReadSlice('\n')
		}
		if err == io.EOF {
			p.eof = true
		} else if err != nil {
			p.line++
			return nil, false, false, &ParseError{Line: p.line, Msg: "read error", Err: err}
		}
	case err == io.EOF:
		p.eof = true
		if len(b) == 0 {
			return nil, false, false, nil
		}
	default:
		p.line++
		return nil, false, false, &ParseError{Line: p.line, Msg: "read error", Err: err}
	}
	p.line++
	b = bytes.TrimRight(b, "\r\n")
	return b, long, true, nil
}

// nextData returns the next line that is neither blank nor a comment.
func (p *parser) nextData() (line []byte, ok bool, err error) {
	for {
		b, long, ok, err := p.next()
		if err != nil || !ok {
			return nil, ok, err
		}
		t := bytes.TrimLeft(b, " \t\r\v\f")
		if len(t) == 0 && !long {
			continue
		}
		if len(t) > 0 && t[0] == '%' {
			continue
		}
		if long {
			return nil, false, p.errf(p.line, "line longer than %d bytes", maxDataLine)
		}
		return t, true, nil
	}
}

// fields splits b at ASCII white space into dst and returns the number of
// tokens, counting at most len(dst)+1 so that extra tokens are detected
// without allocating.
func fields(b []byte, dst [][]byte) int {
	n := 0
	i := 0
	for i < len(b) {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i == len(b) {
			break
		}
		j := i
		for j < len(b) && !isSpace(b[j]) {
			j++
		}
		if n == len(dst) {
			return n + 1
		}
		dst[n] = b[i:j]
		n++
		i = j
	}
	return n
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// parseCount parses a non-negative decimal integer of at most 2^31-1.
func parseCount(tok []byte) (int, bool) {
	if len(tok) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > math.MaxInt32 {
			return 0, false
		}
	}
	return n, true
}

// isDecimalInt reports whether tok is an optionally signed run of digits.
func isDecimalInt(tok []byte) bool {
	if len(tok) > 0 && (tok[0] == '+' || tok[0] == '-') {
		tok = tok[1:]
	}
	if len(tok) == 0 {
		return false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDecimalFloat reports whether tok uses only the characters of a decimal
// floating-point number, which excludes NaN, Inf, hex floats and
// underscores; strconv.ParseFloat then checks the syntax.
func isDecimalFloat(tok []byte) bool {
	for _, c := range tok {
		switch {
		case c >= '0' && c <= '9', c == '.', c == '+', c == '-', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return len(tok) > 0
}

func fitsFloat32(v float64) bool {
	return !math.IsInf(float64(float32(v)), 0)
}

func (p *parser) readBanner() error {
	b, long, ok, err := p.next()
	if err != nil {
		return err
	}
	if !ok {
		return p.errf(1, "empty file: missing %%%%MatrixMarket banner")
	}
	if long {
		return p.errf(1, "banner longer than %d bytes", maxDataLine)
	}
	var tok [5][]byte
	n := fields(b, tok[:])
	if n == 0 || !bytes.EqualFold(tok[0], []byte("%%MatrixMarket")) {
		return p.errf(1, "bad banner %q: want %%%%MatrixMarket matrix coordinate <field> <symmetry>", clip(b))
	}
	if n != 5 {
		return p.errf(1, "bad banner %q: want 5 words, got %d", clip(b), n)
	}
	h := &p.h
	h.Object = string(bytes.ToLower(tok[1]))
	h.Format = string(bytes.ToLower(tok[2]))
	h.Field = string(bytes.ToLower(tok[3]))
	h.Symmetry = string(bytes.ToLower(tok[4]))
	switch h.Object {
	case "matrix":
	case "vector":
		return p.errf(1, "object %q not supported: only matrix", h.Object)
	default:
		return p.errf(1, "unknown object %q in banner", h.Object)
	}
	switch h.Format {
	case "coordinate":
	case "array":
		return p.errf(1, "format %q (dense) not supported: only coordinate", h.Format)
	default:
		return p.errf(1, "unknown format %q in banner", h.Format)
	}
	switch h.Field {
	case "real", "integer", "pattern":
	case "complex":
		return p.errf(1, "field %q not supported: only real, integer or pattern", h.Field)
	default:
		return p.errf(1, "unknown field %q in banner", h.Field)
	}
	switch h.Symmetry {
	case "general", "symmetric", "skew-symmetric":
	case "hermitian":
		return p.errf(1, "symmetry %q not supported: only general, symmetric or skew-symmetric", h.Symmetry)
	default:
		return p.errf(1, "unknown symmetry %q in banner", h.Symmetry)
	}
	if h.Field == "pattern" && h.Symmetry == "skew-symmetric" {
		return p.errf(1, "pattern skew-symmetric is not a valid combination (a pattern has no sign to negate)")
	}
	return nil
}

// clip shortens a line for quoting in an error message.
func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

func (p *parser) readSize() error {
	b, ok, err := p.nextData()
	if err != nil {
		return err
	}
	if !ok {
		return p.errf(p.line+1, "unexpected end of file: missing size line (rows cols entries)")
	}
	var tok [3][]byte
	if n := fields(b, tok[:]); n != 3 {
		return p.errf(p.line, "size line %q: want 3 integers (rows cols entries), got %d words", clip(b), n)
	}
	names := [3]string{"rows", "columns", "entries"}
	var v [3]int
	for i := range tok {
		n, ok := parseCount(tok[i])
		if !ok {
			if isDecimalInt(tok[i]) && tok[i][0] != '-' {
				return p.errf(p.line, "size line: %s %s exceeds 2^31-1, which int32 indices cannot address", names[i], tok[i])
			}
			return p.errf(p.line, "size line: %s %q is not a non-negative integer", names[i], clip(tok[i]))
		}
		v[i] = n
	}
	p.h.Rows, p.h.Cols, p.h.Entries = v[0], v[1], v[2]
	p.sizeLine = p.line
	if p.h.Symmetry != "general" && p.h.Rows != p.h.Cols {
		return p.errf(p.line, "%s matrix must be square, got %d x %d", p.h.Symmetry, p.h.Rows, p.h.Cols)
	}
	if p.csr {
		most := p.h.Entries // the entries a CSR of this file can have at most
		if p.h.Symmetry != "general" {
			most *= 2
		}
		if err := checkDimLimit(p.h.Rows, p.h.Cols, most); err != nil {
			return &ParseError{Line: p.line, Msg: fmt.Sprintf("size line %d %d %d", p.h.Rows, p.h.Cols, p.h.Entries), Err: err}
		}
	}
	return nil
}

// entries is the COO being read, with float64 values (duplicates are summed
// in float64) and each entry's source line (for error messages).
type entries struct {
	row, col []int32
	val      []float64
	line     []int
}

func (p *parser) read() (*COO, error) {
	if err := p.readBanner(); err != nil {
		return nil, err
	}
	if err := p.readSize(); err != nil {
		return nil, err
	}
	h := p.h
	pattern := h.Field == "pattern"
	symmetric := h.Symmetry != "general"
	skew := h.Symmetry == "skew-symmetric"
	want := 3
	if pattern {
		want = 2
	}

	capHint := min(h.Entries, maxPrealloc)
	if symmetric {
		capHint = min(2*h.Entries, maxPrealloc)
	}
	e := entries{
		row:  make([]int32, 0, capHint),
		col:  make([]int32, 0, capHint),
		val:  make([]float64, 0, capHint),
		line: make([]int, 0, capHint),
	}
	var tok [3][]byte
	for k := 0; ; k++ {
		b, ok, err := p.nextData()
		if err != nil {
			return nil, err
		}
		if !ok {
			if k < h.Entries {
				return nil, p.errf(p.line+1, "unexpected end of file: got %d of %d entries", k, h.Entries)
			}
			break
		}
		if k == h.Entries {
			return nil, p.errf(p.line, "more entries than the %d the size line declares", h.Entries)
		}
		n := fields(b, tok[:])
		if n != want {
			return nil, p.errf(p.line, "entry %q: want %d words (%s field), got %d", clip(b), want, h.Field, n)
		}
		i, err := p.index(tok[0], "row", h.Rows)
		if err != nil {
			return nil, err
		}
		j, err := p.index(tok[1], "column", h.Cols)
		if err != nil {
			return nil, err
		}
		v := 1.0
		if !pattern {
			if v, err = p.value(tok[2], h.Field); err != nil {
				return nil, err
			}
		}
		if skew && i == j {
			return nil, p.errf(p.line, "diagonal entry (%d,%d) in a skew-symmetric matrix, whose diagonal must not be stored", i+1, j+1)
		}
		e.row = append(e.row, i)
		e.col = append(e.col, j)
		e.val = append(e.val, v)
		e.line = append(e.line, p.line)
		if symmetric && i != j {
			if skew {
				v = -v
			}
			e.row = append(e.row, j)
			e.col = append(e.col, i)
			e.val = append(e.val, v)
			e.line = append(e.line, p.line)
		}
		if len(e.val) > math.MaxInt32 {
			return nil, p.errf(p.line, "more than 2^31-1 entries after symmetric expansion, which int32 row pointers cannot address")
		}
	}
	return p.combine(&e)
}

// index parses a 1-based index in [1, n] and returns it 0-based.
func (p *parser) index(tok []byte, what string, n int) (int32, error) {
	v, ok := parseCount(tok)
	if !ok {
		if isDecimalInt(tok) {
			return 0, p.errf(p.line, "%s index %s out of range [1,%d]", what, clip(tok), n)
		}
		return 0, p.errf(p.line, "%s index %q is not an integer", what, clip(tok))
	}
	if v < 1 || v > n {
		return 0, p.errf(p.line, "%s index %d out of range [1,%d]", what, v, n)
	}
	return int32(v - 1), nil
}

// value parses a finite value that fits float32.
func (p *parser) value(tok []byte, field string) (float64, error) {
	if field == "integer" {
		if !isDecimalInt(tok) {
			return 0, p.errf(p.line, "value %q is not an integer", clip(tok))
		}
		n, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil {
			return 0, p.errf(p.line, "integer value %s out of range", clip(tok))
		}
		return float64(n), nil
	}
	if !isDecimalFloat(tok) {
		return 0, p.errf(p.line, "value %q is not a finite decimal number", clip(tok))
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, p.errf(p.line, "value %s overflows float32", clip(tok))
		}
		return 0, p.errf(p.line, "value %q is not a number", clip(tok))
	}
	if !fitsFloat32(v) {
		return 0, p.errf(p.line, "value %s overflows float32", clip(tok))
	}
	return v, nil
}

// combine sums duplicates (see ReadMatrixMarket for the order) and rounds
// the values to float32. It finds duplicates by sorting entry numbers by
// (row, col, position), which needs O(nnz) memory whatever the dimensions.
func (p *parser) combine(e *entries) (*COO, error) {
	nnz := len(e.val)
	order := make([]int32, nnz)
	for k := range order {
		order[k] = int32(k)
	}
	key := func(k int32) uint64 { return uint64(e.row[k])<<32 | uint64(uint32(e.col[k])) }
	sorted := slices.IsSortedFunc(order, func(a, b int32) int { return cmp.Compare(key(a), key(b)) })
	if !sorted {
		slices.SortFunc(order, func(a, b int32) int {
			if c := cmp.Compare(key(a), key(b)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	var drop []bool
	for s := 0; s < nnz; {
		t := s + 1
		for t < nnz && key(order[t]) == key(order[s]) {
			t++
		}
		if t-s > 1 {
			if drop == nil {
				drop = make([]bool, nnz)
			}
			first := order[s]
			sum := e.val[first]
			for _, k := range order[s+1 : t] {
				sum += e.val[k]
				drop[k] = true
			}
			if !fitsFloat32(sum) {
				last := order[t-1]
				return nil, p.errf(e.line[last], "duplicate entries for (%d,%d), first at line %d, sum to %g, which overflows float32",
					e.row[first]+1, e.col[first]+1, e.line[first], sum)
			}
			e.val[first] = sum
		}
		s = t
	}
	coo := &COO{Rows: p.h.Rows, Cols: p.h.Cols}
	kept := nnz
	if drop != nil {
		kept = 0
		for _, d := range drop {
			if !d {
				kept++
			}
		}
	}
	coo.Row = make([]int32, 0, kept)
	coo.Col = make([]int32, 0, kept)
	coo.Val = make([]float32, 0, kept)
	for k := 0; k < nnz; k++ {
		if drop != nil && drop[k] {
			continue
		}
		coo.Row = append(coo.Row, e.row[k])
		coo.Col = append(coo.Col, e.col[k])
		coo.Val = append(coo.Val, float32(e.val[k]))
	}
	return coo, nil
}

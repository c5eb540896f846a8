package sparse

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// entry is one expected COO triple, 0-based.
type entry struct {
	r, c int32
	v    float32
}

func cooEntries(c *COO) []entry {
	out := make([]entry, len(c.Val))
	for e := range out {
		out[e] = entry{c.Row[e], c.Col[e], c.Val[e]}
	}
	return out
}

func TestReadMatrixMarket(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		header     Header
		rows, cols int
		want       []entry
	}{
		{
			name:   "real general, file order kept",
			in:     "%%MatrixMarket matrix coordinate real general\n3 4 3\n2 4 1.5\n1 1 -2e3\n3 2 .25\n",
			header: Header{"matrix", "coordinate", "real", "general", 3, 4, 3},
			rows:   3, cols: 4,
			want: []entry{{1, 3, 1.5}, {0, 0, -2000}, {2, 1, 0.25}},
		},
		{
			name:   "banner case-insensitive, comments and blank lines anywhere, CRLF, no final newline",
			in:     "%%MATRIXMARKET Matrix Coordinate REAL General\r\n% a comment\r\n\r\n  % indented comment\r\n2 2 2\r\n\r\n% between entries\r\n1 1 1\r\n   \t \r\n  2   2\t 2  \r\n%trailing",
			header: Header{"matrix", "coordinate", "real", "general", 2, 2, 2},
			rows:   2, cols: 2,
			want: []entry{{0, 0, 1}, {1, 1, 2}},
		},
		{
			name:   "integer field",
			in:     "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 +16777217\n",
			header: Header{"matrix", "coordinate", "integer", "general", 2, 2, 2},
			rows:   2, cols: 2,
			want: []entry{{0, 1, -7}, {1, 0, 16777216}}, // 2^24+1 rounds to float32 2^24
		},
		{
			name:   "pattern field gets value 1",
			in:     "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n",
			header: Header{"matrix", "coordinate", "pattern", "general", 2, 3, 2},
			rows:   2, cols: 3,
			want: []entry{{0, 2, 1}, {1, 0, 1}},
		},
		{
			name:   "symmetric expanded, mirror right after its source, diagonal once",
			in:     "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n3 1 -1\n3 2 2\n",
			header: Header{"matrix", "coordinate", "real", "symmetric", 3, 3, 3},
			rows:   3, cols: 3,
			want: []entry{{0, 0, 4}, {2, 0, -1}, {0, 2, -1}, {2, 1, 2}, {1, 2, 2}},
		},
		{
			name:   "symmetric pattern",
			in:     "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n",
			header: Header{"matrix", "coordinate", "pattern", "symmetric", 2, 2, 2},
			rows:   2, cols: 2,
			want: []entry{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}},
		},
		{
			name:   "skew-symmetric negates the mirror",
			in:     "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 2 -0.5\n",
			header: Header{"matrix", "coordinate", "real", "skew-symmetric", 3, 3, 2},
			rows:   3, cols: 3,
			want: []entry{{1, 0, 3}, {0, 1, -3}, {2, 1, -0.5}, {1, 2, 0.5}},
		},
		{
			name:   "explicit zeros kept",
			in:     "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0\n2 2 -0.0\n",
			header: Header{"matrix", "coordinate", "real", "general", 2, 2, 2},
			rows:   2, cols: 2,
			want: []entry{{0, 0, 0}, {1, 1, float32(math.Copysign(0, -1))}},
		},
		{
			name: "duplicates summed in float64 at the first occurrence",
			// 1 + 2^-30 + 2^-30 ... in float32 each addition would be lost;
			// in float64 the four small terms add up to 2^-28, then one
			// rounding to float32 keeps it.
			in:     "%%MatrixMarket matrix coordinate real general\n2 2 7\n2 2 5\n1 1 1\n1 2 3\n1 1 9.313225746154785e-10\n1 1 9.313225746154785e-10\n1 1 9.313225746154785e-10\n1 1 9.313225746154785e-10\n",
			header: Header{"matrix", "coordinate", "real", "general", 2, 2, 7},
			rows:   2, cols: 2,
			want: []entry{{1, 1, 5}, {0, 0, 1 + 1.0/(1<<28)}, {0, 1, 3}},
		},
		{
			name:   "duplicates that sum to zero stay an entry",
			in:     "%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 2.5\n1 1 -2.5\n",
			header: Header{"matrix", "coordinate", "real", "general", 1, 1, 2},
			rows:   1, cols: 1,
			want: []entry{{0, 0, 0}},
		},
		{
			name:   "symmetric file storing both triangles: mirrors summed",
			in:     "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 10\n",
			header: Header{"matrix", "coordinate", "real", "symmetric", 2, 2, 2},
			rows:   2, cols: 2,
			want: []entry{{1, 0, 11}, {0, 1, 11}},
		},
		{
			name:   "no entries",
			in:     "%%MatrixMarket matrix coordinate real general\n5 6 0\n",
			header: Header{"matrix", "coordinate", "real", "general", 5, 6, 0},
			rows:   5, cols: 6,
			want: []entry{},
		},
		{
			name:   "largest float32",
			in:     "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3.4028234663852886e38\n",
			header: Header{"matrix", "coordinate", "real", "general", 1, 1, 1},
			rows:   1, cols: 1,
			want: []entry{{0, 0, math.MaxFloat32}},
		},
		{
			name:   "large dimensions are fine when the entries are few",
			in:     "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n2147483647 1 1\n",
			header: Header{"matrix", "coordinate", "real", "general", math.MaxInt32, math.MaxInt32, 1},
			rows:   math.MaxInt32, cols: math.MaxInt32,
			want: []entry{{math.MaxInt32 - 1, 0, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coo, h, err := ReadMatrixMarket(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if h != tt.header {
				t.Errorf("header = %+v, want %+v", h, tt.header)
			}
			if coo.Rows != tt.rows || coo.Cols != tt.cols {
				t.Errorf("size %dx%d, want %dx%d", coo.Rows, coo.Cols, tt.rows, tt.cols)
			}
			got := cooEntries(coo)
			if !slices.EqualFunc(got, tt.want, func(a, b entry) bool {
				return a.r == b.r && a.c == b.c && math.Float32bits(a.v) == math.Float32bits(b.v)
			}) {
				t.Errorf("entries = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadMatrixMarketErrors(t *testing.T) {
	const gen = "%%MatrixMarket matrix coordinate real general\n"
	tests := []struct {
		name string
		in   string
		line int
		want string
	}{
		{"empty file", "", 1, "empty file"},
		{"no banner", "3 3 1\n1 1 1\n", 1, "bad banner"},
		{"banner too short", "%%MatrixMarket matrix coordinate real\n", 1, "want 5 words"},
		{"banner too long", "%%MatrixMarket matrix coordinate real general extra\n", 1, "want 5 words"},
		{"blank first line", "\n" + gen + "1 1 0\n", 1, "bad banner"},
		{"comment before banner", "% hi\n" + gen, 1, "bad banner"},
		{"vector object", "%%MatrixMarket vector coordinate real general\n", 1, "not supported"},
		{"unknown object", "%%MatrixMarket tensor coordinate real general\n", 1, "unknown object"},
		{"array format", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "not supported"},
		{"unknown format", "%%MatrixMarket matrix sparse real general\n", 1, "unknown format"},
		{"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "not supported"},
		{"unknown field", "%%MatrixMarket matrix coordinate double general\n", 1, "unknown field"},
		{"hermitian", "%%MatrixMarket matrix coordinate complex hermitian\n", 1, "not supported"},
		{"hermitian real", "%%MatrixMarket matrix coordinate real hermitian\n", 1, "not supported"},
		{"unknown symmetry", "%%MatrixMarket matrix coordinate real diagonal\n", 1, "unknown symmetry"},
		{"pattern skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n", 1, "not a valid combination"},
		{"missing size line", gen + "% only comments\n\n", 4, "missing size line"},
		{"size line two words", gen + "% c\n3 3\n", 3, "want 3 integers"},
		{"size line four words", gen + "3 3 1 1\n", 2, "want 3 integers"},
		{"size not a number", gen + "3 x 1\n", 2, `columns "x" is not a non-negative integer`},
		{"negative size", gen + "-3 3 1\n", 2, "rows \"-3\" is not a non-negative integer"},
		{"float size", gen + "3 3 1.0\n", 2, "entries \"1.0\""},
		{"rows beyond int32", gen + "2147483648 3 0\n", 2, "rows 2147483648 exceeds 2^31-1"},
		{"absurd entries", gen + "3 3 99999999999999999999999\n1 1 1\n", 2, "entries 99999999999999999999999 exceeds 2^31-1"},
		{"huge entries then truncated", gen + "3 3 2147483647\n1 1 1\n", 4, "got 1 of 2147483647 entries"},
		{"symmetric not square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n", 2, "must be square"},
		{"too few entries", gen + "% c\n3 3 3\n1 1 1\n2 2 2\n", 6, "got 2 of 3 entries"},
		{"too few entries, no final newline", gen + "3 3 3\n1 1 1\n2 2 2", 5, "got 2 of 3 entries"},
		{"too many entries", gen + "3 3 1\n1 1 1\n% c\n2 2 2\n", 5, "more entries than the 1"},
		{"entry missing value (truncated)", gen + "3 3 2\n1 1 1\n2 2", 4, "want 3 words"},
		{"entry extra word", gen + "3 3 1\n1 1 1 1\n", 3, "want 3 words"},
		{"pattern with a value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3, "want 2 words"},
		{"row index zero", gen + "3 3 1\n0 1 1\n", 3, "row index 0 out of range [1,3]"},
		{"row index too big", gen + "3 3 1\n4 1 1\n", 3, "row index 4 out of range [1,3]"},
		{"column index too big", gen + "3 3 2\n1 1 1\n1 4 1\n", 4, "column index 4 out of range [1,3]"},
		{"negative index", gen + "3 3 1\n-1 1 1\n", 3, "row index -1 out of range"},
		{"huge index", gen + "3 3 1\n1 99999999999999999999 1\n", 3, "column index 99999999999999999999 out of range"},
		{"index not a number", gen + "3 3 1\na 1 1\n", 3, `row index "a" is not an integer`},
		{"float index", gen + "3 3 1\n1.0 1 1\n", 3, "not an integer"},
		{"value not a number", gen + "3 3 1\n1 1 abc\n", 3, "not a finite decimal number"},
		{"value malformed", gen + "3 3 1\n1 1 1e\n", 3, "is not a number"},
		{"value two dots", gen + "3 3 1\n1 1 1.2.3\n", 3, "is not a number"},
		{"NaN", gen + "3 3 1\n1 1 NaN\n", 3, "not a finite decimal number"},
		{"Inf", gen + "3 3 1\n1 1 -inf\n", 3, "not a finite decimal number"},
		{"hex float", gen + "3 3 1\n1 1 0x1p3\n", 3, "not a finite decimal number"},
		{"float64 overflow", gen + "3 3 1\n1 1 1e400\n", 3, "overflows float32"},
		{"float32 overflow", gen + "3 3 1\n1 1 -1e39\n", 3, "overflows float32"},
		{"integer field with a float", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3, "not an integer"},
		{"integer beyond int64", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 99999999999999999999\n", 3, "out of range"},
		{"duplicates overflow float32", gen + "3 3 3\n1 1 3e38\n2 2 1\n1 1 3e38\n", 5, "first at line 3"},
		{"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 0\n", 4, "diagonal entry (2,2)"},
		{"data line too long", gen + "3 3 1\n1 1 1" + strings.Repeat("0", maxDataLine) + "\n", 3, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coo, _, err := ReadMatrixMarket(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("no error, got %+v", coo)
			}
			prefix := fmt.Sprintf("line %d: ", tt.line)
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tt.line {
				t.Errorf("error %v is not a *ParseError with Line %d", err, tt.line)
			}
		})
	}
}

func TestLongCommentLines(t *testing.T) {
	long := "%" + strings.Repeat("x", 3*maxDataLine) + "\n"
	in := "%%MatrixMarket matrix coordinate real general\n" + long + "2 2 1\n" + long + "2 2 7\n" + long
	coo, _, err := ReadMatrixMarket(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cooEntries(coo), []entry{{1, 1, 7}}; !slices.Equal(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
	// Line numbers still count the long lines.
	_, _, err = ReadMatrixMarket(strings.NewReader(in + "1 1 1\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 7: ") {
		t.Errorf("error = %v, want one at line 7", err)
	}
}

// errReader returns some data and then a non-EOF error.
type errReader struct {
	data string
	done bool
}

var errBroken = errors.New("disk on fire")

func (r *errReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, errBroken
	}
	r.done = true
	return copy(p, r.data), nil
}

func TestReadError(t *testing.T) {
	_, _, err := ReadMatrixMarket(&errReader{data: "%%MatrixMarket matrix coordinate real general\n2 2 1\n"})
	if !errors.Is(err, errBroken) {
		t.Fatalf("error = %v, want it to wrap %v", err, errBroken)
	}
	if !strings.HasPrefix(err.Error(), "line 3: ") {
		t.Errorf("error %q does not name line 3", err)
	}
}

func TestReadCSRSortsAndKeepsZeros(t *testing.T) {
	in := "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n3 1 5\n1 1 0\n2 1 2\n3 3 1\n"
	c, h, err := ReadCSR(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if h.Entries != 4 || c.NNZ() != 6 {
		t.Errorf("header entries %d, nnz %d; want 4 and 6", h.Entries, c.NNZ())
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// Full matrix: [0 2 5; 2 0 0; 5 0 1] with the explicit zero at (0,0).
	if want := []int32{0, 3, 4, 6}; !slices.Equal(c.RowPtr, want) {
		t.Errorf("RowPtr = %v, want %v", c.RowPtr, want)
	}
	if want := []int32{0, 1, 2, 0, 0, 2}; !slices.Equal(c.ColIdx, want) {
		t.Errorf("ColIdx = %v, want %v", c.ColIdx, want)
	}
	if want := []float32{0, 2, 5, 2, 5, 1}; !slices.Equal(c.Val, want) {
		t.Errorf("Val = %v, want %v", c.Val, want)
	}
}

func TestReadFileErrorsNamePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.mtx")
	if err := os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate real general\n1 1 1\n2 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string) error{
		"ReadMatrixMarketFile": func(p string) error { _, _, err := ReadMatrixMarketFile(p); return err },
		"ReadCSRFile":          func(p string) error { _, _, err := ReadCSRFile(p); return err },
	} {
		err := read(path)
		if err == nil || !strings.Contains(err.Error(), path+": line 3: row index 2") {
			t.Errorf("%s: error = %v, want path and line 3", name, err)
		}
		if err := read(filepath.Join(dir, "missing.mtx")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s on a missing file: error = %v, want ErrNotExist", name, err)
		}
	}
}

func BenchmarkReadMatrixMarket(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("%%MatrixMarket matrix coordinate real general\n1000 1000 100000\n")
	for k := range 100000 {
		fmt.Fprintf(&sb, "%d %d %g\n", k/100+1, (k*7919)%1000+1, float64(k)*0.001)
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := ReadMatrixMarket(strings.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}

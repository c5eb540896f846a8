package cusrc

import (
	"strings"
	"testing"
)

const src = `// The scale kernel.
//
// It doubles x.
extern "C" __global__ void scale(float* x, int n);  // a declaration

template <int K>
__device__ void body(float* x) {
    if (x[0] > 0) { x[0] = K; }  // a } in a comment
    const char* s = "}";
}

// The scale kernel, defined.
extern "C" __global__ void scale(float* x, int n) {
    body<2>(x);  /* a { in a block comment */
}
__global__ void scaleTwice(float* x, int n) {
    scale(x, n);
}
`

func TestFunc(t *testing.T) {
	tests := []struct {
		name      string
		wantFirst string // first line of the definition
		wantLast  string // last line
		lines     int
	}{
		{"scale", `extern "C" __global__ void scale(float* x, int n) {`, "}", 3},
		{"body", "template <int K>", "}", 5},
		{"scaleTwice", "__global__ void scaleTwice(float* x, int n) {", "}", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Func(src, tt.name)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if lines[0] != tt.wantFirst || lines[len(lines)-1] != tt.wantLast || len(lines) != tt.lines {
				t.Errorf("Func(%s) =\n%s\nwant %d lines from %q to %q", tt.name, got, tt.lines, tt.wantFirst, tt.wantLast)
			}
			if strings.Contains(got, "The scale kernel") {
				t.Errorf("Func(%s) kept the comment above the definition:\n%s", tt.name, got)
			}
		})
	}
}

func TestFuncErrors(t *testing.T) {
	for _, name := range []string{"missing", "sca", "x"} {
		if got, err := Func(src, name); err == nil {
			t.Errorf("Func(%q) = %q, want an error", name, got)
		}
	}
	if _, err := Func("void open(int a) {\n  if (a) {\n", "open"); err == nil {
		t.Error("unbalanced braces: want an error")
	}
}

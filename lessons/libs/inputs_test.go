package libs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputsFiles: a Matrix Market file named twice (--matrix beside
// --corpus's SuiteSparse set, or by two spellings of one path) runs once;
// two files of one name are refused with both paths, since the lesson's
// tables and `warplab timemodel libs` tell matrices apart by name.
func TestInputsFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mtx := "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.0\n2 2 2.0\n3 1 3.0\n3 3 4.0\n"
		if err := os.WriteFile(p, []byte(mtx), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, other := write("a/m.mtx"), write("b/m.mtx"), write("a/n.mtx")
	spelled := dir + "/b/../a/m.mtx" // a, not cleaned
	for _, tc := range []struct {
		name  string
		files []string
		keys  []string
		err   []string // substrings of the error; nil: none
	}{
		{"two files", []string{a, other}, []string{"m", "n"}, nil},
		{"one file twice", []string{a, other, a}, []string{"m", "n"}, nil},
		{"one file, two spellings", []string{a, spelled}, []string{"m"}, nil},
		{"two files of one name", []string{a, b}, nil, []string{a, b, `"m"`}},
	} {
		ins, err := Inputs(Options{SeedRows: []int{}, Matrices: tc.files})
		if tc.err != nil {
			if err == nil {
				t.Errorf("%s: no error, want one naming %q", tc.name, tc.err)
				continue
			}
			for _, s := range tc.err {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s: error %q does not name %q", tc.name, err, s)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var keys []string
		for _, in := range ins {
			keys = append(keys, in.Key)
		}
		if strings.Join(keys, ",") != strings.Join(tc.keys, ",") {
			t.Errorf("%s: inputs %q, want %q", tc.name, keys, tc.keys)
		}
	}
}

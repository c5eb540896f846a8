package layers

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// envEdges are the folders (relative to the module) whose code may read a
// WARPLAB_* variable: lab (FromEnv, the one reader of the eight switches),
// the commands, and the test harnesses and helpers (whose switches turn
// tests on and off, and are no part of the library).
var envEdges = []string{"lab/", "cmd/", "internal/nbtest/", "internal/labtest/", "internal/testenv/"}

// envRead finds a read of a WARPLAB_* variable.
var envRead = regexp.MustCompile(`os\.(Getenv|LookupEnv)\(\s*"WARPLAB_`)

// TestEnvironmentAtTheEdge: no Go file outside the edges (non-test files)
// reads a WARPLAB_* variable: the switches are read once, by lab.FromEnv
// at the command line's or the notebook's edge, and passed down as values
// (issue 30). Before, sparse/spmvref, lessons/libs and the timemodel
// command read WARPLAB_MATRICES and WARPLAB_LIBS_RECORDED themselves.
func TestEnvironmentAtTheEdge(t *testing.T) {
	root := testenv.ModuleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "third_party") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		for _, e := range envEdges {
			if strings.HasPrefix(rel, e) {
				return nil
			}
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if envRead.MatchString(line) {
				t.Errorf("%s:%d reads the environment: %s (take lab.Options from the edge)", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("looked at %d Go files; the walk is not seeing the module", files)
	}
	if !envRead.MatchString(`d := os.Getenv("WARPLAB_MATRICES")`) || !envRead.MatchString(`os.LookupEnv("WARPLAB_X")`) {
		t.Fatal("the pattern misses a read")
	}
}

// Package testenv finds what tests need from outside the repository: the
// SuiteSparse matrices, which the project keeps beside the checkout (in the
// shared folder) rather than in git, since they are the Collection's files
// and not ours to redistribute piecemeal.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// MatricesDir returns $WARPLAB_MATRICES, or the first shared/matrices folder
// found in the working directory or a directory above it; "" when there is
// none.
func MatricesDir() string {
	if d := os.Getenv("WARPLAB_MATRICES"); d != "" {
		return d
	}
	d, _ := findUp(filepath.Join("shared", "matrices"), true)
	return d
}

// Matrices is MatricesDir for a test: it skips the test, saying how to
// provide the matrices, when there are none.
func Matrices(t testing.TB) string {
	t.Helper()
	d := MatricesDir()
	if d == "" {
		t.Skip("SuiteSparse matrices not found: set WARPLAB_MATRICES or keep shared/matrices beside the repository")
	}
	return d
}

// ModuleRoot is the directory holding go.mod, above the test's directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	p, ok := findUp("go.mod", false)
	if !ok {
		t.Fatal("no go.mod above the test directory")
	}
	return filepath.Dir(p)
}

// findUp looks for rel in the working directory and each directory above
// it, and returns the first path that exists (and is a directory, if dir).
func findUp(rel string, dir bool) (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		cand := filepath.Join(wd, rel)
		if st, err := os.Stat(cand); err == nil && (!dir || st.IsDir()) {
			return cand, true
		}
		parent := filepath.Dir(wd)
		if parent == wd {
			return "", false
		}
		wd = parent
	}
}

// Must returns v, or ends the test with err. It is for the set-up calls of a
// test (an allocation, an upload, a model looked up by key) whose error the
// test has no use for except to stop, and which must not be dropped with a
// blank identifier, since a dropped error turns into a nil-pointer panic or
// a wrong number far from its cause:
//
//	x := testenv.Must(sim.Upload(d, "x", xs))(t)
func Must[T any](v T, err error) func(testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

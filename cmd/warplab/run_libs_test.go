package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/lessons/libs"
)

func TestRunLibsUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "libs", "--rows", "abc"}, `"abc" is not a number`},
		{[]string{"run", "libs", "--rows", "1000"}, "multiple of 32"},
		{[]string{"run", "libs", "--methods", "vector3"}, `no method "vector3"`},
		{[]string{"run", "libs", "--rows", "none"}, "no matrices"},
		{[]string{"run", "libs", "--runs", "0"}, "--runs 0"},
		{[]string{"run", "libs", "--copy-mib", "-2"}, "--copy-mib -2"},
		{[]string{"run", "libs", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, stderr := runCLI(tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, exitUsage, tt.want)
		}
	}
	code, _, stderr := runCLI("run", "libs", "--backend", "sim", "--rows", "none", "--matrix", "/no/such.mtx")
	if code != exitFail || !strings.Contains(stderr, "--matrix /no/such.mtx") {
		t.Errorf("missing matrix: exit %d, %q", code, stderr)
	}
}

// TestRunLibsSim runs two methods on the seed pair on the simulator, with
// --dump and --json, and checks the JSON and the dumped files.
func TestRunLibsSim(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "libs.json")
	code, stdout, stderr := runCLI("run", "libs", "--backend", "sim", "--rows", "1024", "--methods", "vector4,merge_path",
		"--copy-mib", "1", "--dump", dir, "--json", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "all checks passed") {
		t.Errorf("no success line:\n%s", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res libs.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Backend != "sim" || len(res.Matrices) != 2 || len(res.Copy) != 1 {
		t.Errorf("result: backend %q, %d matrices, %d copies", res.Backend, len(res.Matrices), len(res.Copy))
	}
	for _, k := range []string{"even-2^10", "skewed-2^10"} {
		if st, err := os.Stat(filepath.Join(dir, k+".csr")); err != nil || st.Size() == 0 {
			t.Errorf("dump %s: %v", k, err)
		}
	}
}

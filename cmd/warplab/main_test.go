package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// runCLI calls run as main would and returns the exit status and output.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, exitUsage, "usage:"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"run"}, exitUsage, "name a lesson"},
		{[]string{"run", "nosuch"}, exitUsage, `no lesson "nosuch"`},
		{[]string{"run", "spmv", "--rows", "100", "--matrix", "a.mtx"}, exitUsage, "give one"},
		{[]string{"run", "spmv", "--unroll", "2"}, exitUsage, "--unroll 2"},
		{[]string{"run", "spmv", "--probe-blocks", "-3"}, exitUsage, "--probe-blocks -3"},
		{[]string{"run", "spmv", "--rows", "abc"}, exitUsage, "invalid value"},
		{[]string{"run", "spmv", "--backend", "tpu"}, exitUsage, `--backend "tpu"`},
		{[]string{"run", "spmv", "--backend", "sim", "--model", "v100"}, exitUsage, `--model "v100"`},
		{[]string{"run", "spmv", "--backend", "gpu", "--model", "t4"}, exitUsage, "--model picks"},
		{[]string{"run", "spmv", "--rows", "100"}, exitUsage, "rows 100: want a positive multiple of 32"},
		{[]string{"run", "spmv", "--rows", "416"}, exitUsage, "want at least 419"},
		{[]string{"run", "spmv", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"matrix"}, exitUsage, "usage: warplab matrix get"},
		{[]string{"matrix", "get"}, exitUsage, "usage: warplab matrix get"},
		{[]string{"matrix", "get", "../etc"}, exitUsage, "Group/Name"},
		{[]string{"selftest", "--backend", "tpu"}, exitUsage, `--backend "tpu"`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("warplab %q: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.msg)
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
			t.Errorf("warplab %q panicked: %s", c.args, stderr)
		}
	}
	if code, stdout, _ := runCLI("help"); code != exitOK || !strings.Contains(stdout, "warplab run LESSON") {
		t.Errorf("help: exit %d, %q", code, stdout)
	}
}

func TestBadMatrixPath(t *testing.T) {
	code, stdout, stderr := runCLI("run", "spmv", "--backend", "sim", "--matrix", "/no/such/file.mtx")
	if code != exitFail || stderr != "warplab run spmv: --matrix /no/such/file.mtx: no such file or directory\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if stdout != "" {
		t.Errorf("printed tables for a missing file: %q", stdout)
	}
	bad := filepath.Join(t.TempDir(), "bad.mtx")
	os.WriteFile(bad, []byte("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n"), 0o644)
	code, _, stderr = runCLI("run", "spmv", "--backend", "sim", "--matrix", bad)
	if code != exitFail || !strings.HasPrefix(stderr, "warplab run spmv: --matrix "+bad+": line ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("truncated file: exit %d, stderr %q (want one line naming the flag, the path and the line)", code, stderr)
	}
	code, _, stderr = runCLI("run", "spmv", "--backend", "sim", "--matrix", filepath.Dir(bad))
	if code != exitFail || stderr != "warplab run spmv: --matrix "+filepath.Dir(bad)+": is a folder, not a file\n" {
		t.Errorf("a folder: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI("run", "libs", "--backend", "sim", "--rows", "none", "--methods", "vector4", "--copy-mib", "-1", "--matrix", bad)
	if code != exitFail || !strings.HasPrefix(stderr, "warplab run libs: --matrix "+bad+": line ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("libs, truncated file: exit %d, stderr %q (want one line naming the flag, the path and the line)", code, stderr)
	}
}

func TestRunSpMVWritesJSON(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "out.json")
	code, stdout, stderr := runCLI("run", "spmv", "--backend", "sim", "--model", "t4", "--rows", "2048", "--probe-blocks", "320", "--json", jsonPath)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, s := range []string{"GPU: simulated ", "Part 1: two matrices, 2048 rows", "Lane-slots issued", "Part 2:", "All six rows"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q", s)
		}
	}
	// The prediction comes before Part 2, as the seed prints it.
	if strings.Index(stdout, "Lane-slots issued") > strings.Index(stdout, "Part 2:") {
		t.Error("lane-slot table printed after Part 2")
	}
	// A T4 has the seed's 40 SMs, so there is nothing to explain.
	if strings.Contains(stdout, "Probe grid:") {
		t.Error("probe note printed for a 40-SM device")
	}
	if stderr != "" {
		t.Errorf("stderr not empty off a terminal: %q", stderr)
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lesson, Backend string
		Device          struct {
			Name, Model string
			SMs         int
		}
		ProbeBlocks int `json:"probe_blocks"`
		Runs        []map[string]any
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if doc.Lesson != "spmv" || doc.Backend != "sim" || doc.Device.Model != "t4" || doc.Device.SMs != 40 || doc.ProbeBlocks != 320 || len(doc.Runs) != 6 {
		t.Errorf("JSON %+v", doc)
	}
	entries := testenv.Must(os.ReadDir(dir))(t)
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the JSON: %v", entries)
	}
}

func TestRunSpMVRealMatrix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.mtx")
	os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate real symmetric\n4 4 5\n1 1 2\n2 1 -1\n3 2 4.5\n4 4 1\n4 3 3\n"), 0o644)
	code, stdout, stderr := runCLI("run", "spmv", "--backend", "sim", "--matrix", path, "--unroll", "1")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, s := range []string{"Part 1: one matrix, 4 rows, 4 columns, 8 nonzeros", "tiny", "All three rows"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}

func TestJSONWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "missing-dir", "out.json")
	code, _, stderr := runCLI("run", "spmv", "--backend", "sim", "--rows", "448", "--json", target)
	if code != exitUsage || !strings.HasPrefix(stderr, "warplab run spmv: --json ") || !strings.Contains(stderr, "does not exist") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestSelftestSim(t *testing.T) {
	code, stdout, stderr := runCLI("selftest", "--backend", "sim")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	if n := strings.Count(stdout, "\nspmv "); n != 10 {
		t.Errorf("%d spmv rows, want 10 (5 kernels × 2 matrices):\n%s", n, stdout)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeFileAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("no error")
	}
	if b := testenv.Must(os.ReadFile(path))(t); string(b) != "old" {
		t.Errorf("file now %q, want the old content kept", b)
	}
	if entries := testenv.Must(os.ReadDir(filepath.Dir(path)))(t); len(entries) != 1 {
		t.Errorf("temporary file left: %v", entries)
	}
}

func TestBenchLaunch(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "launch", "--backend", "sim", "--n", "20"}, exitOK, "us per launch"},
		{[]string{"bench", "launch", "--backend", "sim", "--n", "20", "--json"}, exitOK, `"launches": 20`},
		{[]string{"bench", "launch", "--backend", "sim", "--n", "20"}, exitOK, "six arguments (five buffers, a count), back to back:"},
		{[]string{"bench", "launch", "--backend", "sim", "--n", "20", "--json"}, exitOK, `"scalars_async_us_per_launch"`},
		{[]string{"bench", "launch", "--n", "0"}, exitUsage, ""},
		{[]string{"bench"}, exitUsage, ""},
		{[]string{"bench", "launch", "--backend", "tpu"}, exitUsage, ""},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", c.args, code, c.code, out, errOut)
		}
	}
}

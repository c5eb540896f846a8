package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/sweep"
	"github.com/warplab/warplab/timecheck"
)

// TestTimeModelSweepSim runs `warplab timemodel sweep` on the simulator at
// the stream family's smallest size: one modeled record per kernel.
func TestTimeModelSweepSim(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"timemodel", "sweep", "--backend", "sim", "--family", "stream", "--sizes", "1", "--out", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := sweep.ReadRecords(f)
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for _, r := range recs {
		if r.Kind != "modeled" || r.Family != "stream" || r.MeanMs <= 0 {
			t.Errorf("record %+v", r)
		}
	}
}

func TestTimeModelSweepUsage(t *testing.T) {
	for _, args := range [][]string{
		{"timemodel", "sweep", "--backend", "sim"},
		{"timemodel", "sweep", "--backend", "sim", "--out", "x.json"},
		{"timemodel", "sweep", "--backend", "sim", "--sizes", "-1", "--out", "x.jsonl"},
		{"timemodel", "sweep", "--backend", "sim", "--family", "nosuch", "--out", "x.jsonl"},
		{"timemodel", "sweep", "--backend", "tpu", "--out", "x.jsonl"},
		{"timemodel", "sweep", "--backend", "gpu", "--model", "t4", "--out", "x.jsonl"},
		{"timemodel", "check", "--no-sweep", "--sweep-only"},
		{"timemodel", "check", "--sweep-only", "--family", "nosuch"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"timemodel", "sweep", "--list", "--family", "gemm"}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "gemmSharedConflict") {
		t.Errorf("--list: exit %d\n%s", code, stdout.String())
	}
}

// sweepFromFixture writes an earlier sweep report of timecheck's fixture
// (every case modeled at 1.1 times its measured time, DRAM-bound) for
// --sweep-from: the fixture's root and file, the report's path and a path
// for --sweep-json.
func sweepFromFixture(t *testing.T) (root, file, from, out string) {
	t.Helper()
	root = filepath.Join("..", "..", "timecheck", "testdata")
	file = filepath.Join(root, "sweep", "a.jsonl")
	cases, err := timecheck.SweepFiles(root, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		cases[i].Modeled, cases[i].Bound = cases[i].Measured*1.1, "dram"
	}
	rep, err := timecheck.NewSweepReport("h200", cases)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	from, out = filepath.Join(dir, "prev.json"), filepath.Join(dir, "out.json")
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(from, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, file, from, out
}

// TestTimeModelCheckSweepFrom checks the sweep's report from the fixture
// with modeled times taken from an earlier report (no simulation).
func TestTimeModelCheckSweepFrom(t *testing.T) {
	root, file, from, out := sweepFromFixture(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"timemodel", "check", "--root", root, "--sweep-only", "--sweep", file, "--sweep-from", from, "--sweep-json", out}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	for _, want := range []string{"stream", "1.10", "all                  4 cases,   4 modeled:   4 within 25% (100%)", "leave-one-family-out"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--sweep-json: %v", err)
	}
}

// TestTimeModelCheckSweepFromFamily: --sweep-from with --family simulates
// that family's cases and keeps the earlier report's modeled times for the
// rest, and the report says which shared access widths it used.
func TestTimeModelCheckSweepFromFamily(t *testing.T) {
	root, file, from, out := sweepFromFixture(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"timemodel", "check", "--root", root, "--sweep-only", "--sweep", file, "--sweep-from", from, "--family", "stream", "--sweep-json", out}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := timecheck.ReadSweepReport(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Widths, "shared access widths") || !strings.Contains(stdout.String(), got.Widths) {
		t.Errorf("widths %q, not in the table:\n%s", got.Widths, stdout.String())
	}
	for _, c := range got.Cases {
		kept := c.Modeled == c.Measured*1.1
		if c.Family == "stream" && (kept || c.Modeled <= 0) {
			t.Errorf("%s: modeled %g, want simulated", c.Key(), c.Modeled)
		}
		if c.Family != "stream" && !kept {
			t.Errorf("%s: modeled %g, want the earlier report's %g", c.Key(), c.Modeled, c.Measured*1.1)
		}
	}
}

// TestOthersNote: the check names the cases another GPU's model judges,
// with the flag that judges them.
func TestOthersNote(t *testing.T) {
	for _, tc := range []struct {
		others map[string]int
		want   string
	}{
		{nil, ""},
		{map[string]int{"NVIDIA H100 80GB HBM3": 223}, ": 223 cases recorded on NVIDIA H100 80GB HBM3 (--model h100)"},
		{map[string]int{"Tesla T4": 2, "NVIDIA GeForce RTX 4090": 1}, ": 1 case recorded on NVIDIA GeForce RTX 4090 (no model of that GPU); 2 cases recorded on Tesla T4 (--model t4)"},
	} {
		if got := othersNote(tc.others); got != tc.want {
			t.Errorf("othersNote(%v) = %q, want %q", tc.others, got, tc.want)
		}
	}
}

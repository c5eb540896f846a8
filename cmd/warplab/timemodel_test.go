package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/timecheck"
)

// TestTimeModelCheckFrom runs `warplab timemodel check` on the timecheck
// fixture tree with modeled times taken from an earlier report (no
// simulation): the table, the figures and the JSON come out, and a run the
// earlier report lacks is listed as not modeled.
func TestTimeModelCheckFrom(t *testing.T) {
	root := filepath.Join("..", "..", "timecheck", "testdata", "repo")
	runs, err := timecheck.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	prev := append([]timecheck.Run(nil), runs...)
	for i := range prev {
		prev[i].Modeled = prev[i].Measured * 1.1
	}
	prev = prev[1:] // the first run is missing from the earlier report
	rep, err := timecheck.NewReport("h200", prev)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	from := filepath.Join(dir, "prev.json")
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(from, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"timemodel", "check", "--root", root, "--from", from, "--json", out}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	for _, want := range []string{"not modeled: not in the earlier report", "1.10", "all        2 runs:   2 within 25% (100%)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--json: %v", err)
	}
}

func TestTimeModelUsage(t *testing.T) {
	for _, args := range [][]string{
		{"timemodel"},
		{"timemodel", "nosuch"},
		{"timemodel", "check", "--half", "middle"},
		{"timemodel", "constants", "--model", "nosuch"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"timemodel", "constants", "--model", "t4"}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "not measured here") || !strings.Contains(stdout.String(), "TimedLaunch") {
		t.Errorf("constants t4: exit %d\n%s", code, stdout.String())
	}
}

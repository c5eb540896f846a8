package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/ncu"
	"github.com/warplab/warplab/internal/testenv"
)

// TestRecordedFresh is the guard the lessons' embedded runs rely on: it
// fails when a file under lessons/*/recorded/ is not what evidence/ and
// Copies give (edited by hand, or the evidence changed since).
func TestRecordedFresh(t *testing.T) {
	root := testenv.ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "evidence")); err != nil {
		t.Skipf("no evidence/ in this checkout: %v", err)
	}
	for _, err := range Check(root) {
		t.Error(err)
	}
	if t.Failed() {
		t.Log("regenerate with: go run ./internal/evidence/cmd/recorded")
	}
}

// TestLayout holds evidence/ to one folder per run, each with a README,
// all in the index, no attempt names, no ncu chatter.
func TestLayout(t *testing.T) {
	root := testenv.ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "evidence")); err != nil {
		t.Skipf("no evidence/ in this checkout: %v", err)
	}
	for _, err := range CheckLayout(root) {
		t.Error(err)
	}
}

// Every recorded Nsight Compute CSV still parses, ==PROF== lines stripped:
// the tests that hold the simulator to them read them with internal/ncu.
func TestNCUFilesParse(t *testing.T) {
	root := testenv.ModuleRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "evidence", "*", "ncu*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no ncu CSVs under evidence/")
	}
	for _, f := range files {
		ls, err := ncu.ReadFile(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(ls) == 0 {
			t.Errorf("%s: no launches", f)
		}
	}
}

// Every copy's source is a run folder's file and every lesson's copy has a
// distinct name; a copy named after another run would mislabel it.
func TestCopies(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Copies {
		if !RunName.MatchString(c.Run) {
			t.Errorf("%s: run %q is not <subject>-<gpu>-<date>", c.Dest(), c.Run)
		}
		if !strings.HasPrefix(c.As, c.Run) {
			t.Errorf("%s: a copy is named after its run folder %s", c.Dest(), c.Run)
		}
		if seen[c.Dest()] {
			t.Errorf("%s twice", c.Dest())
		}
		seen[c.Dest()] = true
	}
}

// The checks themselves, on a made-up tree: a fresh tree passes, and each
// kind of drift is reported.
func TestCheckFindsDrift(t *testing.T) {
	root := t.TempDir()
	for _, c := range Copies {
		write(t, filepath.Join(root, filepath.FromSlash(c.Source())), "data of "+c.Source()+"\n")
	}
	if err := Write(root); err != nil {
		t.Fatal(err)
	}
	if errs := Check(root); len(errs) != 0 {
		t.Fatalf("fresh tree: %v", errs)
	}
	c := Copies[0]
	for _, tc := range []struct {
		name, want string
		change     func()
	}{
		{"edited copy", "differs", func() { write(t, filepath.Join(root, filepath.FromSlash(c.Dest())), "edited\n") }},
		{"stray file", "not in internal/evidence.Copies", func() {
			write(t, filepath.Join(root, "lessons", c.Lesson, "recorded", "old.json"), "{}\n")
		}},
		{"missing copy", "no such file", func() { os.Remove(filepath.Join(root, filepath.FromSlash(c.Dest()))) }},
		{"evidence changed", "differs", func() { write(t, filepath.Join(root, filepath.FromSlash(c.Source())), "re-measured\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Write(root); err != nil {
				t.Fatal(err)
			}
			tc.change()
			errs := Check(root)
			if len(errs) == 0 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Errorf("errors %v, want one saying %q", errs, tc.want)
			}
		})
	}
}

func TestCheckLayoutFindsProblems(t *testing.T) {
	root := t.TempDir()
	ok := "cg-100-h200-2026-11-29"
	write(t, filepath.Join(root, "evidence", ok, "README.md"), "run\n")
	write(t, filepath.Join(root, "evidence", ok, "ncu.csv"), "x\n")
	write(t, filepath.Join(root, "evidence", "README.md"), "[x]("+ok+"/README.md)\n")
	if errs := CheckLayout(root); len(errs) != 0 {
		t.Fatalf("good tree: %v", errs)
	}
	for _, tc := range []struct {
		name, file, body, want string
	}{
		{"attempt name", ok + "/cg-final.txt", "x\n", "named like an attempt"},
		{"prof lines", ok + "/ncu.csv", "a\n==PROF== Connected to process 1\n", "==PROF=="},
		{"loose file", "stray.txt", "x\n", "belongs in a run folder"},
		{"bad folder name", "h200-final/README.md", "x\n", "want <subject>-<gpu>-<yyyy-mm-dd>"},
		{"no readme", "cg-20-h200-2026-11-29/cg.json", "{}\n", "has no README.md"},
		{"stub readme", "cg-50-h200-2026-11-29/README.md", "## What it supports\n\nTODO: which claim\n", "still says TODO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(root, "evidence", filepath.FromSlash(tc.file))
			write(t, p, tc.body)
			defer os.RemoveAll(p)
			if strings.Contains(tc.file, "/") && !strings.HasPrefix(tc.file, ok) {
				defer os.RemoveAll(filepath.Dir(p))
			}
			var msgs []string
			for _, err := range CheckLayout(root) {
				msgs = append(msgs, err.Error())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
				t.Errorf("errors %q, want one saying %q", msgs, tc.want)
			}
		})
	}
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckLayoutNumberedTries: repeats numbered 1, 2, 3 side by side are
// attempts; a number that is a size (hub-8.log, ncu-cg-100.csv) is not.
func TestCheckLayoutNumberedTries(t *testing.T) {
	root := t.TempDir()
	ok := "spmv-2p19-h200-2026-11-29"
	write(t, filepath.Join(root, "evidence", "README.md"), "[x]("+ok+"/README.md)\n")
	write(t, filepath.Join(root, "evidence", ok, "README.md"), "run\n")
	write(t, filepath.Join(root, "evidence", ok, "hub-8.log"), "x\n")
	write(t, filepath.Join(root, "evidence", ok, "hub-16.log"), "x\n")
	write(t, filepath.Join(root, "evidence", ok, "ptx-1.json"), "{}\n")
	if errs := CheckLayout(root); len(errs) != 0 {
		t.Fatalf("sizes and a lone try: %v", errs)
	}
	write(t, filepath.Join(root, "evidence", ok, "ptx-2.json"), "{}\n")
	errs := CheckLayout(root)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "ptx-2.json is try 2 of a repeated measurement") {
		t.Errorf("errors %v, want one naming ptx-2.json as a second try", errs)
	}
}

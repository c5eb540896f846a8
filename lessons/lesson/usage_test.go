package lesson

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckOutputFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	file := filepath.Join(dir, "f.json")
	for _, err := range []error{os.Mkdir(sub, 0o755), os.WriteFile(file, []byte("{}"), 0o644)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		flag, path string
		exts       []string
		want       string // "" for no error
	}{
		{"--json", "", nil, ""},
		{"--json", file, nil, ""}, // an existing file is replaced
		{"--json", filepath.Join(dir, "new.json"), nil, ""},
		{"--svg", filepath.Join(dir, "f.SVG"), []string{".svg", ".png"}, ""},
		{"--svg", filepath.Join(dir, "f.pdf"), []string{".svg", ".png"}, "--svg " + filepath.Join(dir, "f.pdf") + ": want a file ending in .svg or .png"},
		{"--svg", "-", []string{".svg", ".png"}, "--svg -: the file is written by name, not to stdout"},
		{"--json", sub, nil, "--json " + sub + ": is a folder; name a file in it"},
		{"--json", sub + "/", nil, "is a folder"},
		{"--json", filepath.Join(dir, "no", "x.json"), nil, "folder " + filepath.Join(dir, "no") + " does not exist"},
		{"--json", filepath.Join(file, "x.json"), nil, file + " is not a folder"},
	} {
		err := CheckOutputFile(c.flag, c.path, c.exts...)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckOutputFile(%q, %q, %q) = %v; want %q", c.flag, c.path, c.exts, err, c.want)
		}
	}
	// Nothing is left behind by the write check.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("folder holds %v; want only sub and f.json", entries)
	}
	if err := CheckOutputDir("--dump", sub); err != nil {
		t.Errorf("CheckOutputDir(sub) = %v", err)
	}
	if err := CheckOutputDir("--dump", file); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("CheckOutputDir(file) = %v", err)
	}
}

func TestCheckInputFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.mtx")
	os.WriteFile(file, []byte("x"), 0o644)
	for path, want := range map[string]string{
		"":                            "",
		file:                          "",
		dir:                           "--matrix " + dir + ": is a folder, not a file",
		filepath.Join(dir, "no.mtx"):  "--matrix " + filepath.Join(dir, "no.mtx") + ": no such file or directory",
		filepath.Join(file, "x", "y"): "--matrix " + filepath.Join(file, "x", "y") + ": not a directory",
	} {
		err := CheckInputFile("--matrix", path)
		if want == "" && err != nil || want != "" && (err == nil || err.Error() != want) {
			t.Errorf("CheckInputFile(%q) = %v; want %q", path, err, want)
		}
	}
}

func TestUsagef(t *testing.T) {
	err := Usagef("--grid %d: too big", 65)
	if !errors.Is(err, ErrUsage) || err.Error() != "usage: --grid 65: too big" {
		t.Errorf("Usagef: %v", err)
	}
}

// Interruptible returns f's result, or ctx's error at once when ctx is
// done first.
func TestInterruptible(t *testing.T) {
	v, err := Interruptible(context.Background(), func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Errorf("got %d, %v", v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = Interruptible(ctx, func() (int, error) { <-release; return 1, nil })
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("error %v after %v; want context.Canceled at once", err, time.Since(start))
	}
}

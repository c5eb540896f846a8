package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// unwritable returns a folder this process cannot create a file in, and
// whether it found one: a temporary folder made read-only (not for root,
// who writes anywhere), else /sys on Linux (whose files only the kernel
// creates, root or not).
func unwritable(t *testing.T) (string, bool) {
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	for _, dir := range []string{ro, "/sys"} {
		if dir == "/sys" && runtime.GOOS != "linux" {
			continue
		}
		f, err := os.CreateTemp(dir, ".probe-*")
		if err == nil {
			f.Close()
			os.Remove(f.Name())
			continue
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir, true
		}
	}
	return "", false
}

// Every output path is checked before anything runs: the figure's
// extension, a path that is a folder or not a regular file, a folder that
// does not exist, is not a folder or takes no file. Each is a usage error
// (exit 2), one line naming the flag and the path, with nothing on stdout
// and nothing left behind. Before issue 31 these failed only after the
// whole run (a --json folder said "rename ...: file exists").
func TestLessonOutputPaths(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "out")
	svgFolder := filepath.Join(dir, "fig.svg")
	file := filepath.Join(dir, "plain")
	for _, d := range []string{folder, svgFolder} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no")
	cases := []struct {
		args []string
		msg  string // after "warplab run NAME: "
	}{
		{[]string{"--svg", "x.pdf"}, "--svg x.pdf: want a file ending in .svg or .png"},
		{[]string{"--svg", "x"}, "--svg x: want a file ending in .svg or .png"},
		{[]string{"--svg", "-"}, "--svg -: the file is written by name, not to stdout: want a file ending in .svg or .png"},
		{[]string{"--json", folder}, "--json " + folder + ": is a folder; name a file in it"},
		{[]string{"--json", folder + "/"}, "--json " + folder + "/: is a folder; name a file in it"},
		{[]string{"--svg", svgFolder}, "--svg " + svgFolder + ": is a folder; name a file in it"},
		{[]string{"--json", filepath.Join(missing, "out.json")}, "--json " + filepath.Join(missing, "out.json") + ": folder " + missing + " does not exist"},
		{[]string{"--svg", filepath.Join(missing, "f.svg")}, "--svg " + filepath.Join(missing, "f.svg") + ": folder " + missing + " does not exist"},
		{[]string{"--json", filepath.Join(file, "out.json")}, "--json " + filepath.Join(file, "out.json") + ": " + file + " is not a folder"},
		{[]string{"--json", filepath.Join(dir, "a.svg"), "--svg", filepath.Join(dir, "a.svg")}, "--json and --svg both name " + filepath.Join(dir, "a.svg")},
	}
	if fifo := filepath.Join(dir, "pipe"); mkfifo(fifo) == nil {
		cases = append(cases, struct {
			args []string
			msg  string
		}{[]string{"--json", fifo}, "--json " + fifo + ": is not a regular file"})
	}
	if ro, ok := unwritable(t); ok {
		p := filepath.Join(ro, "out.json")
		cases = append(cases, struct {
			args []string
			msg  string
		}{[]string{"--json", p}, "--json " + p + ": cannot write in folder " + ro + ": "})
		p = filepath.Join(ro, "f.png")
		cases = append(cases, struct {
			args []string
			msg  string
		}{[]string{"--svg", p}, "--svg " + p + ": cannot write in folder " + ro + ": "})
	} else {
		t.Log("no unwritable folder here: the read-only case is not tried")
	}
	for _, l := range contractLessons {
		for _, c := range cases {
			args := append(append([]string{"run", l.name, "--backend", "sim"}, l.quick...), c.args...)
			code, stdout, stderr := runCLI(args...)
			want := "warplab run " + l.name + ": " + c.msg
			if code != exitUsage || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("warplab %q: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing on stdout and one line starting %q",
					args, code, len(stdout), stderr, want)
			}
		}
		// --recorded is checked the same way.
		code, _, stderr := runCLI("run", l.name, "--recorded", "--svg", "x.pdf")
		if code != exitUsage || !strings.Contains(stderr, "--svg x.pdf: want a file ending in .svg or .png") {
			t.Errorf("%s --recorded --svg x.pdf: exit %d, stderr %q", l.name, code, stderr)
		}
	}
	// The checks leave nothing behind, and the pipe is still a pipe.
	if st, err := os.Stat(filepath.Join(dir, "pipe")); err == nil && st.Mode().IsRegular() {
		t.Error("the named pipe was replaced by a regular file")
	}
	for _, d := range []string{dir, folder, svgFolder} {
		for _, e := range testenv.Must(os.ReadDir(d))(t) {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("left behind: %s", filepath.Join(d, e.Name()))
			}
		}
	}
	// libs' --dump is a folder it writes in: checked the same way.
	if ro, ok := unwritable(t); ok {
		code, _, stderr := runCLI("run", "libs", "--backend", "sim", "--dump", ro)
		if code != exitUsage || !strings.HasPrefix(stderr, "warplab run libs: --dump "+ro+": cannot write in folder "+ro+": ") {
			t.Errorf("--dump %s: exit %d, stderr %q", ro, code, stderr)
		}
	}
	code, _, stderr := runCLI("run", "libs", "--backend", "sim", "--dump", file)
	if code != exitUsage || stderr != "warplab run libs: --dump "+file+": "+file+" is not a folder\n" {
		t.Errorf("--dump %s: exit %d, stderr %q", file, code, stderr)
	}
}

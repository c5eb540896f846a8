package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/lessons/cg"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/lessons/tiling"
)

// contractLessons are the lessons driven through the lesson contract, with
// small quick arguments for a simulator run of each.
var contractLessons = []struct {
	name  string
	quick []string // lesson flags for a run of seconds on the simulator
	text  []string // what its text must contain
}{
	{"spmv", []string{"--rows", "2048", "--probe-blocks", "320"}, []string{"Part 1:", "Part 2:", "All six rows"}},
	{"tiling", []string{"--n", "64", "--tile", "8", "--coarse", "2", "--no-sweep"}, []string{"matmulTiledCoarse2", "transposeSharedPadded", "spmvCsrWarpShfl", "shared race", "out of bounds"}},
	{"cg", []string{"--grid", "4,5,6", "--stage", "0,1,5"}, []string{"== Stage 0 (cpu-serial)", "== Stage 5 (coalesced-spmv)", "Summary", "bit-identical"}},
}

// The shared flags mean the same for every lesson: usage errors exit 2 with
// one message naming the flag, before any device opens or anything runs.
func TestLessonSharedUsageErrors(t *testing.T) {
	for _, l := range contractLessons {
		for _, c := range []struct {
			args []string
			msg  string
		}{
			{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
			{[]string{"extra"}, `unexpected argument "extra"`},
			{[]string{"--backend", "tpu"}, `--backend "tpu": want auto, sim, gpu or gpu:N`},
			{[]string{"--backend", "gpu:x"}, `--backend "gpu:x"`},
			{[]string{"--backend", "sim", "--model", "v100"}, `--model "v100": want one of t4, a100, h100, h200`},
			{[]string{"--model", "v100"}, `--model "v100"`},
			{[]string{"--backend", "gpu", "--model", "t4"}, "--model picks the GPU the simulator models"},
			{[]string{"--unroll", "2"}, "--unroll 2: want 1 or 4"},
		} {
			if l.name == "tiling" && c.args[0] == "--unroll" {
				continue // tiling has no unrolled variants
			}
			args := append([]string{"run", l.name}, c.args...)
			code, stdout, stderr := runCLI(args...)
			if code != exitUsage || !strings.Contains(stderr, c.msg) {
				t.Errorf("warplab %q: exit %d, stderr %q; want exit 2 and %q", args, code, stderr, c.msg)
			}
			if stdout != "" || strings.Contains(stderr, "panic") {
				t.Errorf("warplab %q: stdout %q, stderr %q", args, stdout, stderr)
			}
		}
		// -h prints the lesson's flags and the shared ones, exit 0.
		code, _, stderr := runCLI("run", l.name, "-h")
		if code != exitOK || !strings.Contains(stderr, "usage: warplab run "+l.name) || !strings.Contains(stderr, "-backend") || !strings.Contains(stderr, "-json") {
			t.Errorf("%s -h: exit %d, %q", l.name, code, stderr)
		}
		if got := strings.Contains(stderr, "-svg"); got != (l.name == "spmv") {
			t.Errorf("%s -h: --svg listed %v; only lessons with a figure have it", l.name, got)
		}
	}
}

// Each lesson's RegisterFlags and Validate: its own bad values are usage
// errors naming the flag.
func TestLessonValidate(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"spmv", "--rows", "100", "--matrix", "a.mtx"}, "give one"},
		{[]string{"spmv", "--probe-blocks", "-3"}, "--probe-blocks -3"},
		{[]string{"spmv", "--rows", "abc"}, "invalid value"},
		{[]string{"spmv", "--rows", "100"}, "rows 100: want a positive multiple of 32"},
		{[]string{"spmv", "--rows", "416"}, "want at least 419"},
		{[]string{"tiling", "--tile", "3"}, "TILE = 3"},
		{[]string{"tiling", "--n", "0"}, "--n 0: must be positive"},
		{[]string{"tiling", "--n", "100", "--coarse", "1"}, "not a multiple of TILE*COARSE"},
		{[]string{"tiling", "--sweep-n", "-1"}, "--sweep-n -1"},
		{[]string{"cg", "--grid", "0"}, "at least 1"},
		{[]string{"cg", "--grid", "-4"}, "at least 1"},
		{[]string{"cg", "--grid", "4,4"}, "NX,NY,NZ"},
		{[]string{"cg", "--grid", "abc"}, "not an integer"},
		{[]string{"cg", "--grid", "3000000000"}, "overflows"},
		{[]string{"cg", "--stage", "9"}, "0 to 8"},
		{[]string{"cg", "--stage", "x"}, "0 to 8"},
		{[]string{"cg", "--threads-per-row", "3"}, "power of two"},
		{[]string{"cg", "--max-iter", "0"}, "at least 1"},
	} {
		args := append([]string{"run"}, c.args...)
		code, _, stderr := runCLI(args...)
		oneLine := strings.Count(stderr, "\n") == 1 || c.msg == "invalid value" // the flag package adds the usage
		if code != exitUsage || !strings.Contains(stderr, c.msg) || !oneLine {
			t.Errorf("warplab %q: exit %d, stderr %q; want exit 2 and one line with %q", args, code, stderr, c.msg)
		}
	}
	// Failures found only when running are exit 1.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"cg", "--backend", "sim", "--grid", "65"}, "simulator takes at most"},
		{[]string{"cg", "--backend", "sim", "--stage", "0", "--grid", "2000"}, "over the limit"},
	} {
		args := append([]string{"run"}, c.args...)
		code, _, stderr := runCLI(args...)
		if code != exitFail || !strings.Contains(stderr, c.msg) {
			t.Errorf("warplab %q: exit %d, stderr %q; want exit 1 and %q", args, code, stderr, c.msg)
		}
	}
}

// Every lesson runs on the simulator with the shared flags, prints its text,
// and writes valid JSON atomically (no temporary file left beside it).
func TestLessonRunsWithJSON(t *testing.T) {
	for _, l := range contractLessons {
		t.Run(l.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, l.name+".json")
			args := append([]string{"run", l.name, "--backend", "sim", "--model", "t4", "--json", path}, l.quick...)
			code, stdout, stderr := runCLI(args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if stderr != "" {
				t.Errorf("stderr not empty off a terminal: %q", stderr)
			}
			for _, s := range l.text {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q", s)
				}
			}
			var doc struct {
				Lesson, Backend string
				Device          any
			}
			data := testenv.Must(os.ReadFile(path))(t)
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatalf("invalid JSON: %v", err)
			}
			if doc.Lesson != l.name || doc.Backend != "sim" {
				t.Errorf("JSON lesson %q backend %q", doc.Lesson, doc.Backend)
			}
			if !strings.Contains(string(data), "T4") {
				t.Errorf("JSON does not name the modeled T4")
			}
			if entries := testenv.Must(os.ReadDir(dir))(t); len(entries) != 1 {
				t.Errorf("files beside the JSON: %v", entries)
			}
		})
	}
}

// --json and --svg into a missing folder fail before anything runs.
func TestLessonOutputFolderChecked(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "out.json")
	for _, l := range contractLessons {
		code, stdout, stderr := runCLI("run", l.name, "--backend", "sim", "--json", missing)
		if code != exitFail || !strings.HasPrefix(stderr, "warplab run "+l.name+": --json ") || !strings.Contains(stderr, "does not exist") || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", l.name, code, stdout, stderr)
		}
	}
	code, _, stderr := runCLI("run", "spmv", "--backend", "sim", "--svg", filepath.Join(filepath.Dir(missing), "f.svg"))
	if code != exitFail || !strings.Contains(stderr, "--svg ") {
		t.Errorf("spmv --svg: exit %d, stderr %q", code, stderr)
	}
}

// cg's --unroll1 is kept as an alias of --unroll 1.
func TestCGUnrollAlias(t *testing.T) {
	for _, flagv := range [][]string{{"--unroll", "1"}, {"--unroll1"}} {
		args := append([]string{"run", "cg", "--backend", "sim", "--grid", "4", "--stage", "1", "--json", "-"}, flagv...)
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || !strings.Contains(stdout, "spmvCsrThreadPerRowUnroll1") {
			t.Errorf("%v: exit %d, stderr %q; want the unroll-1 kernel in the report", flagv, code, stderr)
		}
	}
}

// Every lesson in the table except libs (its own command line still) is
// covered by the tests above.
func TestEveryContractLessonTested(t *testing.T) {
	tested := map[string]bool{"libs": true}
	for _, l := range contractLessons {
		tested[l.name] = true
	}
	for _, name := range lessonNames() {
		if !tested[name] {
			t.Errorf("lesson %q is not in contractLessons", name)
		}
	}
}

// Through the contract itself: a cancelled context (Ctrl-C) stops every
// lesson with ctx's error, not a result.
func TestLessonRunCancelled(t *testing.T) {
	dev := testenv.Must(gpuext.Open("sim:t4"))(t)
	defer dev.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i, newLesson := range []func() lesson.Lesson{spmv.Lesson, tiling.Lesson, cg.Lesson} {
		l := newLesson()
		if l.Name() != contractLessons[i].name {
			t.Fatalf("lesson %d is %q", i, l.Name())
		}
		fs := flag.NewFlagSet(l.Name(), flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		l.RegisterFlags(fs)
		if err := fs.Parse(contractLessons[i].quick); err != nil {
			t.Fatal(err)
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("%s: %v", l.Name(), err)
		}
		res, err := l.Run(ctx, dev, lesson.Progress{})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("%s on a cancelled context: result %v, error %v; want context.Canceled", l.Name(), res, err)
		}
	}
}

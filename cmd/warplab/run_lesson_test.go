package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/lessons/cg"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/lessons/libs"
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
	{"libs", []string{"--rows", "1024", "--methods", "vector4,merge_path", "--copy-mib", "1"}, []string{"all checks passed", "even-2^10", "skewed-2^10", "merge_path"}},
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
			if (l.name == "tiling" || l.name == "libs") && c.args[0] == "--unroll" {
				continue // no unrolled variants
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
		if code != exitOK || !strings.Contains(stderr, "usage: warplab run "+l.name) {
			t.Errorf("%s -h: exit %d, %q", l.name, code, stderr)
		}
		for _, f := range []string{"-backend", "-model", "-json", "-svg", "-recorded"} {
			if !strings.Contains(stderr, f) {
				t.Errorf("%s -h does not list the shared flag %s", l.name, f)
			}
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
		{[]string{"cg", "--stage", strconv.Itoa(cg.Stages)}, fmt.Sprintf("0 to %d", cg.Stages-1)},
		{[]string{"cg", "--stage", "x"}, fmt.Sprintf("0 to %d", cg.Stages-1)},
		{[]string{"cg", "--threads-per-row", "3"}, "power of two"},
		{[]string{"cg", "--max-iter", "0"}, "at least 1"},
		{[]string{"libs", "--rows", "abc"}, `"abc" is not a number`},
		{[]string{"libs", "--rows", "1000"}, "multiple of 32"},
		{[]string{"libs", "--methods", "vector3"}, `no method "vector3"`},
		{[]string{"libs", "--rows", "none"}, "no matrices"},
		{[]string{"libs", "--runs", "0"}, "--runs 0"},
		{[]string{"libs", "--copy-mib", "-2"}, "--copy-mib -2"},
		{[]string{"spmv", "--recorded", "--backend", "sim"}, "--recorded shows a run already made; --backend chooses"},
		{[]string{"cg", "--recorded", "--model", "t4"}, "--model chooses where"},
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
		{[]string{"libs", "--backend", "sim", "--rows", "none", "--matrix", "/no/such.mtx"}, "--matrix /no/such.mtx"},
		{[]string{"libs", "--backend", "sim", "--dump", "/no/such/dir"}, "--dump: folder /no/such/dir does not exist"},
		{[]string{"libs", "--backend", "sim", "--peer", "/no/such.jsonl"}, "--peer: open /no/such.jsonl"},
	} {
		args := append([]string{"run"}, c.args...)
		code, _, stderr := runCLI(args...)
		if code != exitFail || !strings.Contains(stderr, c.msg) {
			t.Errorf("warplab %q: exit %d, stderr %q; want exit 1 and %q", args, code, stderr, c.msg)
		}
	}
}

// Every lesson runs on the simulator with the shared flags, prints its text,
// and writes valid JSON and its figure atomically (no temporary file left
// beside them).
func TestLessonRunsWithJSON(t *testing.T) {
	for _, l := range contractLessons {
		t.Run(l.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, l.name+".json")
			svg := filepath.Join(dir, l.name+".svg")
			args := append([]string{"run", l.name, "--backend", "sim", "--model", "t4", "--json", path, "--svg", svg}, l.quick...)
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
			fig := string(testenv.Must(os.ReadFile(svg))(t))
			if !strings.Contains(fig, "<svg") || !strings.Contains(fig, "T4") {
				t.Errorf("--svg wrote no SVG naming the modeled T4 (%d bytes)", len(fig))
			}
			if entries := testenv.Must(os.ReadDir(dir))(t); len(entries) != 2 {
				t.Errorf("files beside the JSON and the figure: %v", entries)
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
	for _, l := range contractLessons {
		code, stdout, stderr := runCLI("run", l.name, "--backend", "sim", "--svg", filepath.Join(filepath.Dir(missing), "f.svg"))
		if code != exitFail || !strings.HasPrefix(stderr, "warplab run "+l.name+": --svg ") || stdout != "" {
			t.Errorf("%s --svg: exit %d, stdout %q, stderr %q", l.name, code, stdout, stderr)
		}
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

// Every lesson in the table is covered by the tests above.
func TestEveryContractLessonTested(t *testing.T) {
	tested := map[string]bool{}
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
	for i, newLesson := range []func() lesson.Lesson{spmv.Lesson, tiling.Lesson, cg.Lesson, libs.Lesson} {
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

// --recorded shows each lesson's recorded GPU run without a device: its
// GPU, driver and date first, then its text, JSON as for a run. tiling's
// figure draws the simulator's counts, which the recorded run lacks: --svg
// says so rather than drawing an empty picture.
func TestLessonRecorded(t *testing.T) {
	for _, l := range contractLessons {
		t.Run(l.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "rec.json")
			svg := filepath.Join(dir, "rec.svg")
			code, stdout, stderr := runCLI("run", l.name, "--recorded", "--json", path, "--svg", svg)
			if l.name == "tiling" {
				if code != exitFail || !strings.Contains(stderr, "--svg: tiling: the figures draw the simulator's counts") {
					t.Errorf("exit %d, stderr %q; want the figure refused", code, stderr)
				}
			} else if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			first, _, _ := strings.Cut(stdout, "\n")
			if !strings.HasPrefix(first, "Recorded GPU run: NVIDIA H200, driver ") || !strings.Contains(first, ", 2026-") {
				t.Errorf("first line %q does not name the GPU, driver and date", first)
			}
			var doc struct{ Backend string }
			if err := json.Unmarshal(testenv.Must(os.ReadFile(path))(t), &doc); err != nil || doc.Backend != "gpu" {
				t.Errorf("JSON backend %q, %v; want the GPU's run", doc.Backend, err)
			}
			if l.name != "tiling" {
				if fig := testenv.Must(os.ReadFile(svg))(t); !strings.Contains(string(fig), "H200") {
					t.Errorf("the recorded run's figure does not name the H200")
				}
			}
		})
	}
}

// Every lesson's Module is its CUDA C and the PTX generated from it.
func TestLessonModules(t *testing.T) {
	for _, name := range lessonNames() {
		m := lessons()[name]().Module()
		if m == nil || !strings.Contains(m.CUDA, "__global__") || !strings.Contains(m.PTX, ".entry") {
			t.Errorf("%s: Module() lacks its CUDA C or PTX", name)
		}
	}
}

// libs' --dump writes each matrix for the peer program, beside a run.
func TestLibsDump(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI("run", "libs", "--backend", "sim", "--rows", "1024", "--methods", "vector4,merge_path",
		"--copy-mib", "1", "--dump", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, k := range []string{"even-2^10", "skewed-2^10"} {
		if st, err := os.Stat(filepath.Join(dir, k+".csr")); err != nil || st.Size() == 0 {
			t.Errorf("dump %s: %v", k, err)
		}
	}
}

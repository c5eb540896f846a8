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
	"github.com/warplab/warplab/lab"
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
			{[]string{"--launch-records", "/no/such/dir"}, "--launch-records /no/such/dir: not a folder"},
			{[]string{"--recorded", "--launch-records", "."}, "--recorded shows a run already made; --launch-records chooses"},
			{[]string{"--backend", "sim", "--launch-records", "."}, "--launch-records times the GPU host's launch floor"},
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
		for _, f := range []string{"-backend", "-model", "-json", "-svg", "-recorded", "-launch-records"} {
			if !strings.Contains(stderr, f) {
				t.Errorf("%s -h does not list the shared flag %s", l.name, f)
			}
		}
	}
}

// Each lesson's RegisterFlags and Validate: its own bad values are usage
// errors, one line naming the flag in the command line's terms (never a Go
// field name) and, for a value out of range, the range.
func TestLessonValidate(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"spmv", "--rows", "100", "--matrix", "a.mtx"}, "give one"},
		{[]string{"spmv", "--probe-blocks", "-3"}, "--probe-blocks -3"},
		{[]string{"spmv", "--rows", "abc"}, "invalid value"},
		{[]string{"spmv", "--rows", "100"}, "--rows 100: want a positive multiple of 32 from 448 to 134217727"},
		{[]string{"spmv", "--rows", "-64"}, "--rows -64: want a positive multiple of 32 from 448"},
		{[]string{"spmv", "--rows", "416"}, "want at least 419"},
		{[]string{"spmv", "--rows", "2147483648"}, "--rows 2147483648: want at most 134217727"},
		{[]string{"tiling", "--tile", "3"}, "--tile 3: want one of 1, 2, 4, 8, 16 or 32"},
		{[]string{"tiling", "--n", "0"}, "--n 0: want 1 to 8192"},
		{[]string{"tiling", "--n", "10000"}, "--n 10000: want 1 to 8192"},
		{[]string{"tiling", "--n", "100", "--coarse", "1"}, "--n 100: not a multiple of TILE*COARSE"},
		{[]string{"tiling", "--coarse", "3"}, "--coarse 3: want one of 1, 2, 4 or 8"},
		{[]string{"tiling", "--transpose-tile", "3"}, "--transpose-tile 3: want one of"},
		{[]string{"tiling", "--n", "96", "--tile", "16", "--coarse", "2", "--transpose-tile", "64"}, "--transpose-tile 64: want one of"},
		{[]string{"tiling", "--n", "48", "--tile", "16", "--coarse", "1", "--transpose-tile", "32"}, "--transpose-tile 32: does not divide --n 48"},
		{[]string{"tiling", "--sweep-n", "-1"}, "--sweep-n -1: want 0"},
		{[]string{"tiling", "--sweep-n", "100000000"}, "--sweep-n 100000000: want 0 (min(--n, 128)) or 1 to 8192"}, // was a panic in makeslice
		{[]string{"tiling", "--sweep-n", "100"}, "--sweep-n 100: want a multiple of 64"},
		{[]string{"cg", "--grid", "0"}, "at least 1"},
		{[]string{"cg", "--grid", "-4"}, "at least 1"},
		{[]string{"cg", "--grid", "4,4"}, `--grid "4,4": want N or NX,NY,NZ`},
		{[]string{"cg", "--grid", "abc"}, "not an integer"},
		{[]string{"cg", "--grid", "3000000000"}, "--grid 3000000000: the number of rows overflows"},
		// Grids no machine runs: refused before the device opens, with
		// the largest that runs (they were exit 1 after it opened).
		{[]string{"cg", "--grid", "100000"}, "--grid 100000: 100000x100000x100000 needs"},
		{[]string{"cg", "--grid", "100000"}, "a cube up to 286³"},
		{[]string{"cg", "--grid", "287"}, "within 8.0 GiB"},
		{[]string{"cg", "--stage", "0", "--grid", "2000"}, "--grid 2000: 2000x2000x2000 needs"},
		// The simulator's cap, which only Run knows: still exit 2.
		{[]string{"cg", "--backend", "sim", "--grid", "65"}, "--grid 65: 274625 rows; the simulator takes at most 262144 (64³)"},
		{[]string{"cg", "--stage", strconv.Itoa(cg.Stages)}, fmt.Sprintf("0 to %d", cg.Stages-1)},
		{[]string{"cg", "--stage", "x"}, fmt.Sprintf("0 to %d", cg.Stages-1)},
		{[]string{"cg", "--threads-per-row", "3"}, "--threads-per-row 3: want a power of two from 1 to 32"},
		{[]string{"cg", "--threads-per-row", "64"}, "--threads-per-row 64: want a power of two from 1 to 32"},
		{[]string{"cg", "--max-iter", "0"}, fmt.Sprintf("--max-iter 0: want 1 to %d", cg.MaxIterLimit)},
		{[]string{"cg", "--max-iter", "1000000000"}, fmt.Sprintf("--max-iter 1000000000: want 1 to %d", cg.MaxIterLimit)}, // was 8 GB allocated, out of memory
		{[]string{"cg", "--warmup-solves", "11"}, "--warmup-solves 11: want 0 to 10"},
		{[]string{"cg", "--unroll", "4", "--unroll1"}, "--unroll 4 and --unroll1 (the old spelling of --unroll 1) disagree"},
		{[]string{"cg", "--unroll1", "--unroll", "4"}, "--unroll 4 and --unroll1"},
		{[]string{"libs", "--rows", "abc"}, `"abc" is not a number`},
		{[]string{"libs", "--rows", "1000"}, `--rows "1000": 1000: want a multiple of 32 from 448 to 134217727`},
		{[]string{"libs", "--rows", "1099511627776"}, "want a multiple of 32 from 448 to 134217727"},
		{[]string{"libs", "--methods", "vector3"}, `--methods "vector3": no method "vector3"`},
		{[]string{"libs", "--rows", "none"}, `--rows "none" and no --matrix: no matrices to run; give --rows sizes or --matrix files`},
		{[]string{"libs", "--rows", ""}, "no matrices to run"},
		{[]string{"libs", "--runs", "0"}, "--runs 0: want 1 or more"},
		{[]string{"libs", "--warmups", "0"}, "--warmups 0: want 1 or more"},
		{[]string{"libs", "--copy-mib", "-2"}, "--copy-mib -2: want -1 (no copy), 0 (the default) or a size from 1 to 65536"},
		{[]string{"libs", "--copy-mib", "9007199254740992"}, "--copy-mib 9007199254740992: want"}, // overflowed int64 bytes
		{[]string{"libs", "--dump", "/no/such/dir"}, "--dump /no/such/dir: folder /no/such/dir does not exist"},
		{[]string{"spmv", "--recorded", "--backend", "sim"}, "--recorded shows a run already made; --backend chooses"},
		{[]string{"cg", "--recorded", "--model", "t4"}, "--model chooses where"},
	} {
		args := append([]string{"run"}, c.args...)
		code, stdout, stderr := runCLI(args...)
		oneLine := strings.Count(stderr, "\n") == 1 || c.msg == "invalid value" // the flag package adds the usage
		if code != exitUsage || !strings.Contains(stderr, c.msg) || !oneLine || stdout != "" {
			t.Errorf("warplab %q: exit %d, stderr %q; want exit 2 and one line with %q", args, code, stderr, c.msg)
		}
		for _, goName := range []string{"SeedRows", "Matrices", "MaxIter", "ThreadsPerRow", "WarmupSolves", "CopyBytes", "SweepN", "TransposeTile", "GenOptions"} {
			if strings.Contains(stderr, goName) {
				t.Errorf("warplab %q: stderr %q names the Go field %s, not the flag", args, stderr, goName)
			}
		}
	}
	// Failures found only when running are exit 1.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"libs", "--backend", "sim", "--rows", "none", "--matrix", "/no/such.mtx"}, "--matrix /no/such.mtx: no such file or directory"},
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

// cg's --unroll1 is kept as an alias of --unroll 1 (with --unroll 1 too;
// with --unroll 4 it is a usage error, TestLessonValidate).
func TestCGUnrollAlias(t *testing.T) {
	for _, flagv := range [][]string{{"--unroll", "1"}, {"--unroll1"}, {"--unroll", "1", "--unroll1"}} {
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
	for i, d := range []*lesson.Lesson{spmv.Lesson(), tiling.Lesson(), cg.Lesson(), libs.Lesson()} {
		if d.Name != contractLessons[i].name {
			t.Fatalf("lesson %d is %q", i, d.Name)
		}
		fs := flag.NewFlagSet(d.Name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		l := d.Flags(fs, lab.Options{})
		if err := fs.Parse(contractLessons[i].quick); err != nil {
			t.Fatal(err)
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		res, err := l.Run(ctx, dev, lesson.Progress{})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("%s on a cancelled context: result %v, error %v; want context.Canceled", d.Name, res, err)
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
	for _, l := range lessons() {
		m := l.Module()
		if m == nil || !strings.Contains(m.CUDA, "__global__") || !strings.Contains(m.PTX, ".entry") {
			t.Errorf("%s: Module() lacks its CUDA C or PTX", l.Name)
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

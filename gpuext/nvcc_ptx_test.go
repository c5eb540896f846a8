package gpuext

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/warplab/warplab/notebooks/ptxcache"
	"github.com/warplab/warplab/sim"
)

// repoEntry is one entry of the repository cache: a source and either its
// PTX (ext ".ptx") or nvcc's recorded compile error (ext ".err").
type repoEntry struct {
	key, name, src, ext string
	rec                 []byte
}

func repoEntries(t *testing.T) []repoEntry {
	t.Helper()
	cus, err := fs.Glob(ptxcache.FS, "*.cu")
	if err != nil || len(cus) == 0 {
		t.Fatalf("notebooks/ptxcache has no entries (%v)", err)
	}
	var out []repoEntry
	for _, cu := range cus {
		key := strings.TrimSuffix(cu, ".cu")
		src, err := fs.ReadFile(ptxcache.FS, cu)
		if err != nil {
			t.Fatal(err)
		}
		e := repoEntry{key: key, src: string(src), ext: ".ptx"}
		if e.rec, err = fs.ReadFile(ptxcache.FS, key+".ptx"); err != nil {
			e.ext = ".err"
			if e.rec, err = fs.ReadFile(ptxcache.FS, key+".err"); err != nil {
				t.Fatalf("%s has neither a .ptx nor an .err beside it", cu)
			}
		}
		h, err := ParsePTXHeader(e.rec)
		if err != nil {
			t.Fatalf("%s%s: %v", key, e.ext, err)
		}
		e.name = strings.TrimSuffix(h.Source, ".cu")
		out = append(out, e)
	}
	return out
}

// TestRepoPTXCacheEntries checks, everywhere, that each entry is named by
// its key, was made from its .cu by nvcc 11.8 for compute_75, and is PTX
// the simulator reads; and that no .ptx is without its source.
func TestRepoPTXCacheEntries(t *testing.T) {
	ptxs, err := fs.Glob(ptxcache.FS, "*.ptx")
	if err != nil {
		t.Fatal(err)
	}
	errs, err := fs.Glob(ptxcache.FS, "*.err")
	if err != nil {
		t.Fatal(err)
	}
	entries := repoEntries(t)
	if len(ptxs)+len(errs) != len(entries) {
		t.Errorf("notebooks/ptxcache has %d .ptx, %d .err and %d .cu files; every entry is a .cu and one of the others", len(ptxs), len(errs), len(entries))
	}
	d := openSimT(t, "sim:t4")
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			if got := PTXCacheKey(e.name, e.src); got != e.key {
				t.Errorf("entry %s holds a source whose key is %s", e.key, got)
			}
			h, err := ParsePTXHeader(e.rec)
			if err != nil {
				t.Fatalf("entry %s: %v", e.key, err)
			}
			if h.SHA256 != SourceSum([]byte(e.src)) || !strings.HasPrefix(h.NVCC, "11.8.") || h.Arch != PTXArch || h.Flags != "-lineinfo" {
				t.Errorf("entry %s: provenance %+v, want this source's sha256, nvcc 11.8, %s -lineinfo", e.key, h, PTXArch)
			}
			m, info, err := CompileOptions{Repo: ptxcache.FS, NVCC: "/nonexistent/nvcc"}.Compile(e.name, e.src)
			if info.From != "repository" {
				t.Fatalf("Compile did not read the repository cache: %v, %+v", err, info)
			}
			if e.ext == ".err" {
				var ce *CompileError
				if !errors.As(err, &ce) || len(ce.Messages) == 0 || ce.Messages[0].Line == 0 {
					t.Fatalf("recorded compile error: %v; want a *CompileError with lines", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if li, err := d.Load(m); err != nil || li.Path != PathPTX {
				t.Fatalf("the simulator cannot load entry %s: %v %+v", e.key, err, li)
			}
		})
	}
}

// nvcc118 skips the test unless nvcc 11.8, the repository's compiler, is on PATH.
func nvcc118(t *testing.T) {
	out, err := exec.Command("nvcc", "--version").Output()
	if err != nil || !strings.Contains(string(out), "release 11.8") {
		t.Skip("nvcc 11.8 is not on PATH (scripts/setup.sh --nvcc installs it)")
	}
}

// TestRepoPTXCacheRegenerated compiles every entry again with nvcc 11.8,
// bypassing both caches, and requires the committed PTX byte for byte (as
// internal/ptxcheck's TestRegenerated does for the lessons).
func TestRepoPTXCacheRegenerated(t *testing.T) {
	nvcc118(t)
	for _, e := range repoEntries(t) {
		t.Run(e.name, func(t *testing.T) {
			rec := t.TempDir()
			_, info, err := CompileOptions{CacheDir: t.TempDir(), Record: rec}.Compile(e.name, e.src)
			var ce *CompileError
			if info.From != "nvcc" || (err != nil) != (e.ext == ".err") || (err != nil && !errors.As(err, &ce)) {
				t.Fatalf("Compile: %v (%+v); the entry is a %s", err, info, e.ext)
			}
			fresh, err := os.ReadFile(filepath.Join(rec, e.key+e.ext))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fresh, e.rec) {
				t.Errorf("notebooks/ptxcache/%s%s differs from what nvcc 11.8 makes of its .cu now; regenerate it (README.platform.md)", e.key, e.ext)
			}
		})
	}
}

func TestCompileWithoutNVCC(t *testing.T) {
	var e repoEntry
	for _, e = range repoEntries(t) {
		if e.ext == ".ptx" {
			break
		}
	}
	tests := []struct {
		name     string
		repo     fs.FS
		src      string
		wantFrom string // "" means an error wrapping ErrNoNVCC
	}{
		{"cached in the repository", ptxcache.FS, e.src, "repository"},
		{"new kernel", ptxcache.FS, e.src + "\n// edited\n", ""},
		{"no repository cache", fstest.MapFS{}, e.src, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, info, err := CompileOptions{Repo: tt.repo, NVCC: "/nonexistent/nvcc", CacheDir: t.TempDir()}.Compile(e.name, tt.src)
			if tt.wantFrom != "" {
				if err != nil || info.From != tt.wantFrom || m.PTX != string(e.rec) || info.NVCC != "11.8.89" {
					t.Fatalf("Compile = %v, %+v; want the entry from %s", err, info, tt.wantFrom)
				}
				return
			}
			if !errors.Is(err, ErrNoNVCC) || !strings.Contains(err.Error(), "scripts/setup.sh --nvcc") || m != nil {
				t.Fatalf("Compile error = %v; want one wrapping ErrNoNVCC that names scripts/setup.sh --nvcc", err)
			}
		})
	}
}

func TestParseCompileError(t *testing.T) {
	src := "extern \"C\" __global__ void k(float *x) {\n  x[0] = foo;\n  int q = 1\n}\n"
	out := "k.cu(2): error: identifier \"foo\" is undefined\n\nk.cu(4): error: expected a \";\"\n\n" +
		"k.cu(3): warning #177-D: variable \"q\" was declared but never referenced\n\n" +
		"k.cu(1): error: no instance of overloaded function \"f\" matches the argument list\n            argument types are: (float *)\n\n" +
		"other.h(9): error: not the student's file\n2 errors detected in the compilation of \"k.cu\".\n"
	ce := parseCompileError("k.cu", "11.8.89", src, out, errors.New("exit status 1"))
	want := []CompileMessage{
		{2, "error", `identifier "foo" is undefined`, "x[0] = foo;"},
		{4, "error", `expected a ";"`, "}"},
		{3, "warning", `variable "q" was declared but never referenced`, "int q = 1"},
		{1, "error", `no instance of overloaded function "f" matches the argument list; argument types are: (float *)`, `extern "C" __global__ void k(float *x) {`},
	}
	if len(ce.Messages) != len(want) {
		t.Fatalf("messages = %+v, want %+v", ce.Messages, want)
	}
	for i := range want {
		if ce.Messages[i] != want[i] {
			t.Errorf("message %d = %+v, want %+v", i, ce.Messages[i], want[i])
		}
	}
	if s := ce.Error(); !strings.Contains(s, "k.cu does not compile (3 errors)") || !strings.Contains(s, "line 3: warning") || !strings.Contains(s, "line 2: error: identifier \"foo\"") {
		t.Errorf("Error() = %q", s)
	}
}

// TestCompileWithNVCC compiles fresh sources with the machine's nvcc:
// a kernel (then served from the user cache), and a broken one whose
// errors come back at the source's own lines.
func TestCompileWithNVCC(t *testing.T) {
	if _, err := exec.LookPath("nvcc"); err != nil {
		t.Skip("no nvcc on PATH")
	}
	opts := CompileOptions{CacheDir: t.TempDir()}
	src := "\nextern \"C\" __global__ void twice(int n, float *x) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= 2.0f;\n}\n"
	m, info, err := opts.Compile("twice", src)
	if err != nil || info.From != "nvcc" || !strings.Contains(m.PTX, ".entry twice(") || info.NVCC == "" {
		t.Fatalf("Compile: %v, %+v", err, info)
	}
	if _, info2, err := opts.Compile("twice", src); err != nil || info2.From != "user cache" || info2.Path != info.Path {
		t.Fatalf("second Compile: %v, %+v; want the user cache entry %s", err, info2, info.Path)
	}
	d := openSimT(t, "sim:t4")
	x, err := Upload(d, "x", []float32{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	l, err := d.Launch(context.Background(), kern(m, "twice"), Config{Grid: 1, Block: 32}, int32(3), x)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 3)
	if err := x.Download(got); err != nil || got[2] != 6 {
		t.Fatalf("x = %v (%v), want [2 4 6]", got, err)
	}
	if rows := l.Lines(); len(rows) != 2 || rows[0].Line != 4 || rows[0].File != "twice.cu" || rows[0].Source != "if (i < n) x[i] *= 2.0f;" {
		t.Fatalf("Lines = %+v; want a load and a store at twice.cu:4", rows)
	}

	// A shared-memory column walk: 32 lanes 32 floats apart hit one bank,
	// so each request takes 32 wavefronts, 31 of them conflicts. (The load
	// reads back what the block wrote: s[threadIdx.x] would read words no
	// thread wrote, an uninitialized shared read.)
	banks := "extern \"C\" __global__ void column(float *out) {\n" +
		"    __shared__ float s[32 * 32];\n" +
		"    s[threadIdx.x * 32] = threadIdx.x;\n" +
		"    __syncthreads();\n" +
		"    out[threadIdx.x] = s[(31 - threadIdx.x) * 32];\n" +
		"}\n"
	mb, _, err := opts.Compile("column", banks)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Alloc[float32](d, "out", 32)
	if err != nil {
		t.Fatal(err)
	}
	l, err = d.Launch(context.Background(), kern(mb, "column"), Config{Grid: 1, Block: 32}, out)
	if err != nil {
		t.Fatal(err)
	}
	var st *LineRow
	for _, r := range l.Lines() {
		if r.Space == "shared" && r.Op == "st" {
			st = &r
		}
	}
	if st == nil || st.Line != 3 || st.BankConflicts != 31 || st.Requests != 1 || st.ActiveLanes != 1 {
		t.Fatalf("Lines = %+v; want the shared store at line 3 with 31 bank conflicts in 1 request", l.Lines())
	}

	bad := "extern \"C\" __global__ void k(float *x) {\n  x[0] = foo;\n}\n"
	_, _, err = opts.Compile("bad", bad)
	var ce *CompileError
	if !errors.As(err, &ce) || len(ce.Messages) != 1 || ce.Messages[0].Line != 2 || ce.Messages[0].Source != "x[0] = foo;" {
		t.Fatalf("Compile(bad) = %v; want a *CompileError at line 2", err)
	}
}

func TestLines(t *testing.T) {
	st := &sim.Stats{Sites: []sim.SiteStats{
		{Label: "k.cu:9 s[t] = v; [st.shared.f32 [%r3], %f1]", Space: "shared", Op: "st", Requests: 8, Wavefronts: 16, Conflicts: 8, LaneSlots: 256, ActiveLanes: 128},
		{Label: "x ld", Space: "global", Op: "ld", Requests: 2, Sectors: 8, LaneSlots: 64, ActiveLanes: 64},
		{Label: "k.cu:4 y[i] = a * x[i]; [ld.global.f32 %f2, [%rd6]]", Space: "global", Op: "ld", Requests: 4, Sectors: 128, LaneSlots: 128, ActiveLanes: 128, Array: "x"},
	}}
	want := []LineRow{
		{File: "k.cu", Line: 4, Source: "y[i] = a * x[i];", Instr: "ld.global.f32", Space: "global", Op: "ld", Requests: 4, SectorsPerRequest: 32, ActiveLanes: 1, Array: "x"},
		{File: "k.cu", Line: 9, Source: "s[t] = v;", Instr: "st.shared.f32", Space: "shared", Op: "st", Requests: 8, BankConflicts: 8, ActiveLanes: 0.5},
		{Source: "x ld", Space: "global", Op: "ld", Requests: 2, SectorsPerRequest: 4, ActiveLanes: 1},
	}
	l := &Launch{Stats: st}
	got := l.Lines()
	if len(got) != len(want) {
		t.Fatalf("Lines = %+v", got)
	}
	for i := range want {
		want[i].Label = got[i].Label
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for i, w := range []string{
		"line 4 x[] ld.global.f32: 4 requests, 32.00 sectors/request, 100.0% lanes active",
		"line 9 st.shared.f32: 8 requests, 8 bank conflicts, 50.0% lanes active",
		"x ld: 2 requests, 4.00 sectors/request, 100.0% lanes active",
	} {
		if s := got[i].String(); s != w {
			t.Errorf("row %d String = %q, want %q", i, s, w)
		}
	}
	tab := l.LinesTable()
	if len(tab.Rows) != 3 || tab.Rows[0][1] != "x[]" || tab.Rows[0][5] != "32.00" || tab.Rows[1][6] != "8" || tab.Rows[1][1] != "—" || tab.Rows[2][0] != "?" {
		t.Errorf("LinesTable rows = %q", tab.Rows)
	}
}

package gpuext

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// CUDA C typed into a notebook reaches the simulator (and a GPU) as PTX:
// Compile compiles it with the machine's nvcc, exactly as
// scripts/cuda/gen-ptx.sh compiles the lessons, so a student's kernel and a
// lesson's kernel are the same kind of artifact. PTX needs no GPU, which is
// why a laptop with Debian's nvidia-cuda-toolkit can run its own kernels on
// the simulator.

// PTXArch is the virtual architecture every PTX is generated for: the T4,
// the oldest GPU the course targets; a driver JIT-compiles it for any newer
// one.
const PTXArch = "compute_75"

// ptxFlags are nvcc's flags, the lessons' own (gen-ptx.sh). -lineinfo
// writes .loc lines, so the simulator's counters and faults name the .cu
// line; it changes no instruction.
var ptxFlags = []string{"-ptx", "-arch=" + PTXArch, "-O3", "-lineinfo"}

// fixedDir is where nvcc reads the source from. nvcc hashes the source's
// absolute path into internal symbol names, so one fixed path (the one
// gen-ptx.sh uses, under the same flock) makes the PTX the same on every
// machine, which is what lets the repository's cache be checked byte for
// byte.
const fixedDir = "/tmp/warplab-gen-ptx"

// ErrNoNVCC is wrapped by Compile's error when a source is in neither
// cache and no nvcc can be found to compile it. It names setup.sh by its
// absolute path in the checkout this package was built from, so that the
// command works from a notebook's folder too.
var ErrNoNVCC = errors.New("no nvcc to compile CUDA C (install one with " + setupNVCC() + ": Debian's nvidia-cuda-toolkit, no GPU needed)")

// setupNVCC is the command that installs nvcc: <checkout>/scripts/setup.sh
// --nvcc when the checkout this file was compiled from is here, else the
// path relative to a checkout.
func setupNVCC() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		script := filepath.Join(filepath.Dir(filepath.Dir(file)), "scripts", "setup.sh")
		if _, err := os.Stat(script); err == nil {
			return script + " --nvcc"
		}
	}
	return "scripts/setup.sh --nvcc in a warplab checkout"
}

// CompileOptions say where Compile looks for PTX and which nvcc it runs.
type CompileOptions struct {
	// NVCC is the compiler; "" looks for "nvcc" on PATH.
	NVCC string
	// CacheDir is the per-user PTX cache; "" means
	// os.UserCacheDir()/warplab/ptx.
	CacheDir string
	// Repo is a read-only cache of <key>.ptx entries shipped with the
	// code (the repository's notebooks/ptxcache, which package lab
	// passes), so that shipped notebooks compile where there is no nvcc;
	// nil means none. RepoName names it in CompileInfo.Path.
	Repo     fs.FS
	RepoName string
	// Record, when set, is a folder that each freshly compiled entry is
	// also written to as <key>.cu and <key>.ptx (or <key>.err, nvcc's
	// messages, for a source that does not compile): how notebooks/ptxcache
	// is regenerated. Only nvcc 11.8's PTX is recorded.
	Record string
}

// CompileInfo says where a module's PTX came from.
type CompileInfo struct {
	// From is "repository" (CompileOptions.Repo), "user cache" or "nvcc"
	// (compiled just now).
	From string
	// Path is the cache file read or written.
	Path string
	// NVCC is the release that made the PTX, e.g. "11.8.89" (from the
	// PTX's provenance line).
	NVCC string
	// Key is the entry's name in either cache (PTXCacheKey).
	Key string
}

func (ci CompileInfo) String() string {
	return fmt.Sprintf("PTX by nvcc %s for %s, from %s (%s)", ci.NVCC, PTXArch, ci.From, ci.Path)
}

// Compile compiles the CUDA C src to a Module named name whose PTX the
// simulator runs (and a GPU loads). Kernels must be declared extern "C".
// The PTX comes from the repository's cache, else the user's, else the
// machine's nvcc (then cached); the Module's Compiled says which. A compile
// error is a *CompileError whose lines are src's own: start a Go raw string
// on the first line of a cell and they are the cell's lines too. Compile
// uses the zero CompileOptions (nvcc on PATH, the user's cache);
// CompileOptions.Compile takes others, and package lab's Compile adds the
// repository's cache and the environment's settings.
func Compile(name, src string) (*Module, error) {
	m, _, err := CompileOptions{}.Compile(name, src)
	return m, err
}

// CompileKernel compiles src as Compile does, to a module named name, and
// returns its kernel name: the one call a notebook cell needs for a source
// that holds one kernel. k.Module().Compiled says where the PTX came from.
func CompileKernel(name, src string) (*Kernel, error) {
	m, err := Compile(name, src)
	if err != nil {
		return nil, err
	}
	return m.Kernel(name)
}

// PTXCacheKey names the cache entry of src compiled as name: the sha256 of
// the file name nvcc sees, the source and the flags. The repository's
// cache is keyed by it alone (it is read where there is no nvcc to ask);
// the user cache adds nvcc's version (userKey).
func PTXCacheKey(name, src string) string {
	return hashOf(cuName(name), src, strings.Join(ptxFlags, " "))
}

func hashOf(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cuName is the source file nvcc compiles, and the name faults and
// compile errors use.
func cuName(name string) string { return sanitize(name) + ".cu" }

// Compile is the package's Compile with these options; it also says where
// the PTX came from (as the Module's Compiled does).
func (o CompileOptions) Compile(name, src string) (*Module, CompileInfo, error) {
	key := PTXCacheKey(name, src)
	info := CompileInfo{Key: key}
	mod := func(ptx []byte) (*Module, CompileInfo, error) {
		h, err := ParsePTXHeader(ptx)
		if err != nil {
			return nil, info, fmt.Errorf("gpuext: PTX cache entry %s: %w", info.Path, err)
		}
		if h.SHA256 != SourceSum([]byte(src)) || h.Source != cuName(name) {
			return nil, info, fmt.Errorf("gpuext: PTX cache entry %s was made from %s with sha256 %s, not this %s", info.Path, h.Source, h.SHA256, cuName(name))
		}
		info.NVCC = h.NVCC
		m := NewModule(name, src, string(ptx))
		m.Compiled = info
		return m, info, nil
	}
	if o.Repo != nil {
		if ptx, err := fs.ReadFile(o.Repo, key+".ptx"); err == nil {
			info.From, info.Path = "repository", o.repoPath(key+".ptx")
			return mod(ptx)
		}
		// A notebook that teaches a compile error keeps nvcc's answer, so
		// the error shows where there is no nvcc too.
		if rec, err := fs.ReadFile(o.Repo, key+".err"); err == nil {
			info.From, info.Path = "repository", o.repoPath(key+".err")
			h, err := ParsePTXHeader(rec)
			if err != nil || h.SHA256 != SourceSum([]byte(src)) || h.Source != cuName(name) {
				return nil, info, fmt.Errorf("gpuext: PTX cache entry %s is not nvcc's output for this %s (%v)", info.Path, cuName(name), err)
			}
			info.NVCC = h.NVCC
			_, out, _ := strings.Cut(string(rec), "\n")
			return nil, info, parseCompileError(cuName(name), h.NVCC, src, out, errRecorded)
		}
	}
	nvcc, version, err := o.findNVCC()
	if err != nil {
		return nil, info, fmt.Errorf("gpuext: %s is in no PTX cache, and %w", cuName(name), err)
	}
	dir := o.CacheDir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, info, fmt.Errorf("gpuext: no user cache folder for PTX (set WARPLAB_PTX_CACHE): %w", err)
		}
		dir = filepath.Join(base, "warplab", "ptx")
	}
	info.Path = filepath.Join(dir, hashOf(key, version)+".ptx")
	if ptx, err := os.ReadFile(info.Path); err == nil && len(ptx) > 0 {
		info.From = "user cache"
		return mod(ptx)
	}
	ptx, err := compilePTX(nvcc, nvccRelease(version), name, src)
	var ce *CompileError
	if errors.As(err, &ce) && o.Record != "" && strings.HasPrefix(ce.NVCC, "11.8.") {
		info.From, info.NVCC = "nvcc", ce.NVCC
		if werr := o.record(key, src, ".err", []byte(header(name, src, ce.NVCC)+ce.Output)); werr != nil {
			return nil, info, werr
		}
	}
	if err != nil {
		return nil, info, err
	}
	if err := writeAtomic(info.Path, ptx); err != nil {
		return nil, info, fmt.Errorf("gpuext: PTX cache: %w", err)
	}
	if o.Record != "" && strings.HasPrefix(nvccRelease(version), "11.8.") {
		if err := o.record(key, src, ".ptx", ptx); err != nil {
			return nil, info, err
		}
	}
	info.From = "nvcc"
	return mod(ptx)
}

// errRecorded stands for nvcc's exit status in a compile error read back
// from the repository's cache.
var errRecorded = errors.New("nvcc failed (its output recorded in the repository's PTX cache)")

// repoPath names an entry of the Repo cache for messages.
func (o CompileOptions) repoPath(entry string) string {
	if o.RepoName == "" {
		return "repository cache " + entry
	}
	return o.RepoName + "/" + entry
}

// record writes an entry into the Record folder: <key>.cu and <key><ext>.
func (o CompileOptions) record(key, src, ext string, b []byte) error {
	if err := writeAtomic(filepath.Join(o.Record, key+".cu"), []byte(src)); err != nil {
		return fmt.Errorf("gpuext: recording %s: %w", key, err)
	}
	if err := writeAtomic(filepath.Join(o.Record, key+ext), b); err != nil {
		return fmt.Errorf("gpuext: recording %s: %w", key, err)
	}
	return nil
}

// header is the provenance line (with its newline) of src compiled as name
// by nvcc release, in gen-ptx.sh's format.
func header(name, src, release string) string {
	h := PTXHeader{SHA256: SourceSum([]byte(src)), Source: cuName(name), NVCC: release, Arch: PTXArch, Flags: "-lineinfo"}
	return h.String() + "\n"
}

// findNVCC returns nvcc's path and its --version text, or an error
// wrapping ErrNoNVCC.
func (o CompileOptions) findNVCC() (path, version string, err error) {
	name := o.NVCC
	if name == "" {
		name = "nvcc"
	}
	path, err = exec.LookPath(name)
	if err != nil {
		return "", "", fmt.Errorf("there is %w; or set WARPLAB_NVCC (looked for %q)", ErrNoNVCC, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("%s --version failed (%v), so there is %w", path, err, ErrNoNVCC)
	}
	return path, string(out), nil
}

// compilePTX runs nvcc on src from fixedDir and returns the PTX with the
// provenance line gen-ptx.sh writes, and .file naming the source without a
// folder, so that the bytes depend on nothing but the source, the flags
// and nvcc.
func compilePTX(nvcc, release, name, src string) ([]byte, error) {
	file := cuName(name)
	if err := os.MkdirAll(fixedDir, 0o777); err != nil {
		return nil, fmt.Errorf("gpuext: nvcc's source folder: %w", err)
	}
	unlock, err := lockDir(filepath.Join(fixedDir, ".lock"))
	if err != nil {
		return nil, fmt.Errorf("gpuext: locking %s: %w", fixedDir, err)
	}
	defer unlock()
	srcPath := filepath.Join(fixedDir, file)
	if err := os.WriteFile(srcPath, []byte(src), 0o644); err != nil {
		return nil, fmt.Errorf("gpuext: %w", err)
	}
	defer os.Remove(srcPath)
	tmp, err := os.MkdirTemp("", "warplab-ptx-")
	if err != nil {
		return nil, fmt.Errorf("gpuext: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "out.ptx")
	ctx, cancel := context.WithTimeout(context.Background(), nvccTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvcc, append(append([]string(nil), ptxFlags...), "-o", out, file)...)
	cmd.Dir = fixedDir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("gpuext: nvcc %s ran longer than %v on %s", release, nvccTimeout, file)
		}
		return nil, parseCompileError(file, release, src, stderr.String(), err)
	}
	ptx, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("gpuext: %w", err)
	}
	// As gen-ptx.sh: keep the file name only in .file.
	fileRE := regexp.MustCompile(`(?m)^(\s*\.file\s+[0-9]+\s+")[^"]*/(` + regexp.QuoteMeta(file) + `")`)
	ptx = fileRE.ReplaceAll(ptx, []byte("${1}${2}"))
	return append([]byte(header(name, src, release)), ptx...), nil
}

// writeAtomic writes b to path through a rename, so that concurrent
// notebooks never read a half-written entry.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// CompileMessage is one diagnostic of nvcc, at a line of the student's
// source.
type CompileMessage struct {
	Line     int    // 1-based line of the source handed to Compile
	Severity string // "error" or "warning"
	Text     string // nvcc's message, e.g. `identifier "foo" is undefined`
	Source   string // that line of the source, trimmed
}

func (m CompileMessage) String() string {
	s := fmt.Sprintf("line %d: %s: %s", m.Line, m.Severity, m.Text)
	if m.Source != "" {
		s += "\n        " + m.Source
	}
	return s
}

// CompileError is nvcc refusing a source: every message with its line.
type CompileError struct {
	File     string // e.g. "saxpy.cu"
	NVCC     string // release, e.g. "11.8.89"
	Messages []CompileMessage
	Output   string // nvcc's whole output, for what Messages did not parse
	Err      error  // how nvcc exited
}

func (e *CompileError) Error() string {
	var b strings.Builder
	errs := 0
	for _, m := range e.Messages {
		if m.Severity == "error" {
			errs++
		}
	}
	plural := "s"
	if errs == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "nvcc %s: %s does not compile (%d error%s)", e.NVCC, e.File, errs, plural)
	if len(e.Messages) == 0 {
		fmt.Fprintf(&b, " (%v):\n%s", e.Err, strings.TrimSpace(e.Output))
		return b.String()
	}
	for _, m := range e.Messages {
		b.WriteString("\n  " + m.String())
	}
	return b.String()
}

// Unwrap returns how nvcc exited.
func (e *CompileError) Unwrap() error { return e.Err }

// nvccMsgRE matches `saxpy.cu(3): error: ...` and `saxpy.cu(3): warning #177-D: ...`.
var nvccMsgRE = regexp.MustCompile(`^(.*)\(([0-9]+)\): (error|warning|catastrophic error)(?: #[0-9]+-D)?: (.*)$`)

// parseCompileError turns nvcc's output into a *CompileError whose lines
// are src's own (the source is compiled unmodified: nothing is prepended).
func parseCompileError(file, release, src, out string, err error) *CompileError {
	lines := strings.Split(src, "\n")
	ce := &CompileError{File: file, NVCC: release, Output: out, Err: err}
	var last *CompileMessage // the message an indented line continues
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimRight(l, "\r")
		m := nvccMsgRE.FindStringSubmatch(l)
		if m == nil {
			// nvcc continues a message on indented lines ("argument
			// types are: ..."); a blank line ends it.
			if t := strings.TrimSpace(l); last != nil && t != "" && t != l {
				last.Text += "; " + t
			} else {
				last = nil
			}
			continue
		}
		if last = nil; filepath.Base(m[1]) != file {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		cm := CompileMessage{Line: n, Severity: m[3], Text: m[4]}
		if m[3] == "catastrophic error" {
			cm.Severity = "error"
		}
		if n >= 1 && n <= len(lines) {
			cm.Source = strings.TrimSpace(lines[n-1])
		}
		ce.Messages = append(ce.Messages, cm)
		last = &ce.Messages[len(ce.Messages)-1]
	}
	return ce
}

package labtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/nbtest"
	"github.com/warplab/warplab/lessons/spmv"
)

// The image runs offline (issue 31, item 10): a classroom behind a firewall,
// or a laptop with no network, must not wait on a module proxy it cannot
// reach. GoNB runs goimports on every cell, and goimports runs
// `go list -m -e -json ...`; with a module's .info missing from the module
// cache and a proxy in GOPROXY, every cell waited out the connection (15 s
// measured in the image's JupyterLab, 10 s here: the resolver's timeout).

// trivialCellLimit bounds a cell that only declares a constant or prints a
// line, after the kernel's first build: a goimports, a `go build` on a warm
// build cache, a run. About a second on the development machine (2 cores,
// shared); waiting on the network took 10 s or more a cell.
const trivialCellLimit = 8 * time.Second

// goListLimit bounds `go list -m -json all` in the checkout, offline, with
// the kernel's environment: it reads the module cache only (tens of ms).
const goListLimit = 5 * time.Second

// needIP skips unless the host has ip(8), which Root.Offline uses.
func needIP(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("Root.Offline needs the host's ip(8) (Debian's iproute2)")
	}
}

// offlineRoot is a fresh working container of img whose commands run with no
// network (Root.Offline), with a name server that does not answer: what a
// class behind a firewall that drops packets gets. Any lookup then waits out
// the resolver's timeout, as in the student's report, instead of failing at
// once (with no resolv.conf, Go asks 127.0.0.1, which refuses at once). The
// address is TEST-NET-1 (RFC 5737), reachable nowhere.
func offlineRoot(t *testing.T, img string) *Root {
	t.Helper()
	r := newRoot(t, img)
	r.Offline = true
	resolv := r.Path("/etc/resolv.conf")
	if err := os.Remove(resolv); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.WriteFile(resolv, []byte("nameserver 192.0.2.53\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The namespace drops, it does not refuse: a connection to an outside
	// address hangs until given up.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	out, err := r.Command(ctx, "/", nil, "timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/192.0.2.1/80").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 124 {
		t.Fatalf("a connection out of the offline root: %v after %.1f s, want it to hang until timeout (exit 124)\n%s", err, time.Since(start).Seconds(), out)
	}
	return r
}

// runIn runs argv in r in dir with env on top of the image's, and returns
// its combined output and how long it took.
func runIn(ctx context.Context, r *Root, dir string, env []string, argv ...string) (string, time.Duration, error) {
	start := time.Now()
	out, err := r.Command(ctx, dir, env, argv...).CombinedOutput()
	took := time.Since(start)
	if err != nil {
		return string(out), took, fmt.Errorf("%s in %s: %v after %.1f s\n%s", strings.Join(argv, " "), dir, err, took.Seconds(), tailString(string(out), 3000))
	}
	return string(out), took, nil
}

// kernelEnv is the GoNB kernel's environment in the image (the kernel spec
// scripts/setup.sh wrote), as KEY=VALUE with ${PATH} expanded the way
// Jupyter expands it, from the image's PATH.
func kernelEnv(t *testing.T, r *Root) map[string]string {
	t.Helper()
	data := "/usr/local/share/jupyter"
	path := "/usr/bin:/bin"
	for _, kv := range r.Env {
		if v, ok := strings.CutPrefix(kv, "JUPYTER_DATA_DIR="); ok {
			data = v
		}
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	b, err := os.ReadFile(r.Path(filepath.Join(data, "kernels", "gonb", "kernel.json")))
	if err != nil {
		t.Fatalf("the image's GoNB kernel spec: %v", err)
	}
	var spec struct {
		Env map[string]string `json:"env"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	for k, v := range spec.Env {
		spec.Env[k] = strings.ReplaceAll(v, "${PATH}", path)
	}
	return spec.Env
}

func envList(m map[string]string) []string {
	var l []string
	for k, v := range m {
		l = append(l, k+"="+v)
	}
	slices.Sort(l)
	return l
}

// executeInRoot executes the notebook at nbPath (a path in r) with the GoNB
// kernel under nbconvert, in the notebook's folder, each cell bounded by
// cell, and returns the executed notebook's path in r.
func executeInRoot(ctx context.Context, r *Root, nbPath string, cell time.Duration) (string, error) {
	dir, name := filepath.Dir(nbPath), filepath.Base(nbPath)
	outName := strings.TrimSuffix(name, ".ipynb") + ".executed.ipynb"
	_, _, err := runIn(ctx, r, dir, nil, "jupyter", "nbconvert", "--execute", "--allow-errors", "--to", "notebook",
		"--ExecutePreprocessor.kernel_name=gonb",
		"--ExecutePreprocessor.timeout="+strconv.Itoa(int(cell.Seconds())),
		"--output-dir", dir, "--output", outName, name)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, outName), nil
}

// cellTimes returns each code cell's time from the kernel's receiving it to
// its reply, as nbclient records it (metadata.execution), by cell index.
// GoNB stamps its messages to the second, so a time is good to a second.
func cellTimes(b []byte) (map[int]time.Duration, error) {
	var nb struct {
		Cells []struct {
			CellType string `json:"cell_type"`
			Metadata struct {
				Execution map[string]string `json:"execution"`
			} `json:"metadata"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, err
	}
	times := map[int]time.Duration{}
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		in, err1 := time.Parse(time.RFC3339Nano, c.Metadata.Execution["iopub.execute_input"])
		out, err2 := time.Parse(time.RFC3339Nano, c.Metadata.Execution["shell.execute_reply"])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("cell %d: no execution times (metadata.execution %v): %w", i, c.Metadata.Execution, err)
		}
		times[i] = out.Sub(in)
	}
	return times, nil
}

// trivialNotebook is a notebook of trivial cells, set up as the lessons are:
// a first cell imports a package of the checkout (goimports has to resolve
// it, from then on in every cell, through the module resolver: `go list -m`)
// and starts the kernel; then declarations and prints. Its promises are the
// cells' outputs.
func trivialNotebook() []byte {
	cells := []string{
		"import (\n\t\"fmt\"\n\n\t\"github.com/warplab/warplab/gpuext\"\n)",
		"%%\nfmt.Println(\"the kernel is up; PTX for\", gpuext.PTXArch)",
		"const answer = 42",
		"%%\nfmt.Println(\"the answer is\", answer)",
		"func twice(x int) int { return 2 * x }",
		"%%\nfmt.Println(\"twice the answer is\", twice(answer))",
	}
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{
			"kernelspec": map[string]any{"name": "gonb", "display_name": "Go (gonb)", "language": "go"},
			"warplab": map[string]any{"expect": []string{
				"the kernel is up; PTX for compute_75", "the answer is 42", "twice the answer is 84"}},
		},
	}
	var cs []map[string]any
	for i, src := range cells {
		cs = append(cs, map[string]any{"id": fmt.Sprintf("offline-%02d", i), "cell_type": "code",
			"metadata": map[string]any{}, "source": src, "outputs": []any{}, "execution_count": nil})
	}
	nb["cells"] = cs
	b, _ := json.MarshalIndent(nb, "", " ")
	return b
}

// TestLabOffline runs the simulator image with no network at all, as a
// class behind a firewall would (offlineRoot): the image's start
// (scripts/setup.sh, its command's first step) must work, the module list
// goimports reads must come from the module cache in a moment, and a
// trivial cell must take a moment, not a network timeout.
func TestLabOffline(t *testing.T) {
	needLab(t)
	needIP(t)
	img := image(t, "sim")
	r := offlineRoot(t, img)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	// The image's start, offline.
	out, took, err := runIn(ctx, r, "/warplab", nil, "scripts/setup.sh")
	if err != nil {
		t.Fatalf("the image's start (scripts/setup.sh) offline: %v", err)
	}
	t.Logf("scripts/setup.sh offline in %.1f s:\n%s", took.Seconds(), out)

	env := kernelEnv(t, r)
	t.Logf("kernel env: %q", envList(env))
	if env["GOPROXY"] != "off" {
		t.Errorf("the kernel's GOPROXY is %q, want off: the image is offline", env["GOPROXY"])
	}

	// What goimports asks on every cell, answered from the module cache.
	_, took, err = runIn(ctx, r, "/warplab", envList(env), "go", "list", "-m", "-json", "all")
	if err != nil {
		t.Errorf("go list -m -json all, offline with the kernel's environment: %v", err)
	} else if took > goListLimit {
		t.Errorf("go list -m -json all took %.1f s offline, over %v", took.Seconds(), goListLimit)
	} else {
		t.Logf("go list -m -json all offline: %.2f s", took.Seconds())
	}

	// Trivial cells, in the kernel.
	dir := "/root/offline"
	if err := os.MkdirAll(r.Path(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Path(dir+"/trivial.ipynb"), trivialNotebook(), 0o644); err != nil {
		t.Fatal(err)
	}
	// On the image before the fix (the kernel's GOPROXY ending in the proxy,
	// 93 modules without .info), the first cell had not finished after 5
	// minutes here, each lookup waiting out the resolver: nbconvert then
	// reports a CellTimeoutError.
	executed, err := executeInRoot(ctx, r, dir+"/trivial.ipynb", 2*time.Minute)
	if err != nil {
		t.Fatalf("trivial cells offline (a cell waiting on the network times out): %v", err)
	}
	b, err := os.ReadFile(r.Path(executed))
	if err != nil {
		t.Fatal(err)
	}
	nb, err := nbtest.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range nbtest.Check(nb) {
		t.Errorf("trivial notebook, offline: %s", p)
	}
	times, err := cellTimes(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(nb.Cells) {
		d, ok := times[i]
		if !ok {
			continue
		}
		first := strings.SplitN(nb.Cells[i].Source, "\n", 2)[0]
		switch {
		case i < 2:
			t.Logf("cell %d (%q, the kernel's start and the first build, not bounded): %.0f s", i, first, d.Seconds())
		case d > trivialCellLimit:
			t.Errorf("cell %d (%q) took %.1f s offline, over %v: a cell waits on the network", i, first, d.Seconds(), trivialCellLimit)
		default:
			t.Logf("cell %d (%q): %.0f s", i, first, d.Seconds())
		}
	}
}

// TestLabSpmv runs the image's spmv notebook as a hub student meets it — a
// copy in their own folder (outside /warplab), on the image's kernel, with
// no network — and every number it promises must hold: the image carries
// the SuiteSparse matrices its last comparison reads (issue 31, item 8).
func TestLabSpmv(t *testing.T) {
	needLab(t)
	needIP(t)
	img := image(t, "sim")
	r := offlineRoot(t, img)

	env := kernelEnv(t, r)
	mdir := env["WARPLAB_MATRICES"]
	if mdir == "" {
		t.Fatalf("the image's kernel names no WARPLAB_MATRICES: the image has no SuiteSparse matrices (scripts/lab/build.sh says where it looks for them)")
	}
	for _, name := range spmv.SuiteSparseNames {
		if st, err := os.Stat(r.Path(filepath.Join(mdir, name+".mtx"))); err != nil || st.Size() == 0 {
			t.Errorf("the image lacks %s.mtx in %s: %v", name, mdir, err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	src, err := os.ReadFile(r.Path("/warplab/notebooks/spmv.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := nbtest.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	// The notebook's own bounds, three times over: the machine is shared (as in
	// TestLabNotebook).
	whole, cell := (&nbtest.Runner{}).Timeouts(in)
	ctx, cancel := context.WithTimeout(context.Background(), 3*whole)
	defer cancel()
	dir := "/root/student/notebooks"
	if err := os.MkdirAll(r.Path(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Path(dir+"/spmv.ipynb"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	executed, err := executeInRoot(ctx, r, dir+"/spmv.ipynb", 3*cell)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.Path(executed))
	if err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(repoRoot(t), "artifacts", "lab", "spmv-offline.ipynb")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err == nil && os.WriteFile(keep, b, 0o644) == nil {
		t.Logf("executed notebook: %s", keep)
	}
	nb, err := nbtest.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("spmv.ipynb run offline in %.0f s; %d promises", time.Since(start).Seconds(), len(nb.Meta.Expect))
	for _, p := range nbtest.Check(nb) {
		t.Errorf("the image's spmv notebook: %s", p)
	}
}

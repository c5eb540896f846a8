package nbtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/warplab/warplab/internal/browser"
)

// Default time bounds; a notebook may set its own in metadata.warplab.
const (
	DefaultNotebookTimeout = 10 * time.Minute
	DefaultCellTimeout     = 5 * time.Minute
)

// KernelName is the Jupyter kernel spec scripts/setup.sh installs.
const KernelName = "gonb"

// Runner runs the external programs: Jupyter's nbconvert and Chromium.
// The zero value finds them in PATH.
type Runner struct {
	Jupyter  string // path to `jupyter`; "" means look it up in PATH
	Chromium string // path to `chromium`; "" means look it up in PATH
	// NotebookTimeout, when non-zero, overrides every notebook's own bound.
	NotebookTimeout time.Duration
	Env             []string // extra KEY=VALUE for the kernel (inherits this process's environment)
}

// FindJupyter returns the path of `jupyter` with nbconvert, or an error that
// says how to get it.
func (r *Runner) FindJupyter() (string, error) {
	if r.Jupyter != "" {
		return r.Jupyter, nil
	}
	p, err := exec.LookPath("jupyter")
	if err != nil {
		return "", errors.New("jupyter not found in PATH: run scripts/setup.sh (it installs Debian's jupyter-nbconvert and jupyter-notebook)")
	}
	return p, nil
}

// KernelWorkspace returns the module tree the installed GoNB kernel spec
// builds notebooks against (its -go_work= argument, which scripts/setup.sh
// sets to the checkout it ran in). The spec is the user's, one for every
// checkout: after setup.sh ran in another tree, notebooks here would run
// that tree's code, so the notebook test compares it with its own root.
func (r *Runner) KernelWorkspace(ctx context.Context) (string, error) {
	jup, err := r.FindJupyter()
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, jup, "--paths", "--json").Output()
	if err != nil {
		return "", fmt.Errorf("jupyter --paths: %w", err)
	}
	var paths struct {
		Data []string `json:"data"`
	}
	if err := json.Unmarshal(out, &paths); err != nil {
		return "", fmt.Errorf("jupyter --paths: %w", err)
	}
	// Jupyter takes the first data directory that holds the spec.
	for _, d := range paths.Data {
		b, err := os.ReadFile(filepath.Join(d, "kernels", KernelName, "kernel.json"))
		if err != nil {
			continue
		}
		var spec struct {
			Argv []string `json:"argv"`
		}
		if err := json.Unmarshal(b, &spec); err != nil {
			return "", fmt.Errorf("%s kernel spec in %s: %w", KernelName, d, err)
		}
		if w, ok := kernelGoWork(spec.Argv); ok {
			return w, nil
		}
		return "", fmt.Errorf("the %s kernel's argv %q (in %s) has no -go_work=: run scripts/setup.sh", KernelName, spec.Argv, d)
	}
	return "", fmt.Errorf("no %s kernel spec in Jupyter's data directories %q: run scripts/setup.sh", KernelName, paths.Data)
}

// kernelGoWork is the -go_work= argument of a GoNB kernel spec's argv.
func kernelGoWork(argv []string) (string, bool) {
	for _, a := range argv {
		if w, ok := strings.CutPrefix(a, "-go_work="); ok {
			return w, true
		}
	}
	return "", false
}

// FindChromium returns the path of a Chromium binary, or an error that says
// how to get it.
func (r *Runner) FindChromium() (string, error) { return browser.Find(r.Chromium) }

// Timeouts returns the bounds for nb: the Runner's override, else the
// notebook's metadata, else the defaults.
func (r *Runner) Timeouts(nb *Notebook) (notebook, cell time.Duration) {
	notebook, cell = DefaultNotebookTimeout, DefaultCellTimeout
	if nb.Meta.TimeoutSeconds > 0 {
		notebook = time.Duration(nb.Meta.TimeoutSeconds) * time.Second
	}
	if nb.Meta.CellTimeoutSeconds > 0 {
		cell = time.Duration(nb.Meta.CellTimeoutSeconds) * time.Second
	}
	if r.NotebookTimeout > 0 {
		notebook = r.NotebookTimeout
	}
	return notebook, min(cell, notebook)
}

// Execute runs every cell of the notebook at src with the GoNB kernel and
// writes the executed notebook to outDir/<name>.ipynb, which it returns
// parsed. Cells run in the notebook's own directory. Cell errors do not stop
// the run (they are outputs, found by Check); Execute fails only when the
// notebook cannot be run at all or runs past its time bound.
func (r *Runner) Execute(ctx context.Context, src, outDir string) (*Notebook, error) {
	jup, err := r.FindJupyter()
	if err != nil {
		return nil, err
	}
	in, err := Read(src)
	if err != nil {
		return nil, err
	}
	nbTimeout, cellTimeout := r.Timeouts(in)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(src), ".ipynb")
	out := filepath.Join(outDir, name+".ipynb")
	_ = os.Remove(out) // a stale result must not pass for this run's
	ctx, cancel := context.WithTimeout(ctx, nbTimeout)
	defer cancel()
	args := []string{"nbconvert", "--execute", "--allow-errors", "--to", "notebook",
		"--ExecutePreprocessor.kernel_name=" + KernelName,
		"--ExecutePreprocessor.timeout=" + strconv.Itoa(int(cellTimeout.Seconds())),
		"--output-dir", outDir, "--output", name, src}
	log, err := r.run(ctx, jup, args)
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s: not finished after %v (metadata.warplab.timeout_seconds bounds it); nbconvert said:\n%s",
			src, nbTimeout, tail(log, 2000))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: nbconvert --execute failed: %v\n%s", src, err, tail(log, 3000))
	}
	return Read(out)
}

// RenderHTML renders an executed notebook to outDir/<name>.html with
// nbconvert's HTML exporter (plots stay inline: SVG as markup, PNG as data:
// URLs) and returns the page's path.
func (r *Runner) RenderHTML(ctx context.Context, executed, outDir string) (string, error) {
	jup, err := r.FindJupyter()
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(executed), ".ipynb")
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	log, err := r.run(ctx, jup, []string{"nbconvert", "--to", "html", "--output-dir", outDir, "--output", name, executed})
	if err != nil {
		return "", fmt.Errorf("%s: nbconvert --to html failed: %v\n%s", executed, err, tail(log, 2000))
	}
	return filepath.Join(outDir, name+".html"), nil
}

// Screenshot opens page in headless Chromium at the given window size and
// writes a PNG of the window to png. The browser is driven through
// internal/browser (chromedp), the driver the JupyterLab tests use too: a
// fresh profile, no network, GPU or sandbox (so it runs as root in CI).
func (r *Runner) Screenshot(ctx context.Context, page, png string, width, height int) error {
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	_ = os.Remove(png)
	b, err := browser.Screenshot(ctx, r.browserOptions(width, height), "file://"+abs, 90*time.Second)
	if err != nil {
		return fmt.Errorf("chromium wrote no screenshot of %s: %w", page, err)
	}
	return os.WriteFile(png, b, 0o644)
}

// DumpDOM opens page in headless Chromium at the given window size, lets
// its scripts run until LookPage's report is in the page, and returns the
// DOM as serialized HTML, which is how the test reads what LookPage's
// script measured. A page without lookScript is returned after its load.
func (r *Runner) DumpDOM(ctx context.Context, page string, width, height int) (string, error) {
	abs, err := filepath.Abs(page)
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return "", err
	}
	ready := ""
	if strings.Contains(string(src), "warplab-look-script") {
		ready = "#" + lookID
	}
	dom, err := browser.DumpDOM(ctx, r.browserOptions(width, height), "file://"+abs, ready, 90*time.Second)
	if err != nil {
		return "", fmt.Errorf("chromium on %s: %w", page, err)
	}
	return dom, nil
}

func (r *Runner) browserOptions(width, height int) browser.Options {
	return browser.Options{Exec: r.Chromium, Width: width, Height: height, Env: r.Env}
}

// run runs prog and returns its combined output. On timeout it kills prog
// and everything it started: Jupyter starts the kernel in a session of its
// own, so a process group is not enough; the kernel and the compiled cell
// programs are found as descendants in /proc.
func (r *Runner) run(ctx context.Context, prog string, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), r.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		for _, pid := range descendants(cmd.Process.Pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// descendants returns the ids of every live process below pid, read from
// /proc (empty where there is no /proc).
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the parenthesized command: state, ppid, ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

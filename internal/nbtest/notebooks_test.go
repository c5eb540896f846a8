package nbtest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/testenv"
)

// moduleRoot is the directory holding go.mod.
func moduleRoot(t *testing.T) string { return testenv.ModuleRoot(t) }

// TestNotebookFiles checks, without running anything, that every notebook in
// notebooks/ parses, asks for the GoNB kernel and has valid expectations.
func TestNotebookFiles(t *testing.T) {
	paths, err := Notebooks(filepath.Join(moduleRoot(t), "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	kernel := regexp.MustCompile(`"kernelspec"\s*:\s*\{[^}]*"name"\s*:\s*"gonb"`)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			nb, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if !kernel.Match(b) {
				t.Errorf("metadata.kernelspec.name is not \"gonb\"")
			}
			if nb.Summary() == "" {
				t.Errorf("no summary for the index: set metadata.warplab.summary or start with a markdown cell")
			}
			for _, e := range nb.Meta.Expect {
				if _, err := regexp.Compile(e.Pattern); err != nil {
					t.Errorf("metadata.warplab.expect: %v", err)
				}
			}
			for _, p := range LongCells(nb, MaxCellLines) {
				t.Error(p)
			}
		})
	}
}

// TestNotebooks executes every notebook with the GoNB kernel, checks it, renders
// the lesson pages, looks at each page in headless Chromium (every figure
// laid out with a size, every image decoded, none cut off, no error shown:
// lookAtPage), and screenshots each whole page and each plot alone. It runs when WARPLAB_NOTEBOOK_TESTS=1 (scripts/test.sh sets it,
// after scripts/setup.sh --browser); WARPLAB_BROWSER_TESTS=0 skips the
// screenshots; WARPLAB_NOTEBOOKS_DIR runs another directory's notebooks.
// Pages go to artifacts/nbtest/site, screenshots to artifacts/screenshots
// (both gitignored).
func TestNotebooks(t *testing.T) {
	if os.Getenv("WARPLAB_NOTEBOOK_TESTS") != "1" {
		t.Skip("notebook tests are off: run scripts/test.sh, or scripts/setup.sh --browser then WARPLAB_NOTEBOOK_TESTS=1 go test ./internal/nbtest/")
	}
	root := moduleRoot(t)
	dir := filepath.Join(root, "notebooks")
	if d := os.Getenv("WARPLAB_NOTEBOOKS_DIR"); d != "" {
		dir = d // e.g. a scratch directory while writing a lesson
	}
	paths, err := Notebooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths = selectedNotebooks(paths)
	r := &Runner{}
	if _, err := r.FindJupyter(); err != nil {
		t.Fatal(err)
	}
	// The kernel spec is the user's: a setup.sh run in another checkout
	// points it there, and the notebooks would test that tree's code.
	if ws, err := r.KernelWorkspace(context.Background()); err != nil {
		t.Fatal(err)
	} else if filepath.Clean(ws) != filepath.Clean(root) {
		t.Fatalf("the %s kernel builds notebooks against %s, not this checkout (%s): run scripts/setup.sh here first", KernelName, ws, root)
	}
	browser := os.Getenv("WARPLAB_BROWSER_TESTS") != "0"
	if browser {
		if _, err := r.FindChromium(); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	siteDir := filepath.Join(root, "artifacts", "nbtest", "site")
	shots := filepath.Join(root, "artifacts", "screenshots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	lessons, err := r.BuildSite(ctx, paths, siteDir, logWriter{t})
	if len(lessons) != len(paths) {
		t.Fatalf("site has %d lessons for %d notebooks: %v", len(lessons), len(paths), err)
	}
	if err != nil {
		// Each lesson's problems are reported by its subtest below.
		t.Logf("site build: %v", err)
	}
	index, err := os.ReadFile(filepath.Join(siteDir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lessons {
		t.Run(l.Name, func(t *testing.T) {
			for _, p := range l.Problems {
				t.Error(p)
			}
			if l.Page == "" {
				return
			}
			if !strings.Contains(string(index), `href="`+l.Page+`"`) {
				t.Errorf("index.html does not link %s", l.Page)
			}
			if !browser {
				return
			}
			screenshotPage(ctx, t, r, filepath.Join(siteDir, l.Page), shots, l)
		})
	}
}

// Screenshot sizes: a page at a laptop's width, its full height up to
// Chromium's largest surface; a plot alone at a notebook's width.
const (
	pageWidth     = 1200
	maxPageHeight = 16000
)

// screenshotPage looks at the lesson page in the browser (lookAtPage), then
// screenshots all of it and each of its plots alone, and fails when the page
// or a plot is blank.
func screenshotPage(ctx context.Context, t *testing.T, r *Runner, page, shots string, l Lesson) {
	plots := 0
	for _, c := range l.Executed.Cells {
		if c.HasTag(PlotTag) {
			plots++
		}
	}
	look := lookAtPage(ctx, t, r, page, plots)
	height := min(max(look.Height, 800), maxPageHeight)
	if look.Height > maxPageHeight {
		t.Logf("page %s is %d px high; the screenshot shows its first %d", page, look.Height, maxPageHeight)
	}
	full := filepath.Join(shots, l.Name+".png")
	if err := r.Screenshot(ctx, page, full, pageWidth, height); err != nil {
		t.Fatal(err)
	}
	ink, err := MeasureInk(full)
	if err != nil {
		t.Fatal(err)
	}
	if why := ink.Blank(2000); why != "" { // something rendered; the plot checks below are the strict ones
		t.Errorf("page screenshot %s is blank: %s", full, why)
	}
	t.Logf("screenshot %s: %d of %d pixels inked", full, ink.Pixels, ink.Total)

	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for k := range plots {
		variant, err := PlotPage(string(html), k)
		if err != nil {
			t.Fatal(err)
		}
		// Beside the page, so relative resources resolve the same way.
		vpath := filepath.Join(filepath.Dir(page), fmt.Sprintf(".%s.plot%d.html", l.Name, k+1))
		if err := os.WriteFile(vpath, []byte(variant), 0o644); err != nil {
			t.Fatal(err)
		}
		png := filepath.Join(shots, fmt.Sprintf("%s.plot%d.png", l.Name, k+1))
		if err := r.Screenshot(ctx, vpath, png, 1000, 1400); err != nil {
			t.Fatal(err)
		}
		ink, err := MeasureInk(png)
		if err != nil {
			t.Fatal(err)
		}
		// A drawn gonum plot inks several percent of its area; a blank or
		// broken one, a few hundred pixels at most.
		if why := ink.Blank(2000); why != "" {
			t.Errorf("plot %d of %s is blank in %s: %s", k+1, l.Page, png, why)
		}
		t.Logf("plot %d screenshot %s: %d pixels inked in %v", k+1, png, ink.Pixels, ink.Bounds)
	}
}

// lookAtPage opens a copy of page with LookPage's script in headless
// Chromium and fails the test for each problem a reader would see: an error
// shown, a figure with no size, an image that does not decode, a figure cut
// off, or plot cells without a figure. It returns what the browser saw.
func lookAtPage(ctx context.Context, t *testing.T, r *Runner, page string, plotCells int) Look {
	t.Helper()
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	variant, err := LookPage(string(html))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	// Beside the page, so relative resources resolve the same way.
	vpath := filepath.Join(filepath.Dir(page), "."+filepath.Base(page)+".look.html")
	if err := os.WriteFile(vpath, []byte(variant), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := r.DumpDOM(ctx, vpath, pageWidth, 900)
	if err != nil {
		t.Fatal(err)
	}
	look, err := ParseLook(dom)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	for _, p := range look.Problems(plotCells) {
		t.Errorf("%s: %s", filepath.Base(page), p)
	}
	for i, f := range look.Figures {
		t.Logf("%s: figure %d <%s> %d×%d px (plot cell: %v)", filepath.Base(page), i+1, f.Tag, f.Width, f.Height, f.Plot)
	}
	return look
}

// selectedNotebooks keeps the notebooks that the second element of the
// -run pattern selects (`-run 'TestNotebooks/spmv'` executes spmv.ipynb
// alone), because every notebook is executed before the per-notebook
// subtests start and executing them all takes minutes. Without such an
// element every notebook runs.
func selectedNotebooks(paths []string) []string {
	f := flag.Lookup("test.run")
	if f == nil {
		return paths
	}
	parts := strings.SplitN(f.Value.String(), "/", 3)
	if len(parts) < 2 || parts[1] == "" {
		return paths
	}
	re, err := regexp.Compile(parts[1])
	if err != nil {
		return paths
	}
	var out []string
	for _, p := range paths {
		if re.MatchString(strings.TrimSuffix(filepath.Base(p), ".ipynb")) {
			out = append(out, p)
		}
	}
	return out
}

// logWriter sends progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

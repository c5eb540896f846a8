package labtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// LabPage is what the browser saw of a notebook JupyterLab ran.
type LabPage struct {
	CodeCells int        // code cells on the page
	Prompts   []string   // each code cell's prompt, e.g. "[3]:" ("[*]:" while running)
	Figures   []Figure   // every figure in an output area
	Errors    []string   // error outputs and GoNB error reports shown on the page
	Stderr    []string   // visible stderr outputs (progress lines go there too)
	Kernel    string     // the kernel's name in the notebook's toolbar
	Elapsed   [2]float64 // seconds to the first cell's prompt, seconds to all done
}

// Figure is one <svg> or <img> in a cell's output, after layout.
type Figure struct {
	Cell          int // index among the page's code cells
	Tag           string
	Width, Height int  // laid-out size in CSS pixels
	Decoded       bool // an <img> whose image decoded (always true for <svg>)
}

// labLookJS measures the notebook on the page: every code cell's prompt,
// the outermost <svg> and every <img> in its output area with its size,
// error outputs and GoNB's error reports that are shown, visible stderr, and
// the kernel name the toolbar shows. Cells are in notebook order: the image
// keeps every cell on the page (windowingMode "none", docker/Dockerfile).
const labLookJS = `(() => {
  const panel = [...document.querySelectorAll('.jp-NotebookPanel')].find(p => !p.classList.contains('lm-mod-hidden'));
  const out = {CodeCells: 0, Prompts: [], Figures: [], Errors: [], Stderr: [], Kernel: ''};
  if (!panel) { return JSON.stringify(out); }
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const cells = [...panel.querySelectorAll('.jp-Notebook .jp-CodeCell')];
  out.CodeCells = cells.length;
  cells.forEach((cell, i) => {
    const p = cell.querySelector('.jp-InputArea-prompt');
    out.Prompts.push(p ? p.textContent.trim() : '');
    cell.querySelectorAll('.jp-OutputArea svg, .jp-OutputArea img').forEach(el => {
      const tag = el.tagName.toLowerCase();
      if (tag === 'svg' && el.parentElement && el.parentElement.closest('svg')) { return; }
      const r = el.getBoundingClientRect();
      out.Figures.push({Cell: i, Tag: tag, Width: Math.round(r.width), Height: Math.round(r.height),
        Decoded: tag !== 'img' || (el.complete && el.naturalWidth > 0)});
    });
    cell.querySelectorAll('.gonb-err-location, .gonb-err-line, .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]').forEach(el => {
      if (shown(el)) { out.Errors.push('cell ' + i + ': ' + el.textContent.trim().slice(0, 300)); }
    });
    cell.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').forEach(el => {
      if (shown(el)) { out.Stderr.push('cell ' + i + ': ' + el.textContent.trim().slice(0, 300)); }
    });
  });
  const k = panel.querySelector('.jp-KernelName, .jp-Toolbar-kernelName');
  out.Kernel = k ? k.textContent.trim() : '';
  return JSON.stringify(out);
})()`

// look reads the page's notebook with labLookJS.
func look(ctx context.Context) (*LabPage, error) {
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](labLookJS))
	if err != nil {
		return nil, fmt.Errorf("reading the notebook page: %w", err)
	}
	var p LabPage
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return nil, fmt.Errorf("reading the notebook page: %v: %.200s", err, s)
	}
	return &p, nil
}

// menu clicks a JupyterLab menu bar item by its label, then the menu entry
// that runs one of commands (its data-command attribute): how a student runs
// "Run All Cells" or "Save Notebook".
func menu(ctx context.Context, label string, commands ...string) error {
	bar := fmt.Sprintf(`[...document.querySelectorAll('#jp-MainMenu .lm-MenuBar-item')].find(li => li.textContent.trim() === %q)`, label)
	var sel []string
	for _, c := range commands {
		sel = append(sel, fmt.Sprintf(`.lm-Menu li.lm-Menu-item[data-command=%q]:not(.lm-mod-disabled)`, c))
	}
	entry := fmt.Sprintf(`document.querySelector(%q)`, strings.Join(sel, ", "))
	command := strings.Join(commands, " or ")
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := pointAndClick(tctx, bar)
	if err == nil {
		err = pointAndClick(tctx, entry)
	}
	if err != nil {
		open, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.lm-Menu li.lm-Menu-item')].map(li => li.dataset.command).join(' ') || 'no open menu'`))
		return fmt.Errorf("menu %s → %s: %w (entries of the open menu: %s)", label, command, err, open)
	}
	return nil
}

// pointAndClick waits for the element the JavaScript expression elem finds,
// then moves the mouse onto its center, presses and releases the left
// button there, as a hand on a mouse does: Lumino's menus act on the item the
// pointer is over, so a click without the move does nothing.
func pointAndClick(ctx context.Context, elem string) error {
	expr := `(() => { const el = ` + elem + `; if (!el) { return null; }
  el.scrollIntoView({block: 'nearest'}); const r = el.getBoundingClientRect();
  return (r.width > 0 && r.height > 0) ? [r.left + r.width / 2, r.top + r.height / 2] : null; })()`
	for {
		xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](expr))
		if err == nil && len(xy) == 2 {
			x, y := xy[0], xy[1]
			return chromedp.Do(ctx,
				chromedp.MouseEvent(chromedp.MouseMoved, x-2, y),
				chromedp.MouseEvent(chromedp.MouseMoved, x, y),
				chromedp.MouseClickXY(x, y),
			)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nothing to click for %s: %w", elem, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// RunNotebookInLab opens path (relative to the server's root) in JupyterLab
// in the browser tab, waits for its kernel, clicks Run → Run All Cells,
// waits until every code cell has run (a numbered prompt) and the kernel is
// idle, saves it with File → Save Notebook, and returns what the page shows
// and a screenshot of the whole notebook. limit bounds the run.
func RunNotebookInLab(tab context.Context, s *Server, path string, limit time.Duration) (*LabPage, []byte, error) {
	u := s.URL + "/lab/tree/" + (&url.URL{Path: path}).EscapedPath() + "?token=" + url.QueryEscape(s.Token)
	open, cancel := context.WithTimeout(tab, 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(open,
		chromedp.Navigate(u),
		chromedp.WaitVisible(chromedp.CSS(`.jp-NotebookPanel .jp-Notebook .jp-CodeCell`)),
	); err != nil {
		return nil, nil, fmt.Errorf("opening %s in JupyterLab: %w", path, err)
	}
	// The kernel the notebook asks for (gonb) must be up and idle before the
	// run: Run All on a starting kernel is queued, but a kernel that cannot
	// start must be an error here, not a hang below.
	if err := waitKernel(open, s, path); err != nil {
		return nil, nil, err
	}
	if err := menu(tab, "Run", "runmenu:run-all", "notebook:run-all-cells"); err != nil {
		return nil, screenshot(tab), err
	}
	start := time.Now()
	first := 0.0
	deadline := start.Add(limit)
	var p *LabPage
	for {
		var err error
		if p, err = look(tab); err != nil {
			return nil, nil, err
		}
		ran := 0
		for _, pr := range p.Prompts {
			if isRunPrompt(pr) {
				ran++
			}
		}
		if ran > 0 && first == 0 {
			first = time.Since(start).Seconds()
		}
		if ran == p.CodeCells && p.CodeCells > 0 {
			if idle, err := kernelIdle(tab, s, path); err != nil {
				return nil, nil, err
			} else if idle {
				break
			}
		}
		if time.Now().After(deadline) {
			return p, screenshot(tab), fmt.Errorf("%s: %d of %d code cells run after %v (prompts %q)", path, ran, p.CodeCells, limit, p.Prompts)
		}
		select {
		case <-tab.Done():
			return nil, nil, tab.Err()
		case <-time.After(time.Second):
		}
	}
	p.Elapsed = [2]float64{first, time.Since(start).Seconds()}
	if err := menu(tab, "File", "docmanager:save"); err != nil {
		return p, screenshot(tab), err
	}
	if err := waitSaved(tab, s, path); err != nil {
		return p, screenshot(tab), err
	}
	return p, screenshot(tab), nil
}

// isRunPrompt reports whether a cell prompt is a finished execution count:
// "[12]:", not "[ ]:" (never run) or "[*]:" (running or queued).
func isRunPrompt(p string) bool {
	p = strings.TrimSuffix(strings.TrimSpace(p), ":")
	if len(p) < 3 || p[0] != '[' || p[len(p)-1] != ']' {
		return false
	}
	for _, c := range p[1 : len(p)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// session is the part of a Jupyter /api/sessions entry the tests read.
type session struct {
	Path   string `json:"path"`
	Kernel struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		State string `json:"execution_state"`
	} `json:"kernel"`
}

// notebookSession returns the session of path, or nil.
func notebookSession(ctx context.Context, s *Server, path string) (*session, error) {
	code, body, err := s.Get(ctx, "/api/sessions", s.Token)
	if err != nil || code != 200 {
		return nil, fmt.Errorf("GET /api/sessions: %d %v %.200s", code, err, body)
	}
	var ss []session
	if err := json.Unmarshal(body, &ss); err != nil {
		return nil, fmt.Errorf("GET /api/sessions: %v", err)
	}
	for i := range ss {
		if ss[i].Path == path || strings.HasSuffix(ss[i].Path, "/"+path) {
			return &ss[i], nil
		}
	}
	return nil, nil
}

// waitKernel waits for path's session to have an idle gonb kernel.
func waitKernel(ctx context.Context, s *Server, path string) error {
	var last *session
	for {
		ss, err := notebookSession(ctx, s, path)
		if err != nil {
			return err
		}
		last = ss
		if ss != nil && ss.Kernel.State == "idle" {
			if ss.Kernel.Name != "gonb" {
				return fmt.Errorf("%s opened on kernel %q, want gonb (the kernel spec scripts/setup.sh installs)", path, ss.Kernel.Name)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: no idle kernel (last session %+v): %w", path, last, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// kernelIdle reports whether path's kernel is idle now.
func kernelIdle(ctx context.Context, s *Server, path string) (bool, error) {
	ss, err := notebookSession(ctx, s, path)
	if err != nil {
		return false, err
	}
	if ss == nil {
		return false, fmt.Errorf("%s: its session is gone (kernel died?)", path)
	}
	return ss.Kernel.State == "idle", nil
}

// waitSaved waits until the saved file has outputs (the save went through).
func waitSaved(ctx context.Context, s *Server, path string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		code, body, err := s.Get(ctx, "/api/contents/"+(&url.URL{Path: path}).EscapedPath()+"?content=1", s.Token)
		var model struct {
			Content struct {
				Cells []struct {
					Outputs []json.RawMessage `json:"outputs"`
				} `json:"cells"`
			} `json:"content"`
		}
		if err == nil && code == 200 && json.Unmarshal(body, &model) == nil {
			for _, c := range model.Content.Cells {
				if len(c.Outputs) > 0 {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not saved with outputs: %d %v", path, code, err)
		case <-time.After(time.Second):
		}
	}
}

// screenshot returns a PNG of the whole page, or nil.
func screenshot(ctx context.Context) []byte {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	b, _ := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	return b
}

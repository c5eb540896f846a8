// Package browser starts headless Chromium and drives it through the
// DevTools protocol (chromedp). It is the one browser driver of warplab's
// tests: the lesson-page checks (internal/nbtest: DumpDOM, Screenshot) and
// the JupyterLab tests (internal/labtest) both go through New.
//
// Chromium is Debian's (scripts/setup.sh --browser installs it). It runs as
// root in CI, so without its sandbox; with no GPU; and with every background
// connection off (this machine's network is closed, and Chromium's own calls
// out would be refused, many at a time); each browser gets a fresh profile
// folder, removed when it closes.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
)

// Find returns the path of a Chromium binary: path when it is not "",
// otherwise the first of chromium, chromium-browser and google-chrome in
// PATH, or an error that says how to get one.
func Find(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium not found in PATH: run scripts/setup.sh --browser (it installs Debian's chromium)")
}

// Options say which Chromium to start and how.
type Options struct {
	Exec          string   // Chromium binary; "" means Find("")
	Width, Height int      // window size in CSS pixels (default 1280×900)
	Env           []string // extra KEY=VALUE for Chromium's environment
}

// New starts headless Chromium and returns a chromedp context for its first
// tab. cancel closes the browser, waits for it to exit and removes its
// profile. Every chromedp action run on ctx is bounded by ctx.
func New(ctx context.Context, o Options) (tab context.Context, cancel context.CancelFunc, err error) {
	exe, err := Find(o.Exec)
	if err != nil {
		return nil, nil, err
	}
	if o.Width == 0 {
		o.Width, o.Height = 1280, 900
	}
	profile, err := os.MkdirTemp("", "warplab-chromium-")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], // headless, no background networking, no first run, ...
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.UserDataDir(profile),
	)
	if len(o.Env) > 0 {
		opts = append(opts, chromedp.Env(o.Env...))
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	tab, tcancel := chromedp.NewContext(actx)
	// Start the browser now, so a Chromium that cannot start is an error here.
	if err := chromedp.Do(tab); err != nil {
		tcancel()
		acancel()
		os.RemoveAll(profile)
		return nil, nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	return tab, func() {
		tcancel()
		acancel()
		os.RemoveAll(profile)
	}, nil
}

// Load opens url in a fresh headless Chromium with a w×h viewport, waits for
// the load event and for the page's fonts, then, when ready is not "", for
// an element matching the CSS selector ready; and runs then on the loaded
// tab. The whole visit, browser start included, is bounded by limit.
func Load(ctx context.Context, o Options, url, ready string, limit time.Duration, then chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tab, closeTab, err := New(ctx, o)
	if err != nil {
		return err
	}
	defer closeTab()
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.EmulateViewport(int64(o.Width), int64(o.Height)),
		chromedp.Navigate(url),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			// Web fonts (the SVGs name Liberation fonts) settle before layout is read.
			_, err := chromedp.Evaluate[bool](`document.fonts.ready.then(() => true)`, chromedp.EvalAwaitPromise)(ctx, t)
			return err
		}),
	}
	if ready != "" {
		steps = append(steps, chromedp.WaitReady(chromedp.CSS(ready)))
	}
	if then != nil {
		steps = append(steps, then)
	}
	if err := chromedp.Do(tab, steps...); err != nil {
		return fmt.Errorf("chromium at %s: %w", url, err)
	}
	return nil
}

// DumpDOM is Load then the page's DOM serialized as HTML, as Chromium's
// --dump-dom gives it.
func DumpDOM(ctx context.Context, o Options, url, ready string, limit time.Duration) (string, error) {
	var html string
	err := Load(ctx, o, url, ready, limit, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var err error
		html, err = chromedp.Evaluate[string](`document.documentElement.outerHTML`)(ctx, t)
		return err
	}))
	return html, err
}

// Screenshot is Load then a PNG of the w×h viewport.
func Screenshot(ctx context.Context, o Options, url string, limit time.Duration) ([]byte, error) {
	var png []byte
	err := Load(ctx, o, url, "", limit, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var err error
		png, err = chromedp.CaptureScreenshot()(ctx, t)
		return err
	}))
	return png, err
}

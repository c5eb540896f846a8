package nbtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookPage(t *testing.T) {
	got, err := LookPage(page(plotCell))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `<script id="warplab-look-script">`) || !strings.HasSuffix(got, "</script></body></html>") {
		t.Errorf("script not added before </body>: %.200q", got[len(got)-200:])
	}
	if _, err := LookPage("<div>"); err == nil {
		t.Error("a page without </body>: no error")
	}
}

func TestParseLook(t *testing.T) {
	dom := `<html><body><pre id="warplab-look" style="display: none;">{"figures":[{"tag":"svg","width":768,"height":432,"right":790,"plot":true,"decoded":true}],` +
		`"errors":[],"stderr":["a &lt; b &amp;&amp; c"],"width":1200,"height":5120}</pre></body></html>`
	l, err := ParseLook(dom)
	if err != nil {
		t.Fatal(err)
	}
	want := LookFigure{Tag: "svg", Width: 768, Height: 432, Right: 790, Plot: true, Decoded: true}
	if len(l.Figures) != 1 || l.Figures[0] != want || l.Height != 5120 || l.Width != 1200 || l.Stderr[0] != "a < b && c" {
		t.Errorf("ParseLook = %+v", l)
	}
	if _, err := ParseLook("<html><body></body></html>"); err == nil {
		t.Error("a DOM without the report: no error")
	}
	if _, err := ParseLook(`<pre id="warplab-look">{"figures":</pre>`); err == nil {
		t.Error("a truncated report: no error")
	}
}

func TestLookProblems(t *testing.T) {
	fig := LookFigure{Tag: "svg", Width: 768, Height: 432, Right: 800, Plot: true, Decoded: true}
	with := func(f func(*LookFigure)) LookFigure { g := fig; f(&g); return g }
	for _, tc := range []struct {
		name  string
		look  Look
		plots int
		want  []string
	}{
		{"clean", Look{Figures: []LookFigure{fig}, Width: 1200, Stderr: []string{"simulating 3/8 blocks"}}, 1, nil},
		{"no size", Look{Figures: []LookFigure{with(func(f *LookFigure) { f.Height = 0 })}, Width: 1200}, 1, []string{"has no size on the page (768×0 px)"}},
		{"not decoded", Look{Figures: []LookFigure{with(func(f *LookFigure) { f.Tag, f.Decoded = "img", false })}, Width: 1200}, 1, []string{"could not decode"}},
		{"cut off", Look{Figures: []LookFigure{with(func(f *LookFigure) { f.Right = 1300 })}, Width: 1200}, 1, []string{"runs past the window's right edge (1300 > 1200 px)"}},
		{"plot cell without figure", Look{Figures: []LookFigure{with(func(f *LookFigure) { f.Plot = false })}, Width: 1200}, 1, []string{"found 0 figures in plot cells; the notebook has 1"}},
		{"error shown", Look{Errors: []string{"./main.go:13:13: undefined: x"}}, 0, []string{"shows an error: ./main.go:13:13"}},
		{"panic on stderr", Look{Stderr: []string{"panic: boom"}}, 0, []string{"shows error output: panic: boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := tc.look.Problems(tc.plots)
			if len(probs) != len(tc.want) {
				t.Fatalf("got %q, want %d problems like %q", probs, len(tc.want), tc.want)
			}
			for i, p := range probs {
				if !strings.Contains(p, tc.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p, tc.want[i])
				}
			}
		})
	}
}

// TestLookInBrowser runs the browser's look on a small page shaped like
// nbconvert's, in headless Chromium (a few seconds): a plot cell with an
// SVG, one with a data: PNG, one whose PNG does not decode, an SVG wider
// than the window, and a GoNB error report. It runs with the notebook tests
// (WARPLAB_NOTEBOOK_TESTS=1) or alone with WARPLAB_BROWSER_TESTS=1.
func TestLookInBrowser(t *testing.T) {
	if os.Getenv("WARPLAB_NOTEBOOK_TESTS") != "1" && os.Getenv("WARPLAB_BROWSER_TESTS") != "1" {
		t.Skip("browser tests are off: set WARPLAB_BROWSER_TESTS=1 (Chromium needed)")
	}
	if os.Getenv("WARPLAB_BROWSER_TESTS") == "0" {
		t.Skip("WARPLAB_BROWSER_TESTS=0")
	}
	r := &Runner{}
	if _, err := r.FindChromium(); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for i := range 30 {
		img.Set(i, i, color.Black)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	pngSrc := "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	cell := func(plot bool, output string) string {
		tag := ""
		if plot {
			tag = " celltag_plot"
		}
		return `<div class="jp-Cell jp-CodeCell jp-Notebook-cell` + tag + `"><div class="jp-InputArea">source</div>` +
			`<div class="jp-OutputArea jp-Cell-outputArea"><div class="jp-OutputArea-child"><div class="jp-RenderedHTMLCommon jp-OutputArea-output" data-mime-type="text/html">` +
			output + `</div></div></div></div>`
	}
	p := page(
		cell(true, `<svg xmlns="http://www.w3.org/2000/svg" width="400pt" height="200pt" viewBox="0 0 400 200"><rect width="400" height="200" fill="#08c"/></svg>`),
		cell(true, `<img src="`+pngSrc+`">`),
		cell(true, `<img src="data:image/png;base64,bm90IGEgcG5n">`),
		cell(false, `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="50"><rect width="1600" height="50"/></svg>`),
		errorCell,
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	variant, err := LookPage(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(variant), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := r.DumpDOM(context.Background(), path, 1200, 900)
	if err != nil {
		t.Fatal(err)
	}
	look, err := ParseLook(dom)
	if err != nil {
		t.Fatal(err)
	}
	if len(look.Figures) != 4 {
		t.Fatalf("the browser found %d figures, want 4: %+v", len(look.Figures), look.Figures)
	}
	if f := look.Figures[0]; f.Tag != "svg" || f.Width != 533 || f.Height != 267 || !f.Plot {
		t.Errorf("SVG of 400×200 pt: %+v, want 533×267 CSS px in a plot cell", f)
	}
	if f := look.Figures[1]; f.Tag != "img" || f.Width != 40 || f.Height != 30 || !f.Decoded {
		t.Errorf("40×30 PNG: %+v", f)
	}
	probs := look.Problems(3)
	for _, want := range []string{"shows an error", "figure 3 (<img>)", "figure 4 (<svg>) runs past the window's right edge"} {
		if !strings.Contains(strings.Join(probs, "\n"), want) {
			t.Errorf("problems %q lack %q", probs, want)
		}
	}
	if look.Height < 300 {
		t.Errorf("page height %d px, want the whole page's", look.Height)
	}
}

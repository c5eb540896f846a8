package nbtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The browser's look at a page. PageProblems reads the HTML nbconvert wrote;
// that cannot tell whether a figure in it shows: an SVG whose viewBox is
// broken, a data: PNG that does not decode or a figure wider than the page
// all pass it. So the test opens each page in headless Chromium with
// lookScript added, which measures, after layout, every figure in the cell
// outputs and every error a reader would see, and writes what it found into
// the page as JSON; Chromium's --dump-dom hands the page back and
// ParseLook reads it.

// lookID is the element lookScript writes its report into.
const lookID = "warplab-look"

// lookScript runs on load: figures are the outermost <svg> and every <img>
// in a cell's output area, with their laid-out size, whether an image
// decoded, and whether the cell is tagged "plot"; errors are GoNB's error
// report and nbconvert's error outputs that have a size on the page; stderr
// is the text of visible stderr outputs (progress lines go there too, so Go
// decides which are errors); height is the page's full height, for a
// screenshot of all of it.
const lookScript = `<script id="warplab-look-script">
window.addEventListener('load', function () {
  var out = {figures: [], errors: [], stderr: [], width: window.innerWidth, height: 0};
  var shown = function (el) { var r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  document.querySelectorAll('.jp-OutputArea svg, .jp-OutputArea img').forEach(function (el) {
    var tag = el.tagName.toLowerCase();
    if (tag === 'svg' && el.parentElement && el.parentElement.closest('svg')) { return; }
    var r = el.getBoundingClientRect();
    var cell = el.closest('.jp-Cell');
    out.figures.push({tag: tag, width: Math.round(r.width), height: Math.round(r.height), right: Math.round(r.right),
      plot: !!(cell && cell.classList.contains('celltag_plot')),
      decoded: tag !== 'img' || (el.complete && el.naturalWidth > 0)});
  });
  document.querySelectorAll('.warplab-error, .gonb-err-location, .gonb-err-line, .output_error, .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]').forEach(function (el) {
    if (shown(el)) { out.errors.push(el.textContent.trim().slice(0, 300)); }
  });
  document.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]').forEach(function (el) {
    if (shown(el)) { out.stderr.push(el.textContent.trim().slice(0, 300)); }
  });
  out.height = Math.ceil(Math.max(document.documentElement.scrollHeight, document.body.scrollHeight));
  var pre = document.createElement('pre');
  pre.id = '` + lookID + `';
  pre.style.display = 'none';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

// LookPage returns page with lookScript added before </body>.
func LookPage(page string) (string, error) {
	i := strings.LastIndex(page, "</body>")
	if i < 0 {
		return "", errors.New("page has no </body>")
	}
	return page[:i] + lookScript + page[i:], nil
}

// Look is what the browser saw on a page.
type Look struct {
	Figures []LookFigure `json:"figures"`
	Errors  []string     `json:"errors"` // text of the visible error outputs
	Stderr  []string     `json:"stderr"` // text of the visible stderr outputs
	Width   int          `json:"width"`  // of the window, CSS pixels
	Height  int          `json:"height"` // of the whole page, CSS pixels
}

// LookFigure is one <svg> or <img> in a cell's output, as laid out.
type LookFigure struct {
	Tag     string `json:"tag"`
	Width   int    `json:"width"`   // CSS pixels
	Height  int    `json:"height"`  // CSS pixels
	Right   int    `json:"right"`   // right edge, from the window's left
	Plot    bool   `json:"plot"`    // in a cell tagged "plot"
	Decoded bool   `json:"decoded"` // an <img> whose image decoded; true for <svg>
}

var lookPre = regexp.MustCompile(`(?s)<pre[^>]*\bid="` + lookID + `"[^>]*>(.*?)</pre>`)

// ParseLook reads the report lookScript wrote from the DOM Chromium dumped.
func ParseLook(dom string) (Look, error) {
	m := lookPre.FindStringSubmatch(dom)
	if m == nil {
		return Look{}, errors.New("the browser wrote no report (the page's load event never ran lookScript)")
	}
	var l Look
	// The DOM is serialized HTML: the JSON's <, > and & are escaped.
	js := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&").Replace(m[1])
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		return Look{}, fmt.Errorf("the browser's report: %w", err)
	}
	return l, nil
}

// Problems returns what a reader would find wrong on the page: an error
// shown, a figure with no size or an image that did not decode, a figure cut
// off at the window's right edge, or fewer figures in plot cells than the
// notebook has plot cells.
func (l Look) Problems(plotCells int) []string {
	var probs []string
	for _, e := range l.Errors {
		probs = append(probs, "the browser shows an error: "+clip(e, 200))
	}
	for _, s := range l.Stderr {
		if errorWords.MatchString(s) {
			probs = append(probs, "the browser shows error output: "+clip(s, 200))
		}
	}
	inPlots := 0
	for i, f := range l.Figures {
		name := fmt.Sprintf("figure %d (<%s>)", i+1, f.Tag)
		switch {
		case f.Width <= 0 || f.Height <= 0:
			probs = append(probs, fmt.Sprintf("%s has no size on the page (%d×%d px)", name, f.Width, f.Height))
		case !f.Decoded:
			probs = append(probs, name+" is an image the browser could not decode")
		case l.Width > 0 && f.Right > l.Width:
			probs = append(probs, fmt.Sprintf("%s runs past the window's right edge (%d > %d px)", name, f.Right, l.Width))
		}
		if f.Plot {
			inPlots++
		}
	}
	if inPlots < plotCells {
		probs = append(probs, fmt.Sprintf("the browser found %d figures in plot cells; the notebook has %d plot cells", inPlots, plotCells))
	}
	return probs
}

package nbtest

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"regexp"
	"strings"
)

var (
	cellStart = regexp.MustCompile(`<div\s+class="(jp-Cell(?:\s[^"]*)?)"`)
	// GoNB's HTML error report, nbconvert's classic error class, traceback colours.
	errorMarkers = regexp.MustCompile(`class="[^"]*\b(gonb-err-location|gonb-err-line|output_error|ansi-red-fg|warplab-error)\b`)
	stderrBlock  = regexp.MustCompile(`(?s)data-mime-type="application/vnd\.jupyter\.stderr"[^>]*>(.*?)</div>`)
	errorWords   = regexp.MustCompile(`(?i)\b(panic|error|fault|failed|undefined)\b`)
)

// PageProblems returns what is wrong with a rendered lesson page (nbconvert's
// lab template): a visible error (GoNB's error report, a traceback, stderr
// output that reports an error) or a plot cell whose output holds no <svg>
// or data:image. plotCells is how many cells the notebook tagged "plot".
func PageProblems(page string, plotCells int) []string {
	var probs []string
	body := styleOrScript.ReplaceAllString(page, " ")
	if m := errorMarkers.FindStringSubmatch(body); m != nil {
		probs = append(probs, fmt.Sprintf("page shows an error (element with class %q)", m[1]))
	}
	for _, m := range stderrBlock.FindAllStringSubmatch(body, -1) {
		t := strings.TrimSpace(tag.ReplaceAllString(m[1], " "))
		if errorWords.MatchString(t) {
			probs = append(probs, "page shows error output: "+clip(t, 300))
		}
	}
	plots := plotSegments(page)
	if len(plots) != plotCells {
		probs = append(probs, fmt.Sprintf("page has %d cells with class celltag_%s, notebook tags %d", len(plots), PlotTag, plotCells))
	}
	for i, seg := range plots {
		if !htmlHasImage(outputPart(seg)) {
			probs = append(probs, fmt.Sprintf("plot %d on the page has no <svg> or data:image <img> in its output", i+1))
		}
	}
	return probs
}

// plotSegments returns the HTML of each cell tagged "plot", in page order.
func plotSegments(page string) []string {
	locs := cellStart.FindAllStringSubmatchIndex(page, -1)
	var segs []string
	for i, l := range locs {
		classes := page[l[2]:l[3]]
		if !strings.Contains(" "+classes+" ", " celltag_"+PlotTag+" ") {
			continue
		}
		end := len(page)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		segs = append(segs, page[l[0]:end])
	}
	return segs
}

// outputPart drops a cell's input area, so source code that mentions "<svg"
// cannot pass for an image.
func outputPart(seg string) string {
	if i := strings.Index(seg, "jp-OutputArea"); i >= 0 {
		return seg[i:]
	}
	return ""
}

// shotCSS shows only the marked cell's image outputs on a white page.
const shotCSS = `<style id="warplab-shot-style">
body { margin: 0 !important; padding: 8px !important; background: #fff !important; }
.jp-Cell:not(.warplab-shot), .jp-MarkdownCell { display: none !important; }
.warplab-shot .jp-Cell-inputWrapper, .warplab-shot .jp-InputArea, .warplab-shot .jp-OutputPrompt,
.warplab-shot .jp-Collapser { display: none !important; }
.warplab-shot .jp-OutputArea-child:not(:has(svg, img)) { display: none !important; }
</style>`

// PlotPage returns a variant of a rendered page that shows only the k-th
// (0-based) plot cell's image outputs, for a screenshot of the plot area.
func PlotPage(page string, k int) (string, error) {
	locs := cellStart.FindAllStringSubmatchIndex(page, -1)
	n := 0
	for _, l := range locs {
		classes := page[l[2]:l[3]]
		if !strings.Contains(" "+classes+" ", " celltag_"+PlotTag+" ") {
			continue
		}
		if n == k {
			out := page[:l[3]] + " warplab-shot" + page[l[3]:]
			i := strings.LastIndex(out, "</head>")
			if i < 0 {
				return "", fmt.Errorf("page has no </head>")
			}
			return out[:i] + shotCSS + out[i:], nil
		}
		n++
	}
	return "", fmt.Errorf("page has %d plot cells, no plot %d", n, k)
}

// Ink describes the non-white pixels of a screenshot.
type Ink struct {
	Pixels        int             // pixels visibly darker than white
	Total         int             // pixels in the image
	Bounds        image.Rectangle // smallest rectangle holding them
	Width, Height int             // of the image
}

// Blank reports why the ink is too little to be a drawn plot ("" when it is
// not blank): at least minPixels inked pixels spread over at least 100×60.
func (k Ink) Blank(minPixels int) string {
	switch {
	case k.Pixels < minPixels:
		return fmt.Sprintf("only %d non-white pixels of %d (want at least %d)", k.Pixels, k.Total, minPixels)
	case k.Bounds.Dx() < 100 || k.Bounds.Dy() < 60:
		return fmt.Sprintf("ink covers only %dx%d px (want at least 100x60)", k.Bounds.Dx(), k.Bounds.Dy())
	}
	return ""
}

// MeasureInk decodes the PNG at path and counts its non-white pixels.
func MeasureInk(path string) (Ink, error) {
	f, err := os.Open(path)
	if err != nil {
		return Ink{}, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return Ink{}, fmt.Errorf("%s: %w", path, err)
	}
	return measureInk(img), nil
}

func measureInk(img image.Image) Ink {
	b := img.Bounds()
	k := Ink{Total: b.Dx() * b.Dy(), Width: b.Dx(), Height: b.Dy()}
	minX, minY, maxX, maxY := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			// 16-bit channels; "visibly darker than white" is below ~94%.
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				k.Pixels++
				minX, minY = min(minX, x), min(minY, y)
				maxX, maxY = max(maxX, x), max(maxY, y)
			}
		}
	}
	if k.Pixels > 0 {
		k.Bounds = image.Rect(minX, minY, maxX+1, maxY+1)
	}
	return k
}

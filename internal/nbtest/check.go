package nbtest

import (
	"fmt"
	"regexp"
	"strings"
)

// PlotTag is the cell tag that marks a cell whose job is to draw a plot.
const PlotTag = "plot"

// Problem is one reason an executed notebook fails its check.
type Problem struct {
	Cell int    // 0-based cell index; -1 for the notebook as a whole
	Msg  string // what is wrong, in words a lesson author can act on
}

func (p Problem) String() string {
	if p.Cell < 0 {
		return p.Msg
	}
	return fmt.Sprintf("cell %d: %s", p.Cell, p.Msg)
}

// Check returns every problem of an executed notebook: error outputs, plot
// cells without an image, and expectations (metadata.warplab.expect) that the
// outputs' visible text does not match. A notebook with no problems passed.
func Check(nb *Notebook) []Problem {
	var probs []Problem
	for _, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		for _, o := range c.Outputs {
			if o.Type == "error" {
				probs = append(probs, Problem{c.Index, "error: " + errorText(c, o)})
			}
		}
		if c.HasTag(PlotTag) && !hasImage(c) {
			probs = append(probs, Problem{c.Index, fmt.Sprintf(
				"tagged %q but has no image output (want image/svg+xml, image/png, or HTML with <svg> or a data:image/png <img>); first line: %q",
				PlotTag, firstLine(c.Source))})
		}
	}
	visible := nb.VisibleText()
	for _, e := range nb.Meta.Expect {
		re, err := regexp.Compile(e.Pattern)
		if err != nil {
			probs = append(probs, Problem{-1, fmt.Sprintf("metadata.warplab.expect: bad pattern %q: %v", e.Pattern, err)})
			continue
		}
		if !re.MatchString(visible) {
			msg := fmt.Sprintf("promised output %q not found", e.Pattern)
			if e.Why != "" {
				msg += " (" + e.Why + ")"
			}
			if near := nearest(visible, e.Pattern); near != "" {
				msg += "; nearest output: " + near
			}
			probs = append(probs, Problem{-1, msg})
		}
	}
	return probs
}

// hasImage reports whether a cell shows an image: an image MIME output, or
// HTML that embeds one (GoNB's gonbui.DisplaySVG sends the SVG as text/html).
func hasImage(c Cell) bool {
	for _, o := range c.Outputs {
		if o.Data["image/svg+xml"] != "" || o.Data["image/png"] != "" {
			return true
		}
		if h := o.Data["text/html"]; htmlHasImage(h) {
			return true
		}
	}
	return false
}

var (
	svgOpen   = regexp.MustCompile(`(?i)<svg[\s>]`)
	pngImgTag = regexp.MustCompile(`(?i)<img\b[^>]*\bsrc\s*=\s*["']data:image/(png|svg\+xml)`)
)

// htmlHasImage reports whether HTML holds an inline <svg> or a data: image.
func htmlHasImage(h string) bool {
	return svgOpen.MatchString(h) || pngImgTag.MatchString(h)
}

func errorText(c Cell, o Output) string {
	var b strings.Builder
	b.WriteString(o.EName)
	if o.EValue != "" {
		b.WriteString(": " + o.EValue)
	}
	// GoNB puts the compiler's or the panic's words in the cell's other
	// outputs; the error output itself only says "exit status 1".
	for _, other := range c.Outputs {
		if other.Type == "error" {
			continue
		}
		t := strings.TrimSpace(other.visibleText())
		if t != "" && (other.Stream == "stderr" || strings.Contains(other.Data["text/html"], "gonb-err") ||
			strings.Contains(t, "panic:")) {
			b.WriteString("\n\t" + clip(t, 600))
		}
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return clip(s, 80)
}

func clip(s string, n int) string {
	s = space.ReplaceAllString(s, " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// nearest shows the output text around the longest literal prefix of pattern
// that does occur, so a wrong number reads "found: stride 2: 8 sectors".
func nearest(visible, pattern string) string {
	lit := pattern
	if i := strings.IndexAny(lit, `\.+*?()|[]{}^$`); i >= 0 {
		lit = lit[:i]
	}
	for len(lit) >= 3 {
		if i := strings.Index(visible, lit); i >= 0 {
			end := min(len(visible), i+len(lit)+60)
			return fmt.Sprintf("%q", visible[i:end])
		}
		lit = lit[:len(lit)-1]
	}
	return ""
}

// MaxCellLines is the most lines a notebook code cell may have. A student
// reads a notebook top to bottom: a cell longer than a screenful is
// plumbing that belongs in the lesson package, where go doc and tests
// reach it (issue 16, STYLE.md "Notebooks"); about 20 is the aim.
const MaxCellLines = 25

// LongCells returns a problem for every code cell of nb with more than max
// source lines.
func LongCells(nb *Notebook, max int) []Problem {
	var probs []Problem
	for _, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		if n := len(strings.Split(strings.TrimRight(c.Source, "\n"), "\n")); n > max {
			probs = append(probs, Problem{c.Index, fmt.Sprintf(
				"code cell has %d lines, over the limit of %d: move its plumbing into the lesson package; first line: %q",
				n, max, firstLine(c.Source))})
		}
	}
	return probs
}

// cellID is what nbformat 4.5 allows as a cell id.
var cellID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// CellIDs returns a problem for every cell of nb without a valid id, and
// for every id used twice. nbformat 4.5 gives each cell an id; a file
// without them is repaired by JupyterLab as it opens (marked modified at
// once, a MissingIDFieldWarning in its log), and each save then writes new
// random ones. The shipped notebooks keep stable ids instead: <name>-NN, NN
// continuing the notebook's numbering (one more than the highest in use),
// given once and never renumbered, so a re-save changes nothing.
func CellIDs(nb *Notebook) []Problem {
	var probs []Problem
	if nb.Minor < 5 {
		probs = append(probs, Problem{-1, fmt.Sprintf("nbformat 4.%d: cell ids need 4.5 (set nbformat_minor to 5)", nb.Minor)})
	}
	first := map[string]int{}
	for _, c := range nb.Cells {
		switch j, dup := first[c.ID]; {
		case c.ID == "":
			probs = append(probs, Problem{c.Index, fmt.Sprintf("no id: add \"id\": \"<notebook>-NN\" with the next free NN; first line: %q", firstLine(c.Source))})
		case !cellID.MatchString(c.ID):
			probs = append(probs, Problem{c.Index, fmt.Sprintf("id %q is not an nbformat id (1 to 64 of a-z, A-Z, 0-9, - and _)", c.ID)})
		case dup:
			probs = append(probs, Problem{c.Index, fmt.Sprintf("id %q is cell %d's too", c.ID, j)})
		default:
			first[c.ID] = c.Index
		}
	}
	return probs
}

// Package nbtest executes warplab's notebooks headless and checks what they
// promise, so that the notebooks — the product's front door — are tested like
// code.
//
// A notebook is executed with `jupyter nbconvert --execute` and the GoNB
// kernel, each cell and each notebook under a time bound. The executed
// notebook then fails its check when
//
//   - a cell produced an error output (compile error, panic, kernel fault);
//   - a cell tagged "plot" (cell metadata "tags": ["plot"]) shows no image:
//     no image/svg+xml or image/png output and no HTML output holding an
//     <svg> or a data:image/png <img> (GoNB's DisplaySVG sends text/html);
//   - a number the lesson promises is missing or wrong: each notebook lists
//     regular expressions in its metadata, under "warplab": {"expect": [...]},
//     and every one must match the visible text of the outputs.
//
// The lesson pages are rendered with nbconvert's HTML exporter; a page fails
// when it shows an error, and each plot is screenshotted in headless Chromium
// and fails when its area is blank.
//
// The notebook metadata this package reads ("metadata": {"warplab": {...}}):
//
//	"summary":              one line for the site's index (else the first
//	                        markdown line)
//	"expect":               ["regexp", {"pattern": "regexp", "why": "..."}, ...]
//	"timeout_seconds":      bound on the whole notebook (default 600)
//	"cell_timeout_seconds": bound on one cell (default 300)
package nbtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"regexp"
	"slices"
	"strings"
)

// text is a notebook string field: nbformat stores it either as one string
// or as a list of lines to be concatenated.
type text string

// UnmarshalJSON accepts both of nbformat's spellings of a multi-line string.
func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = text(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("want a string or a list of strings, got %.40s", b)
	}
	*t = text(strings.Join(lines, ""))
	return nil
}

// Notebook is the part of an .ipynb file the checks and the site need.
type Notebook struct {
	Path  string // file it was read from
	Minor int    // nbformat_minor (4.5 and later give every cell an id)
	Cells []Cell
	Meta  Meta // metadata.warplab
}

// Cell is one notebook cell with its outputs (none before execution).
type Cell struct {
	Index   int    // 0-based position in the notebook
	ID      string // the cell's id (nbformat 4.5); "" when it has none
	Type    string // "code", "markdown" or "raw"
	Source  string
	Tags    []string
	Outputs []Output
}

// HasTag reports whether the cell's metadata tags include tag.
func (c Cell) HasTag(tag string) bool { return slices.Contains(c.Tags, tag) }

// Output is one output of a code cell.
type Output struct {
	Type      string            // "stream", "display_data", "execute_result" or "error"
	Stream    string            // "stdout" or "stderr" for streams
	Text      string            // stream text
	Data      map[string]string // MIME type -> content (base64 for binary types)
	EName     string            // error name, for errors
	EValue    string            // error value, for errors
	Traceback []string          // error traceback, for errors
}

// Expectation is one promise a notebook makes about its outputs.
type Expectation struct {
	Pattern string `json:"pattern"` // Go regexp matched against the visible text of all outputs
	Why     string `json:"why"`     // what the number means, shown when it is missing
}

// UnmarshalJSON accepts a bare pattern string or a {"pattern", "why"} object.
func (e *Expectation) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*e = Expectation{Pattern: s}
		return nil
	}
	type plain Expectation
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("expectation: want a string or {\"pattern\":..., \"why\":...}: %v", err)
	}
	if p.Pattern == "" {
		return fmt.Errorf("expectation %s has no pattern", b)
	}
	*e = Expectation(p)
	return nil
}

// Meta is a notebook's "warplab" metadata.
type Meta struct {
	Title              string        `json:"title"`
	Summary            string        `json:"summary"`
	Expect             []Expectation `json:"expect"`
	TimeoutSeconds     int           `json:"timeout_seconds"`
	CellTimeoutSeconds int           `json:"cell_timeout_seconds"`
}

// Read loads and parses the notebook at path.
func Read(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	nb, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	nb.Path = path
	return nb, nil
}

// Parse parses an nbformat 4 notebook.
func Parse(b []byte) (*Notebook, error) {
	var raw struct {
		NBFormat      int `json:"nbformat"`
		NBFormatMinor int `json:"nbformat_minor"`
		Metadata      struct {
			Warplab json.RawMessage `json:"warplab"`
		} `json:"metadata"`
		Cells []struct {
			ID       string `json:"id"`
			CellType string `json:"cell_type"`
			Source   text   `json:"source"`
			Metadata struct {
				Tags []string `json:"tags"`
			} `json:"metadata"`
			Outputs []struct {
				OutputType string                     `json:"output_type"`
				Name       string                     `json:"name"`
				Text       text                       `json:"text"`
				Data       map[string]json.RawMessage `json:"data"`
				EName      string                     `json:"ename"`
				EValue     string                     `json:"evalue"`
				Traceback  []string                   `json:"traceback"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("not a notebook: %w", err)
	}
	if raw.NBFormat != 4 {
		return nil, fmt.Errorf("nbformat %d, want 4", raw.NBFormat)
	}
	nb := &Notebook{Minor: raw.NBFormatMinor}
	if len(raw.Metadata.Warplab) > 0 {
		if err := json.Unmarshal(raw.Metadata.Warplab, &nb.Meta); err != nil {
			return nil, fmt.Errorf("metadata.warplab: %w", err)
		}
	}
	for i, rc := range raw.Cells {
		c := Cell{Index: i, ID: rc.ID, Type: rc.CellType, Source: string(rc.Source), Tags: rc.Metadata.Tags}
		for _, ro := range rc.Outputs {
			o := Output{
				Type: ro.OutputType, Stream: ro.Name, Text: string(ro.Text),
				EName: ro.EName, EValue: ro.EValue, Traceback: ro.Traceback,
			}
			if len(ro.Data) > 0 {
				o.Data = make(map[string]string, len(ro.Data))
				for mime, v := range ro.Data {
					var t text
					if err := json.Unmarshal(v, &t); err == nil {
						o.Data[mime] = string(t)
					} else {
						o.Data[mime] = string(v) // JSON-valued MIME types stay JSON
					}
				}
			}
			c.Outputs = append(c.Outputs, o)
		}
		nb.Cells = append(nb.Cells, c)
	}
	return nb, nil
}

// Title is the notebook's title: metadata.warplab.title, else the first
// markdown heading, else the file name.
func (nb *Notebook) Title() string {
	if nb.Meta.Title != "" {
		return nb.Meta.Title
	}
	for _, c := range nb.Cells {
		if c.Type != "markdown" {
			continue
		}
		for _, line := range strings.Split(c.Source, "\n") {
			if strings.HasPrefix(line, "#") {
				return strings.TrimSpace(strings.TrimLeft(line, "#"))
			}
		}
	}
	return strings.TrimSuffix(baseName(nb.Path), ".ipynb")
}

// Summary is the one line the site's index shows: metadata.warplab.summary,
// else the first non-heading line of the first markdown cell.
func (nb *Notebook) Summary() string {
	if nb.Meta.Summary != "" {
		return nb.Meta.Summary
	}
	for _, c := range nb.Cells {
		if c.Type != "markdown" {
			continue
		}
		for _, line := range strings.Split(c.Source, "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "#") {
				return line
			}
		}
	}
	return ""
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

var (
	styleOrScript = regexp.MustCompile(`(?is)<(style|script)\b.*?</(style|script)>`)
	svgBlock      = regexp.MustCompile(`(?is)<svg\b.*?</svg>`)
	tag           = regexp.MustCompile(`(?s)<[^>]*>`)
	space         = regexp.MustCompile(`\s+`)
)

// VisibleText is what a reader sees of the outputs, as one line: stream
// text, error values, text/plain and markdown, and HTML with its tags, styles,
// scripts and SVG drawings removed (so "<td>4</td><td>128</td>" reads
// "4 128"). Expectations are matched against it.
func (nb *Notebook) VisibleText() string {
	var b bytes.Buffer
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			b.WriteString(o.visibleText())
			b.WriteByte('\n')
		}
	}
	return strings.TrimSpace(space.ReplaceAllString(b.String(), " "))
}

func (o Output) visibleText() string {
	switch o.Type {
	case "stream":
		return o.Text
	case "error":
		return o.EName + ": " + o.EValue
	}
	if h, ok := o.Data["text/html"]; ok {
		h = styleOrScript.ReplaceAllString(h, " ")
		h = svgBlock.ReplaceAllString(h, " ")
		h = tag.ReplaceAllString(h, " ")
		return html.UnescapeString(h)
	}
	if md, ok := o.Data["text/markdown"]; ok {
		return md
	}
	return o.Data["text/plain"]
}

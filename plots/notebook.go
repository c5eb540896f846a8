package plots

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/janpfeifer/gonb/gonbui"
	"gonum.org/v1/plot/vg"
)

// frontEnd is the part of gonbui this package uses; tests replace it to see
// what a notebook would have been sent.
type frontEnd interface {
	inNotebook() bool
	displayHTML(h string)
	updateHTML(id, h string)
	uniqueID() string
	sync()
}

// gonb sends to the GoNB kernel that runs this program. Every gonbui call is
// a no-op when the program was not started by GoNB.
type gonb struct{}

func (gonb) inNotebook() bool        { return gonbui.IsNotebook }
func (gonb) displayHTML(h string)    { gonbui.DisplayHTML(h) }
func (gonb) updateHTML(id, h string) { gonbui.UpdateHTML(id, h) }
func (gonb) uniqueID() string        { return gonbui.UniqueId() }
func (gonb) sync()                   { gonbui.Sync() }

// InNotebook reports whether this program runs inside a GoNB kernel, where
// Display and Progress show things in the notebook.
func InNotebook() bool { return gonbui.IsNotebook }

// Display shows d inline in the GoNB notebook as SVG, at the default size
// (about 800 px wide). Outside a notebook it draws nothing and returns nil,
// so code shared with the command line can call it unconditionally.
func Display(d Drawer) error {
	return DisplaySize(d, DefaultWidth, DefaultHeight)
}

// DisplaySize is Display at a chosen size.
func DisplaySize(d Drawer, w, h vg.Length) error {
	return displayTo(gonb{}, d, w, h)
}

func displayTo(fe frontEnd, d Drawer, w, h vg.Length) error {
	svg, err := SVG(d, w, h)
	if err != nil {
		return err
	}
	if fe.inNotebook() {
		// gonbui.DisplaySVG wraps the SVG in a <div> sent as text/html,
		// which nbconvert's HTML exporter keeps; do the same.
		fe.displayHTML("<div>" + string(svg) + "</div>")
		// Wait until GoNB has taken the figure: a cell that ends right
		// after Display could otherwise exit with the SVG (hundreds of KB)
		// still in the pipe, and the figure was lost now and then in CI.
		fe.sync()
	}
	return nil
}

// DisplayHTML shows an HTML fragment (a table from HTMLTable, a note) in the
// notebook; outside a notebook it does nothing.
func DisplayHTML(h string) { displayHTMLTo(gonb{}, h) }

func displayHTMLTo(fe frontEnd, h string) {
	if fe.inNotebook() {
		fe.displayHTML(h)
		fe.sync() // as in displayTo: the cell may end right after
	}
}

// ShowError reports err in a notebook cell as one short, readable line
// (what went wrong, as the error says it, without a stack trace); outside a
// notebook it writes the line to stderr. Only one of the two: in a cell,
// stderr is shown too, so writing both showed every error twice. It returns
// true when err was not nil, so a cell can write
// `if plots.ShowError(err) { return }`.
func ShowError(err error) bool {
	return showErrorTo(gonb{}, os.Stderr, err)
}

func showErrorTo(fe frontEnd, stderr io.Writer, err error) bool {
	if err == nil {
		return false
	}
	if !fe.inNotebook() {
		fmt.Fprintln(stderr, "error:", err)
		return true
	}
	fe.displayHTML(errorHTML(err))
	fe.sync() // deliver it before a cell that exits right after
	return true
}

func errorHTML(err error) string {
	return `<div class="warplab-error" style="border-left:4px solid #b00020;padding:4px 8px;color:#b00020">` +
		`<b>error:</b> ` + strings.ReplaceAll(html.EscapeString(err.Error()), "\n", "<br>") + `</div>`
}

// Progress shows how far a long simulation has got, updated in place in the
// notebook (a transient GoNB display that later updates replace), and then
// a final persistent result in its place. Outside a notebook it writes a
// line per stage and per 10% to Out, when Out is set.
//
// Update has the signature of the lessons' Options.Progress, so a
// Progress can be passed straight to a lesson:
//
//	pr := plots.NewProgress("SpMV on the simulator")
//	res, err := spmv.Run(ctx, dev, spmv.Options{Progress: pr.Update})
//	pr.Done(res.HTMLTables())
//
// A Progress is safe for use by several goroutines.
type Progress struct {
	// Out receives plain-text progress when not in a notebook (the command
	// line sets it to stderr when that is a terminal); nil means silent.
	Out io.Writer

	title string
	fe    frontEnd
	id    string

	mu        sync.Mutex
	stage     string
	percent   int // last percentage shown, -1 before any
	textShown int // last 10% step written to Out
	done      bool
}

// NewProgress returns a Progress whose display is titled title.
func NewProgress(title string) *Progress {
	return newProgress(gonb{}, title)
}

func newProgress(fe frontEnd, title string) *Progress {
	return &Progress{title: title, fe: fe, id: "warplab-progress-" + fe.uniqueID(), percent: -1, textShown: -1}
}

// Update reports that stage has done of total steps. It redraws only when
// the stage or the whole percentage changes, so a kernel may call it for
// every block without flooding the notebook. total ≤ 0 means the stage has
// no known length. Calls after Done are ignored.
func (p *Progress) Update(stage string, done, total int) {
	pct := 0
	if total > 0 {
		pct = int(100 * int64(min(max(done, 0), total)) / int64(total))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || (stage == p.stage && pct == p.percent) {
		return
	}
	newStage := stage != p.stage
	p.stage, p.percent = stage, pct
	if p.fe.inNotebook() {
		p.fe.updateHTML(p.id, progressHTML(p.title, stage, pct, total > 0))
		return
	}
	if p.Out != nil && (newStage || pct/10 != p.textShown) {
		p.textShown = pct / 10
		if total > 0 {
			fmt.Fprintf(p.Out, "%s: %s %d%%\n", p.title, stage, pct)
		} else {
			fmt.Fprintf(p.Out, "%s: %s\n", p.title, stage)
		}
	}
}

// Done removes the transient progress display and shows finalHTML (for
// example the lesson's tables) as the cell's persistent output; finalHTML
// "" shows nothing. Later Updates are ignored.
func (p *Progress) Done(finalHTML string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	if !p.fe.inNotebook() {
		return
	}
	if p.percent >= 0 {
		p.fe.updateHTML(p.id, "")
	}
	if finalHTML != "" {
		p.fe.displayHTML(finalHTML)
	}
	p.fe.sync() // the cell usually ends right after Done
}

func progressHTML(title, stage string, pct int, known bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="warplab-progress"><b>%s</b>: %s`, html.EscapeString(title), html.EscapeString(stage))
	if known {
		fmt.Fprintf(&b, ` <progress max="100" value="%d" style="width:240px;vertical-align:middle"></progress> %d%%`, pct, pct)
	}
	b.WriteString("</div>")
	return b.String()
}

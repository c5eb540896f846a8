package nbtest

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/timecheck"
	"github.com/warplab/warplab/timefig"
)

// Lesson is one notebook's result in a site build.
type Lesson struct {
	Name     string // file name without .ipynb
	Title    string
	Summary  string
	Page     string   // rendered HTML page, relative to the site directory
	Notebook string   // executed notebook, relative to the site directory
	Problems []string // why the notebook or its page fails; empty when it passed
	Took     time.Duration
	Executed *Notebook // the executed notebook, for further checks
}

// Notebooks lists the .ipynb files of dir, sorted by name (lesson order).
func Notebooks(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.ipynb"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("no notebooks (*.ipynb) in %s", dir)
	}
	return paths, nil
}

// BuildSite executes each notebook, checks it, renders its lesson page into
// dir and writes dir/index.html linking every page with its one-line summary.
// Executed notebooks go to dir/notebooks/. A notebook with problems still
// gets its page (to look at), and BuildSite returns an error naming every
// problem after all notebooks ran. Progress goes to log.
func (r *Runner) BuildSite(ctx context.Context, notebooks []string, dir string, log io.Writer) ([]Lesson, error) {
	if err := os.MkdirAll(filepath.Join(dir, "notebooks"), 0o755); err != nil {
		return nil, err
	}
	var lessons []Lesson
	var failed []string
	for _, src := range notebooks {
		start := time.Now()
		name := strings.TrimSuffix(filepath.Base(src), ".ipynb")
		fmt.Fprintf(log, "site: %s: executing\n", name)
		l := Lesson{Name: name, Title: name}
		if in, err := Read(src); err == nil {
			l.Title, l.Summary = in.Title(), in.Summary()
		}
		nb, err := r.Execute(ctx, src, filepath.Join(dir, "notebooks"))
		if err != nil {
			l.Problems = append(l.Problems, err.Error())
		} else {
			l.Executed = nb
			l.Notebook = filepath.Join("notebooks", name+".ipynb")
			for _, p := range Check(nb) {
				l.Problems = append(l.Problems, p.String())
			}
			page, err := r.RenderHTML(ctx, nb.Path, dir)
			if err != nil {
				l.Problems = append(l.Problems, err.Error())
			} else {
				l.Page = filepath.Base(page)
				b, err := os.ReadFile(page)
				if err != nil {
					l.Problems = append(l.Problems, err.Error())
				}
				plots := 0
				for _, c := range nb.Cells {
					if c.HasTag(PlotTag) {
						plots++
					}
				}
				l.Problems = append(l.Problems, PageProblems(string(b), plots)...)
			}
		}
		l.Took = time.Since(start).Round(100 * time.Millisecond)
		status := "ok"
		if len(l.Problems) > 0 {
			status = fmt.Sprintf("FAILED (%d problems)", len(l.Problems))
			for _, p := range l.Problems {
				failed = append(failed, name+": "+p)
			}
		}
		fmt.Fprintf(log, "site: %s: %s in %v\n", name, status, l.Took)
		lessons = append(lessons, l)
	}
	if err := writeIndex(filepath.Join(dir, "index.html"), lessons); err != nil {
		return lessons, err
	}
	if len(failed) > 0 {
		return lessons, errors.New(strings.Join(failed, "\n"))
	}
	return lessons, nil
}

var indexTmpl = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>warplab lessons</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #222; }
li { margin: 0.6em 0; }
.summary { color: #444; }
.failed { color: #b00; }
footer { margin-top: 3em; font-size: 0.85em; color: #666; }
</style>
</head>
<body>
<h1>warplab lessons</h1>
<p>GPU programming from Go notebooks. Each page is a notebook executed headless; numbers from the simulator are <em>modeled</em>.</p>
<ol>
{{- range .Lessons}}
<li>{{if .Page}}<a href="{{.Page}}">{{.Title}}</a>{{else}}{{.Title}}{{end}}
{{- if .Summary}} — <span class="summary">{{.Summary}}</span>{{end}}
{{- if .Notebook}} (<a href="{{.Notebook}}">executed notebook</a>){{end}}
{{- if .Problems}} <span class="failed">— failed its checks</span>{{end}}</li>
{{- end}}
</ol>
{{- with .TimeModel}}
<h2>Modeled against measured, every lesson</h2>
<figure>
{{- if .Image}}
<img src="{{.Image}}" alt="modeled time against measured time for every recorded kernel run of the lessons" style="max-width: 100%">
{{- end}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
<footer>Built by scripts/site.sh.</footer>
</body>
</html>
`))

// indexTimeModel is the index page's time-model figure: the image's
// file name beside index.html and its caption.
type indexTimeModel struct{ Image, Caption string }

// timeModelImage is the all-lessons figure's file beside index.html.
const timeModelImage = "timemodel.svg"

// writeTimeModel writes the simulator's modeled time against the measured
// one for every recorded H200 kernel run of every lesson (the embedded
// check, timefig.TimeModelFigure("")) into dir, so the index shows how far
// the lessons' modeled times can be trusted (issue 13). The check's
// figures go in the caption, read from the same report.
func writeTimeModel(dir string) (*indexTimeModel, error) {
	rep, err := timecheck.Embedded()
	if err != nil {
		return nil, err
	}
	p, err := timefig.TimeModel(rep, "")
	if err != nil {
		return nil, err
	}
	if err := plots.WriteFile(filepath.Join(dir, timeModelImage), p, plots.DefaultWidth, plots.DefaultHeight); err != nil {
		return nil, err
	}
	gpu := rep.Model
	if m, err := sim.ModelByKey(rep.Model); err == nil {
		gpu = m.Name
	}
	a := rep.All
	return &indexTimeModel{Image: timeModelImage, Caption: fmt.Sprintf(
		"Each point is one kernel run a lesson timed on the %s and recorded under evidence/, against the simulator's modeled time for the same run (model %s, checked %s). "+
			"%d of %d runs are within 25%% (the band), the median error is %.0f%%, and the model picks the faster kernel of %d of %d pairs. docs/timemodel.md says what the model gets wrong.",
		gpu, rep.Model, rep.Date, a.Within, a.Runs, 100*a.MedianAbsErr, a.PairsRight, a.Pairs)}, nil
}

// writeIndex writes the index page; the time-model figure is left out
// (with the reason in the page) when it cannot be drawn.
func writeIndex(path string, lessons []Lesson) error {
	data := struct {
		Lessons   []Lesson
		TimeModel *indexTimeModel
	}{Lessons: lessons}
	tm, err := writeTimeModel(filepath.Dir(path))
	if err != nil {
		tm = &indexTimeModel{Caption: "the time-model figure could not be drawn: " + err.Error()}
	}
	data.TimeModel = tm
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := indexTmpl.Execute(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

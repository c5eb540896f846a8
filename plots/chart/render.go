package chart

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawer is anything that draws itself onto a canvas: a *plot.Plot or a
// *Figure. The render helpers take a Drawer so that single plots and
// multi-panel figures go through the same code.
type Drawer interface {
	Draw(c draw.Canvas)
}

// Default sizes: 8 inches is 768 CSS pixels, which fits a notebook's
// output area (about 800 px) without scaling the text down.
const (
	DefaultWidth  = 8 * vg.Inch
	DefaultHeight = 4.5 * vg.Inch
	// DefaultDPI is the PNG resolution; 96 makes one inch 96 pixels, as
	// browsers do.
	DefaultDPI = 96
)

// Figure is several plots stacked in one image, top to bottom, with their
// plotting areas aligned so that panels sharing categories line up. It
// exists because a lesson often has two views of one run (a prediction and
// the counters behind it) that belong in one picture.
type Figure struct {
	Panels []*plot.Plot
	// Heights are the relative heights of the panels; nil means equal.
	Heights []float64
}

// Draw implements Drawer: it splits the canvas into one row per panel.
func (f *Figure) Draw(c draw.Canvas) {
	if len(f.Panels) == 0 {
		return
	}
	total := 0.0
	for i := range f.Panels {
		total += f.height(i)
	}
	top := c.Max.Y
	full := c.Max.Y - c.Min.Y
	for i, p := range f.Panels {
		h := full * vg.Length(f.height(i)/total)
		sub := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Min.X, Y: top - h},
			Max: vg.Point{X: c.Max.X, Y: top},
		}}
		if i > 0 {
			sub.Max.Y -= vg.Points(6) // gap between panels
		}
		p.Draw(sub)
		top -= h
	}
}

func (f *Figure) height(i int) float64 {
	if i < len(f.Heights) && f.Heights[i] > 0 {
		return f.Heights[i]
	}
	return 1
}

// drawSafely runs d.Draw on c and turns a panic inside gonum (a log axis given a
// value ≤ 0, an empty range) into an error, so bad data never crashes a
// notebook kernel or the command line.
func drawSafely(d Drawer, c draw.Canvas) (err error) {
	if d == nil {
		return errors.New("chart: nothing to draw (nil plot)")
	}
	if f, ok := d.(*Figure); ok && f == nil {
		return errors.New("chart: nothing to draw (nil figure)")
	}
	if p, ok := d.(*plot.Plot); ok && p == nil {
		return errors.New("chart: nothing to draw (nil plot)")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chart: drawing failed: %v", r)
		}
	}()
	d.Draw(c)
	return nil
}

func checkSize(w, h vg.Length) error {
	if !(w > 0 && h > 0) || w > 100*vg.Inch || h > 100*vg.Inch {
		return fmt.Errorf("chart: size %.1f×%.1f in is not drawable (want 0 < size ≤ 100 in)", w/vg.Inch, h/vg.Inch)
	}
	return nil
}

// SVG renders d as an SVG document w wide and h high. The fonts are named,
// not embedded, which keeps a figure a few tens of kilobytes.
func SVG(d Drawer, w, h vg.Length) ([]byte, error) {
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	c := vgsvg.New(w, h)
	if err := drawSafely(d, draw.New(c)); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart: writing SVG: %w", err)
	}
	return b.Bytes(), nil
}

// PNG renders d as a PNG image w wide and h high at dpi dots per inch
// (0 means DefaultDPI), on a white background so it reads on dark pages.
func PNG(d Drawer, w, h vg.Length, dpi int) ([]byte, error) {
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	if dpi == 0 {
		dpi = DefaultDPI
	}
	if dpi < 10 || dpi > 1200 {
		return nil, fmt.Errorf("chart: %d dpi is out of range (10 to 1200)", dpi)
	}
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	if err := drawSafely(d, draw.New(c)); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart: encoding PNG: %w", err)
	}
	return b.Bytes(), nil
}

// WriteFile renders d to path, as SVG or PNG by the file's extension
// (.svg, .png). It writes a temporary file in the same folder and renames it
// over path, so a reader (a web server, a page build) never sees half a
// figure, and a failed render leaves any previous file in place.
func WriteFile(path string, d Drawer, w, h vg.Length) error {
	var (
		data []byte
		err  error
	)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg":
		data, err = SVG(d, w, h)
	case ".png":
		data, err = PNG(d, w, h, 0)
	default:
		return fmt.Errorf("chart: %s: unknown figure format %q (want .svg or .png)", path, ext)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("chart: writing %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("chart: writing %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("chart: writing %s: %w", path, err)
	}
	return nil
}

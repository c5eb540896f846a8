package main

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/lesson"
)

// figureLesson is a lesson whose figure its device cannot draw: the
// command must say so before Run, not after it (issue 31 item 6; tiling's
// figures on a GPU run).
type figureLesson struct{ ran bool }

// descriptor is the lesson as the command takes it.
func (l *figureLesson) descriptor() *lesson.Lesson {
	return &lesson.Lesson{
		Name:        "fig",
		Doc:         "a lesson without a figure on this device",
		Flags:       func(*flag.FlagSet, lab.Options) lesson.Command { return l },
		CheckFigure: func(*gpuext.Device) error { return errors.New("no figure on this device") },
	}
}

func (*figureLesson) Validate() error { return nil }
func (l *figureLesson) Run(context.Context, *gpuext.Device, lesson.Progress) (lesson.Result, error) {
	l.ran = true
	return nil, errors.New("ran")
}

func TestFigureCheckedBeforeRun(t *testing.T) {
	l := &figureLesson{}
	var stdout, stderr strings.Builder
	svg := filepath.Join(t.TempDir(), "f.svg")
	code := runLesson(l.descriptor(), []string{"--backend", "sim", "--svg", svg}, &stdout, &stderr)
	if code != exitUsage || l.ran || !strings.Contains(stderr.String(), "--svg "+svg+": no figure on this device") {
		t.Errorf("exit %d, ran %v, stderr %q; want exit %d before Run, naming --svg", code, l.ran, stderr.String(), exitUsage)
	}
	// Without --svg the check is not asked and the lesson runs.
	stderr.Reset()
	if code := runLesson(l.descriptor(), []string{"--backend", "sim"}, &stdout, &stderr); code != exitFail || !l.ran {
		t.Errorf("without --svg: exit %d, ran %v (%q)", code, l.ran, stderr.String())
	}
}

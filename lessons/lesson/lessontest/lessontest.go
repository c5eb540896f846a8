// Package lessontest runs a lesson's own cases in a test, as
// golang.org/x/tools/go/analysis/analysistest runs an analyzer's: a lesson
// package's test is one call,
//
//	func TestSelfTest(t *testing.T) { lessontest.SelfTest(t, Lesson()) }
//
// and the cases themselves live in the lesson (Lesson.SelfTest), where
// `warplab selftest` finds them too.
package lessontest

import (
	"context"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
)

// SelfTest runs l's self-test on the simulator with the PTX column on (a
// second simulator stands for the GPU's PTX, so every kernel must give
// the same bits on both and agree with the CPU reference), and fails t on
// any failed check, on no checks at all, and on a missing code line naming
// the PTX that ran.
func SelfTest(t *testing.T, l *lesson.Lesson) {
	t.Helper()
	if l.SelfTest == nil {
		t.Fatalf("lesson %s has no SelfTest", l.Name)
	}
	open := func() *gpuext.Device {
		d, err := gpuext.Open("sim")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		return d
	}
	checks, code, err := l.SelfTest(context.Background(), lesson.Devices{Dev: open(), PTX: open()})
	if err != nil {
		t.Fatalf("%s: SelfTest: %v", l.Name, err)
	}
	if len(checks) == 0 {
		t.Fatalf("%s: SelfTest checked nothing", l.Name)
	}
	if len(code) == 0 || !strings.Contains(strings.Join(code, "\n"), "PTX") {
		t.Errorf("%s: code lines %q; want one naming the PTX the simulator ran", l.Name, code)
	}
	for _, c := range checks {
		if c.Lesson != l.Name {
			t.Errorf("%s: a check names lesson %q", l.Name, c.Lesson)
		}
		if c.Failed() || !c.PTX.OK || c.PTX == lesson.NotCompared() {
			t.Errorf("%s %s %s: reference %v, PTX %v; want agreement on both", l.Name, c.Input, c.Kernel, c.Reference, c.PTX)
		}
	}
}

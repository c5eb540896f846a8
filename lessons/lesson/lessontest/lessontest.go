// Package lessontest runs a lesson's own cases in a test, as
// golang.org/x/tools/go/analysis/analysistest runs an analyzer's: a lesson
// package's test is one call,
//
//	func TestSelfTest(t *testing.T) { lessontest.SelfTest(t, Lesson()) }
//
// and lessons/all's test holds every descriptor to the contract
// (Descriptor) and runs its time-check examples (TimeCheck).
//
// and the cases themselves live in the lesson (Lesson.SelfTest), where
// `warplab selftest` finds them too.
package lessontest

import (
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
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

// Descriptor checks what every driver needs of l: a name and a one-line
// doc, flags that parse an empty command line into a Command whose
// defaults validate, no shared flag defined again, and a module with its
// CUDA C and PTX.
func Descriptor(t *testing.T, l *lesson.Lesson) {
	t.Helper()
	if l.Name == "" || strings.ContainsAny(l.Name, " \t\n") {
		t.Errorf("lesson name %q: want one word", l.Name)
	}
	if l.Doc == "" || strings.Contains(l.Doc, "\n") {
		t.Errorf("%s: doc %q: want one line", l.Name, l.Doc)
	}
	if l.Flags == nil || l.Recorded == nil || l.Module == nil {
		t.Fatalf("%s: Flags, Recorded and Module are required", l.Name)
	}
	fs := flag.NewFlagSet(l.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shared := []string{"backend", "model", "json", "svg", "recorded"}
	for _, name := range shared {
		fs.String(name, "", "shared")
	}
	c := l.Flags(fs, lab.Options{})
	if c == nil {
		t.Fatalf("%s: Flags returned no Command", l.Name)
	}
	if err := fs.Parse(nil); err != nil {
		t.Fatalf("%s: empty command line: %v", l.Name, err)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("%s: the defaults do not validate: %v", l.Name, err)
	}
	own := 0
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage == "" {
			t.Errorf("%s: --%s has no usage line", l.Name, f.Name)
		}
		own++
	})
	if own == len(shared) {
		t.Errorf("%s: no flags of its own", l.Name)
	}
	if m := l.Module(); m == nil || !strings.Contains(m.CUDA, "__global__") || !strings.Contains(m.PTX, ".entry") {
		t.Errorf("%s: Module lacks its CUDA C or PTX", l.Name)
	}
}

// TimeCheck runs l's time-check examples (TimeCheck.Examples: small
// inputs in the recorded runs' words) through TimeCheck.Model on the
// simulator, each group as the time model's check groups them, and fails t
// on an example left unmodeled or modeled without a bound. A lesson
// without a time check passes.
func TimeCheck(t *testing.T, l *lesson.Lesson) {
	t.Helper()
	tc := l.TimeCheck
	if tc == nil {
		return
	}
	if tc.Model == nil || len(tc.Examples) == 0 {
		t.Fatalf("%s: a TimeCheck needs Model and Examples", l.Name)
	}
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	groups := map[string][]lesson.TimeCase{}
	var order []string
	for _, c := range tc.Examples {
		k := tc.GroupOf(c)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	for _, k := range order {
		cases := groups[k]
		out, err := tc.Model(context.Background(), dev, cases, lesson.TimeEnv{})
		if err != nil {
			t.Errorf("%s: %s: %v", l.Name, k, err)
			continue
		}
		if len(out) != len(cases) {
			t.Fatalf("%s: %s: %d modeled for %d cases", l.Name, k, len(out), len(cases))
		}
		for i, m := range out {
			if m.Seconds <= 0 || m.Bound == "" || m.Skipped != "" {
				t.Errorf("%s: %+v: modeled %+v; want a time and its bound", l.Name, cases[i], m)
			}
		}
	}
}

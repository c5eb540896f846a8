package timecheck

import (
	"path/filepath"
	"testing"

	"github.com/warplab/warplab/lessons/all"
)

// TestRecordedLessonsHaveTimeChecks: every lesson with a recorded GPU run
// under evidence/ models it through its descriptor (Lesson.TimeCheck), so
// Simulate, generic over lessons/all, leaves none unmodeled for want of a
// lesson; and the fixture's runs group as the lessons say.
func TestRecordedLessonsHaveTimeChecks(t *testing.T) {
	runs, err := Recorded(filepath.Join(".."))
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range runs {
		if r.Lesson != "launch" {
			per[r.Lesson]++
		}
	}
	for _, name := range []string{"spmv", "tiling", "cg"} {
		if per[name] == 0 {
			t.Errorf("no recorded %s runs: the check reads no evidence for it", name)
		}
	}
	for name, n := range per {
		l, ok := all.ByName(name)
		if !ok || l.TimeCheck == nil || l.TimeCheck.Model == nil {
			t.Errorf("lesson %s has %d recorded runs and no time check", name, n)
		}
	}
}

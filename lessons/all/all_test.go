package all

import (
	"testing"

	"github.com/warplab/warplab/lessons/lesson/lessontest"
)

// TestLessons holds every lesson's descriptor to the contract (a name, a
// doc line, flags that parse and validate with their defaults, its
// kernels) and runs its time-check examples on the simulator; each
// lesson's self-test cases run in its own package (lessontest.SelfTest).
func TestLessons(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Lessons() {
		t.Run(l.Name, func(t *testing.T) {
			if seen[l.Name] {
				t.Fatalf("two lessons named %q", l.Name)
			}
			seen[l.Name] = true
			lessontest.Descriptor(t, l)
			lessontest.TimeCheck(t, l)
			if got, ok := ByName(l.Name); !ok || got.Name != l.Name {
				t.Errorf("ByName(%q) = %v, %v", l.Name, got, ok)
			}
		})
	}
	if len(seen) < 4 {
		t.Errorf("%d lessons; want spmv, tiling, cg and libs at least", len(seen))
	}
	if _, ok := ByName("nosuch"); ok {
		t.Error("ByName found a lesson that does not exist")
	}
}

package libs

import (
	"testing"

	"github.com/warplab/warplab/lessons/lesson/lessontest"
)

// TestSelfTest runs the lesson's self-test cases (selftest.go) on the
// simulator, with the PTX column on.
func TestSelfTest(t *testing.T) { lessontest.SelfTest(t, Lesson()) }

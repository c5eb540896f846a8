package main

import (
	"testing"
)

// TestSelfTesters: every lesson with kernels of its own checks them, so the
// self-test covers it (libs' kernels are checked by its own tests). Each
// lesson's cases run in its own package's test (lessontest.SelfTest);
// main_test runs the command on the simulator.
func TestSelfTesters(t *testing.T) {
	got := map[string]bool{}
	for _, l := range selfTesters() {
		got[l.Name] = true
	}
	for _, name := range []string{"cg", "spmv", "tiling"} {
		if !got[name] {
			t.Errorf("lesson %s has no SelfTest", name)
		}
	}
}

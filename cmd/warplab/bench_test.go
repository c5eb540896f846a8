package main

import (
	"io"
	"testing"
)

// BenchmarkLessonSeedSize is the whole lesson as a user runs it, at the
// seed's size (2^19 rows, both matrices, all six kernels, checks, tables) on
// the simulator. The target is ≤ 10 s on a 2-core machine.
func BenchmarkLessonSeedSize(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if code := run([]string{"run", "spmv", "--backend", "sim"}, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

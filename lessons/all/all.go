// Package all lists the course's lessons: the one place that names each
// lesson package, so that the tools driving every lesson (`warplab run`
// and `warplab selftest` in cmd/warplab, the time model's check in package
// timecheck) are generic over the list, with no file or switch per lesson.
// A new lesson is its package and one line here.
package all

import (
	"github.com/warplab/warplab/lessons/cg"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/lessons/libs"
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/lessons/tiling"
)

// Lessons returns a fresh descriptor of every lesson, in the course's
// order. A function, not a package variable: the list is built where it is
// read, and nothing can change it behind a caller's back.
func Lessons() []*lesson.Lesson {
	return []*lesson.Lesson{spmv.Lesson(), tiling.Lesson(), cg.Lesson(), libs.Lesson()}
}

// ByName returns the lesson named name (the word after `warplab run`).
func ByName(name string) (*lesson.Lesson, bool) {
	for _, l := range Lessons() {
		if l.Name == name {
			return l, true
		}
	}
	return nil, false
}

package ptx

import (
	"fmt"
	"sort"
)

// Error is one problem in a PTX text, at a line, so that a student can open
// the PTX (or the .cu it came from) at the place that was refused.
type Error struct {
	File string // the name given to Parse
	Line int    // 1-based PTX line; 0 when the problem has no single line
	Msg  string
	// Src is the CUDA C line the refused instruction came from
	// ("hist.cu:14", the outermost line of an inlined chain), when the PTX
	// has line information; "" otherwise.
	Src string
	loc Loc // the position Src is made from, once .file is known
}

func (e *Error) Error() string {
	src := ""
	if e.Src != "" {
		src = " (" + e.Src + ")"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d%s: %s", e.File, e.Line, src, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// maxErrors caps an ErrorList: past a handful, further errors in one PTX
// text are mostly consequences of the first ones and only bury them.
const maxErrors = 10

// ErrorList is every error Parse found in one text, sorted by line (as
// go/scanner.ErrorList), so that one run shows all that needs fixing.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Unwrap gives errors.Is and errors.As each *Error of the list.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// sortErrors orders the list by line, keeping the order of errors on one line.
func (l ErrorList) sortErrors() {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Line < l[j].Line })
}

package sim

import (
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// TestSrcLoc: the student's line of an instruction. Code inlined from a
// header is credited to the call in the student's file; code inlined from
// the student's own file (a template body, as the lessons write their
// kernels) keeps its line, or every load of a templated kernel would be
// the wrapper's one line.
func TestSrcLoc(t *testing.T) {
	const cu, hpp = 1, 2
	for _, c := range []struct {
		name        string
		loc, caller ptx.Loc
		want        ptx.Loc
	}{
		{"not inlined", ptx.Loc{File: cu, Line: 10}, ptx.Loc{}, ptx.Loc{File: cu, Line: 10}},
		{"inlined from a header", ptx.Loc{File: hpp, Line: 82}, ptx.Loc{File: cu, Line: 75}, ptx.Loc{File: cu, Line: 75}},
		{"template body in the same file", ptx.Loc{File: cu, Line: 30}, ptx.Loc{File: cu, Line: 90}, ptx.Loc{File: cu, Line: 30}},
		{"inlined line 0", ptx.Loc{File: cu, Line: 0}, ptx.Loc{File: cu, Line: 90}, ptx.Loc{File: cu, Line: 90}},
		{"caller without a line", ptx.Loc{File: hpp, Line: 82}, ptx.Loc{File: cu, Line: 0}, ptx.Loc{File: hpp, Line: 82}},
	} {
		in := &ptx.Instr{Loc: c.loc, Caller: c.caller}
		if got := srcLoc(in); got.File != c.want.File || got.Line != c.want.Line {
			t.Errorf("%s: srcLoc = %+v, want %+v", c.name, got, c.want)
		}
	}
}

package cg

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/warplab/warplab/internal/cusrc"
	"github.com/warplab/warplab/sim/ptx"
)

// Which array each global load of a CG kernel reads. The simulator runs
// cg.ptx and names a memory site by its cg.cu line and PTX instruction; the
// CSR row loop reads cols, vals and x on one line, and nvcc unrolls the
// thread-per-row loop into four copies of each, so neither the line nor the
// order says which array a load reads. Where its address comes from does:
// the PTX package follows each load's address back to the one pointer
// parameter it derives from (ptx.Module.LoadParams, which says how). A load
// whose address reaches no parameter or several gets no name, never a
// guess. (lessons/spmv/sites.go and lessons/tiling/loads.go name their
// loads the same way.)

// loadArrays maps each global load of one kernel in cg.ptx, by its
// instruction text as site labels end with it, to the name of the pointer
// parameter its address derives from, as cg.cu spells it.
func loadArrays(kernel string) (map[string]string, error) {
	mod, err := ptx.Parse("cg.ptx", cgPTX)
	if err != nil {
		return nil, fmt.Errorf("cg: cg.ptx: %w", err)
	}
	k, err := mod.Kernel(kernel)
	if err != nil {
		return nil, fmt.Errorf("cg: no kernel %q in cg.ptx", kernel)
	}
	names, err := paramNames(kernel)
	if err != nil {
		return nil, err
	}
	if len(names) != len(k.Params) {
		return nil, fmt.Errorf("cg: %s has %d parameters in cg.cu and %d in cg.ptx", kernel, len(names), len(k.Params))
	}
	loads, err := mod.LoadParams(kernel)
	if err != nil {
		return nil, fmt.Errorf("cg: %w", err)
	}
	out := map[string]string{}
	for _, ld := range loads {
		if ld.Err == nil {
			out[ld.Text] = names[ld.Param]
		}
	}
	return out, nil
}

var paramName = regexp.MustCompile(`(\w+)\s*$`)

// paramNames are kernel's parameter names in cg.cu, in order: the last
// identifier of each declaration in its signature ("const double*
// __restrict__ vals" gives vals).
func paramNames(kernel string) ([]string, error) {
	src, err := cusrc.Func(cgCU, kernel)
	if err != nil {
		return nil, err
	}
	// The list opens after the name (a __launch_bounds__(...) may come
	// before it) and holds no parentheses.
	open := strings.Index(src, kernel+"(")
	if open >= 0 {
		open += len(kernel)
	}
	end := strings.IndexByte(src[max(open, 0):], ')') + max(open, 0)
	if open < 0 || end < open {
		return nil, fmt.Errorf("cg: %s: no parameter list in cg.cu", kernel)
	}
	var names []string
	for _, d := range strings.Split(src[open+1:end], ",") {
		m := paramName.FindStringSubmatch(strings.TrimSpace(d))
		if m == nil {
			return nil, fmt.Errorf("cg: %s: parameter %q has no name", kernel, strings.TrimSpace(d))
		}
		names = append(names, m[1])
	}
	return names, nil
}

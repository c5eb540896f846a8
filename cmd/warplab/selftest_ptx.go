package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// The self-test's PTX check: on a GPU every kernel also runs on the
// simulator from PTX, and that PTX is the one the GPU loaded
// (Options.PTXFrom): the
// PTX nvcc made beside the cubin with the same flags, or under
// WARPLAB_PTX_ONLY=1 the embedded PTX the driver JIT-compiled. The GPU's
// output must then equal the simulator's bit for bit. Two things may make a
// correct GPU result differ, and the PTX says whether a kernel has them:
//
//   - float atomics (atom/red .add on .f16/.f32/.f64): the GPU adds in
//     whatever order the lanes arrive, the simulator in its fixed order;
//   - approximate instructions (.approx: rcp, sqrt, rsqrt, ex2, lg2, sin,
//     cos, div.approx, tanh; and div.full.f32), whose result the PTX manual
//     bounds but does not fix (e.g. rcp.approx.f32 and sqrt.approx.f32
//     within 1 ulp, ex2.approx.f32 and div.full.f32 within 2 ulp).
//
// A kernel with neither is held to the same bits. A kernel with either is
// held to a tolerance its lesson states (ptxTolerance); where the lesson
// states none, the row fails and says which instruction needs one, rather
// than pass on a guessed bound.

// ptxInstrRE finds the atomics and the approximate instructions; isHazard
// keeps those whose results may differ between the GPU and the simulator
// with both correct.
var ptxInstrRE = regexp.MustCompile(`\b(?:atom|red|div|[a-z0-9]+)(?:\.[a-z0-9:]+)+`)

// isHazard reports whether one PTX opcode (with its modifiers) is a float
// atomic add (order-dependent: atom/red .add on f16, bf16, f32, f64 or
// their vectors, the type before or after .add as PTX versions write it) or
// an approximate instruction (.approx; div.full.f32, within 2 ulp).
func isHazard(op string) bool {
	parts := strings.Split(op, ".")
	switch {
	case parts[0] == "atom" || parts[0] == "red":
		float, add := false, false
		for _, p := range parts[1:] {
			switch p {
			case "add":
				add = true
			case "f16", "bf16", "f32", "f64", "f16x2", "bf16x2":
				float = true
			}
		}
		return float && add
	case parts[0] == "div" && len(parts) > 1 && parts[1] == "full":
		return true
	}
	return slices.Contains(parts[1:], "approx")
}

var ptxEntryRE = regexp.MustCompile(`\.entry\s+([A-Za-z_$][\w$]*)`)

// ptxHazards lists the order- or approximation-dependent instructions of
// kernel in the PTX text (every kernel's when kernel is ""), sorted, each
// once.
func ptxHazards(text, kernel string) []string {
	locs := ptxEntryRE.FindAllStringSubmatchIndex(text, -1)
	seen := map[string]bool{}
	for i, l := range locs {
		name := text[l[2]:l[3]]
		if kernel != "" && name != kernel {
			continue
		}
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		for _, ins := range ptxInstrRE.FindAllString(text[l[0]:end], -1) {
			if isHazard(ins) {
				seen[ins] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ptxCheck is what the self-test needs of one lesson's PTX on the simulator.
type ptxCheck struct {
	text       string // the PTX the simulator runs
	provenance string // its compiler and target, and where it came from
}

// lessonPTX returns the PTX the simulator runs for m (nil devs.ptx: none).
func lessonPTX(devs selftestDevs, m *gpuext.Module) (*ptxCheck, error) {
	if devs.ptx == nil {
		return nil, nil
	}
	text, prov, err := devs.ptx.SimPTXSource(m)
	if err != nil {
		return nil, err
	}
	return &ptxCheck{text: text, provenance: prov}, nil
}

// compareF32 compares the GPU's float32 output with the PTX simulator's:
// the same bits, or where the kernel's PTX has hazards, within tol relative
// (tol 0: the lesson states none, so the row fails).
func (pc *ptxCheck) compareF32(kernel string, gpu, simPTX []float32, tol float32) string {
	hz := ptxHazards(pc.text, kernel)
	if len(gpu) != len(simPTX) {
		return fmt.Sprintf("%d outputs vs %d", len(gpu), len(simPTX))
	}
	first := -1
	for i := range gpu {
		if math.Float32bits(gpu[i]) != math.Float32bits(simPTX[i]) {
			first = i
			break
		}
	}
	if first < 0 {
		if len(hz) > 0 {
			return "ok (same bits; " + strings.Join(hz, ", ") + " allowed a tolerance)"
		}
		return "ok (same bits)"
	}
	diff := fmt.Sprintf("differs at %d: GPU %.9g, PTX %.9g", first, gpu[first], simPTX[first])
	if len(hz) == 0 {
		return diff + " (no float atomics or .approx in its PTX: must be the same bits)"
	}
	if tol == 0 {
		return diff + "; it uses " + strings.Join(hz, ", ") + " and no tolerance is stated for it"
	}
	for i := range gpu {
		d := float32(math.Abs(float64(gpu[i] - simPTX[i])))
		if d > tol*max(1, float32(math.Abs(float64(simPTX[i])))) {
			return fmt.Sprintf("differs at %d by more than %g relative: GPU %.9g, PTX %.9g (uses %s)", i, tol, gpu[i], simPTX[i], strings.Join(hz, ", "))
		}
	}
	return fmt.Sprintf("ok (within %g relative; uses %s)", tol, strings.Join(hz, ", "))
}

// codeLine says which code each side ran for one lesson module: the GPU's
// load path (cubin and its arch, or PTX JIT) and the PTX the simulator ran.
func codeLine(devs selftestDevs, m *gpuext.Module, pc *ptxCheck) (string, error) {
	li, err := devs.dev.Load(m)
	if err != nil {
		return "", err
	}
	var gpu string
	switch li.Path {
	case gpuext.PathCubin:
		gpu = fmt.Sprintf("cubin %s (%s)", li.Arch, li.Note)
	case gpuext.PathPTX:
		gpu = fmt.Sprintf("embedded PTX (.target %s), JIT-compiled by the driver (%s)", li.Arch, li.Note)
	default:
		gpu = li.Path.String()
	}
	s := fmt.Sprintf("%s: GPU ran %s", m.Name, gpu)
	if pc != nil {
		s += "; simulator ran PTX " + pc.provenance
	}
	return s, nil
}

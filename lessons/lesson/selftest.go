package lesson

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// Devices are the devices one self-test runs on: Dev, the device under
// test, and on a GPU PTX, the simulator running every kernel from the PTX
// that GPU loaded (gpuext.Options.PTXFrom); PTX is nil on the simulator.
type Devices struct {
	Dev, PTX *gpuext.Device
}

// Check is one kernel on one input: did it agree with the CPU reference,
// and (on a GPU) with the simulator running the GPU's PTX.
type Check struct {
	Lesson, Input, Kernel string
	Reference             Outcome
	PTX                   Outcome // NotCompared where there is no PTX simulator
}

// Failed reports whether either comparison failed.
func (c Check) Failed() bool { return !c.Reference.OK || !c.PTX.OK }

// Outcome is one comparison's verdict and what it says: "ok", "ok (same
// bits)", or what differed. OK is the verdict; the text is for people
// (before, the verdict was read back from the text's "ok" prefix).
type Outcome struct {
	OK   bool
	Note string
}

// String is the outcome as the self-test's table prints it.
func (o Outcome) String() string {
	switch {
	case o.OK && o.Note == "":
		return "ok"
	case o.OK && o.Note == "-":
		return "-"
	case o.OK:
		return "ok (" + o.Note + ")"
	}
	return o.Note
}

// Pass is an agreement, with what it rests on ("same bits").
func Pass(note string) Outcome { return Outcome{OK: true, Note: note} }

// Fail is a disagreement, saying what differed.
func Fail(note string) Outcome { return Outcome{Note: note} }

// OK is agreement with the reference.
func OK() Outcome { return Pass("") }

// SameBits is agreement bit for bit.
func SameBits() Outcome { return Pass("same bits") }

// NotCompared is a comparison not made (no PTX simulator): not a failure.
func NotCompared() Outcome { return Pass("-") }

// SameBitsF64 compares two float64 sequences bit for bit (a solver's
// residual history), naming the first difference.
func SameBitsF64(a, b []float64) Outcome {
	if len(a) != len(b) {
		return Fail(fmt.Sprintf("%d iterations vs %d", len(a), len(b)))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return Fail(fmt.Sprintf("first differs at iteration %d: %.17g vs %.17g", i+1, a[i], b[i]))
		}
	}
	return SameBits()
}

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
// held to a tolerance its lesson states (the tolerance its SelfTest passes); where the lesson
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

// PTXHazards lists the order- or approximation-dependent instructions of
// kernel in the PTX text (every kernel's when kernel is ""), sorted, each
// once.
func PTXHazards(text, kernel string) []string {
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

// PTXRun is what the self-test needs of one lesson's PTX on the simulator.
type PTXRun struct {
	Text       string // the PTX the simulator runs
	Provenance string // its compiler and target, and where it came from
	Code       string // the self-test's line saying which code each side ran (codeLine)
}

// SimPTX returns the PTX the simulator runs for m and the line that says
// which code each side ran (nil devs.PTX: none).
func SimPTX(devs Devices, m *gpuext.Module) (*PTXRun, error) {
	if devs.PTX == nil {
		return nil, nil
	}
	text, prov, err := devs.PTX.SimPTXSource(m)
	if err != nil {
		return nil, err
	}
	pc := &PTXRun{Text: text, Provenance: prov}
	if pc.Code, err = codeLine(devs, m, pc); err != nil {
		return nil, err
	}
	return pc, nil
}

// CompareF32 compares the GPU's float32 output with the PTX simulator's:
// the same bits, or where the kernel's PTX has hazards, within tol relative
// (tol 0: the lesson states none, so the row fails).
func (pc *PTXRun) CompareF32(kernel string, gpu, simPTX []float32, tol float32) Outcome {
	hz := PTXHazards(pc.Text, kernel)
	if len(gpu) != len(simPTX) {
		return Fail(fmt.Sprintf("%d outputs vs %d", len(gpu), len(simPTX)))
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
			return Pass("same bits; " + strings.Join(hz, ", ") + " allowed a tolerance")
		}
		return SameBits()
	}
	diff := fmt.Sprintf("differs at %d: GPU %.9g, PTX %.9g", first, gpu[first], simPTX[first])
	if len(hz) == 0 {
		return Fail(diff + " (no float atomics or .approx in its PTX: must be the same bits)")
	}
	if tol == 0 {
		return Fail(diff + "; it uses " + strings.Join(hz, ", ") + " and no tolerance is stated for it")
	}
	for i := range gpu {
		d := float32(math.Abs(float64(gpu[i] - simPTX[i])))
		if d > tol*max(1, float32(math.Abs(float64(simPTX[i])))) {
			return Fail(fmt.Sprintf("differs at %d by more than %g relative: GPU %.9g, PTX %.9g (uses %s)", i, tol, gpu[i], simPTX[i], strings.Join(hz, ", ")))
		}
	}
	return Pass(fmt.Sprintf("within %g relative; uses %s", tol, strings.Join(hz, ", ")))
}

// codeLine says which code each side ran for one lesson module: the GPU's
// load path (cubin and its arch, or PTX JIT) and the PTX the simulator ran.
func codeLine(devs Devices, m *gpuext.Module, pc *PTXRun) (string, error) {
	li, err := devs.Dev.Load(m)
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
		s += "; simulator ran PTX " + pc.Provenance
	}
	return s, nil
}

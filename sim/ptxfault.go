package sim

import (
	"regexp"
	"strconv"

	"github.com/warplab/warplab/sim/ptx"
)

// A fault raised inside a shared-memory access of a PTX kernel (a race
// found by sharedState.check, which unwinds with a panic) is built where
// the instruction is not known. annotate completes it the way a student
// reads compute-sanitizer: the CUDA line (the site), the array by the name
// written in the .cu file rather than nvcc's mangled one, and the element
// index and length in the array's own elements.

// annotate fills in f's site and, for a shared race, its array, index and
// length, from the memory instruction e was running.
func (e *ptxWorker) annotate(f *Fault) {
	if f == nil || e.cur == nil {
		return
	}
	if f.Site == "" {
		f.Site = e.l.pk.where(e.cur.in)
	}
	if f.Kind != "shared race" || e.raceWidth == 0 {
		return
	}
	e.sharedElem(f, e.raceOff, e.raceWidth)
}

// sharedElem names in f the shared array an access of width bytes at
// offset off falls in, by its CUDA name, with the element's index and the
// array's length in the access's elements (nvcc declares arrays as .b8
// bytes).
func (e *ptxWorker) sharedElem(f *Fault, off uint64, width int) {
	pk := e.l.pk
	best := -1
	for i, v := range pk.k.Vars {
		if v.Space == ptx.SpaceShared && uint64(pk.varOff[i]) <= off && (best < 0 || pk.varOff[i] >= pk.varOff[best]) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	v := pk.k.Vars[best]
	es := v.Type.Size()
	if es <= 1 { // nvcc declares arrays as .b8 bytes: count the access's elements
		es = width
	}
	size := v.Size
	if v.Extern {
		size = len(e.shared) - pk.externOff
	}
	f.Buffer = sourceName(v.Name) + " (shared)"
	f.Index = int(off-uint64(pk.varOff[best])) / es
	f.Len = size / es
}

// localStaticRE matches the tail of a mangled function-local static, such
// as nvcc's name for `__shared__ float s[256]` inside reverse:
// _ZZ7reverseE1s ("E", then the variable's length and name).
var localStaticRE = regexp.MustCompile(`^_ZZ.*E([0-9]+)([A-Za-z_][A-Za-z0-9_]*)$`)

// sourceName is the name a shared variable has in the CUDA source: the
// variable of a mangled function-local static, else name itself.
func sourceName(name string) string {
	m := localStaticRE.FindStringSubmatch(name)
	if m == nil {
		return name
	}
	if n, err := strconv.Atoi(m[1]); err != nil || n != len(m[2]) {
		return name
	}
	return m[2]
}

package sim

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/warplab/warplab/sim/ptx"
)

// Calls: device functions that nvcc did not inline (recursion,
// __noinline__, -G) and the runtime's vprintf and __assertfail.
//
// ptx.Module.Flatten appends the functions a kernel reaches to its code,
// each with registers of its own, so the executor runs a call as a jump:
// call pushes a frame and an IPDOM stack entry for the callee's code
// holding the calling lanes, and the callee's lanes leave it by ret (or by
// reaching its end); when the entry, and any entries its branches pushed,
// are gone, the frame pops and the caller goes on after the call with all
// of its lanes. A call is a control instruction for the counters; it moves
// no memory the counters see (arguments travel in .param variables, which
// live in the thread's frame, as ptxas keeps them in registers).
//
// Each lane's local memory holds the kernel's frame, then the call stack:
// a callee's frame (its .local arrays and .param variables) follows its
// caller's. Its size in the model is the frame's variables, 16-byte
// aligned, plus 16 bytes for what a call saves (the return address); the
// stack has DefaultStackBytes, CUDA's default cudaLimitStackSize, and a
// call past it is a "stack overflow" fault. This is the simulator's rule,
// not ptxas's frame layout: a GPU can run out of stack at another depth.
// A recursive function's registers are saved in its frame at each call
// and restored at the return, as a GPU keeps them on its stack.

// DefaultStackBytes is each thread's call stack (CUDA's default
// cudaLimitStackSize, 1 KiB), beyond the kernel's own local memory.
const DefaultStackBytes = 1024

// callOverhead is what the stack model charges a call beyond its frame's
// variables: the return address and the saved frame pointer.
const callOverhead = 16

// warpExt is a warp's state for calls and bar.red, allocated for the
// kernels that have them (PTXKernel.needExt): its frames, innermost last;
// fp, the byte offset of the running body's frame in each lane's local
// memory; retDepth, the stack depth at which the innermost call returns
// (-1: no call); the bar.red the warp waits at, and its lanes.
type warpExt struct {
	calls      []callFrame
	fp         int
	retDepth   int
	barRed     *xin
	barRedMask uint32
}

// callFrame is one call in progress on a warp.
type callFrame struct {
	fn    int32  // index into Kernel.Funcs
	call  *xin   // the call instruction
	mask  uint32 // the lanes that called
	depth int    // the IPDOM stack's depth when the call was made: the callee's entries lie above
	fp    int    // the caller's frame offset
	size  int    // bytes the callee's frame takes on the stack
	saved [][32]uint64
}

// funcAt is the function of the flat kernel whose address is addr.
func (pk *PTXKernel) funcAt(addr uint64) (int32, bool) {
	if addr < ptx.FuncAddrBase || (addr-ptx.FuncAddrBase)%16 != 0 {
		return 0, false
	}
	mi := int32((addr - ptx.FuncAddrBase) / 16)
	for i := range pk.k.Funcs {
		if pk.k.Funcs[i].ModIdx == mi {
			return int32(i), true
		}
	}
	return 0, false
}

// frameVar reports whether variable v lives in a frame (.local, or a
// call's .param variable).
func (pk *PTXKernel) frameVar(v int32) bool {
	sp := pk.k.Vars[v].Space
	return sp == ptx.SpaceLocal || sp == ptx.SpaceParam
}

// hasCall reports whether k has a call instruction.
func hasCall(k *ptx.Kernel) bool {
	for i := range k.Instrs {
		if k.Instrs[i].Op == ptx.OpCall {
			return true
		}
	}
	return false
}

// frameBytes is the stack a call of function f takes.
func (pk *PTXKernel) frameBytes(f int32) int {
	return alignUp(pk.funcFrame[f], 16) + callOverhead // frames at multiples of 16 (callOverhead is 16)
}

// call runs call instruction x for the lanes in exec. A built-in runs at
// once (pushed false); a device function's call pushes its frame and
// stack entry (pushed true: the warp's stack changed).
func (e *ptxWorker) call(wp *pwarp, x *xin, pc int32, exec uint32) (pushed bool, f *Fault) {
	c := x.in.Call
	callee := c.Callee
	pk := e.l.pk
	var rest uint32 // an indirect call's lanes bound elsewhere, called after these
	if callee == ptx.CalleeIndirect {
		// Through a function pointer: the lanes that hold the first
		// active lane's target call it now; the others come back to this
		// call afterwards (a stack entry of their own), one target at a
		// time, as a GPU serializes a divergent indirect call.
		reg := e.src(wp, &x.src[0], 0) // c.Reg, as the register passes left it (decode)
		first := bits.TrailingZeros32(exec)
		target := reg[first]
		var same uint32
		for m := exec; m != 0; m &= m - 1 {
			if l := bits.TrailingZeros32(m); reg[l] == target {
				same |= 1 << l
			}
		}
		fi, ok := pk.funcAt(target)
		if !ok {
			return false, e.fault(wp, first, x, "bad function pointer", fmt.Sprintf(
				"the call's target %#x is no function of the module (a function pointer never set, or a data address)", target))
		}
		fc := &pk.k.Funcs[fi]
		if len(fc.ParamVars) != len(c.Args) || len(fc.RetVars) < len(c.Rets) {
			return false, e.fault(wp, first, x, "bad function pointer", fmt.Sprintf(
				"the call passes %d arguments and takes %d results, but its target %s has %d parameters and %d results", len(c.Args), len(c.Rets), fc.Name, len(fc.ParamVars), len(fc.RetVars)))
		}
		callee, exec, rest = fi, same, exec&^same
	} else if callee < 0 {
		return false, e.builtin(wp, x, exec)
	}
	fc := &pk.k.Funcs[callee]
	size := pk.frameBytes(callee)
	base := alignUp(pk.localBytes, 16)
	used := wp.ext.fp - base
	if wp.ext.fp == 0 {
		used = 0
	}
	if len(wp.ext.calls) > 0 {
		used = wp.ext.fp - base + wp.ext.calls[len(wp.ext.calls)-1].size
	}
	if used+size > DefaultStackBytes {
		return false, e.fault(wp, bits.TrailingZeros32(exec), x, "stack overflow", fmt.Sprintf(
			"the call of %s would be %d calls deep and need %d bytes of stack, past the %d bytes a thread has (CUDA's default cudaLimitStackSize; this simulator charges a call its frame's variables and %d bytes): recursion without an end? On a GPU the kernel fails",
			fc.Name, len(wp.ext.calls)+1, used+size, DefaultStackBytes, callOverhead))
	}
	newFP := base + used
	// Arguments: each lane's .param variables of the caller to the
	// callee's parameters, in the new frame.
	for i, a := range c.Args {
		e.copyFrameVar(wp, exec, wp.ext.fp+pk.varOff[a], newFP+pk.varOff[fc.ParamVars[i]], pk.k.Vars[a].Size)
	}
	fr := callFrame{fn: callee, call: x, mask: exec, fp: wp.ext.fp, size: size}
	if fc.Recursive {
		fr.saved = append([][32]uint64(nil), wp.regs[fc.RegLo:fc.RegHi]...)
	}
	top := &wp.stack[len(wp.stack)-1]
	top.pc = pc + 1
	if rest != 0 {
		wp.stack = append(wp.stack, ipdom{pc: pc, rpc: pc + 1, mask: rest})
	}
	fr.depth = len(wp.stack)
	wp.ext.calls = append(wp.ext.calls, fr)
	wp.ext.fp, wp.ext.retDepth = newFP, fr.depth
	wp.stack = append(wp.stack, ipdom{pc: fc.Start, rpc: fc.End, mask: exec})
	return true, nil
}

// fnRet takes the lanes in exec out of the running function: they wait
// at its return while its other lanes go on.
func (e *ptxWorker) fnRet(wp *pwarp, exec uint32) {
	for j := wp.ext.retDepth; j < len(wp.stack); j++ {
		wp.stack[j].mask &^= exec
	}
}

// callReturn ends the innermost call once its lanes have all returned:
// return values to the caller's .param variables, the caller's frame and
// (for a recursive function) the callee's registers back.
func (e *ptxWorker) callReturn(wp *pwarp) {
	pk := e.l.pk
	fr := wp.ext.calls[len(wp.ext.calls)-1]
	wp.ext.calls = wp.ext.calls[:len(wp.ext.calls)-1]
	fc := &pk.k.Funcs[fr.fn]
	c := fr.call.in.Call
	lanes := fr.mask & wp.live
	for i, r := range c.Rets {
		e.copyFrameVar(wp, lanes, wp.ext.fp+pk.varOff[fc.RetVars[i]], fr.fp+pk.varOff[r], pk.k.Vars[r].Size)
	}
	if fr.saved != nil {
		copy(wp.regs[fc.RegLo:fc.RegHi], fr.saved)
		clear(wp.pvalid[fc.RegLo:fc.RegHi])
	}
	wp.ext.fp = fr.fp
	wp.ext.retDepth = -1
	if len(wp.ext.calls) > 0 {
		wp.ext.retDepth = wp.ext.calls[len(wp.ext.calls)-1].depth
	}
}

// copyFrameVar copies n bytes at frame offset from to offset to in each
// lane's local memory.
func (e *ptxWorker) copyFrameVar(wp *pwarp, mask uint32, from, to, n int) {
	lb := e.l.pk.laneLocal
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		copy(wp.local[l*lb+to:l*lb+to+n], wp.local[l*lb+from:l*lb+from+n])
	}
}

// frameWord reads the 8-byte .param variable v of the running frame for
// lane l (a built-in's pointer argument).
func (e *ptxWorker) frameWord(wp *pwarp, l int, v int32, size int) uint64 {
	lb := e.l.pk.laneLocal
	off := l*lb + wp.ext.fp + e.l.pk.varOff[v]
	return readMem(unsafe.Pointer(&wp.local[off]), size)
}

// builtin runs vprintf, __assertfail, malloc or free for the lanes in
// exec.
func (e *ptxWorker) builtin(wp *pwarp, x *xin, exec uint32) *Fault {
	c := x.in.Call
	switch c.Builtin {
	case ptx.BuiltinVprintf:
		for m := exec; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			fmtAddr := e.frameWord(wp, l, c.Args[0], 8)
			argAddr := e.frameWord(wp, l, c.Args[1], 8)
			format, ok := e.cString(wp, l, fmtAddr)
			if !ok {
				return e.fault(wp, l, x, "out of bounds", fmt.Sprintf("printf's format at address %#x is in no memory the thread can read", fmtAddr))
			}
			line, nargs := e.formatPrintf(wp, l, format, argAddr)
			e.l.printf.add(e.blkIdx.X+e.t.w.l.grid.X*(e.blkIdx.Y+e.t.w.l.grid.Y*e.blkIdx.Z), line)
			if len(c.Rets) > 0 {
				lb := e.l.pk.laneLocal
				off := l*lb + wp.ext.fp + e.l.pk.varOff[c.Rets[0]]
				writeMem(unsafe.Pointer(&wp.local[off]), 4, uint64(nargs))
			}
		}
		return nil
	case ptx.BuiltinMalloc:
		e.mallocCall(wp, x, exec) // ptxheap.go
		return nil
	case ptx.BuiltinFree:
		return nil // the heap is never reused (ptxheap.go)
	case ptx.BuiltinAssert:
		l := bits.TrailingZeros32(exec)
		msg, _ := e.cString(wp, l, e.frameWord(wp, l, c.Args[0], 8))
		file, _ := e.cString(wp, l, e.frameWord(wp, l, c.Args[1], 8))
		line := e.frameWord(wp, l, c.Args[2], 4)
		fn, _ := e.cString(wp, l, e.frameWord(wp, l, c.Args[3], 8))
		if i := strings.LastIndexAny(file, `/\`); i >= 0 {
			file = file[i+1:]
		}
		t := e.t.w.l.block.unlinear(32*wp.id + l)
		return e.fault(wp, l, x, "assertion failed", fmt.Sprintf(
			"%s:%d: %s: block [%d,%d,%d], thread [%d,%d,%d] Assertion `%s` failed. (on a GPU the kernel stops with cudaErrorAssert and the context is lost)",
			file, line, fn, e.blkIdx.X, e.blkIdx.Y, e.blkIdx.Z, t.X, t.Y, t.Z, msg))
	}
	return e.fault(wp, bits.TrailingZeros32(exec), x, "unsupported call", "call of "+c.Func)
}

// memAt returns the bytes at generic address addr that lane l can read
// (module variables, device buffers, its local memory, the block's shared
// memory), up to the end of what holds them, or nil.
func (e *ptxWorker) memAt(wp *pwarp, l int, addr uint64) []byte {
	switch {
	case addr >= localWin && addr < localWin+winSize:
		lb := uint64(e.l.pk.laneLocal)
		off := addr - localWin
		if off >= lb {
			return nil
		}
		return wp.local[uint64(l)*lb+off : uint64(l+1)*lb]
	case addr >= sharedWin && addr < sharedWin+winSize:
		off := addr - sharedWin
		if off >= uint64(len(e.shared)) {
			return nil
		}
		return e.shared[off:]
	case addr >= varWin && addr < varWin+winSize:
		off := int(addr - varWin)
		for i := range e.l.pk.varRanges {
			if v := &e.l.pk.varRanges[i]; off >= v.lo && off < v.hi {
				return e.l.vars[off:v.hi]
			}
		}
		return nil
	}
	b := e.l.find(addr)
	if b < 0 || addr >= e.l.bufs[b].hi {
		return nil
	}
	g := &e.l.bufs[b]
	return unsafe.Slice((*byte)(g.base), int(g.hi-g.lo))[addr-g.lo:]
}

// maxPrintfString bounds a %s argument or a format read from memory.
const maxPrintfString = 1 << 16

// cString reads the NUL-terminated string at addr.
func (e *ptxWorker) cString(wp *pwarp, l int, addr uint64) (string, bool) {
	b := e.memAt(wp, l, addr)
	if b == nil {
		return "", false
	}
	if i := strings.IndexByte(string(b[:min(len(b), maxPrintfString)]), 0); i >= 0 {
		return string(b[:i]), true
	}
	return string(b[:min(len(b), maxPrintfString)]), true
}

// formatPrintf formats one lane's printf as CUDA's device printf does
// (the C conversions; arguments packed in the buffer at argAddr, each at
// its own size's alignment, float promoted to double), returning the text
// and the number of arguments read.
func (e *ptxWorker) formatPrintf(wp *pwarp, l int, format string, argAddr uint64) (string, int) {
	args := e.memAt(wp, l, argAddr)
	off, nargs := 0, 0
	next := func(size int) (uint64, bool) {
		off = alignUp(off, size)
		if argAddr == 0 || off+size > len(args) {
			return 0, false
		}
		v := readMem(unsafe.Pointer(&args[off]), size)
		off += size
		nargs++
		return v, true
	}
	var out strings.Builder
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '%' {
			out.WriteByte(ch)
			continue
		}
		j := i + 1
		if j < len(format) && format[j] == '%' {
			out.WriteByte('%')
			i = j
			continue
		}
		// %[flags][width][.precision][length]conv
		start := j
		for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
			j++
		}
		flags := format[start:j]
		width, prec := "", ""
		readNum := func() string {
			if j < len(format) && format[j] == '*' {
				j++
				v, _ := next(4)
				return strconv.Itoa(int(int32(v)))
			}
			s := j
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			return format[s:j]
		}
		width = readNum()
		hasPrec := false
		if j < len(format) && format[j] == '.' {
			j++
			hasPrec = true
			prec = readNum()
			if prec == "" {
				prec = "0"
			}
		}
		lenMod := ""
		for j < len(format) && strings.IndexByte("hlLqjzt", format[j]) >= 0 {
			lenMod += format[j : j+1]
			j++
		}
		if j >= len(format) {
			out.WriteString(format[i:])
			break
		}
		conv := format[j]
		i = j
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		long := strings.Contains(lenMod, "l") || strings.ContainsAny(lenMod, "qjzt")
		switch conv {
		case 'd', 'i':
			size := 4
			if long {
				size = 8
			}
			v, ok := next(size)
			if !ok {
				out.WriteString(spec + string(conv))
				continue
			}
			n := int64(int32(v))
			switch {
			case size == 8:
				n = int64(v)
			case lenMod == "h":
				n = int64(int16(v))
			case lenMod == "hh":
				n = int64(int8(v))
			}
			out.WriteString(cInt(spec, hasPrec, n, 'd'))
		case 'u', 'x', 'X', 'o':
			size := 4
			if long {
				size = 8
			}
			v, ok := next(size)
			if !ok {
				out.WriteString(spec + string(conv))
				continue
			}
			switch {
			case size == 4 && lenMod == "h":
				v = uint64(uint16(v))
			case size == 4 && lenMod == "hh":
				v = uint64(uint8(v))
			case size == 4:
				v = uint64(uint32(v))
			}
			verb := conv
			if conv == 'u' {
				verb = 'd'
			}
			out.WriteString(cUint(spec, hasPrec, v, verb))
		case 'c':
			v, ok := next(4)
			if !ok {
				out.WriteString(spec + "c")
				continue
			}
			out.WriteString(fmt.Sprintf(spec+"c", rune(byte(v))))
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			v, ok := next(8)
			if !ok {
				out.WriteString(spec + string(conv))
				continue
			}
			out.WriteString(printfFloat(flags, width, prec, hasPrec, math.Float64frombits(v), conv))
		case 's':
			v, ok := next(8)
			if !ok {
				out.WriteString(spec + "s")
				continue
			}
			s := "(null)"
			if v != 0 {
				if str, ok := e.cString(wp, l, v); ok {
					s = str
				}
			}
			out.WriteString(fmt.Sprintf(spec+"s", s))
		case 'p':
			v, ok := next(8)
			if !ok {
				out.WriteString(spec + "p")
				continue
			}
			out.WriteString(fmt.Sprintf("%"+flags+width+"s", "0x"+strconv.FormatUint(v, 16)))
		default:
			out.WriteString(format[start-1 : j+1])
		}
	}
	return out.String(), nargs
}

// cInt formats a signed integer as C's printf does.
func cInt(spec string, hasPrec bool, n int64, verb byte) string {
	if hasPrec {
		// C: with a precision (a minimum digit count, as Go's %.3d) the
		// 0 flag is ignored.
		spec = "%" + strings.Replace(spec[1:], "0", "", 1)
	}
	return fmt.Sprintf(spec+string(verb), n)
}

// cUint formats an unsigned integer (d for %u, x, X, o) as C does; # puts
// 0x or 0 in front of a non-zero value.
func cUint(spec string, hasPrec bool, v uint64, verb byte) string {
	if verb == 'o' && strings.Contains(spec, "#") {
		spec = strings.Replace(spec, "#", "", 1)
		if v != 0 {
			return fmt.Sprintf(spec+"s", "0"+strconv.FormatUint(v, 8))
		}
	}
	return fmt.Sprintf(spec+string(verb), v)
}

// printfFloat formats a double as C does: a precision of 6 when none is given
// (Go's %g would otherwise print the shortest form), inf and nan spelled
// as C spells them.
func printfFloat(flags, width, prec string, hasPrec bool, f float64, conv byte) string {
	if !hasPrec {
		prec = "6"
	}
	verb := conv
	switch conv {
	case 'F':
		verb = 'f'
	case 'a':
		verb = 'x'
	case 'A':
		verb = 'X'
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := "inf"
		if math.IsNaN(f) {
			s = "nan"
		}
		if conv >= 'A' && conv <= 'Z' {
			s = strings.ToUpper(s)
		}
		if math.Signbit(f) && !math.IsNaN(f) {
			s = "-" + s
		} else if strings.Contains(flags, "+") {
			s = "+" + s
		} else if strings.Contains(flags, " ") {
			s = " " + s
		}
		return fmt.Sprintf("%"+strings.Replace(flags, "0", "", -1)+width+"s", s)
	}
	if conv == 'a' || conv == 'A' {
		if !hasPrec {
			return fmt.Sprintf("%"+flags+width+string(verb), f)
		}
	}
	return fmt.Sprintf("%"+flags+width+"."+prec+string(verb), f)
}

// DefaultPrintfBytes is the printf output a launch keeps: CUDA's default
// cudaLimitPrintfFifoSize (1 MiB). CUDA's buffer holds each call's
// arguments rather than its text, so a GPU fits a different number of
// lines; past the limit both drop the rest.
const DefaultPrintfBytes = 1 << 20

// printfLog collects a launch's printf lines, by block: CUDA prints a
// launch's output when the host next synchronises, each warp's call as
// its lanes' lines in lane order; the simulator's blocks run in parallel,
// so lines are kept with their block and put in block order at the end,
// which makes the output the same in every run.
type printfLog struct {
	mu      sync.Mutex
	lines   []printfLine
	bytes   int
	dropped int
}

type printfLine struct {
	block int
	seq   int
	text  string
}

// add records one line of block b. Past twice the limit (blocks finish out
// of order, so the limit itself is applied in block order at the end) the
// line is only counted.
func (p *printfLog) add(b int, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes > 2*DefaultPrintfBytes {
		p.dropped++
		return
	}
	p.bytes += len(text)
	p.lines = append(p.lines, printfLine{block: b, seq: len(p.lines), text: text})
}

// text returns the output in block order, within DefaultPrintfBytes, and
// how many lines were dropped.
func (p *printfLog) text() (string, int) {
	if p == nil {
		return "", 0
	}
	sort.SliceStable(p.lines, func(i, j int) bool { return p.lines[i].block < p.lines[j].block })
	var b strings.Builder
	dropped := p.dropped
	for i, l := range p.lines {
		if b.Len()+len(l.text) > DefaultPrintfBytes {
			// The buffer is full: this line and every later one are lost.
			dropped += len(p.lines) - i
			break
		}
		b.WriteString(l.text)
	}
	return b.String(), dropped
}

// PrintfNote is what to show after Stats.Printf: "" when nothing was
// dropped, else a line saying how many printf lines the buffer's limit
// left out (CUDA drops them silently; the simulator counts them).
func (st *Stats) PrintfNote() string {
	if st == nil || st.PrintfDropped == 0 {
		return ""
	}
	return fmt.Sprintf("(%d printf lines dropped: the output passed %d bytes, CUDA's default printf buffer, cudaLimitPrintfFifoSize)", st.PrintfDropped, DefaultPrintfBytes)
}

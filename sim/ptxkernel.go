package sim

import (
	"fmt"
	"strings"

	"github.com/warplab/warplab/sim/internal/lanes"
	"github.com/warplab/warplab/sim/ptx"
)

// PTXKernel is one kernel of a parsed PTX module, decoded once for the
// warp-wide executor (ptxexec.go): operands turned into register rows,
// variables laid out in their state spaces, one counter site per memory
// instruction. A PTXKernel is read-only after NewPTXKernel, so one value
// serves any number of launches, one at a time or on several devices.
//
// Ordered and MaxInstructions mean what they mean on Kernel: Ordered runs
// blocks one after another, for kernels whose float atomics to global
// memory must be reproducible; MaxInstructions bounds each warp's issued
// instructions (zero: 2^31), past which the launch ends with a "runaway
// warp" fault instead of running for ever.
type PTXKernel struct {
	Name            string
	Ordered         bool
	MaxInstructions int64

	mod  *ptx.Module
	k    *ptx.Kernel
	code []xin

	nregs     int
	regs      kernelRegs   // machine registers per thread for the occupancy (timemodel_regs.go)
	imms      [][32]uint64 // immediate and symbol-address rows, shared by all warps
	labels    []string     // site labels, by site index
	arrays    []string     // by site: the array it accesses ("x"), "" when not known (ptxarrays.go)
	siteParam []int        // by site: the kernel parameter its address derives from, -1 for none
	srcLines  []string     // the CUDA C the PTX came from, by line (SetSource), for faults
	nsites    int

	// merged: by site, the shared accesses ptxas merged into wider ones
	// (nil: the PTX's widths); widthsFrom, mergedGroups: their source and
	// count (timemodel_widths.go).
	merged       []mergeSlot
	widthsFrom   string
	mergedGroups int
	// passesFrom, unrolled: where the loads' loop passes came from and how
	// many loops the SASS unrolls further (SetLoadPasses)
	passesFrom string
	unrolled   int
	// stalls: the dependent-latency stalls by constants (timemodel_deps.go)
	stalls depStallCache

	clearRegs []int32             // registers a path may read before writing (maybeUndefined)
	initRegs  []int32             // registers whose lanes carry a defined bit (markInitCheck, initcheck.go)
	initIdx   []int32             // by register: its index in initRegs, -1 untracked; nil when initRegs is empty
	skipMix   [][numClasses]int64 // by instruction: the classes of its run (xin.skip)

	// oneRun: the kernel has no bar instruction, so each warp of a block
	// runs once, from its first instruction to its end (or the block's
	// fault), before the next starts (runBlockPTX). Its warps then share
	// one register file, reset as each starts: a file per warp is hundreds
	// of kilobytes a block for a kernel of a hundred registers, more than
	// the CPU's L1 cache holds, while one file stays in it.
	oneRun   bool
	specials []ptx.Special

	sharedStatic int              // bytes of static .shared variables
	externOff    int              // offset of the .extern .shared array (dynamic shared memory)
	localBytes   int              // bytes of the kernel's own .local (and call .param) variables per thread
	laneLocal    int              // bytes of local memory per thread: localBytes, and the call stack when the kernel calls (ptxcall.go)
	kend         int32            // the kernel's own code is code[:kend]; the device functions it calls follow
	printf       bool             // the kernel calls vprintf
	malloc       bool             // it calls malloc: the device needs its heap (ptxheap.go)
	needExt      bool             // it calls or has bar.red: its warps need a warpExt (ptxcall.go)
	clockReg     int32            // the first of the three clock registers (ptxwarp.go); 0 when the kernel reads no clock
	funcFrame    []int            // by function of k.Funcs: bytes of its frame's variables
	varOff       []int            // by Kernel.Vars index: offset in its space (const/global: in the var image)
	varImage     []byte           // initial contents of the module's variables: a device's copy starts from it (ptxglobals.go)
	modOff       map[*ptx.Var]int // offset of each module variable in the image
	varRanges    []varRange       // the image's variables, in address order
}

// The generic address space is laid out so that one 64-bit address names
// one place: device buffers start at 1<<32 (Device.next), and below them sit
// windows for module variables (.const and module-scope .global), the
// block's shared memory and the thread's local memory. cvta adds or removes
// a window's base, so a generic ld/st (which nvcc emits for pointers it
// cannot prove to be global) resolves to the right space, as the hardware's
// generic addressing does.
const (
	varWin    = 0x1000_0000
	sharedWin = 0x4000_0000
	localWin  = 0x8000_0000
	winSize   = 0x4000_0000
)

// Operand kinds of the decoded form.
const (
	oNone uint8 = iota
	oReg        // idx: register row
	oImm        // idx: row of PTXKernel.imms
	oSpec       // idx: special-register row of the warp
	oVec        // vec: register rows (-1 for _)
)

// xopd is one decoded operand.
type xopd struct {
	kind uint8
	neg  bool // a negated predicate source
	idx  int32
	vec  []int32
}

// xin is one decoded instruction: the parser's Instr and what the executor
// derives from it once.
type xin struct {
	in    *ptx.Instr
	op    ptx.Opcode
	fast  uint8 // fast-path class (ptxalu.go), 0 for the generic Eval path
	class uint8 // instruction class for Stats.InstrMix
	// tmRound marks global loads for the time model (timemodel_ptx.go);
	// tmLoop, tmUnroll, tmSpan and tmSplit place one in the loops as
	// compiled (timemodel_passes.go)
	tmRound  uint8
	tmSpan   uint8
	tmUnroll uint8
	tmSplit  uint8
	tmLoop   uint16

	cmpFlip, cmpMask uint64 // integer setp (setpTable)
	cmpTbl           uint8
	setpKind         uint8     // the comparison cmpTbl reduces to (setpKind)
	setpSwap         bool      // compare b with a
	setpType         uint8     // the operands' comparison type (setpTypeOf)
	setpCmp          lanes.Cmp // setpKind at setpType, for the vector form
	tmask            uint64    // the value mask of the instruction's type (pred: 1)
	movCopy          bool      // mov whose source needs no masking: rows copy as they are
	guard            int32     // predicate register row, -1 for none
	gneg             bool
	dead             bool // a mov whose every reader reads its source instead (forwardConstMoves)
	once             bool // its value is the launch's, not the warp's: run once per register file (markOnce)
	initck           bool // reads or writes a register the uninitialized-read check tracks (markInitCheck)
	// skip: for a dead or once instruction, the length of the run of
	// such instructions from it to the end of its basic block's run of
	// them (markSkips); 0 for the others. onceAhead: the run has a once
	// instruction.
	skip      int32
	onceAhead bool
	shflK     int8 // shfl.sync.down by a constant offset over the whole warp, no segments (markShuffles); -1 otherwise
	dst       [2]xopd
	src       [4]xopd

	// memory instructions
	site   int32 // counter site, -1 for non-memory instructions, ld.param and call .param variables
	space  ptx.Space
	size   int  // bytes per element moved
	dsize  int  // ld: the destination register's size
	widen  bool // ld of a signed type narrower than its register: sign-extend (ptx.Widen)
	fastLd bool // a scalar ld.global from a 64-bit register: ldGlobal may run it
	vec    int  // elements per lane (1, 2, 4)
	// address: base register row (-1 none), constant part (var offset or
	// window address + immediate, or parameter offset + immediate), param
	// index
	abase  int32
	a32    bool // the base register is 32 bits wide (shared and local addresses)
	aconst uint64
	aparam int32

	// The rarer instructions' fields, last, so that the common ones keep
	// their places. Calls (ptxcall.go): fnRet, a ret of a device function
	// (not the kernel's); frameRel, a memory access to a frame variable of
	// a device function by name; frameSym, mov or cvta of such a
	// variable's address. clock: it reads %clock, %clock64 or %globaltimer
	// (ptxwarp.go). cp.async (ptxwarp.go): the source address is src[1]'s
	// register (its base) plus aconst2; site2 is the shared store's site.
	fnRet, frameRel, frameSym, clock bool
	site2                            int32
	aconst2                          uint64
}

// NewPTXKernel decodes kernel name of m for the simulator. The work done
// here (register rows, variable layout, site labels) is done once: launches
// only walk the decoded instruction slice.
func NewPTXKernel(m *ptx.Module, name string) (*PTXKernel, error) {
	if m == nil {
		return nil, fmt.Errorf("sim: NewPTXKernel: nil module")
	}
	var k *ptx.Kernel
	for _, c := range m.Kernels {
		if c.Name == name {
			k = c
		}
	}
	if k == nil {
		names := make([]string, len(m.Kernels))
		for i, c := range m.Kernels {
			names[i] = c.Name
		}
		return nil, fmt.Errorf("sim: PTX module %s has no kernel %q (kernels: %s)", m.Name, name, strings.Join(names, ", "))
	}
	if k.Err != nil {
		return nil, fmt.Errorf("sim: kernel %s cannot run on the simulator: %w", name, k.Err)
	}
	flat, err := m.Flatten(k)
	if err != nil {
		return nil, fmt.Errorf("sim: kernel %s: %w", name, err)
	}
	k = flat
	pk := &PTXKernel{Name: name, mod: m, k: k, nregs: len(k.Regs), kend: k.CodeEnd}
	if err := pk.layout(); err != nil {
		return nil, err
	}
	pk.code = make([]xin, len(k.Instrs))
	for i := range k.Instrs {
		if err := pk.decode(i); err != nil {
			return nil, err
		}
	}
	pk.nameArrays()
	pk.clearRegs = pk.maybeUndefined()
	pk.oneRun = true
	for i := range pk.code {
		if pk.code[i].op == ptx.OpBar {
			pk.oneRun = false
		}
	}
	pk.markLoadRounds()
	pk.forwardConstMoves()
	pk.forwardCopies()
	pk.markShuffles()
	pk.sinkUnread()
	pk.markOnce()
	pk.markSkips()
	pk.markInitCheck()
	pk.clockRegs()
	var used [numSpecial]bool
	for i := range pk.code {
		for _, o := range pk.code[i].src {
			if o.kind == oSpec && !used[o.idx] {
				used[o.idx] = true
				pk.specials = append(pk.specials, ptx.Special(o.idx))
			}
		}
	}
	return pk, nil
}

// markShuffles finds the reduction idiom among the shuffles:
// shfl.sync.down of a 32-bit register (its row holds canonical .b32 bits)
// whose offset, clamp and member mask are immediates (after
// forwardConstMoves and forwardCopies), the clamp 31 with no segment bits
// and the member mask every lane. With all 32 lanes executing it, lane l
// reads lane l+k and the top k lanes their own value, whatever the warp
// holds: shfl runs it as two copies (shiftDown).
func (pk *PTXKernel) markShuffles() {
	imm := func(o xopd) (uint64, bool) {
		if o.kind != oImm {
			return 0, false
		}
		return pk.imms[o.idx][0], true
	}
	for i := range pk.code {
		x := &pk.code[i]
		x.shflK = -1
		if x.op != ptx.OpShfl || x.in.Shfl != ptx.ShflDown || x.src[0].kind != oReg || pk.k.Regs[x.src[0].idx].Type.Size() != 4 {
			continue
		}
		b, ok1 := imm(x.src[1])
		c, ok2 := imm(x.src[2])
		mm, ok3 := imm(x.src[3])
		if ok1 && ok2 && ok3 && c&0x1f1f == 31 && uint32(mm) == fullMask {
			x.shflK = int8(b & 31)
		}
	}
}

// sinkUnread turns the destinations that no instruction reads into sinks
// (shfl.sync's predicate in the reduction idiom, nvcc's %p|... results
// kept for nothing), and marks dead an arithmetic instruction all of whose
// destinations are then sinks: as with forwardConstMoves, it is still
// issued and counted, but runs no lanes. Registers are not observable from
// outside the warp, so a write that no instruction reads changes nothing.
// Reads by dead instructions do not count, so removing one reader can
// remove the last reader of its source; the pass repeats until nothing
// changes.
func (pk *PTXKernel) sinkUnread() {
	read := make([]bool, pk.nregs)
	for changed := true; changed; {
		changed = false
		clear(read)
		mark := func(r int32) {
			if r >= 0 {
				read[r] = true
			}
		}
		for i := range pk.code {
			x := &pk.code[i]
			if x.dead {
				continue
			}
			mark(x.guard)
			mark(x.abase)
			for j := range x.src {
				switch o := &x.src[j]; o.kind {
				case oReg:
					mark(o.idx)
				case oVec:
					for _, r := range o.vec {
						mark(r)
					}
				}
			}
		}
		for i := range pk.code {
			x := &pk.code[i]
			if x.dead {
				continue
			}
			live := false
			for j := range x.dst {
				switch o := &x.dst[j]; o.kind {
				case oReg:
					if !read[o.idx] {
						*o = xopd{kind: oNone, idx: -1}
						continue
					}
					live = true
				case oVec:
					live = true
				}
			}
			if !live && x.fast != fNone && x.guard < 0 {
				x.dead = true
				changed = true
			}
		}
	}
}

// markOnce marks the instructions whose result is the same in every lane
// of every warp of a launch: ld.param, and arithmetic, cvta and mov whose
// sources are immediates, %ntid, %nctaid or registers such an instruction
// wrote. nvcc puts them first (the parameters, cvta.to.global of each
// pointer), and every warp runs them again. The executor runs a marked
// instruction once per register file, on all 32 lanes, and afterwards
// only issues and counts it (runWarp), as with a dead mov.
//
// A register qualifies when that instruction is its only write,
// unguarded, and no path reads the register before it (maybeUndefined):
// then every lane that reads it passed the write, and the row holds the
// same value for every warp that uses the file. Writing all 32 lanes
// rather than the active ones is safe for the same reason: a lane that
// never passes the write never reads the register.
func (pk *PTXKernel) markOnce() {
	defs, undefined := pk.defsAndUndefined()
	inv := make([]bool, pk.nregs)
	invariant := func(x *xin) bool {
		if x.dead || x.guard >= 0 || x.in.NDst != 1 || x.dst[0].kind != oReg || x.abase >= 0 {
			return false
		}
		if r := x.dst[0].idx; defs[r] != 1 || undefined[r] {
			return false
		}
		switch x.op {
		case ptx.OpLd:
			return x.space == ptx.SpaceParam && x.vec == 1
		case ptx.OpMov, ptx.OpCvta, ptx.OpCvt, ptx.OpAdd, ptx.OpSub, ptx.OpMul, ptx.OpMad,
			ptx.OpMin, ptx.OpMax, ptx.OpShl, ptx.OpShr, ptx.OpAnd, ptx.OpOr, ptx.OpXor,
			ptx.OpNot, ptx.OpSetp, ptx.OpSelp:
		default:
			return false
		}
		for j := 0; j < int(x.in.NSrc); j++ {
			switch o := &x.src[j]; o.kind {
			case oImm:
			case oReg:
				if !inv[o.idx] {
					return false
				}
			case oSpec:
				switch ptx.Special(o.idx) {
				case ptx.SpecialNtidX, ptx.SpecialNtidY, ptx.SpecialNtidZ,
					ptx.SpecialNctaidX, ptx.SpecialNctaidY, ptx.SpecialNctaidZ:
				default:
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		for i := range pk.code {
			if x := &pk.code[i]; !x.once && invariant(x) {
				x.once, inv[x.dst[0].idx] = true, true
				changed = true
			}
		}
	}
}

// markSkips finds the runs of instructions that are issued and counted but
// run no lanes, dead ones (forwardConstMoves, forwardCopies, sinkUnread)
// and once ones after their first run (markOnce), so that runWarp passes a
// run in one step instead of one an instruction. nvcc's PTX has many:
// the parameters and their cvta at the top, and the constant and copying
// movs around each shuffle of a reduction. A run stays within a basic
// block, so a warp that enters it runs all of it: it never continues into
// a branch target or a reconvergence point, where a warp's stack entry
// may begin or end. (Branches, exits and barriers are never in a run, so
// the instruction after one starts a run of its own anyway.)
func (pk *PTXKernel) markSkips() {
	n := len(pk.code)
	start := make([]bool, n+1) // a stack entry may begin or end here
	for i := range pk.code {
		if x := &pk.code[i]; x.op == ptx.OpBra {
			for _, pc := range []int32{x.in.Target, x.in.Reconv} {
				if pc >= 0 && int(pc) <= n {
					start[pc] = true
				}
			}
		}
	}
	pk.skipMix = make([][numClasses]int64, n)
	for i := n - 1; i >= 0; i-- {
		x := &pk.code[i]
		x.skip, x.onceAhead = 0, false
		if !x.dead && !x.once {
			continue
		}
		x.skip, x.onceAhead = 1, x.once
		pk.skipMix[i][x.class]++
		if next := i + 1; next < n && !start[next] && pk.code[next].skip > 0 {
			x.skip += pk.code[next].skip
			x.onceAhead = x.onceAhead || pk.code[next].onceAhead
			for c, k := range pk.skipMix[next] {
				pk.skipMix[i][c] += k
			}
		}
	}
}

// writes calls f with each register x writes.
func writes(x *xin, f func(r int32)) { eachReg(x.dst[:], f) }

// eachReg calls f with each register among ops (a vector's elements one
// by one).
func eachReg(ops []xopd, f func(r int32)) {
	for j := range ops {
		switch o := &ops[j]; o.kind {
		case oReg:
			f(o.idx)
		case oVec:
			for _, r := range o.vec {
				if r >= 0 {
					f(r)
				}
			}
		}
	}
}

// defsAndUndefined counts each register's writing instructions and marks
// the registers some path may read before writing them (clearRegs): the
// two facts the forwarding passes and markOnce start from.
func (pk *PTXKernel) defsAndUndefined() (defs []int32, undefined []bool) {
	defs = make([]int32, pk.nregs)
	for i := range pk.code {
		writes(&pk.code[i], func(r int32) { defs[r]++ })
	}
	undefined = make([]bool, pk.nregs)
	for _, r := range pk.clearRegs {
		undefined[r] = true
	}
	return defs, undefined
}

// forwardConstMoves lets the readers of a register that holds a constant
// read the constant. nvcc moves shuffle offsets, masks and zeroes into
// registers (mov.u32 %r29, 16) and copies special registers
// (mov.u32 %r16, %tid.x); when such a mov is the register's only write, is
// unguarded, and no path reads the register before it (maybeUndefined),
// then every lane that reads the register went through the mov and holds
// its source's value, which does not change while the warp runs (an
// immediate, or a special register of this warp and block). Those readers
// then name the source's row instead, and when they are all ordinary
// source operands the mov itself is dead: it is still issued and counted,
// but writes nothing, as nothing reads what it would write.
func (pk *PTXKernel) forwardConstMoves() {
	defs, undefined := pk.defsAndUndefined()
	from := make([]int32, pk.nregs) // the constant mov writing the register, -1 none
	for r := range from {
		from[r] = -1
	}
	for i := range pk.code {
		x := &pk.code[i]
		if x.fast != fMov || !x.movCopy || x.guard >= 0 || x.in.NDst != 1 || x.dst[0].kind != oReg {
			continue
		}
		if k := x.src[0].kind; k != oImm && k != oSpec {
			continue
		}
		if r := x.dst[0].idx; defs[r] == 1 && !undefined[r] {
			from[r] = int32(i)
		}
	}
	other := make([]bool, pk.nregs) // read other than as a plain source operand
	use := func(r int32) {
		if r >= 0 {
			other[r] = true
		}
	}
	for i := range pk.code {
		x := &pk.code[i]
		use(x.guard)
		use(x.abase)
		for j := range x.src {
			o := &x.src[j]
			switch {
			case o.kind == oReg && !o.neg && from[o.idx] >= 0:
				*o = pk.code[from[o.idx]].src[0]
			case o.kind == oReg:
				use(o.idx)
			case o.kind == oVec:
				for _, r := range o.vec {
					use(r)
				}
			}
		}
		if x.guard >= 0 { // a guarded write keeps the other lanes' values
			for j := range x.dst {
				if o := &x.dst[j]; o.kind == oReg {
					use(o.idx)
				}
			}
		}
	}
	for r, i := range from {
		if i >= 0 && !other[r] {
			pk.code[i].dead = true
		}
	}
}

// forwardCopies lets the readers of a register copied from another
// (mov.b32 %r26, %f39: nvcc moves a float into an integer register for
// shfl and back) read the original where it provably holds the same bits:
// the mov is the copy's only write, unguarded, of a register of the same
// width, no path reads the copy before it, and on every path from the mov
// to the reader nothing writes the original (an available-copies dataflow
// over the instructions). Each lane runs one path of the control flow and
// only its own instructions write its slots, so a reader whose lanes all
// passed the mov with the original untouched since reads the same value
// either way. As in forwardConstMoves, a mov all of whose readers now read
// the original is still issued and counted but writes nothing.
func (pk *PTXKernel) forwardCopies() {
	n := len(pk.code)
	regs := pk.k.Regs
	defs, undefined := pk.defsAndUndefined()
	candOf := make([]int32, pk.nregs) // by copy register: its candidate, -1 none
	for r := range candOf {
		candOf[r] = -1
	}
	var movAt, orig []int32 // by candidate: the mov's index, the original register
	for i := range pk.code {
		x := &pk.code[i]
		if x.fast != fMov || !x.movCopy || x.dead || x.guard >= 0 || x.in.NDst != 1 ||
			x.dst[0].kind != oReg || x.src[0].kind != oReg || x.src[0].neg {
			continue
		}
		a, b := x.dst[0].idx, x.src[0].idx
		ta, tb := regs[a].Type, regs[b].Type
		if a == b || defs[a] != 1 || undefined[a] || ta.Size() != tb.Size() || ta == ptx.Pred || tb == ptx.Pred {
			continue
		}
		candOf[a] = int32(len(movAt))
		movAt = append(movAt, int32(i))
		orig = append(orig, b)
	}
	// No chains: a copy of a copy keeps reading the first copy.
	for c := range movAt {
		if candOf[orig[c]] >= 0 {
			candOf[pk.code[movAt[c]].dst[0].idx] = -1
		}
	}
	nc := len(movAt)
	if nc == 0 {
		return
	}
	words := (nc + 63) / 64
	killedBy := make([][]int32, pk.nregs) // by original register: the candidates its write ends
	for c := range movAt {
		if candOf[pk.code[movAt[c]].dst[0].idx] == int32(c) {
			killedBy[orig[c]] = append(killedBy[orig[c]], int32(c))
		}
	}
	preds := make([][]int32, n)
	for i := range pk.code {
		in := pk.code[i].in
		if in.Op == ptx.OpBra && int(in.Target) < n {
			preds[in.Target] = append(preds[in.Target], int32(i))
		}
		if i+1 < n && !(in.Guard < 0 && (in.Op == ptx.OpBra || in.Op == ptx.OpRet || in.Op == ptx.OpExit)) {
			preds[i+1] = append(preds[i+1], int32(i))
		}
	}
	avIn := make([]uint64, n*words)
	avOut := make([]uint64, n*words)
	for i := range avOut {
		avOut[i] = ^uint64(0)
	}
	for changed := true; changed; {
		changed = false
		for i := range pk.code {
			cur := avIn[i*words : (i+1)*words]
			for w := range words {
				v := ^uint64(0)
				if i == 0 {
					v = 0
				}
				for _, p := range preds[i] {
					v &= avOut[int(p)*words+w]
				}
				cur[w] = v
			}
			out := make([]uint64, words)
			copy(out, cur)
			writes(&pk.code[i], func(r int32) {
				for _, c := range killedBy[r] {
					out[c/64] &^= 1 << (c % 64)
				}
			})
			if x := &pk.code[i]; x.op == ptx.OpMov && x.dst[0].kind == oReg {
				if c := candOf[x.dst[0].idx]; c >= 0 && movAt[c] == int32(i) {
					out[c/64] |= 1 << (c % 64)
				}
			}
			for w := range words {
				if out[w] != avOut[i*words+w] {
					avOut[i*words+w] = out[w]
					changed = true
				}
			}
		}
	}
	other := make([]bool, pk.nregs) // read other than as a forwarded source operand
	use := func(r int32) {
		if r >= 0 {
			other[r] = true
		}
	}
	for i := range pk.code {
		x := &pk.code[i]
		use(x.guard)
		use(x.abase)
		for j := range x.src {
			o := &x.src[j]
			switch o.kind {
			case oReg:
				c := candOf[o.idx]
				if c >= 0 && !o.neg && movAt[c] != int32(i) && avIn[i*words+int(c/64)]&(1<<(c%64)) != 0 {
					o.idx = orig[c]
					continue
				}
				use(o.idx)
			case oVec:
				for _, r := range o.vec {
					use(r)
				}
			}
		}
		if x.guard >= 0 {
			for j := range x.dst {
				if o := &x.dst[j]; o.kind == oReg {
					use(o.idx)
				}
			}
		}
	}
	for c, i := range movAt {
		if a := pk.code[i].dst[0].idx; candOf[a] == int32(c) && !other[a] {
			pk.code[i].dead = true
		}
	}
}

// Module is the PTX module the kernel came from.
func (pk *PTXKernel) Module() *ptx.Module { return pk.mod }

// Params are the kernel's parameters, in order.
func (pk *PTXKernel) Params() []ptx.Param { return pk.k.Params }

// varRange is one module variable's bytes in the variable image.
type varRange struct {
	lo, hi   int
	name     string
	writable bool
}

func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// layout places the kernel's variables: static shared variables at their
// alignment in declaration order, the .extern array after them (where the
// launch's dynamic shared memory starts), local variables per thread, and
// module variables in one image.
func (pk *PTXKernel) layout() error {
	k := pk.k
	pk.varOff = make([]int, len(k.Vars))
	pk.funcFrame = make([]int, len(k.Funcs))
	externAlign := 16
	var externs []int
	for i, v := range k.Vars {
		switch v.Space {
		case ptx.SpaceShared:
			if v.Extern {
				externs = append(externs, i)
				externAlign = max(externAlign, v.Align)
				continue
			}
			off := alignUp(pk.sharedStatic, v.Align)
			pk.varOff[i] = off
			pk.sharedStatic = off + v.Size
		case ptx.SpaceLocal, ptx.SpaceParam:
			// .local arrays and a call's .param variables live in the
			// frame of the body that declares them (ptxcall.go).
			if f := k.VarFunc[i]; f > 0 {
				off := alignUp(pk.funcFrame[f-1], v.Align)
				pk.varOff[i] = off
				pk.funcFrame[f-1] = off + v.Size
				continue
			}
			off := alignUp(pk.localBytes, v.Align)
			pk.varOff[i] = off
			pk.localBytes = off + v.Size
		case ptx.SpaceConst, ptx.SpaceGlobal:
			// Every module variable has its place in the module's image
			// (ptxglobals.go), the same for all the module's kernels.
			if pk.varImage == nil {
				pk.varImage, pk.varRanges, pk.modOff = moduleImage(pk.mod)
			}
			off, ok := pk.modOff[v]
			if !ok {
				return fmt.Errorf("sim: kernel %s: variable %s is not one of module %s's", k.Name, v.Name, pk.mod.Name)
			}
			pk.varOff[i] = off
		default:
			return fmt.Errorf("sim: kernel %s: variable %s in a space the simulator does not place", k.Name, v.Name)
		}
	}
	pk.externOff = alignUp(pk.sharedStatic, externAlign)
	for _, i := range externs {
		pk.varOff[i] = pk.externOff
	}
	if len(pk.varImage) > winSize || pk.localBytes > winSize/1024 {
		return fmt.Errorf("sim: kernel %s: module variables or local arrays too large", k.Name)
	}
	pk.laneLocal = pk.localBytes
	if len(k.Funcs) > 0 || k.CodeEnd < int32(len(k.Instrs)) || hasCall(k) {
		pk.laneLocal = alignUp(pk.localBytes, 16) + DefaultStackBytes
	}
	return nil
}

// symAddr is the address mov or cvta sees for variable v: its offset in its
// own space (shared, local), or its generic address (const, global).
func (pk *PTXKernel) symAddr(v int32) uint64 {
	off := uint64(pk.varOff[v])
	switch pk.k.Vars[v].Space {
	case ptx.SpaceConst, ptx.SpaceGlobal:
		return varWin + off
	}
	return off
}

func (pk *PTXKernel) immRow(v uint64) int32 {
	var r [32]uint64
	for i := range r {
		r[i] = v
	}
	pk.imms = append(pk.imms, r)
	return int32(len(pk.imms) - 1)
}

func (pk *PTXKernel) operand(o *ptx.Operand) (xopd, error) {
	switch o.Kind {
	case ptx.OpdNone, ptx.OpdSink:
		return xopd{kind: oNone, idx: -1}, nil
	case ptx.OpdReg:
		return xopd{kind: oReg, idx: o.Reg, neg: o.Neg}, nil
	case ptx.OpdImm:
		return xopd{kind: oImm, idx: pk.immRow(o.Imm)}, nil
	case ptx.OpdSpecial:
		if o.Special >= ptx.SpecialClock && o.Special < ptx.NumSpecial {
			return xopd{kind: oSpec, idx: int32(o.Special)}, nil // a register after the passes (clockRegs)
		}
		if o.Special == ptx.SpecialNone || int(o.Special) >= numSpecial {
			return xopd{}, fmt.Errorf("special register %d not provided", o.Special)
		}
		return xopd{kind: oSpec, idx: int32(o.Special)}, nil
	case ptx.OpdSym:
		return xopd{kind: oImm, idx: pk.immRow(pk.symAddr(o.Var))}, nil
	case ptx.OpdVec:
		return xopd{kind: oVec, vec: o.Vec, idx: -1}, nil
	case ptx.OpdAddr:
		return xopd{kind: oNone, idx: -1}, nil // decoded by decode for memory instructions
	}
	return xopd{}, fmt.Errorf("operand kind %d not supported", o.Kind)
}

// decode turns instruction i into its executable form.
func (pk *PTXKernel) decode(i int) error {
	in := &pk.k.Instrs[i]
	x := &pk.code[i]
	x.in, x.op, x.guard, x.gneg, x.site, x.abase, x.aparam = in, in.Op, in.Guard, in.GuardNeg, -1, -1, -1
	fail := func(format string, args ...any) error {
		return fmt.Errorf("sim: kernel %s: PTX line %d (%s): %s", pk.k.Name, in.Line, strings.TrimSpace(in.Text), fmt.Sprintf(format, args...))
	}
	for j := 0; j < int(in.NDst); j++ {
		o, err := pk.operand(&in.Dst[j])
		if err != nil {
			return fail("%v", err)
		}
		x.dst[j] = o
	}
	for j := 0; j < int(in.NSrc); j++ {
		o, err := pk.operand(&in.Src[j])
		if err != nil {
			return fail("%v", err)
		}
		x.src[j] = o
	}
	switch in.Op {
	case ptx.OpLd, ptx.OpSt, ptx.OpAtom, ptx.OpRed:
		a := &in.Src[0]
		if a.Kind != ptx.OpdAddr {
			return fail("the address operand is not an address")
		}
		x.space = in.Space
		x.size = in.Type.Size()
		if in.Type == ptx.Pred || x.size == 0 {
			return fail("a memory access needs a sized type")
		}
		x.vec = max(1, int(in.Vec))
		if in.Op == ptx.OpLd && in.Type.IsSigned() {
			x.widen = true
			if d := in.Dst[0]; d.Kind == ptx.OpdReg {
				x.dsize = pk.k.Regs[d.Reg].Type.Size()
			}
		}
		x.abase = a.Reg
		x.a32 = a.Reg >= 0 && pk.k.Regs[a.Reg].Type.Size() == 4
		x.aconst = a.Imm
		switch {
		case a.Param >= 0:
			x.aparam = a.Param
			if int(a.Param) >= len(pk.k.Params) {
				return fail("parameter %d out of range", a.Param)
			}
			x.aconst += uint64(pk.k.Params[a.Param].Offset)
		case a.Var >= 0:
			x.aconst += pk.symAddr(a.Var)
			if pk.k.Vars[a.Var].Space == ptx.SpaceLocal && in.Space == ptx.SpaceGeneric {
				x.aconst += localWin
			}
			if pk.k.Vars[a.Var].Space == ptx.SpaceShared && in.Space == ptx.SpaceGeneric {
				x.aconst += sharedWin
			}
		}
		x.fastLd = in.Op == ptx.OpLd && in.Space == ptx.SpaceGlobal && x.vec == 1 && !x.a32 && in.Dst[0].Kind == ptx.OpdReg
		if a.Var >= 0 && pk.frameVar(a.Var) {
			// A .local or call .param variable by name: in the frame
			// of the body running (ptxcall.go), not counted as traffic.
			x.frameRel = pk.k.VarFunc[a.Var] > 0
			if in.Space == ptx.SpaceParam {
				x.space = ptx.SpaceLocal
				break
			}
		}
		if in.Space == ptx.SpaceParam {
			if in.Op != ptx.OpLd {
				return fail("only ld reads the .param space")
			}
			break // parameter loads are not memory traffic the counters see
		}
		x.site = int32(pk.nsites)
		pk.nsites++
		pk.labels = append(pk.labels, pk.siteLabel(in))
	case ptx.OpBra:
		if in.Target < 0 || int(in.Target) > len(pk.k.Instrs) {
			return fail("branch target %d out of range", in.Target)
		}
		if in.Reconv < 0 || int(in.Reconv) > len(pk.k.Instrs) {
			return fail("reconvergence point %d out of range", in.Reconv)
		}
	case ptx.OpWmma:
		if w := in.Wmma; w.Op != 'm' && w.Op != 'M' {
			a := &in.Src[0]
			if a.Kind != ptx.OpdAddr {
				return fail("wmma needs an address")
			}
			x.space, x.size, x.vec = in.Space, w.Elem.Size(), 1
			x.abase = a.Reg
			x.a32 = a.Reg >= 0 && pk.k.Regs[a.Reg].Type.Size() == 4
			x.aconst = a.Imm
			if a.Var >= 0 {
				x.aconst += pk.symAddr(a.Var)
				if pk.k.Vars[a.Var].Space == ptx.SpaceShared && in.Space == ptx.SpaceGeneric {
					x.aconst += sharedWin
				}
			}
		}
	case ptx.OpCpAsync:
		if in.Async != ptx.AsyncCopy {
			break
		}
		d, sa := &in.Src[0], &in.Src[1]
		if d.Kind != ptx.OpdAddr || sa.Kind != ptx.OpdAddr || in.Src[2].Kind != ptx.OpdImm {
			return fail("cp.async needs two addresses and an immediate size")
		}
		x.size = int(in.Src[2].Imm)
		if x.size != 4 && x.size != 8 && x.size != 16 {
			return fail("cp.async copies 4, 8 or 16 bytes, not %d", x.size)
		}
		x.vec = 1
		x.abase = d.Reg
		x.a32 = d.Reg >= 0 && pk.k.Regs[d.Reg].Type.Size() == 4
		x.aconst = d.Imm
		if d.Var >= 0 {
			x.aconst += pk.symAddr(d.Var)
		}
		// The source's base register goes in src[1], where the register
		// passes see it read.
		x.src[1] = xopd{kind: oImm, idx: pk.immRow(0)}
		if sa.Reg >= 0 {
			x.src[1] = xopd{kind: oReg, idx: sa.Reg}
		}
		x.aconst2 = sa.Imm
		if sa.Var >= 0 {
			x.aconst2 += pk.symAddr(sa.Var)
		}
		x.site = int32(pk.nsites)
		x.site2 = int32(pk.nsites + 1)
		pk.nsites += 2
		pk.labels = append(pk.labels, pk.siteLabel(in), pk.siteLabel(in)+" (shared)")
	case ptx.OpCall:
		if in.Call == nil {
			return fail("a call without its target")
		}
		pk.needExt = true
		pk.printf = pk.printf || in.Call.Builtin == ptx.BuiltinVprintf
		pk.malloc = pk.malloc || in.Call.Builtin == ptx.BuiltinMalloc
		if in.Call.Callee == ptx.CalleeIndirect {
			// The target register is a source, so that the register
			// passes see it read (ptxcall.go reads it from here).
			x.src[0] = xopd{kind: oReg, idx: in.Call.Reg}
		}
	case ptx.OpRet:
		x.fnRet = int32(i) >= pk.kend
	case ptx.OpBar:
		pk.needExt = pk.needExt || in.Red != ptx.RedNone
	case ptx.OpInvalid:
		return fail("instruction not supported by the simulator")
	}
	x.fast = fastClass(in)
	for j := 0; j < int(in.NSrc); j++ {
		if o := in.Src[j]; o.Kind == ptx.OpdSpecial && o.Special >= ptx.SpecialClock {
			x.clock = true
			x.fast = fNone
		}
	}
	if int32(i) >= pk.kend && (in.Op == ptx.OpMov || in.Op == ptx.OpCvta) && in.Src[0].Kind == ptx.OpdSym && pk.frameVar(in.Src[0].Var) && pk.k.VarFunc[in.Src[0].Var] > 0 {
		// The address of a function's frame variable depends on the
		// frame (ptxcall.go): computed when it runs.
		x.frameSym = true
		x.fast = fNone
	}
	x.class = instrClass(in)
	x.tmask = typeMask(in.Type)
	if in.Type == ptx.Pred {
		x.tmask = 1
	}
	if x.fast == fMov {
		switch o := in.Src[0]; o.Kind {
		case ptx.OpdImm, ptx.OpdSym:
			r := &pk.imms[x.src[0].idx]
			for l := range r {
				r[l] &= x.tmask
			}
			x.movCopy = true
		case ptx.OpdReg:
			rt := pk.k.Regs[o.Reg].Type
			x.movCopy = !o.Neg && (rt.Size() == in.Type.Size() && rt != ptx.Pred && in.Type != ptx.Pred || rt == ptx.Pred && in.Type == ptx.Pred)
		case ptx.OpdSpecial:
			x.movCopy = in.Type.Size() >= 4 // special registers hold 32-bit values
		}
	}
	if x.fast == fSetpI {
		x.cmpFlip, x.cmpMask, x.cmpTbl = setpTable(in)
		x.setpKind, x.setpSwap = setpKind(x.cmpTbl)
		x.setpType = setpTypeOf(in)
		width := 8
		if x.setpType == setpU32 || x.setpType == setpS32 {
			width = 4
		}
		x.setpCmp = lanes.NewCmp(int(x.setpKind), width, x.setpType == setpS32 || x.setpType == setpS64)
	}
	return nil
}

// siteLabel names a memory instruction's site: the .cu line from .loc when
// the PTX has line information ("spmv.cu:66"), else the PTX line; the PTX
// instruction follows, since one source line often holds several accesses.
func (pk *PTXKernel) siteLabel(in *ptx.Instr) string {
	text := instrText(in)
	if p := pk.srcPos(in); p != "" {
		return p + " " + text
	}
	return fmt.Sprintf("%s:%d %s", pk.ptxName(), in.Line, text)
}

// instrText is in as written, on one line, without its semicolon.
func instrText(in *ptx.Instr) string {
	return strings.TrimSuffix(strings.Join(strings.Fields(in.Text), " "), ";")
}

// srcLoc is the student's line of in: for code nvcc inlined from another
// file (a .loc with inlined_at whose function lies in a header: atomicAdd's
// body is in device_atomic_functions.hpp), the outermost call site, the
// line of the kernel's own .cu that called it; else in's own .loc. Code
// inlined from the student's own file (a template or __device__ function
// of the same .cu, as the lessons' kernels are written) keeps its own line:
// the outermost call site there is the one-line wrapper that instantiates
// the template, which would give every load of the kernel the same row. A
// position with no line (nvcc's line 0) gives way to the other.
func srcLoc(in *ptx.Instr) ptx.Loc {
	if in.Caller.Line > 0 && (in.Loc.Line <= 0 || in.Loc.File != in.Caller.File) {
		return in.Caller
	}
	return in.Loc
}

// srcPos is "file.cu:LINE" from in's .loc (srcLoc), "" without line
// information.
func (pk *PTXKernel) srcPos(in *ptx.Instr) string {
	loc := srcLoc(in)
	f := int(loc.File)
	if f <= 0 || f >= len(pk.mod.Files) || loc.Line <= 0 {
		return ""
	}
	name := pk.mod.Files[f]
	if j := strings.LastIndexAny(name, `/\`); j >= 0 {
		name = name[j+1:]
	}
	return fmt.Sprintf("%s:%d", name, loc.Line)
}

func (pk *PTXKernel) ptxName() string {
	name := pk.mod.Name
	if name == "" {
		return "kernel.ptx"
	}
	if j := strings.LastIndexAny(name, `/\`); j >= 0 {
		name = name[j+1:]
	}
	return name
}

// where names instruction in for a fault: the .cu line when known, and the
// PTX line and text.
func (pk *PTXKernel) where(in *ptx.Instr) string {
	s := fmt.Sprintf("%s:%d %s", pk.ptxName(), in.Line, instrText(in))
	if p := pk.srcPos(in); p != "" {
		if l := int(srcLoc(in).Line); l <= len(pk.srcLines) {
			p += " " + strings.Join(strings.Fields(pk.srcLines[l-1]), " ")
		}
		s = p + " (" + s + ")"
	}
	return s
}

// SetSource gives the kernel the CUDA C its PTX came from, so that site
// labels carry the text of their source line ("spmv.cu:66 sum += ...").
// It must be called before the kernel's first launch.
func (pk *PTXKernel) SetSource(cuda string) {
	if cuda == "" {
		return
	}
	lines := strings.Split(cuda, "\n")
	pk.srcLines = lines
	pk.renameArrays(cuda)
	for i := range pk.code {
		x := &pk.code[i]
		if x.site < 0 {
			continue
		}
		in := x.in
		p := pk.srcPos(in)
		l := int(srcLoc(in).Line)
		if p == "" || l > len(lines) {
			continue
		}
		src := strings.Join(strings.Fields(lines[l-1]), " ")
		pk.labels[x.site] = fmt.Sprintf("%s %s [%s]", p, src, instrText(in))
	}
}

// SiteLabels lists the kernel's memory sites in instruction order.
func (pk *PTXKernel) SiteLabels() []string { return append([]string(nil), pk.labels...) }

// maybeUndefined lists the registers some path may read before writing
// them. PTX leaves a register's first value undefined; the executor zeroes
// these (and only these) at the start of each warp, so a kernel that reads
// one gets the same value whatever warp ran on the worker before it, and
// kernels that never do pay nothing. They are also where the
// uninitialized-read check starts (markInitCheck, initcheck.go): a lane
// that uses such a value is a fault. It is a must-be-defined dataflow over
// the instructions: a register is defined after an unguarded write on every
// path into the instruction.
func (pk *PTXKernel) maybeUndefined() []int32 {
	ins := pk.k.Instrs
	n := len(ins)
	words := (pk.nregs + 63) / 64
	if n == 0 || words == 0 {
		return nil
	}
	in := make([]uint64, n*words)
	out := make([]uint64, n*words)
	for i := range in {
		in[i] = ^uint64(0)
		out[i] = ^uint64(0)
	}
	set := func(b []uint64, r int32) { b[r/64] |= 1 << (r % 64) }
	defs := make([]uint64, n*words)
	for i := range ins {
		x := &pk.code[i]
		if x.guard >= 0 {
			continue
		}
		d := defs[i*words : (i+1)*words]
		for j := 0; j < int(ins[i].NDst); j++ {
			o := &x.dst[j]
			switch o.kind {
			case oReg:
				set(d, o.idx)
			case oVec:
				for _, r := range o.vec {
					if r >= 0 {
						set(d, r)
					}
				}
			}
		}
	}
	preds := make([][]int32, n)
	for i := range ins {
		op := ins[i].Op
		unguarded := ins[i].Guard < 0
		if op == ptx.OpBra && int(ins[i].Target) < n {
			preds[ins[i].Target] = append(preds[ins[i].Target], int32(i))
		}
		if i+1 < n && !(unguarded && (op == ptx.OpBra || op == ptx.OpRet || op == ptx.OpExit)) {
			preds[i+1] = append(preds[i+1], int32(i))
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range ins {
			cur := in[i*words : (i+1)*words]
			for w := range words {
				v := ^uint64(0)
				if i == 0 {
					v = 0
				}
				for _, p := range preds[i] {
					v &= out[int(p)*words+w]
				}
				if len(preds[i]) == 0 && i != 0 {
					v = ^uint64(0) // unreachable
				}
				cur[w] = v
				o := v | defs[i*words+w]
				if o != out[i*words+w] {
					out[i*words+w] = o
					changed = true
				}
			}
		}
	}
	need := make([]bool, pk.nregs)
	use := func(i int, r int32) {
		if r >= 0 && in[i*words+int(r/64)]&(1<<(r%64)) == 0 {
			need[r] = true
		}
	}
	for i := range ins {
		x := &pk.code[i]
		use(i, x.guard)
		use(i, x.abase)
		for j := 0; j < int(ins[i].NSrc); j++ {
			o := &x.src[j]
			switch o.kind {
			case oReg:
				use(i, o.idx)
			case oVec:
				for _, r := range o.vec {
					use(i, r)
				}
			}
		}
		// st's vector source and a guarded write's untouched lanes are
		// covered above; a guarded write keeps the old value in the
		// other lanes, so its destination counts as read.
		if x.guard >= 0 {
			for j := 0; j < int(ins[i].NDst); j++ {
				if o := &x.dst[j]; o.kind == oReg {
					use(i, o.idx)
				}
			}
		}
	}
	var regs []int32
	for r, b := range need {
		if b {
			regs = append(regs, int32(r))
		}
	}
	return regs
}

// Instruction classes of Stats.InstrMix.
const (
	cMemory = iota
	cInteger
	cFloat
	cMove
	cControl
	cWarp
	numClasses
)

var instrClassNames = [numClasses]string{"memory", "integer", "float", "move", "control", "warp"}

// instrClass is in's class for Stats.InstrMix.
func instrClass(in *ptx.Instr) uint8 {
	switch in.Op {
	case ptx.OpLd, ptx.OpSt, ptx.OpAtom, ptx.OpRed:
		return cMemory
	case ptx.OpMov, ptx.OpCvt, ptx.OpCvta, ptx.OpSelp:
		return cMove
	case ptx.OpBra, ptx.OpRet, ptx.OpExit, ptx.OpBar, ptx.OpMembar, ptx.OpCall:
		return cControl
	case ptx.OpShfl, ptx.OpVote, ptx.OpMatch, ptx.OpRedux, ptx.OpActivemask:
		return cWarp
	case ptx.OpCpAsync:
		return cMemory
	case ptx.OpWmma:
		if in.Wmma.Op == 'm' || in.Wmma.Op == 'M' {
			return cFloat
		}
		return cMemory
	case ptx.OpNanosleep:
		return cControl
	}
	if in.Type.IsFloat() || in.Op == ptx.OpSetp && in.SrcType.IsFloat() || in.Half != ptx.HalfNone {
		return cFloat
	}
	return cInteger
}

package sim

import (
	"path/filepath"
	"sort"

	"github.com/warplab/warplab/sim/ptx"
	"github.com/warplab/warplab/sim/timing"
)

// Loads in flight as compiled (issue 27, milestone 3). The load rounds
// (markLoadRounds) are read off the PTX, but the GPU runs ptxas's code, and
// ptxas unrolls loops again below the PTX: nvcc's PTX for the SpMV
// lesson's spmvCsrThreadPerRow walks a row 4 elements a pass (12 loads, 2
// rounds), ptxas 11.8's SASS for sm_90 16 elements a pass (48 LDG), still
// 2 rounds, so a long row's lane waits a quarter of the latencies the
// PTX's passes say. Where ptxas is on the machine the module's SASS
// (PtxasSharedWidths: ptxas -lineinfo, nvdisasm -g) gives each loop's LDGs
// per source line (SASSLine.LoopLoads) and how often a pass over the loop
// waits for a load (SASSLine.LoopRounds, issueRounds: the seventeenth pass;
// that 16-element pass waits five times, not two); SetLoadPasses ties each
// PTX loop to its SASS loop by those lines and marks its loads with how
// many PTX passes one round spans (timing.Pass). Without ptxas the PTX's
// passes stand and LoadPasses says so.

// SetLoadPasses marks the kernel's global loads with the passes of the
// loops they are in as compiled, from its module's SASS (PtxasSharedWidths)
// and where that came from. A PTX loop is a backward branch's target up to
// the branch; a load belongs to the smallest loop that holds it. For each
// source line, the PTX loops with global loads there (in code order) and
// the SASS loops with LDGs there (in listing order) are paired in order
// when there are as many of each; a PTX loop's factor is its SASS loop's
// loads over its own at every one of its lines, the same whole number at
// all of them, else the PTX's passes stand. A round then spans factor ×
// the PTX pass's rounds ÷ the SASS pass's waits PTX passes (passSpan). It
// returns the loops whose rounds span other than one PTX pass; nil sass
// forgets the marks.
func (pk *PTXKernel) SetLoadPasses(sass SASSWidths, from string) int {
	code := pk.code[:pk.kend]
	for i := range code {
		code[i].tmLoop, code[i].tmSpan, code[i].tmUnroll, code[i].tmSplit = 0, 0, 0, 0
	}
	pk.passesFrom, pk.unrolled = "", 0
	if sass == nil {
		return 0
	}
	pk.passesFrom = from
	lines := sass[pk.Name]
	if len(lines) == 0 {
		return 0
	}
	type span struct{ from, to int }
	var loops []span
	for i := range code {
		if in := code[i].in; in != nil && in.Op == ptx.OpBra && int(in.Target) <= i {
			loops = append(loops, span{int(in.Target), i})
		}
	}
	sort.Slice(loops, func(a, b int) bool {
		return loops[a].from < loops[b].from || loops[a].from == loops[b].from && loops[a].to < loops[b].to
	})
	// Each global load's innermost loop, and each loop's loads per line.
	inLoop := make([]int, len(code))
	counts := make([]map[SourceLine]int, len(loops))
	for i := range code {
		inLoop[i] = -1
		x := &code[i]
		if x.tmRound == tmNoLoad || x.in == nil {
			continue
		}
		best := -1
		for j, l := range loops {
			if l.from <= i && i <= l.to && (best < 0 || l.to-l.from < loops[best].to-loops[best].from) {
				best = j
			}
		}
		if best < 0 {
			continue
		}
		inLoop[i] = best
		sl, ok := pk.sourceLine(x.in)
		if !ok {
			continue
		}
		if counts[best] == nil {
			counts[best] = map[SourceLine]int{}
		}
		counts[best][sl]++
	}
	// Per line, the PTX loops in code order paired with the SASS's.
	factor := make([]int, len(loops)) // 0: not yet set; -1: no single factor
	rounds := make([]int, len(loops)) // the SASS loop's waits a pass; -1: none, or no single one; -2: not yet set
	for j := range rounds {
		rounds[j] = -2
	}
	byLine := map[SourceLine][]int{}
	for j, c := range counts {
		for sl := range c {
			byLine[sl] = append(byLine[sl], j)
		}
	}
	for j, c := range counts {
		if c == nil {
			factor[j] = -1
		}
	}
	for sl, js := range byLine {
		sort.Ints(js)
		sassLoops := lines[sl].LoopLoads
		ptxLoads := make([]int, len(js))
		for k, j := range js {
			ptxLoads[k] = counts[j][sl]
		}
		pair := pairLoops(ptxLoads, sassLoops)
		if pair == nil {
			for _, j := range js {
				factor[j] = -1
			}
			continue
		}
		for k, j := range js {
			n, s := ptxLoads[k], sassLoops[pair[k]]
			f := -1
			if s >= n && s%n == 0 {
				f = s / n
			}
			if factor[j] == 0 {
				factor[j] = f
			} else if factor[j] != f {
				factor[j] = -1
			}
			r := -1
			if rs := lines[sl].LoopRounds; pair[k] < len(rs) {
				r = rs[pair[k]]
			}
			if rounds[j] == -2 {
				rounds[j] = r
			} else if rounds[j] != r {
				rounds[j] = -1
			}
		}
	}
	// Each loop's rounds a PTX pass in the PTX: its loads that open a
	// round (timing.RoundJoin marks the ones that join).
	levels := make([]int, len(loops))
	for i := range code {
		if j := inLoop[i]; j >= 0 && code[i].tmRound&tmRoundJoin == 0 {
			levels[j]++
		}
	}
	for j, f := range factor {
		if f < 1 {
			continue
		}
		span := passSpan(f, levels[j], rounds[j])
		split := passSplit(f, levels[j], rounds[j])
		if span == timing.PassUnit && f == 1 && split == 0 {
			continue
		}
		pk.unrolled++
		for i := range code {
			if inLoop[i] == j {
				code[i].tmLoop, code[i].tmSpan, code[i].tmUnroll = uint16(min(j+1, 1<<16-1)), span, uint8(min(f, 255))
				code[i].tmSplit = split
			}
		}
	}
	return pk.unrolled
}

// passSpan is how many PTX passes one round of each level spans as
// compiled (timing.Pass.Span, in timing.PassUnit parts) for a loop that
// ptxas made factor of its PTX passes one, whose PTX pass opens levels
// rounds and whose SASS pass waits for loads rounds times (issueRounds; -1
// where the SASS gave no single count, read as one wait a level, the
// PTX's grouping). A compiled pass that waits more often than the PTX's
// levels say, even with no unrolling (factor 1), cannot be told apart
// here: a round never spans less than one PTX pass.
func passSpan(factor, levels, rounds int) uint8 {
	if levels <= 0 {
		return timing.PassUnit
	}
	if rounds < 0 {
		rounds = levels
	}
	if rounds == 0 {
		return 255
	}
	span := (2*timing.PassUnit*factor*levels + rounds) / (2 * rounds) // rounded
	return uint8(min(max(span, timing.PassUnit), 255))
}

// pairLoops pairs the PTX loops with loads at a source line (ptx: each
// one's loads there, in code order) with the SASS loops at that line
// (sass: each one's LDGs, in listing order): the k-th PTX loop's SASS
// loop is pair[k]. As many of each pair in order. Where the SASS has
// more, ptxas unrolled a loop again and kept remainder loops beside it
// (matmulNaive's k loop: nvcc's PTX a loop of 8 loads and its remainder
// of 2, the SASS loops of 32, 8 and 2): a PTX loop of n loads pairs with
// a SASS loop of a multiple of n, and the SASS loops right after it with
// fewer loads, multiples of n too, are its remainders, left unpaired (as
// many as leave a pairing for the PTX loops after it).
// Nil where no such pairing holds every loop of both.
func pairLoops(ptx, sass []int) []int {
	if len(sass) == len(ptx) {
		pair := make([]int, len(ptx))
		for k := range pair {
			pair[k] = k
		}
		return pair
	}
	if len(sass) < len(ptx) {
		return nil
	}
	pair := make([]int, len(ptx))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if i == len(ptx) {
			return j == len(sass)
		}
		n := ptx[i]
		if j >= len(sass) || n <= 0 || sass[j] < n || sass[j]%n != 0 {
			return false
		}
		pair[i] = j
		// Its remainders: as many of the loops after j as can be, else
		// fewer (the next PTX loop may have as many loads as one).
		end := j + 1
		for end < len(sass) && sass[end] < sass[j] && sass[end]%n == 0 {
			end++
		}
		for r := end; r > j; r-- {
			if match(i+1, r) {
				return true
			}
		}
		return false
	}
	if !match(0, 0) {
		return nil
	}
	return pair
}

// passSplit is, for a loop whose compiled pass waits for loads more often
// than its PTX passes' rounds (factor PTX passes of levels rounds each),
// the compiled rounds each PTX round stands for (timing.Pass.Split, in
// timing.PassUnit parts); 0 where it waits as often or less (passSpan's
// case). spmvVector4V4's float4 walk: nvcc's PTX pass loads four int4 of
// columns, then their sixteen gathers, two rounds; ptxas 11.8's SASS for
// sm_90 interleaves them and waits six times a pass (a column load, its
// gathers, the next gathers, ...), so each PTX round stands for three.
func passSplit(factor, levels, rounds int) uint8 {
	if levels <= 0 || factor < 1 || rounds <= factor*levels {
		return 0
	}
	ptx := factor * levels
	return uint8(min((2*timing.PassUnit*rounds+ptx)/(2*ptx), 255)) // rounded
}

// sourceLine is in's source position as the SASS's line info names it.
func (pk *PTXKernel) sourceLine(in *ptx.Instr) (SourceLine, bool) {
	if in.Loc.File <= 0 || int(in.Loc.File) >= len(pk.mod.Files) {
		return SourceLine{}, false
	}
	return SourceLine{File: filepath.Base(pk.mod.Files[in.Loc.File]), Line: int(in.Loc.Line)}, true
}

// LoadPasses says where the load rounds' passes come from: the loops whose
// rounds SetLoadPasses found spanning other than one PTX pass in the SASS,
// and its source, or that
// the PTX's passes are used (no ptxas on the machine, or no caller asked).
func (pk *PTXKernel) LoadPasses() (unrolled int, from string) {
	if pk.passesFrom == "" {
		return 0, "PTX passes (no SASS: ptxas not run)"
	}
	return pk.unrolled, pk.passesFrom
}

// tmPass is a global load's place in the loops as compiled (SetLoadPasses).
func (x *xin) tmPass() timing.Pass {
	return timing.Pass{Loop: x.tmLoop, Span: x.tmSpan, Unroll: x.tmUnroll, Split: x.tmSplit}
}

// newPass reports whether x, a first-level global load, starts a new pass
// of the warp's over its block's loads as compiled, for the L1's line
// clock: a load that opens its level's round does, unless ptxas made its
// loop's PTX passes tmUnroll at a time one and an earlier PTX pass of the
// same compiled pass came before it. The line clock counts a compiled
// pass's lines whatever rounds its loads wait in (tmSpan): the lines a
// pass touches do not change with the order of its loads.
func (wp *pwarp) newPass(x *xin) bool {
	if x.tmRound&tmRoundJoin != 0 {
		return false
	}
	if x.tmUnroll > 1 && wp.clkLoop == x.tmLoop && wp.clkSkip > 0 {
		wp.clkSkip--
		return false
	}
	wp.clkLoop, wp.clkSkip = 0, 0
	if x.tmUnroll > 1 {
		wp.clkLoop, wp.clkSkip = x.tmLoop, x.tmUnroll-1
	}
	return true
}

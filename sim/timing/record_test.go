package timing

import (
	"math"
	"testing"
)

// TestRoundStatePasses: a loop's PTX passes each open their levels'
// rounds, unless the compiled code's round spans 4 of them (Span): then the
// group's first pass opens and the others join, a loop's last group may be
// short, another loop (or a load outside loops) opens its own rounds, and
// a group's round is a miss when the load that opened it missed; with the
// compiled pass's PTX passes known (Unroll), a miss no round of the
// compiled pass waited for at its level is waited for at its last round
// there; where the compiled pass waits more often than the PTX's rounds
// (Split), each round counts as that many.
func TestRoundStatePasses(t *testing.T) {
	lv1, lv1j := RoundKind(1, false), RoundKind(1, true)
	lv2 := RoundKind(2, false)
	type load struct {
		kind uint8
		p    Pass
		miss bool
	}
	// pass is one SpMV-like pass: two level-1 loads (col, val), one
	// level-2 load (x[col]).
	pass := func(p Pass, miss bool) []load {
		return []load{{lv1, p, miss}, {lv1j, p, false}, {lv2, p, false}}
	}
	passes := func(n int, p Pass, missEvery int) []load {
		var out []load
		for i := range n {
			out = append(out, pass(p, missEvery > 0 && i%missEvery == 0)...)
		}
		return out
	}
	a4, b4, a1 := Pass{Loop: 1, Span: 4 * PassUnit}, Pass{Loop: 2, Span: 4 * PassUnit}, Pass{Loop: 1, Span: PassUnit}
	c4, f4 := Pass{Loop: 1, Span: 4 * PassUnit, Unroll: 4}, Pass{Loop: 1, Span: 13, Unroll: 4}
	for _, c := range []struct {
		name  string
		loads []load
		want  Rounds
	}{
		{"PTX passes", passes(8, Pass{}, 0), Rounds{Hit: 16}},
		{"unroll 1 is the PTX's", passes(8, a1, 0), Rounds{Hit: 16}},
		{"8 passes unrolled 4", passes(8, a4, 0), Rounds{Hit: 4}},
		{"a short last group", passes(6, a4, 0), Rounds{Hit: 4}},
		{"one miss a group", passes(8, a4, 4), Rounds{Hit: 2, Miss: 2}},
		// A compiled pass's round waits for its first load: a miss in a
		// later PTX pass of the span is waited for at a later round, or
		// at the compiled pass's last, here the group's own.
		{"a miss in the group's last pass", append(passes(3, a4, 0), pass(a4, true)...), Rounds{Hit: 1, Miss: 1}},
		{"a miss in the PTX's passes", append(passes(3, a1, 0), pass(a1, true)...), Rounds{Hit: 7, Miss: 1}},
		{"another loop opens its own", append(passes(2, a4, 0), passes(2, b4, 0)...), Rounds{Hit: 4}},
		// 8 passes at 1.625 passes a round: rounds open at passes 0, 1,
		// 3, 4 and 6 (8/1.625 = 4.9), at each of the two levels.
		{"a fractional span", passes(8, Pass{Loop: 1, Span: 13}, 0), Rounds{Hit: 10}},
		// A compiled pass (Unroll PTX passes) waits at each level for a
		// miss none of its rounds waited for at its last round there.
		{"a compiled pass's joined miss", append(passes(3, c4, 0), pass(c4, false)[0], load{lv1j, c4, true}, pass(c4, false)[2]), Rounds{Hit: 1, Miss: 1}},
		{"a joined miss, the next compiled pass", append(append(passes(1, c4, 0), load{lv1, c4, false}, load{lv1j, c4, true}, load{lv2, c4, false}), passes(6, c4, 0)...),
			Rounds{Hit: 3, Miss: 1}},
		{"a joined miss where the opener missed", append(passes(1, c4, 1), load{lv1, c4, false}, load{lv1j, c4, true}, load{lv2, c4, false}), Rounds{Hit: 1, Miss: 1}},
		// 8 passes at 1.625 a round, 4 a compiled pass: a miss joined in
		// pass 2 is waited for at pass 3's round, the compiled pass's last.
		{"a fractional span's joined miss", append(append(passes(2, f4, 0), load{lv1, f4, false}, load{lv1j, f4, true}, load{lv2, f4, false}), passes(5, f4, 0)...),
			Rounds{Hit: 9, Miss: 1}},
		// A compiled pass that waits three times where the PTX's rounds
		// say once (Split 3): each round counts three of its kind, a
		// missed one three misses.
		{"rounds split in three", passes(4, Pass{Loop: 1, Span: PassUnit, Split: 3 * PassUnit}, 0), Rounds{Hit: 24}},
		{"a split miss", passes(2, Pass{Loop: 1, Span: PassUnit, Split: 3 * PassUnit}, 2), Rounds{Hit: 9, Miss: 3}},
		// 1.5 rounds a PTX round: the half carries to the level's next.
		{"a fractional split", passes(4, Pass{Loop: 1, Span: PassUnit, Split: 12}, 0), Rounds{Hit: 12}},
		{"a split beside the PTX's", append(passes(1, Pass{Loop: 1, Span: PassUnit, Split: 2 * PassUnit}, 0), passes(1, Pass{}, 0)...), Rounds{Hit: 4 + 2}},
		{"a load outside loops between groups", append(append(passes(2, a4, 0), load{lv1, Pass{}, false}), passes(2, a4, 0)...),
			Rounds{Hit: 2 + 1 + 2}},
	} {
		var s RoundState
		for _, l := range c.loads {
			s.LoadIn(l.kind, l.p, l.miss, false)
		}
		if got := s.End(); got != c.want {
			t.Errorf("%s: rounds %+v, want %+v", c.name, got, c.want)
		}
		// End leaves the state ready for the next block.
		s.LoadIn(lv1, a4, false, false)
		if got := s.End(); got != (Rounds{Hit: 1}) {
			t.Errorf("%s: the next block's one load: %+v", c.name, got)
		}
	}
}

// TestRoundStateGathers: a missed round one of whose loads was a gather
// counts among the MissWide rounds; a gather that hit (no miss) does not,
// nor does a miss without one; End clears the marks.
func TestRoundStateGathers(t *testing.T) {
	lv1, lv2 := RoundKind(1, false), RoundKind(2, false)
	for _, c := range []struct {
		name   string
		miss   [2]bool // level 1, level 2
		gather [2]bool
		want   Rounds
	}{
		{"a gather that missed", [2]bool{false, true}, [2]bool{false, true}, Rounds{Hit: 1, Miss: 1, MissWide: 1}},
		{"a gather that hit", [2]bool{false, false}, [2]bool{true, true}, Rounds{Hit: 2}},
		{"misses, no gather", [2]bool{true, true}, [2]bool{}, Rounds{Miss: 2}},
		{"both", [2]bool{true, true}, [2]bool{true, true}, Rounds{Miss: 2, MissWide: 2}},
	} {
		var s RoundState
		for i, k := range []uint8{lv1, lv2} {
			s.LoadIn(k, Pass{}, c.miss[i], false)
			if c.gather[i] {
				s.Wide(k)
			}
		}
		if got := s.End(); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
		s.LoadIn(lv1, Pass{}, true, false)
		if got := s.End(); got != (Rounds{Miss: 1}) {
			t.Errorf("%s: the next block: %+v, want one plain miss", c.name, got)
		}
	}
}

// TestBlockShares: a block's share of its SM is summed step by step
// between its barriers, each step its longest of instructions at the issue
// rate, wavefronts at the shared memory's and barrier arrivals at
// BarrierWarpCycles: a step of conflicted wavefronts and a step of
// barriers add, where one sum over the block would take the longer. A
// block without barriers has none.
func TestBlockShares(t *testing.T) {
	g := &GPU{ClockHz: 1e9}
	c := &Constants{IssuePerSMCycle: 4, SharedWavesPerCycle: 1, BarrierWarpCycles: 2}
	ns := 1e-9
	for _, tc := range []struct {
		name  string
		warps []Warp
		want  float64 // seconds
	}{
		{"no barriers", []Warp{{Instr: 400, Steps: []Step{{Instr: 400, Waves: 900}}}}, 0},
		// Two warps, one barrier each: step 0 is 64 wavefronts (64 ns)
		// against 2 arrivals (4 ns); step 1 is 80 instructions (20 ns).
		{"wavefronts then issue", []Warp{
			{Instr: 40, Barriers: 1, Steps: []Step{{Instr: 0, Waves: 32}, {Instr: 40}}},
			{Instr: 40, Barriers: 1, Steps: []Step{{Instr: 0, Waves: 32}, {Instr: 40}}},
		}, 64*ns + 20*ns},
		// Steps of barriers alone (8 warps: 16 ns a step) after a step of
		// 40 wavefronts: 40 + 16 + 16, where the block's sums would give
		// max(40 wavefronts, 48 ns of barriers) = 48.
		{"barriers add to a conflicted step", func() []Warp {
			var ws []Warp
			for i := range 8 {
				ws = append(ws, Warp{Warp: int32(i), Barriers: 3, Steps: []Step{{Waves: 5}, {}, {}, {}}})
			}
			return ws
		}(), 40*ns + 16*ns + 16*ns},
	} {
		l := NewBlockLog(g, c, 1)
		for i := range tc.warps {
			l.Warp(&tc.warps[i])
		}
		l.EndBlock(0)
		if got := l.Blocks[0].Shares; math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: shares %.4g s, want %.4g", tc.name, got, tc.want)
		}
	}
}

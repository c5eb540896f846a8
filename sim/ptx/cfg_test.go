package ptx

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// reconvCases are small kernels whose branches carry the expected
// reconvergence point as a comment: R=$label or R=exit.
var reconvCases = []struct{ name, body string }{
	{"if/else", `
	setp.lt.s32 %p1, %r1, 10;
	@%p1 bra $ELSE;         // R=$JOIN
	add.s32 %r2, %r1, 1;
	bra.uni $JOIN;          // R=$JOIN
$ELSE:
	add.s32 %r2, %r1, 2;
$JOIN:
	st.global.u32 [%rd1], %r2;
	ret;`},
	{"if without else", `
	setp.lt.s32 %p1, %r1, 10;
	@!%p1 bra $JOIN;        // R=$JOIN
	add.s32 %r2, %r1, 1;
$JOIN:
	ret;`},
	{"nested ifs", `
	setp.lt.s32 %p1, %r1, 10;
	@%p1 bra $OUTER_ELSE;   // R=$END
	setp.lt.s32 %p2, %r1, 5;
	@%p2 bra $INNER_JOIN;   // R=$INNER_JOIN
	add.s32 %r2, %r1, 1;
$INNER_JOIN:
	add.s32 %r2, %r2, 1;
	bra.uni $END;           // R=$END
$OUTER_ELSE:
	setp.eq.s32 %p3, %r1, 20;
	@%p3 bra $INNER2;       // R=$END
	add.s32 %r2, %r1, 3;
	bra.uni $END;           // R=$END
$INNER2:
	add.s32 %r2, %r1, 4;
$END:
	st.global.u32 [%rd1], %r2;
	ret;`},
	{"loop with break and continue", `
$LOOP:
	setp.ge.s32 %p1, %r1, %r3;
	@%p1 bra $DONE;         // R=$DONE
	and.b32 %r4, %r1, 1;
	setp.eq.s32 %p2, %r4, 0;
	@%p2 bra $NEXT;         // R=$DONE
	setp.gt.s32 %p3, %r1, 100;
	@%p3 bra $DONE;         // R=$DONE
	add.s32 %r2, %r2, %r1;
$NEXT:
	add.s32 %r1, %r1, 1;
	bra.uni $LOOP;          // R=$LOOP
$DONE:
	st.global.u32 [%rd1], %r2;
	ret;`},
	{"continue only", `
$LOOP:
	and.b32 %r4, %r1, 1;
	setp.eq.s32 %p2, %r4, 0;
	@%p2 bra $NEXT;         // R=$NEXT
	add.s32 %r2, %r2, %r1;
$NEXT:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, %r3;
	@%p1 bra $LOOP;         // R=$DONE
$DONE:
	ret;`},
	{"early return inside a loop", `
$LOOP:
	ld.global.u32 %r4, [%rd1];
	setp.eq.s32 %p1, %r4, 0;
	@%p1 bra $RET;          // R=exit
	add.s32 %r2, %r2, %r4;
	add.s64 %rd1, %rd1, 4;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p2, %r1, %r3;
	@%p2 bra $LOOP;         // R=exit
	st.global.u32 [%rd2], %r2;
	ret;
$RET:
	ret;`},
	{"early return meeting the normal end", `
$LOOP:
	ld.global.u32 %r4, [%rd1];
	setp.eq.s32 %p1, %r4, 0;
	@%p1 bra $RET;          // R=$RET
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p2, %r1, %r3;
	@%p2 bra $LOOP;         // R=$RET
	st.global.u32 [%rd2], %r2;
$RET:
	ret;`},
	{"guarded ret inside a loop", `
$LOOP:
	setp.eq.s32 %p1, %r1, 7;
	@%p1 ret;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p2, %r1, %r3;
	@%p2 bra $LOOP;         // R=exit
	st.global.u32 [%rd2], %r1;
	ret;`},
	{"switch-like chain", `
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $C0;           // R=$END
	setp.eq.s32 %p2, %r1, 1;
	@%p2 bra $C1;           // R=$END
	setp.eq.s32 %p3, %r1, 2;
	@%p3 bra $C2;           // R=$END
	mov.u32 %r2, 9;
	bra.uni $END;           // R=$END
$C0:
	mov.u32 %r2, 10;
	bra.uni $END;           // R=$END
$C1:
	mov.u32 %r2, 11;
	bra.uni $END;           // R=$END
$C2:
	mov.u32 %r2, 12;
$END:
	st.global.u32 [%rd1], %r2;
	ret;`},
	{"loop whose exit is a ret", `
$LOOP:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, %r3;
	@%p1 bra $BODY;         // R=$OUT
$OUT:
	ret;
$BODY:
	add.s32 %r2, %r2, %r1;
	setp.eq.s32 %p2, %r2, 50;
	@%p2 bra $SKIP;         // R=$SKIP
	add.s32 %r2, %r2, 1;
$SKIP:
	bra.uni $LOOP;          // R=$LOOP
`},
	{"loop left only by a guarded ret", `
$LOOP:
	setp.ge.s32 %p1, %r1, %r3;
	@%p1 ret;
	setp.eq.s32 %p2, %r1, 5;
	@%p2 bra $SKIP;         // R=$SKIP
	add.s32 %r2, %r2, 1;
$SKIP:
	add.s32 %r1, %r1, 1;
	bra.uni $LOOP;          // R=$LOOP
`},
	{"branch to the end of the kernel", `
	setp.lt.s32 %p1, %r1, 10;
	@%p1 bra $END;          // R=exit
	st.global.u32 [%rd1], %r1;
$END:
`},
	{"nested loops", `
$OUTER:
	mov.u32 %r4, 0;
$INNER:
	add.s32 %r2, %r2, %r4;
	add.s32 %r4, %r4, 1;
	setp.lt.s32 %p1, %r4, %r1;
	@%p1 bra $INNER;        // R=$AFTER_INNER
$AFTER_INNER:
	add.s32 %r5, %r5, 1;
	setp.lt.s32 %p2, %r5, %r3;
	@%p2 bra $OUTER;        // R=$DONE
$DONE:
	ret;`},
	{"endless loop", `
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $SPIN;         // R=$OUT
$OUT:
	ret;
$SPIN:
	bra.uni $SPIN;          // R=exit
`},
	{"branch to the next instruction", `
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $NEXT;         // R=$NEXT
$NEXT:
	ret;`},
}

// TestReconv checks each case's branches against the comment on their line.
func TestReconv(t *testing.T) {
	for _, c := range reconvCases {
		t.Run(c.name, func(t *testing.T) {
			src := kernelSrc("", regs+c.body)
			k := mustParse(t, "r.ptx", src).Kernels[0]
			lines := strings.Split(src, "\n")
			// A label names the first instruction after its line.
			labelAt := func(name string) int32 {
				for i, l := range lines {
					if strings.TrimSpace(l) == name+":" {
						for j, in := range k.Instrs {
							if int(in.Line) > i+1 {
								return int32(j)
							}
						}
						return int32(len(k.Instrs))
					}
				}
				t.Fatalf("no label %s", name)
				return -1
			}
			n := 0
			for _, in := range k.Instrs {
				if in.Op != OpBra {
					continue
				}
				l := lines[in.Line-1]
				i := strings.Index(l, "// R=")
				if i < 0 {
					t.Fatalf("line %d has no R= comment", in.Line)
				}
				want := int32(len(k.Instrs))
				if name := strings.TrimSpace(l[i+5:]); name != "exit" {
					want = labelAt(name)
				}
				if in.Reconv != want {
					t.Errorf("%q: Reconv %d, want %d (%s)", in.Text, in.Reconv, want, l[i+5:])
				}
				n++
			}
			if n == 0 {
				t.Fatal("no branches")
			}
		})
	}
}

// slowIPDom computes immediate post-dominators the textbook way, by
// iterating post-dominator sets to a fixed point; node len(blocks) is the
// exit. It returns -1 for the exit and -2 where the exit is not reached.
func slowIPDom(blocks []Block) []int {
	nb := len(blocks)
	exit := nb
	node := func(s int) int {
		if s < 0 {
			return exit
		}
		return s
	}
	pd := make([][]bool, nb+1)
	for i := range pd {
		pd[i] = make([]bool, nb+1)
		for j := range pd[i] {
			pd[i][j] = i != exit || j == exit
		}
	}
	reach := make([]bool, nb+1)
	reach[exit] = true
	for changed := true; changed; {
		changed = false
		for b := nb - 1; b >= 0; b-- {
			for _, s := range blocks[b].Succs {
				if reach[node(s)] && !reach[b] {
					reach[b], changed = true, true
				}
			}
			next := make([]bool, nb+1)
			for j := range next {
				next[j] = true
			}
			for _, s := range blocks[b].Succs {
				if !reach[node(s)] {
					continue
				}
				for j := range next {
					next[j] = next[j] && pd[node(s)][j]
				}
			}
			next[b] = true
			for j := range next {
				if next[j] != pd[b][j] {
					pd[b] = next
					changed = true
					break
				}
			}
		}
	}
	out := make([]int, nb)
	for b := 0; b < nb; b++ {
		if !reach[b] {
			out[b] = -2
			continue
		}
		// The immediate post-dominator is the strict post-dominator that
		// all the others post-dominate.
		out[b] = -3
		for d := 0; d <= nb; d++ {
			if d == b || !pd[b][d] {
				continue
			}
			all := true
			for e := 0; e <= nb; e++ {
				if e != b && pd[b][e] && !pd[d][e] {
					all = false
				}
			}
			if all {
				out[b] = d
				if d == exit {
					out[b] = -1
				}
			}
		}
	}
	return out
}

func checkIPDom(t *testing.T, what string, k *Kernel) {
	t.Helper()
	blocks := k.Blocks()
	want := slowIPDom(blocks)
	for b := range blocks {
		if blocks[b].IPDom != want[b] {
			t.Errorf("%s: block %d [%d,%d) IPDom %d, want %d", what, b, blocks[b].Start, blocks[b].End, blocks[b].IPDom, want[b])
		}
	}
}

// TestIPDomLessons compares the fast post-dominators with the slow ones on
// every lesson kernel.
func TestIPDomLessons(t *testing.T) {
	for _, f := range lessonPTX(t) {
		m := mustParse(t, f, readFile(t, f))
		for _, k := range m.Kernels {
			checkIPDom(t, k.Name, k)
		}
	}
}

// TestIPDomRandom compares them on random control flow: conditional and
// unconditional branches forward and back, guarded and plain returns.
func TestIPDomRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 300; iter++ {
		n := 2 + rng.Intn(25)
		var b strings.Builder
		b.WriteString(regs)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "$L%d:\n", i)
			switch r := rng.Intn(10); {
			case r < 3:
				fmt.Fprintf(&b, "\t@%%p1 bra $L%d;\n", rng.Intn(n+1))
			case r < 4:
				fmt.Fprintf(&b, "\tbra.uni $L%d;\n", rng.Intn(n+1))
			case r < 5:
				b.WriteString("\t@%p2 ret;\n")
			case r < 6:
				b.WriteString("\tret;\n")
			default:
				b.WriteString("\tadd.s32 %r1, %r1, 1;\n")
			}
		}
		fmt.Fprintf(&b, "$L%d:\n", n)
		src := kernelSrc("", b.String())
		k := mustParse(t, "rand.ptx", src).Kernels[0]
		checkIPDom(t, fmt.Sprintf("case %d", iter), k)
		if t.Failed() {
			t.Log(src)
			return
		}
	}
}

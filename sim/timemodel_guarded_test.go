package sim

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// guardedPTX is a kernel whose second load sits in a block of n
// instructions a branch goes around: n-4 dependent mad.lo (which ptxas
// cannot fold), then the address and the load.
func guardedPTX(n int) string {
	var body strings.Builder
	for i := range n - 4 {
		fmt.Fprintf(&body, "\tmad.lo.s32 %%r%d, %%r%d, %%r%d, %d;\n", 11+i, 10+i, 10+i, i+3)
	}
	return fmt.Sprintf(`.version 7.8
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p_a, .param .u64 p_y)
{
	.reg .pred %%p<2>;
	.reg .f32 %%f<3>;
	.reg .b32 %%r<64>;
	.reg .b64 %%rd<10>;
	ld.param.u64 %%rd1, [p_a];
	ld.param.u64 %%rd2, [p_y];
	cvta.to.global.u64 %%rd3, %%rd1;
	cvta.to.global.u64 %%rd4, %%rd2;
	mov.u32 %%r1, %%tid.x;
	mov.u32 %%r10, %%r1;
	mul.wide.s32 %%rd5, %%r1, 4;
	add.s64 %%rd6, %%rd3, %%rd5;
	ld.global.nc.f32 %%f1, [%%rd6];
	st.global.f32 [%%rd4], %%f1;
	setp.gt.s32 %%p1, %%r1, 7;
	mov.f32 %%f2, 0f00000000;
	@%%p1 bra $L__G;
%s	and.b32 %%r63, %%r%d, 1023;
	mul.wide.s32 %%rd7, %%r63, 4;
	add.s64 %%rd8, %%rd3, %%rd7;
	ld.global.nc.f32 %%f2, [%%rd8];
$L__G:
	add.s64 %%rd9, %%rd4, %%rd5;
	st.global.f32 [%%rd9], %%f2;
	ret;
}
`, body.String(), 10+n-4)
}

// TestGuardedJoins: a guarded block of up to guardedLoadMax instructions
// joins the rounds around it (its load and the one before the branch are
// one round); one instruction more and its load opens a round of its own.
func TestGuardedJoins(t *testing.T) {
	for _, tc := range []struct{ n, starts, joins int }{
		{5, 1, 1},
		{guardedLoadMax, 1, 1},
		{guardedLoadMax + 1, 2, 0},
	} {
		mod, err := ptx.Parse("guarded.ptx", guardedPTX(tc.n))
		if err != nil {
			t.Fatal(err)
		}
		k, err := NewPTXKernel(mod, "k")
		if err != nil {
			t.Fatal(err)
		}
		starts, joins := roundMarks(k)
		if starts != tc.starts || joins != tc.joins {
			t.Errorf("guarded block of %d: %d round starts and %d joins, want %d and %d", tc.n, starts, joins, tc.starts, tc.joins)
		}
	}
}

var (
	sassPredBra = regexp.MustCompile(`@!?P[0-9]\s+BRA\b`)
	sassPredLDG = regexp.MustCompile(`@!?P[0-9]\s+LDG\b`)
)

// TestGuardedLoadMaxAsPtxas holds guardedLoadMax to the compiler where
// ptxas is on the machine (scripts/setup.sh --nvcc): a guarded block of
// guardedLoadMax instructions becomes a predicated LDG in the SASS for
// sm_90 (no branch around it), and a block far past it stays a branch.
// ptxas 11.8 predicates such a block up to 21 instructions and branches
// from 22 (docs/timemodel.md, the fifteenth pass).
func TestGuardedLoadMaxAsPtxas(t *testing.T) {
	dis, err := nvdisasm()
	if err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		n          int
		predicated bool
	}{{guardedLoadMax, true}, {2 * guardedLoadMax, false}} {
		src := guardedPTX(tc.n)
		mod, err := ptx.Parse("guarded.ptx", src)
		if err != nil {
			t.Fatal(err)
		}
		k := mod.Kernels[0]
		if joined := slices.Contains(guardedJoins(k.Instrs, k.Blocks()), roundsGuarded); joined != tc.predicated {
			t.Errorf("n=%d: guardedJoins joins the guarded block: %v, want %v", tc.n, joined, tc.predicated)
		}
		var sass []byte
		_, err = runPtxas(ctx, []byte(src), "sm_90", nil, func(_ []byte, cubin string) error {
			var out, stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, dis, cubin)
			cmd.Stdout, cmd.Stderr = &out, &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("nvdisasm: %v: %s", err, stderr.String())
			}
			sass = out.Bytes()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		bra, ldg := sassPredBra.Match(sass), sassPredLDG.Match(sass)
		if tc.predicated && (bra || !ldg) || !tc.predicated && (!bra || ldg) {
			t.Errorf("n=%d: SASS has a predicated branch %v, a predicated LDG %v; want the load predicated: %v", tc.n, bra, ldg, tc.predicated)
		}
	}
}

package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Registers and occupancy (issue 27, milestone 3). An SM's register file
// limits how many blocks it holds (timing.GPU.BlocksPerSM), and with them
// the warps that keep loads in flight (the dram and l2 terms), the slots
// of the latency term's schedule and the L1's capacity curve. The PTX's
// virtual registers say little about the machine code's: nvcc's PTX for
// the tiling lesson's transposeShared declares 43 32-bit registers and
// ptxas 11.8 allocates 14 for sm_90. So the count comes from ptxas -v, run
// where the machine has ptxas (scripts/setup.sh --nvcc), for the modeled
// GPU's architecture; a kernel whose count is not known (no ptxas, or no
// caller that asked) has registers left out of its occupancy, and the
// modeled time says which (timing.Modeled.Occupancy).

// kernelRegs is a kernel's registers per thread and where the number came
// from ("" with n = 0: not known).
type kernelRegs struct {
	n    int
	from string
}

// SetRegisters tells the time model the kernel's registers per thread
// (PtxasRegisters gives them) and where they came from; n <= 0 forgets
// them.
func (k *PTXKernel) SetRegisters(n int, from string) {
	if n <= 0 {
		k.regs = kernelRegs{}
		return
	}
	k.regs = kernelRegs{n: n, from: from}
}

// Registers returns the kernel's registers per thread and their source, 0
// and "" when not known.
func (k *PTXKernel) Registers() (int, string) { return k.regs.n, k.regs.from }

// Ptxas finds ptxas: on PATH, else under /usr/local/cuda/bin (where
// scripts/setup.sh --nvcc puts CUDA); "" when the machine has none.
func Ptxas() string {
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p
	}
	if p := "/usr/local/cuda/bin/ptxas"; fileExists(p) {
		return p
	}
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// PtxasRegisters compiles a PTX module's text with ptxas -v for the given
// architecture ("sm_90" for the H200: ArchFor) and returns each entry's
// registers per thread, with a source line naming ptxas's version and the
// architecture. It fails when the machine has no ptxas or ptxas refuses
// the text (its message is in the error).
func PtxasRegisters(ctx context.Context, ptxText []byte, arch string) (map[string]int, string, error) {
	var regs map[string]int
	ver, err := runPtxas(ctx, ptxText, arch, []string{"-v"}, func(out []byte, _ string) (err error) {
		regs, err = parsePtxasVerbose(out)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return regs, fmt.Sprintf("%s -v, %s", ver, arch), nil
}

// runPtxas compiles ptxText with ptxas for arch and the given flags into a
// cubin in a temporary folder, and hands use ptxas's output (stdout and
// stderr: -v reports there) and the cubin's path while the folder exists.
// It returns ptxas's version ("ptxas 11.8", or "ptxas" when it does not
// say). It fails when the machine has no ptxas, arch is not sm_NN, ptxas
// refuses the text (its message is in the error) or use fails.
func runPtxas(ctx context.Context, ptxText []byte, arch string, flags []string, use func(out []byte, cubin string) error) (string, error) {
	bin := Ptxas()
	if bin == "" {
		return "", fmt.Errorf("sim: no ptxas on this machine (scripts/setup.sh --nvcc installs it)")
	}
	if !ptxasArch.MatchString(arch) {
		return "", fmt.Errorf("sim: ptxas architecture %q: want sm_NN", arch)
	}
	dir, err := os.MkdirTemp("", "warplab-ptxas-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	in, cubin := filepath.Join(dir, "k.ptx"), filepath.Join(dir, "k.cubin")
	if err := os.WriteFile(in, withoutInlineInfo(ptxText), 0o600); err != nil {
		return "", err
	}
	var out bytes.Buffer
	args := append([]string{"-arch=" + arch}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "-o", cubin, in)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sim: ptxas %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	if err := use(out.Bytes(), cubin); err != nil {
		return "", err
	}
	ver := "ptxas"
	if v, err := exec.CommandContext(ctx, bin, "--version").Output(); err == nil {
		if m := ptxasRelease.FindSubmatch(v); m != nil {
			ver = "ptxas " + string(m[1])
		}
	}
	return ver, nil
}

// withoutInlineInfo drops the inlining attributes of the PTX's .loc
// directives (", function_name $L__info_stringN, inlined_at F L C"),
// keeping each directive's file, line and column. ptxas 11.8 crashes
// (SIGSEGV) compiling lessons/libs/libs.ptx for sm_90 with them and
// compiles it without them. What it generates does not depend on them:
// the SASS read from the spmv, cg, tiling and sweep modules is the same
// either way (TestPtxasInlineInfo; cuobjdump shows spmv's and cg's equal
// byte for byte), and nvdisasm -g's line for each instruction is the
// .loc's line, which the attributes do not change.
func withoutInlineInfo(ptxText []byte) []byte {
	return locInline.ReplaceAll(ptxText, []byte("$1"))
}

// ArchFor is the ptxas architecture of a model's GPU (sm_90 for the H200).
func ArchFor(m Model) string { return fmt.Sprintf("sm_%d%d", m.CCMajor, m.CCMinor) }

var (
	ptxasArch    = regexp.MustCompile(`^sm_[0-9]+[af]?$`)
	ptxasRelease = regexp.MustCompile(`release ([0-9.]+)`)
	ptxasEntry   = regexp.MustCompile(`Compiling entry function '([^']+)'`)
	ptxasUsed    = regexp.MustCompile(`Used ([0-9]+) registers`)
	locInline    = regexp.MustCompile(`(?m)^([ \t]*\.loc[ \t]+[0-9]+[ \t]+[0-9]+[ \t]+[0-9]+)[ \t]*,[ \t]*function_name[^\n]*$`)
)

// parsePtxasVerbose reads ptxas -v's report: each "Compiling entry
// function 'NAME'" line and the "Used N registers" line after it.
func parsePtxasVerbose(report []byte) (map[string]int, error) {
	regs := map[string]int{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(report))
	for sc.Scan() {
		line := sc.Text()
		if m := ptxasEntry.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if m := ptxasUsed.FindStringSubmatch(line); m != nil && cur != "" {
			n, err := strconv.Atoi(m[1])
			if err != nil || n <= 0 || n > 255 {
				return nil, fmt.Errorf("sim: ptxas report: %q for %s", line, cur)
			}
			regs[cur] = n
			cur = ""
		}
	}
	if len(regs) == 0 {
		return nil, fmt.Errorf("sim: ptxas report names no entry with its registers")
	}
	return regs, nil
}

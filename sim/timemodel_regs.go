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
	bin := Ptxas()
	if bin == "" {
		return nil, "", fmt.Errorf("sim: no ptxas on this machine (scripts/setup.sh --nvcc installs it)")
	}
	if !regexp.MustCompile(`^sm_[0-9]+[af]?$`).MatchString(arch) {
		return nil, "", fmt.Errorf("sim: ptxas architecture %q: want sm_NN", arch)
	}
	dir, err := os.MkdirTemp("", "warplab-ptxas-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(in, ptxText, 0o600); err != nil {
		return nil, "", err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-arch="+arch, "-v", "-o", filepath.Join(dir, "k.cubin"), in)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, "", fmt.Errorf("sim: ptxas -arch=%s: %v: %s", arch, err, strings.TrimSpace(out.String()))
	}
	regs, err := parsePtxasVerbose(out.Bytes())
	if err != nil {
		return nil, "", err
	}
	ver := "ptxas"
	if v, err := exec.CommandContext(ctx, bin, "--version").Output(); err == nil {
		if m := regexp.MustCompile(`release ([0-9.]+)`).FindSubmatch(v); m != nil {
			ver = "ptxas " + string(m[1])
		}
	}
	return regs, fmt.Sprintf("%s -v, %s", ver, arch), nil
}

// ArchFor is the ptxas architecture of a model's GPU (sm_90 for the H200).
func ArchFor(m Model) string { return fmt.Sprintf("sm_%d%d", m.CCMajor, m.CCMinor) }

var (
	ptxasEntry = regexp.MustCompile(`Compiling entry function '([^']+)'`)
	ptxasUsed  = regexp.MustCompile(`Used ([0-9]+) registers`)
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

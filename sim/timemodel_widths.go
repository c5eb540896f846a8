package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/warplab/warplab/sim/ptx"
)

// Shared access widths as compiled (issue 27, milestone 3). ptxas merges
// adjacent 32-bit shared accesses of a thread into one wide access where it
// can prove the alignment: the sweep's gemmSharedConflict reads Bs[tx][k]
// and As[ty][k] for k = 0..31 with 64 ld.shared.f32 a tile step, and ptxas
// 11.8 for sm_90 issues 16 LDS.128. The H200 serves a shared access at 128
// bytes a cycle, so a 128-bit access of a warp takes (at least) four
// wavefronts, each serving a quarter-warp's 8 threads' 16 bytes (NVIDIA's
// answer on the developer forum, "Unexpected shared memory bank conflict",
// forums.developer.nvidia.com/t/77228/2: "The return bandwidth of L1 and
// shared memory is 128 bytes/cycle ... LDS.128 requires 4 requests per
// instruction as it returns 4 registers"). A quarter-warp's conflicts are
// counted by the 32-bit rule among its own lanes' words, and the
// wavefronts of the quarters add. The PTX's four word loads of a 32-way
// conflicted column are 4 × 32 wavefronts; the merged load is 4 × 8.
//
// Widths are a timing input only: the executor's loads and stores move the
// same bytes either way; only the shared request counters (requests,
// wavefronts) of the merged sites change. Where the machine has no ptxas,
// or no caller asked, the PTX's widths are used and AccessWidths says so.

// mergeSlot marks a PTX shared access that ptxas merged with others of its
// group into one access of width bytes: j is its index in the group (the
// member at the group's lowest offset is 0 and carries the merged access's
// request), elem its own bytes.
type mergeSlot struct {
	width, j, elem uint8
}

// SASSLine counts, for one source line, a kernel's shared loads and stores
// in the SASS by width in bits (8..128), and its global loads (LDG) in
// each loop of the SASS: LoopLoads has, for every loop (its innermost
// loop: a backward branch's target up to the branch) with LDGs at this
// line, in listing order, how many LDGs at this line it holds, and
// LoopRounds, for the same loops, how many times a pass over the loop
// waits for a global load (issueRounds).
type SASSLine struct {
	Loads, Stores map[int]int
	LoopLoads     []int
	LoopRounds    []int
}

// SASSWidths is a module's SASS shared accesses by kernel and source line
// (file base name and line, as nvdisasm -g prints them).
type SASSWidths map[string]map[SourceLine]SASSLine

// SourceLine is a source position: the file's base name and line.
type SourceLine struct {
	File string
	Line int
}

// PtxasSharedWidths compiles a PTX module's text with ptxas -lineinfo for
// the given architecture and reads the SASS's shared loads and stores per
// source line with nvdisasm -g (the tool beside ptxas). The source string
// names both tools' version and the architecture. It fails when the machine
// has no ptxas or nvdisasm, or either refuses the input; the caller then
// keeps the PTX's widths (AccessWidths says so).
func PtxasSharedWidths(ctx context.Context, ptxText []byte, arch string) (SASSWidths, string, error) {
	dis, err := nvdisasm()
	if err != nil {
		return nil, "", err
	}
	var w SASSWidths
	ver, err := runPtxas(ctx, ptxText, arch, []string{"-lineinfo"}, func(_ []byte, cubin string) error {
		var out, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, dis, "-g", cubin)
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("sim: nvdisasm -g: %v: %s", err, strings.TrimSpace(stderr.String()))
		}
		var perr error
		w, perr = ParseSASSWidths(out.Bytes())
		return perr
	})
	if err != nil {
		return nil, "", err
	}
	return w, fmt.Sprintf("%s -lineinfo + nvdisasm -g, %s", ver, arch), nil
}

// nvdisasm is the nvdisasm beside ptxas, else the one on PATH.
func nvdisasm() (string, error) {
	bin := Ptxas()
	if bin == "" {
		return "", fmt.Errorf("sim: no ptxas on this machine (scripts/setup.sh --nvcc installs it)")
	}
	if dis := filepath.Join(filepath.Dir(bin), "nvdisasm"); fileExists(dis) {
		return dis, nil
	}
	p, err := exec.LookPath("nvdisasm")
	if err != nil {
		return "", fmt.Errorf("sim: no nvdisasm beside %s", bin)
	}
	return p, nil
}

var (
	sassFunc  = regexp.MustCompile(`^\.text\.([A-Za-z_$][\w$.]*):\s*$`)
	sassLine  = regexp.MustCompile(`//## File "([^"]+)", line ([0-9]+)`)
	sassLDS   = regexp.MustCompile(`\b(LDS|STS)(\.U8|\.S8|\.U16|\.S16|\.64|\.128)?\s`)
	sassAddr  = regexp.MustCompile(`^\s*/\*([0-9a-f]+)\*/\s+(.*)$`)
	sassLabel = regexp.MustCompile(`^(\.L[\w$.]*):\s*$`)
	sassBra   = regexp.MustCompile(`\bBRA\s+(?:\S+\s+)?` + "`" + `\((\.L[\w$.]*)\)`)
	sassLDG   = regexp.MustCompile(`\bLDG(\.[A-Z0-9]+)*\s`)
)

// sassKernel is what ParseSASSWidths keeps of one kernel's listing for its
// loops: the LDGs (address, source line), the labels' addresses, the
// branches (address, target label) and every instruction's registers for
// the issue scoreboard (address order).
type sassKernel struct {
	lines  map[SourceLine]SASSLine
	ldg    []sassAt
	labels map[string]int
	bras   []sassBranch
	addrs  []int
	issue  []sassIssue
}

type sassAt struct {
	addr int
	at   SourceLine
}

type sassBranch struct {
	addr   int
	target string
}

// loops adds each loop's LDGs per source line to k.lines (LoopLoads). A
// loop is a backward branch's target label up to the branch; an LDG counts
// in the smallest loop that holds it; loops are taken in the order of
// their first address.
func (k *sassKernel) loops() {
	type span struct{ from, to int }
	var ls []span
	for _, b := range k.bras {
		if a, ok := k.labels[b.target]; ok && a <= b.addr {
			ls = append(ls, span{a, b.addr})
		}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].from < ls[j].from || ls[i].from == ls[j].from && ls[i].to < ls[j].to })
	counts := make([]map[SourceLine]int, len(ls))
	for _, g := range k.ldg {
		best := -1
		for i, l := range ls {
			if l.from <= g.addr && g.addr <= l.to && (best < 0 || l.to-l.from < ls[best].to-ls[best].from) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		if counts[best] == nil {
			counts[best] = map[SourceLine]int{}
		}
		counts[best][g.at]++
	}
	for li, c := range counts {
		if c == nil {
			continue
		}
		rounds := k.rounds(ls[li].from, ls[li].to)
		ats := make([]SourceLine, 0, len(c))
		for at := range c {
			ats = append(ats, at)
		}
		sort.Slice(ats, func(i, j int) bool {
			return ats[i].File < ats[j].File || ats[i].File == ats[j].File && ats[i].Line < ats[j].Line
		})
		for _, at := range ats {
			sl := k.lines[at]
			if sl.Loads == nil {
				sl = SASSLine{Loads: map[int]int{}, Stores: map[int]int{}}
			}
			sl.LoopLoads = append(sl.LoopLoads, c[at])
			sl.LoopRounds = append(sl.LoopRounds, rounds)
			k.lines[at] = sl
		}
	}
}

// rounds is issueRounds of the loop body from address from to to.
func (k *sassKernel) rounds(from, to int) int {
	var body []sassIssue
	for i, a := range k.addrs {
		if from <= a && a <= to {
			body = append(body, k.issue[i])
		}
	}
	return issueRounds(body)
}

// ParseSASSWidths reads nvdisasm -g's listing: each ".text.NAME:" label
// starts a kernel, each "//## File "F", line N" comment sets the source
// line of the instructions after it, and each LDS/STS (with its width
// suffix: none 32 bits, .64, .128, .U8/.S8, .U16/.S16) counts at that line.
// Each LDG counts at its line in its innermost loop (SASSLine.LoopLoads):
// the listing's "/*addr*/" offsets, its ".L..." labels and the BRA
// instructions that jump back to one give the loops.
func ParseSASSWidths(listing []byte) (SASSWidths, error) {
	out := SASSWidths{}
	var cur *sassKernel
	var at SourceLine
	var pending []string // labels waiting for the next instruction's address
	done := func() {
		if cur != nil {
			cur.loops()
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := sassFunc.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			done()
			cur = &sassKernel{lines: map[SourceLine]SASSLine{}, labels: map[string]int{}}
			out[m[1]] = cur.lines
			at, pending = SourceLine{}, nil
			continue
		}
		if m := sassLine.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[2])
			if err != nil {
				return nil, fmt.Errorf("sim: nvdisasm line info %q", line)
			}
			at = SourceLine{File: filepath.Base(m[1]), Line: n}
			continue
		}
		if cur == nil {
			continue
		}
		if m := sassLabel.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			pending = append(pending, m[1])
			continue
		}
		am := sassAddr.FindStringSubmatch(line)
		if am == nil {
			continue
		}
		addr64, err := strconv.ParseInt(am[1], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("sim: nvdisasm address %q", line)
		}
		addr, text := int(addr64), am[2]
		for _, l := range pending {
			cur.labels[l] = addr
		}
		pending = pending[:0]
		cur.addrs = append(cur.addrs, addr)
		cur.issue = append(cur.issue, parseSASSIssue(text))
		if b := sassBra.FindStringSubmatch(text); b != nil {
			cur.bras = append(cur.bras, sassBranch{addr, b[1]})
		}
		if at.Line == 0 {
			continue
		}
		if sassLDG.MatchString(text + " ") {
			cur.ldg = append(cur.ldg, sassAt{addr, at})
			continue
		}
		m := sassLDS.FindStringSubmatch(text + " ")
		if m == nil {
			continue
		}
		bits := map[string]int{"": 32, ".64": 64, ".128": 128, ".U8": 8, ".S8": 8, ".U16": 16, ".S16": 16}[m[2]]
		sl := cur.lines[at]
		if sl.Loads == nil {
			sl = SASSLine{Loads: map[int]int{}, Stores: map[int]int{}}
		}
		if m[1] == "LDS" {
			sl.Loads[bits]++
		} else {
			sl.Stores[bits]++
		}
		cur.lines[at] = sl
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	done()
	return out, nil
}

// SetSharedWidths tells the time model which of the kernel's PTX shared
// accesses ptxas merged, from the SASS of its module (PtxasSharedWidths)
// and where that came from. A group is n PTX scalar accesses of e bytes
// (ld or st, .shared) at one source line, from one base register (or
// variable) at offsets o, o+e, ..., o+(n-1)e with o a multiple of n·e, no
// write of the base register between them, where the SASS at that line has
// accesses of n·e bytes (64 or 128 bits) of the same kind. At run time a
// group counts merged only when every active lane's address of it is
// aligned to n·e (as ptxas had proved); otherwise its PTX widths count. It
// returns the number of merged groups; nil sass forgets them.
func (pk *PTXKernel) SetSharedWidths(sass SASSWidths, from string) int {
	pk.merged, pk.widthsFrom = nil, ""
	lines := sass[pk.Name]
	if len(lines) == 0 {
		if sass != nil {
			pk.widthsFrom = from
		}
		return 0
	}
	type gkey struct {
		st           bool
		reg, v       int32
		base         uint64
		width        int
		file         string
		line, region int
	}
	code := pk.code
	groups := map[gkey][]int{}
	// region: a new one starts at every write of the key's base register,
	// so a group never spans one.
	writesAt := make(map[int32]int)
	for i := range code {
		x := &code[i]
		in := x.in
		if in != nil && x.site >= 0 && (in.Op == ptx.OpLd || in.Op == ptx.OpSt) && in.Space == ptx.SpaceShared && in.Vec <= 1 && x.size == 4 {
			a := in.Src[0]
			if a.Kind == ptx.OpdAddr && in.Loc.File > 0 && int(in.Loc.File) < len(pk.mod.Files) {
				sl := SourceLine{File: filepath.Base(pk.mod.Files[in.Loc.File]), Line: int(in.Loc.Line)}
				if s, ok := lines[sl]; ok {
					kind := s.Loads
					if in.Op == ptx.OpSt {
						kind = s.Stores
					}
					for _, wbits := range []int{128, 64} {
						if kind[wbits] == 0 {
							continue
						}
						wb := uint64(wbits / 8)
						k := gkey{st: in.Op == ptx.OpSt, reg: a.Reg, v: a.Var, base: a.Imm &^ (wb - 1), width: int(wb),
							file: sl.File, line: sl.Line, region: writesAt[a.Reg]}
						groups[k] = append(groups[k], i)
					}
				}
			}
		}
		if in != nil {
			writes(x, func(r int32) { writesAt[r] = i + 1 })
		}
	}
	merged := make([]mergeSlot, pk.nsites)
	n := 0
	keys := make([]gkey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	// Widest first, so a 128-bit group claims its members before a 64-bit one.
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].width != keys[b].width {
			return keys[a].width > keys[b].width
		}
		return groups[keys[a]][0] < groups[keys[b]][0]
	})
	for _, k := range keys {
		members := groups[k]
		if len(members) != k.width/4 {
			continue
		}
		var seen uint32
		ok := true
		for _, i := range members {
			x := &code[i]
			j := (x.in.Src[0].Imm - k.base) / 4
			if seen&(1<<j) != 0 || merged[x.site].width != 0 {
				ok = false
				break
			}
			seen |= 1 << j
		}
		if !ok {
			continue
		}
		for _, i := range members {
			x := &code[i]
			merged[x.site] = mergeSlot{width: uint8(k.width), j: uint8((x.in.Src[0].Imm - k.base) / 4), elem: 4}
		}
		n++
	}
	pk.widthsFrom = from
	if n > 0 {
		pk.merged = merged
	}
	pk.mergedGroups = n
	return n
}

// AccessWidths says where the time model's shared access widths come from:
// the merged groups SetSharedWidths found and its source, or that the PTX's
// widths are used (no ptxas on the machine, or no caller asked).
func (pk *PTXKernel) AccessWidths() (groups int, from string) {
	if pk.widthsFrom == "" {
		return 0, "PTX widths (no SASS: ptxas not run)"
	}
	return pk.mergedGroups, pk.widthsFrom
}

// countMerged counts a shared access of a merged group (SetSharedWidths):
// the group's member at offset 0 carries the wide access's request, with
// its wavefronts by phases (a 128-bit access: 4 quarter-warps of 8 lanes; a
// 64-bit one: 2 half-warps), each phase's by the 32-bit bank rule among its
// lanes' words, except a load every lane reads at one address
// (wideWavefronts); the other members add nothing. It reports false, leaving
// the access to the PTX's widths, when the site is not merged or a lane's
// address is not aligned as the merged access needs.
func (e *ptxWorker) countMerged(x *xin, mask uint32) bool {
	s := e.l.pk.merged[x.site]
	if s.width == 0 {
		return false
	}
	wb := uint64(s.width)
	shift := uint64(s.j) * uint64(s.elem)
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		if (e.laneOff[l]-shift)%wb != 0 {
			return false
		}
	}
	if s.j != 0 {
		return true
	}
	op := opLd
	if x.op == ptx.OpSt {
		op = opSt
	}
	wf, ideal, lanes := wideWavefronts(e.laneOff[:], mask, wb, op == opLd, e.words[:])
	w := e.t.w
	d := w.explicitSite(Site(x.site), &e.shMeta, op*2+1)
	w.sharedRequest(&w.sites[d], wf, ideal, lanes)
	return true
}

// wideWavefronts is the shared-memory wavefronts of one warp's access of
// wb bytes a lane (8 or 16) at the lanes' byte offsets off (mask's lanes),
// and the ideal (its phases) and active lanes, words a scratch of at least
// 128 words. By phases, each by the 32-bit bank rule among its lanes'
// words: a 128-bit access as 4 quarter-warps of 8 lanes, a 64-bit one as 2
// half-warps, whatever the other phases read (sharedwide.cu's half rows:
// lanes l and l + 16 on the same address cost what distinct ones do). A
// load every lane reads at one address is the exception: the H200 serves
// it in one wavefront at 64 bits and two at 128, not one a phase
// (sharedwide.cu's bcast rows, evidence/timemodel-sharedwide-h200-2026-12-05:
// 0.94 and 0.46 requests an SM a cycle, against 0.99 for 32 bits).
// TestWideWavefronts holds the rule to all nine rows.
func wideWavefronts(off []uint64, mask uint32, wb uint64, load bool, words []uint32) (wf, ideal int64, lanes int) {
	if load && sameLaneOffsets(off, mask) {
		n := int64(wb / 8)
		return n, n, bits.OnesCount32(mask)
	}
	per := 32 * 4 / int(wb) // lanes a phase: 8 for 128 bits, 16 for 64
	for p := 0; p < 32; p += per {
		n := 0
		for l := p; l < p+per; l++ {
			if mask&(1<<l) == 0 {
				continue
			}
			lanes++
			for wd := uint32(off[l] / 4); wd < uint32((off[l]+wb)/4); wd++ {
				words[n] = wd
				n++
			}
		}
		if n == 0 {
			continue
		}
		n = uniq(words[:n])
		wf += busiestBank(words[:n], false)
		ideal++
	}
	return wf, ideal, lanes
}

// sameLaneOffsets reports whether the lanes of mask (at least one) all
// have the same offset in off.
func sameLaneOffsets(off []uint64, mask uint32) bool {
	if mask == 0 {
		return false
	}
	first := off[bits.TrailingZeros32(mask)]
	for m := mask; m != 0; m &= m - 1 {
		if off[bits.TrailingZeros32(m)] != first {
			return false
		}
	}
	return true
}

// sharedRequest is request's shared branch with the wavefronts given.
func (w *worker) sharedRequest(agg *siteAgg, wf, ideal int64, lanes int) {
	agg.requests++
	agg.laneSlots += 32
	agg.activeLanes += int64(lanes)
	agg.hist[min(lanes, 32)]++
	agg.wavefronts += wf
	agg.ideal += ideal
	w.mem.SharedRequests++
	w.mem.SharedWaves += wf
	w.mem.SharedIdeal += ideal
}

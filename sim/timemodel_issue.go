package sim

import (
	"regexp"
	"strconv"
	"strings"
)

// Rounds as compiled (issue 27, milestone 3, seventeenth pass). A warp
// issues its instructions in order: an instruction whose operand a global
// load has not yet returned stops the warp's issue until it has, whatever
// loads after it are independent. The PTX's load rounds (markLoadRounds)
// group a pass's loads by their data dependences alone, as if the code
// issued every load of a level before any instruction that waits for one;
// ptxas's code does not always. Its SASS for sm_90 of the SpMV row loop
// (spmvCsrWarpPerRow, spmvCsrThreadPerRow: 16 elements a pass, 48 LDG)
// issues six col loads, waits for the first to form an x address, issues
// gathers and more col loads, waits for an x to accumulate, and so on: five
// waits a compiled pass where the PTX's levels say two.
//
// issueRounds counts those waits: it walks one loop body of the SASS in
// listing order with a scoreboard of the round at which each register's
// value is ready (a global load's result one round after the round it
// issued in, anything else at once), and every instruction that reads (or
// overwrites) a register not yet ready starts the next round. The loop is
// walked three times and the third pass's count kept, so values carried
// around the loop (the accumulator, an address a load produced) count as
// they do in the steady state.

// sassOperandReg finds the registers an operand names: general (R, UR) and
// predicate (P, UP) registers, a .64 or .128 suffix naming that many
// consecutive 32-bit registers. RZ, URZ, PT and UPT are constants.
var sassOperandReg = regexp.MustCompile(`\b(UR|R|UP|P)([0-9]+)(\.64|\.128)?`)

// sassNoDest are the SASS operations whose operands are all read: stores,
// reductions, branches and synchronisation.
var sassNoDest = map[string]bool{
	"STG": true, "STS": true, "ST": true, "STL": true, "RED": true, "REDG": true,
	"BRA": true, "BRX": true, "JMP": true, "EXIT": true, "RET": true, "CALL": true,
	"BSYNC": true, "BSSY": true, "BREAK": true, "BAR": true, "WARPSYNC": true,
	"MEMBAR": true, "ERRBAR": true, "CCTL": true, "DEPBAR": true, "NOP": true, "YIELD": true,
}

// sassLongLoad are the operations whose result comes back from the memory
// system a round later: global and generic loads, and atomics that return.
var sassLongLoad = map[string]bool{"LDG": true, "LD": true, "ATOMG": true, "ATOM": true}

// sassRegs appends the registers operand names to out, count of them for
// its first register when count > 1 (a wide destination).
func sassRegs(out []string, operand string, count int) []string {
	for i, m := range sassOperandReg.FindAllStringSubmatch(operand, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		k := 1
		switch m[3] {
		case ".64":
			k = 2
		case ".128":
			k = 4
		}
		if i == 0 && count > k {
			k = count
		}
		if m[1] == "P" || m[1] == "UP" {
			k = 1
		}
		for j := range k {
			out = append(out, m[1]+strconv.Itoa(n+j))
		}
	}
	return out
}

// sassDestWidth is how many 32-bit registers op's destination spans.
func sassDestWidth(op string) int {
	switch {
	case strings.Contains(op, ".128"):
		return 4
	case strings.Contains(op, ".WIDE"), strings.Contains(op, ".64"),
		strings.HasPrefix(op, "DADD"), strings.HasPrefix(op, "DMUL"), strings.HasPrefix(op, "DFMA"):
		return 2
	}
	return 1
}

// sassIssue is one SASS instruction as the scoreboard reads it.
type sassIssue struct {
	long       bool // a global load: its result is ready a round later
	dest, srcs []string
}

// parseSASSIssue splits a listing instruction ("@!P0 LDG.E R9, [R8.64] ")
// into what it writes and what it reads (the guard predicate included).
func parseSASSIssue(text string) sassIssue {
	text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ";"))
	var in sassIssue
	if strings.HasPrefix(text, "@") {
		guard, rest, _ := strings.Cut(text, " ")
		in.srcs = sassRegs(in.srcs, guard, 1)
		text = strings.TrimSpace(rest)
	}
	op, rest, _ := strings.Cut(text, " ")
	base, _, _ := strings.Cut(op, ".")
	in.long = sassLongLoad[base]
	var operands []string
	if rest = strings.TrimSpace(rest); rest != "" {
		operands = strings.Split(rest, ",")
	}
	if sassNoDest[base] || len(operands) == 0 {
		for _, o := range operands {
			in.srcs = sassRegs(in.srcs, o, 1)
		}
		return in
	}
	in.dest = sassRegs(in.dest, operands[0], sassDestWidth(op))
	// Predicates right after the destination are written too (ISETP's
	// pair, IADD3's carry out).
	i := 1
	for ; i < len(operands); i++ {
		o := strings.TrimSpace(operands[i])
		if o != "PT" && !(len(o) >= 2 && o[0] == 'P' && o[1] >= '0' && o[1] <= '9') {
			break
		}
		in.dest = sassRegs(in.dest, o, 1)
	}
	for _, o := range operands[i:] {
		in.srcs = sassRegs(in.srcs, o, 1)
	}
	return in
}

// issueRounds is the number of times in-order issue waits for a global
// load's result in one steady-state pass over a loop body (its
// instructions in listing order).
func issueRounds(body []sassIssue) int {
	ready := map[string]int{}
	cur := 0
	var start int
	for pass := range 3 {
		if pass == 2 {
			start = cur
		}
		for _, in := range body {
			need := 0
			for _, r := range in.srcs {
				need = max(need, ready[r])
			}
			for _, r := range in.dest {
				need = max(need, ready[r])
			}
			cur = max(cur, need)
			v := cur
			if in.long {
				v = cur + 1
			}
			for _, r := range in.dest {
				ready[r] = v
			}
		}
	}
	return cur - start
}

package ptx

import (
	"fmt"
	"strconv"
	"strings"
)

// The PTX ISA versions the parser accepts: the releases NVIDIA has
// published from 6.0 (CUDA 9.0) to 9.1 (CUDA 13.1), by major version the
// highest minor. A version outside them is a text this parser was not
// written against (a newer nvcc, or a typo such as 99.9): refused at its
// line with the versions supported, rather than read as if it were 7.8.
var ptxMinors = map[int]int{6: 5, 7: 8, 8: 8, 9: 1}

// SupportedVersions spells the accepted .version range for messages.
const SupportedVersions = "6.0 to 6.5, 7.0 to 7.8, 8.0 to 8.8, 9.0 to 9.1"

// checkVersion returns "" for a supported .version, else the message.
func checkVersion(v string) string {
	maj, min, ok := strings.Cut(v, ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || len(min) != 1 {
		return fmt.Sprintf("bad .version %q (the simulator reads PTX ISA %s)", v, SupportedVersions)
	}
	if top, known := ptxMinors[a]; !known || b > top {
		return fmt.Sprintf("unsupported .version %s (the simulator reads PTX ISA %s)", v, SupportedVersions)
	}
	return ""
}

// knownSMs are the architectures a .target may name (sm_XX, with an
// optional a or f suffix for the architecture-specific feature sets).
var knownSMs = map[int]bool{
	20: true, 21: true, 30: true, 32: true, 35: true, 37: true, 50: true, 52: true, 53: true,
	60: true, 61: true, 62: true, 70: true, 72: true, 75: true, 80: true, 86: true, 87: true,
	88: true, 89: true, 90: true, 100: true, 101: true, 103: true, 110: true, 120: true, 121: true,
}

// SupportedTargets spells the accepted .target forms for messages.
const SupportedTargets = "sm_20 to sm_121 (sm_30, 35, 50, 52, 60, 61, 70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, ..., with an a or f suffix where NVIDIA defines one), with the options debug, map_f64_to_f32, texmode_unified, texmode_independent"

// checkTarget returns "" for a supported .target list, else the message.
func checkTarget(t string) string {
	sm := 0
	for _, f := range strings.Split(t, ",") {
		f = strings.TrimSpace(f)
		switch f {
		case "debug", "map_f64_to_f32", "texmode_unified", "texmode_independent":
			continue
		}
		num, ok := strings.CutPrefix(f, "sm_")
		if !ok {
			return fmt.Sprintf("unsupported .target %s (the simulator reads %s)", t, SupportedTargets)
		}
		num = strings.TrimRight(num, "af")
		n, err := strconv.Atoi(num)
		if err != nil || !knownSMs[n] || sm != 0 {
			return fmt.Sprintf("unsupported .target %s (the simulator reads %s)", t, SupportedTargets)
		}
		sm = n
	}
	if sm == 0 {
		return fmt.Sprintf(".target %s names no architecture (the simulator reads %s)", t, SupportedTargets)
	}
	return ""
}

package sim

import (
	"sort"

	"github.com/warplab/warplab/sim/timing"
)

// The atomics term's constants (issue 27, milestone 3), derived from the
// atomics microbenchmark (scripts/evidence/timemodel/atomics.cu, recorded
// on the H200 as evidence/timemodel-micro-atomics-h200-2026-12-04 and,
// with the atom_g_words rows added, evidence/timemodel-micro-atomics-
// words-h200-2026-12-04, whose atomics.csv is embedded as
// sim/calibration/<key>-atomics.csv, a byte-for-byte copy
// TestAtomicsCalibrationCopy holds to the recorded file). None is set from
// a sweep or lesson run; the sweep's histograms are not among the rows
// used (atom_g_bins and the shared rows are recorded, not used).

// atomicsFile is the embedded copy of model key's atomics run.
func atomicsFile(key string) string { return key + "-atomics" }

// applyAtomics sets the atomics constants from rows; a constant whose rows
// are missing or implausible stays as it was (0: no atomics term).
//
//   - AtomicWordSeconds: 1 / atom_g_same at the most warps per SM (every
//     lane of every warp on one word: one update at a time);
//   - AtomicLineSeconds: 32 / atom_g_lines at m = 1 (a word a lane, every
//     warp on one line: one warp-level operation at a time);
//   - AtomicSectorSeconds: 1 / atom_g_words at w = 8 (eight lanes of each
//     warp on the eight words of one sector, every warp the same);
//   - AtomicUnits: atom_g_lines at each m over its rate at m = 1, and
//     atom_g_spread (a word a thread: as many lines as the grid has
//     threads / 32) over the same as the curve's last point.
func applyAtomics(m Model, rows []MicrobenchRow) Model {
	var same, line1, spread, sector float64
	bestW := -1
	units := map[int]float64{}
	for _, r := range rows {
		switch r.Name {
		case "atom_g_same":
			if w, ok := paramInt(r.Param, "w"); ok && w > bestW && r.Value > 0 {
				bestW, same = w, r.Value
			}
		case "atom_g_lines":
			if k, ok := paramInt(r.Param, "m"); ok && r.Value > 0 {
				units[k] = r.Value
				if k == 1 {
					line1 = r.Value
				}
			}
		case "atom_g_spread":
			spread = r.Value
		case "atom_g_words":
			if w, ok := paramInt(r.Param, "w"); ok && w == 8 && r.Value > 0 {
				sector = 1 / r.Value
			}
		}
	}
	if same < 1e6 || same > 1e12 || line1 < same || line1 > 1e13 {
		return m
	}
	m.AtomicWordSeconds = 1 / same
	m.AtomicLineSeconds = 32 / line1
	if sector > 0 && sector < m.AtomicLineSeconds {
		m.AtomicSectorSeconds = sector
	}
	var curve []timing.AtomicUnit
	for k, v := range units {
		curve = append(curve, timing.AtomicUnit{Lines: float64(k), Units: v / line1})
	}
	sort.Slice(curve, func(i, j int) bool { return curve[i].Lines < curve[j].Lines })
	if spread > 0 && len(curve) > 0 {
		// the spread kernel's grid: 8 blocks of 256 threads an SM, a line
		// a warp
		lines := float64(m.SMs * 8 * 256 / 32)
		if last := curve[len(curve)-1]; lines > last.Lines {
			curve = append(curve, timing.AtomicUnit{Lines: lines, Units: spread / line1})
		}
	}
	m.AtomicUnits = curve
	return m
}

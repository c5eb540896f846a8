package libs

// XSectorsPerNonzero is a column-locality statistic for the chooser: the
// distinct 32-byte sectors of x (8 floats) that each run of 32 consecutive
// nonzeros gathers, summed over the runs and divided by the nonzeros. A
// warp of the nonzero tiles (and cuSPARSE's merge-based kernel) gathers x
// for exactly such runs, so this is its sectors a nonzero for x: 1 when
// every column of a run lies in a sector of its own (random columns), 1/8
// when the run's columns are consecutive. Row lengths cannot tell the
// corpus's random and clustered power-law families apart (the same
// lengths, different fastest methods on the H200); this can. It reads
// colIdx once, so it costs about one host pass over the matrix. Not yet a
// rule: the recorded corpus run has no column statistics, and the
// lesson's README says what it shows there.
func XSectorsPerNonzero(colIdx []int32) float64 {
	if len(colIdx) == 0 {
		return 0
	}
	const run, perSector = WarpSize, 8
	var sectors int
	seen := make([]int32, 0, run)
	for a := 0; a < len(colIdx); a += run {
		seen = seen[:0]
		for _, c := range colIdx[a:min(a+run, len(colIdx))] {
			s := c / perSector
			dup := false
			for _, t := range seen {
				if t == s {
					dup = true
					break
				}
			}
			if !dup {
				seen = append(seen, s)
			}
		}
		sectors += len(seen)
	}
	return float64(sectors) / float64(len(colIdx))
}

package spmv

// Lane-slots are the seed's prediction: host arithmetic on the row lengths,
// computed and printed before any kernel runs, that the timing table is then
// judged against. A lane-slot is one lane of one issued warp step; the useful
// share is the fraction of them that have a nonzero to work on.

// ThreadPerRowLaneSlots is what the thread-per-row kernel issues: a warp
// runs until its longest row is finished, so each group of 32 rows costs
// 32 × its longest row. A last group of fewer than 32 rows still occupies a
// whole warp.
func ThreadPerRowLaneSlots(lengths []int) int64 {
	var slots int64
	for first := 0; first < len(lengths); first += WarpSize {
		longest := 0
		for _, n := range lengths[first:min(first+WarpSize, len(lengths))] {
			longest = max(longest, n)
		}
		slots += int64(longest) * WarpSize
	}
	return slots
}

// WarpPerRowLaneSlots is what the warp-per-row kernel issues: a row costs 32
// lanes times the 32-wide passes it takes, so a row of 3 costs a whole pass
// and a row of 419 costs fourteen.
func WarpPerRowLaneSlots(lengths []int) int64 {
	var slots int64
	for _, n := range lengths {
		slots += int64((n+WarpSize-1)/WarpSize) * WarpSize
	}
	return slots
}

// UsefulShare is nnz over slots: the share of issued lane-slots that had a
// nonzero to do. It is 0 when nothing was issued.
func UsefulShare(nnz int, slots int64) float64 {
	if slots == 0 {
		return 0
	}
	return float64(nnz) / float64(slots)
}

// predictions returns the lane-slot rows for m, thread per row first.
func predictions(m *Matrix) []LaneSlots {
	nnz := m.CSR.NNZ()
	t := ThreadPerRowLaneSlots(m.Lengths)
	w := WarpPerRowLaneSlots(m.Lengths)
	return []LaneSlots{
		{Matrix: m.Name, Kernel: ThreadPerRowRun, LaneSlots: t, Useful: UsefulShare(nnz, t)},
		{Matrix: m.Name, Kernel: WarpPerRowRun, LaneSlots: w, Useful: UsefulShare(nnz, w)},
	}
}

package libs

import "github.com/warplab/warplab/sparse"

// Predict is the lane-slot model of the Day-37 lesson carried to these
// kernels, host arithmetic on the row lengths: a warp issues each load of
// the nonzero loop until its slowest lane is done, and every issue costs
// 32 lane-slots whether or not a lane has a nonzero. A float4 issue covers
// four nonzeros a lane, so it counts 4 × 32 nonzero-slots. It returns the
// nonzero-slots of one SpMV and the useful share nnz / slots (1 when every
// slot does a nonzero).
//
// Per method: CSR-vector of width W, per warp (32/W rows) the longest row's
// ceil(len/W) passes; with V4 the head, the float4 body and the tail, each
// its own loop; binned, the same per bin's listed rows, and 256 lanes a
// pass for a block row; merge path, the
// block's staging loop over its tile's nonzeros, 256 lanes a pass; nonzero
// tiles, the warp's staging loop over its TileNZ nonzeros, 32 a pass
// (float4: 128 a pass, then the last tile's few left over one a lane).
func Predict(c *sparse.CSR, method string) (slots int64, useful float64) {
	rp := c.RowPtr
	rowLen := func(r int) int { return int(rp[r+1] - rp[r]) }
	switch w, v4, ok := parseVector(method); {
	case ok && !v4:
		slots = groupSlots(c.Rows, w, func(i int) int { return rowLen(i) })
	case ok && v4:
		per := WarpSize / w
		for first := 0; first < c.Rows; first += per {
			var hp, bp, tp int
			for r := first; r < min(first+per, c.Rows); r++ {
				h, q, t := v4Split(int(rp[r]), int(rp[r+1]))
				hp, bp, tp = max(hp, ceilDiv(h, w)), max(bp, ceilDiv(q, w)), max(tp, ceilDiv(t, w))
			}
			slots += int64(WarpSize * (hp + 4*bp + tp))
		}
	case method != "" && splitOK(method):
		w, v4, _ := parseSplit(method)
		long := SplitLongMin(w)
		per := WarpSize / w
		for first := 0; first < c.Rows; first += per {
			passes := 0
			for r := first; r < min(first+per, c.Rows); r++ {
				if n := rowLen(r); n <= long {
					passes = max(passes, rowPasses(int(rp[r]), int(rp[r+1]), w, v4))
				}
			}
			slots += int64(WarpSize * passes)
		}
		for r := 0; r < c.Rows; r++ {
			if n := rowLen(r); n > long {
				for lo := int(rp[r]); lo < int(rp[r+1]); lo += SplitChunk {
					slots += int64(WarpSize * rowPasses(lo, min(lo+SplitChunk, int(rp[r+1])), WarpSize, v4))
				}
			}
		}
	case method == MethodBinned:
		for _, b := range Bins(rp) {
			if b.Width == 0 {
				for _, r := range b.Rows {
					slots += int64(ThreadsPerBlock * ceilDiv(rowLen(int(r)), ThreadsPerBlock))
				}
				continue
			}
			slots += groupSlots(len(b.Rows), b.Width, func(i int) int { return rowLen(int(b.Rows[i])) })
		}
	case method == MethodMerge:
		slots = mergeSlots(rp)
	case method == MethodTile || method == MethodTileV4:
		slots = tileSlots(c.NNZ(), method == MethodTileV4)
	}
	if slots > 0 {
		useful = float64(c.NNZ()) / float64(slots)
	}
	return slots, useful
}

func splitOK(m string) bool { _, _, ok := parseSplit(m); return ok }

// rowPasses is the nonzero-slot passes of w lanes over [first, last): one a
// pass of scalar loads; with v4 the head and tail passes plus four for each
// float4 pass (a float4 slot counts four nonzeros).
func rowPasses(first, last, w int, v4 bool) int {
	if !v4 {
		return ceilDiv(last-first, w)
	}
	h, q, t := v4Split(first, last)
	return ceilDiv(h, w) + 4*ceilDiv(q, w) + ceilDiv(t, w)
}

// groupSlots is n rows (row i of length length(i)) in groups of w lanes,
// 32/w groups a warp: per warp, 32 lane-slots per pass of its longest row.
func groupSlots(n, w int, length func(i int) int) int64 {
	per := WarpSize / w
	var slots int64
	for first := 0; first < n; first += per {
		passes := 0
		for i := first; i < min(first+per, n); i++ {
			passes = max(passes, ceilDiv(length(i), w))
		}
		slots += int64(WarpSize * passes)
	}
	return slots
}

// v4Split splits row [first, last) as rowPartial's V4 path does: head
// entries before the first multiple of 4, whole quads, tail entries.
func v4Split(first, last int) (head, quads, tail int) {
	body := min((first+3)&^3, last)
	end := max(body, last&^3)
	return body - first, (end - body) / 4, last - end
}

// mergeSlots counts the staging loop of spmvMergePath: each block loads its
// tile's nonzeros 256 at a time, so warp w of a block with n nonzeros
// issues ceil((n - 32w) / 256) passes. The walk itself reads shared memory.
func mergeSlots(rp []int32) int64 {
	_, tileNz := MergePartitions(rp)
	var slots int64
	for b := 0; b+1 < len(tileNz); b++ {
		n := int(tileNz[b+1] - tileNz[b])
		for w := 0; w < ThreadsPerBlock/WarpSize; w++ {
			if rest := n - w*WarpSize; rest > 0 {
				slots += int64(WarpSize * ceilDiv(rest, ThreadsPerBlock))
			}
		}
	}
	return slots
}

// tileSlots counts spmvTile's staging loop: every warp's tile of TileNZ
// nonzeros (the last one shorter) in passes of 32 lanes; with v4, passes
// of 32 float4s (4 nonzero-slots a lane) and the last tile's remainder
// after its last whole quad one nonzero a lane.
func tileSlots(nnz int, v4 bool) int64 {
	var slots int64
	for a := 0; a < nnz; a += TileNZ {
		n := min(TileNZ, nnz-a)
		if !v4 {
			slots += int64(WarpSize * ceilDiv(n, WarpSize))
			continue
		}
		q := n / 4
		slots += int64(4*WarpSize*ceilDiv(q, WarpSize)) + int64(WarpSize*ceilDiv(n-4*q, WarpSize))
	}
	return slots
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

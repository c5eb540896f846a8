package libs

// Bin is one length class of the binned method: the rows whose length gives
// them Width lanes (1 = thread per row, up to 32 = warp per row), or a whole
// block when Width is 0.
type Bin struct {
	Width int     `json:"width"` // 0: block per row
	Rows  []int32 `json:"-"`
	Count int     `json:"rows"`
}

// BinWidth is the binned method's rule for one row of n nonzeros: the
// narrowest group in which each lane gets at most 4 of them (1 lane up to
// 4, 2 up to 8, ..., 32 up to 128), a warp up to 1024 (32 passes), and a
// 256-thread block beyond. It is WidthFor's rule applied row by row.
func BinWidth(n int) int {
	if n > BlockRowMin {
		return 0
	}
	w := 1
	for w < WarpSize && w*4 < n {
		w *= 2
	}
	return w
}

// Bins sorts the rows of the CSR matrix with row pointers rowPtr into
// length bins, on the host: a counting pass, rows kept in ascending order
// inside a bin so neighbouring rows still share sectors. Empty bins are
// left out; the order is thread, 2, 4, ..., 32 lanes, block. A run makes
// the same lists on the device (spmvBinCount, spmvBinScan,
// spmvBinScatter); this is their reference in the tests, and what the
// notebook's bin table and Predict count.
func Bins(rowPtr []int32) []Bin {
	rows := len(rowPtr) - 1
	order := binOrder[:]
	idx := map[int]int{}
	for i, w := range order {
		idx[w] = i
	}
	counts := make([]int, len(order))
	for r := 0; r < rows; r++ {
		counts[idx[BinWidth(int(rowPtr[r+1]-rowPtr[r]))]]++
	}
	bins := make([]Bin, len(order))
	for i, w := range order {
		bins[i] = Bin{Width: w, Rows: make([]int32, 0, counts[i]), Count: counts[i]}
	}
	for r := 0; r < rows; r++ {
		i := idx[BinWidth(int(rowPtr[r+1]-rowPtr[r]))]
		bins[i].Rows = append(bins[i].Rows, int32(r))
	}
	out := bins[:0]
	for _, b := range bins {
		if b.Count > 0 {
			out = append(out, b)
		}
	}
	return out
}

// MergeCoord returns where diagonal d of the merge of the row ends
// (rowPtr[1..rows]) with the nonzero indices (0..nnz-1) crosses the merge
// path: i row ends and d-i nonzeros come before it. It is the binary search
// spmvMergePath runs per thread, here per block.
func MergeCoord(rowPtr []int32, d int) (row, nz int) {
	rows := len(rowPtr) - 1
	nnz := int(rowPtr[rows])
	lo, hi := max(0, d-nnz), min(d, rows)
	for lo < hi {
		pivot := (lo + hi) / 2
		if int(rowPtr[pivot+1]) <= d-pivot-1 {
			lo = pivot + 1
		} else {
			hi = pivot
		}
	}
	return lo, d - lo
}

// MergePartitions is merge path's one-time preparation: the path's
// coordinate at the start of every block's tile of MergeTile steps, and at
// the end (nBlocks+1 entries each).
func MergePartitions(rowPtr []int32) (tileRow, tileNz []int32) {
	rows := len(rowPtr) - 1
	total := rows + int(rowPtr[rows])
	blocks := max(1, (total+MergeTile-1)/MergeTile)
	tileRow = make([]int32, blocks+1)
	tileNz = make([]int32, blocks+1)
	for b := 0; b <= blocks; b++ {
		r, z := MergeCoord(rowPtr, min(b*MergeTile, total))
		tileRow[b], tileNz[b] = int32(r), int32(z)
	}
	return tileRow, tileNz
}

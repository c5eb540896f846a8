package libs

import (
	_ "embed"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/cusrc"
)

// The CUDA C students read, and the PTX scripts/cuda/gen-ptx.sh generated
// from it (nvcc 11.8, compute_75, -lineinfo; its first line records
// libs.cu's sha256, and internal/ptxcheck fails when the two drift apart).
var (
	//go:embed libs.cu
	cudaSource string
	//go:embed libs.ptx
	ptxSource string
)

// Launch shape and merge-path tile, as libs.cu defines them (LIBS_BLOCK,
// MERGE_ITEMS). BlockRowMin is the shortest row the binned method gives a
// whole block: rows up to 32 passes of a warp go to a warp or less.
const (
	ThreadsPerBlock = 256
	WarpSize        = 32
	MergeItems      = 8
	MergeTile       = ThreadsPerBlock * MergeItems
	BlockRowMin     = 32 * WarpSize // 1024
	copyBlocksPerSM = 8
	// SplitChunk and SplitPasses are libs.cu's SPLIT_CHUNK and
	// SPLIT_PASSES: split<W> gives a row longer than SplitPasses × W
	// nonzeros to warps of SplitChunk nonzeros each.
	SplitChunk  = 512
	SplitPasses = 16
	// TileNZ is libs.cu's TILE_NZ: each warp of spmvTile takes TileNZ
	// consecutive nonzeros, TileNZ / WarpSize a lane in its segmented sums.
	TileNZ = 512
	// TileThreads is libs.cu's TILE_BLOCK: spmvTile's blocks.
	TileThreads = 64
	// BinRows is libs.cu's BIN_ROWS: the rows each block of spmvBinCount
	// and spmvBinScatter takes (8 rounds of 256).
	BinRows = 8 * ThreadsPerBlock
)

// binOrder is the binned method's bins in launch order (libs.cu's
// binClass index): thread, 2, 4, ..., 32 lanes, block (0).
var binOrder = [...]int{1, 2, 4, 8, 16, 32, 0}

// Widths are the sub-warp widths of the CSR-vector kernels.
var Widths = []int{2, 4, 8, 16, 32}

// CUDA kernel names, as cuModuleGetFunction and the PTX spell them.
const (
	KernelBinBlock    = "spmvBinBlock"
	KernelMergePath   = "spmvMergePath"
	KernelMergeFixup  = "spmvMergeFixup"
	KernelCopy        = "copyFloat4"
	KernelSplitPrep   = "spmvSplitPrep"
	KernelMergePart   = "spmvMergePartition"
	KernelTile        = "spmvTile"
	KernelTileV4      = "spmvTileV4"
	KernelTilePrep    = "spmvTilePrep"
	KernelBinCount    = "spmvBinCount"
	KernelBinScan     = "spmvBinScan"
	KernelBinScatter  = "spmvBinScatter"
	splitKernelFmt    = "spmvSplit%d"
	splitV4KernelFmt  = "spmvSplit%dV4"
	vectorKernelFmt   = "spmvVector%d"
	vectorV4KernelFmt = "spmvVector%dV4"
	binKernelFmt      = "spmvBinRows%d"
)

// VectorKernel is the CUDA name of the CSR-vector kernel of width w, with
// 16-byte loads when v4.
func VectorKernel(w int, v4 bool) string {
	if v4 {
		return fmt.Sprintf(vectorV4KernelFmt, w)
	}
	return fmt.Sprintf(vectorKernelFmt, w)
}

// SplitKernel is the CUDA name of the split kernel of width w, with 16-byte
// loads when v4.
func SplitKernel(w int, v4 bool) string {
	if v4 {
		return fmt.Sprintf(splitV4KernelFmt, w)
	}
	return fmt.Sprintf(splitKernelFmt, w)
}

// SplitLongMin is the longest row split<W> keeps in its CSR-vector part:
// SplitPasses passes of W lanes.
func SplitLongMin(w int) int { return SplitPasses * w }

// BinKernel is the CUDA name of the listed-rows kernel of width w (1 is
// thread per row).
func BinKernel(w int) string { return fmt.Sprintf(binKernelFmt, w) }

// KernelNames lists every kernel of libs.cu.
func KernelNames() []string {
	var out []string
	for _, w := range Widths {
		out = append(out, VectorKernel(w, false), VectorKernel(w, true))
	}
	for _, w := range append([]int{1}, Widths...) {
		out = append(out, BinKernel(w))
	}
	for _, w := range Widths {
		out = append(out, SplitKernel(w, false), SplitKernel(w, true))
	}
	return append(out, KernelBinBlock, KernelMergePath, KernelMergeFixup, KernelSplitPrep, KernelMergePart,
		KernelTile, KernelTileV4, KernelTilePrep, KernelBinCount, KernelBinScan, KernelBinScatter, KernelCopy)
}

// Source returns libs.cu and libs.ptx as embedded.
func Source() (cuda, ptx string) { return cudaSource, ptxSource }

// KernelSource returns the CUDA C definition of one function or template of
// libs.cu (rowPartial, csrVector, spmvMergePath, ...), cut from the
// embedded source the GPU runs, so a notebook shows what it launches.
func KernelSource(name string) (string, error) { return cusrc.Func(cudaSource, name) }

// Module returns the lesson's kernels for gpuext: CUDA C and its PTX, and no
// Go mirrors, so the simulator runs the very PTX a GPU loads. Each call
// builds a new Module, so callers never share mutable state.
func Module() *gpuext.Module {
	return gpuext.NewModule("libs", cudaSource, ptxSource)
}

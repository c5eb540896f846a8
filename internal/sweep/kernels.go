package sweep

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// The sweep's own kernels: kernels.cu (the CUDA C) and the PTX that
// scripts/cuda/gen-ptx.sh generated from it with nvcc 11.8 for compute_75
// (its first line holds kernels.cu's sha256; the package's test and
// internal/ptxcheck fail when the two drift apart).
var (
	//go:embed kernels.cu
	kernelsCUDA string
	//go:embed kernels.ptx
	kernelsPTX string
)

// Source returns kernels.cu and kernels.ptx as embedded.
func Source() (cuda, ptx string) { return kernelsCUDA, kernelsPTX }

// Module returns the own kernels for gpuext: the CUDA C for a GPU (or its
// PTX), the PTX for the simulator. Each call builds a new Module.
func Module() *gpuext.Module {
	return gpuext.NewModule("sweep", kernelsCUDA, kernelsPTX)
}

// Names of the own kernels, as declared extern "C" in kernels.cu.
const (
	KCopy               = "copyKernel"
	KCopyStrided        = "copyStrided"
	KSaxpy              = "saxpy"
	KReduceInterleaved  = "reduceInterleaved"
	KReduceStridedIndex = "reduceStridedIndex"
	KReduceSequential   = "reduceSequential"
	KReduceShfl         = "reduceShfl"
	KScanBlock          = "scanBlock"
	KHistGlobal         = "histGlobal"
	KHistShared         = "histShared"
	KStencil1D          = "stencil1D"
	KStencil2D          = "stencil2D"
	KGemmShared         = "gemmShared"
	KGemmConflict       = "gemmSharedConflict"
	KGemmPadded         = "gemmSharedPadded"
)

// OwnKernels lists the 15 own kernels.
func OwnKernels() []string {
	return []string{KCopy, KCopyStrided, KSaxpy, KReduceInterleaved, KReduceStridedIndex, KReduceSequential,
		KReduceShfl, KScanBlock, KHistGlobal, KHistShared, KStencil1D, KStencil2D, KGemmShared, KGemmConflict, KGemmPadded}
}

// Launch constants of kernels.cu (its BLOCK, RADIUS and TILE), and the
// strided copy's stride: odd, so (i*33) mod n is a permutation of a power
// of two, and 132 bytes between lanes, a sector each.
const (
	ownBlock  = 256
	radius    = 3
	gemmTile  = 32
	stride    = 33
	histBins  = 256
	saxpyA    = float32(2)
	stencil2X = 32
	stencil2Y = 8
)

func blocks1D(n int) sim.Dim3 { return sim.Dim1(max(1, (n+ownBlock-1)/ownBlock)) }

func ownFamilies() []Family {
	stream := Family{Name: "stream", Doc: "copy, copy with lanes 132 bytes apart, saxpy: one load or two and a store a thread"}
	reduce := Family{Name: "reduce", Doc: "Harris's block reductions: interleaved (divergent), strided index (bank conflicts), sequential, warp shuffles"}
	scan := Family{Name: "scan", Doc: "Hillis-Steele inclusive scan of each 256-element block, double-buffered in shared memory"}
	hist := Family{Name: "histogram", Doc: "256-bin histogram by global atomics and by shared-memory atomics merged once a block, on random values and on one bin"}
	st1 := Family{Name: "stencil1d", Doc: "7-point 1D stencil through a shared tile with its halo"}
	st2 := Family{Name: "stencil2d", Doc: "5-point Laplacian on an n x n grid straight from global memory, 32x8 blocks"}
	gemm := Family{Name: "gemm", Doc: "shared-memory GEMM, 32x32 tiles: B's tile as loaded, transposed (32-way conflicts), transposed and padded"}
	for i, lg := range streamLogN {
		n := 1 << lg
		name := fmt.Sprintf("n=%s", pow2(n))
		vec := func(seed uint64) func(context.Context) (any, error) {
			return func(context.Context) (any, error) { return randFloats(n, seed, 0, 1), nil }
		}
		stream.Inputs = append(stream.Inputs, Input{Family: stream.Name, Name: name, Size: n, SizeUnit: "elements", Rank: i,
			Kernels: []string{KCopy, KCopyStrided, KSaxpy}, Work: 3 * 12 * float64(n), prepare: vec(5),
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindStream(dev, n, data.([]float32))
			}})
		reduce.Inputs = append(reduce.Inputs, Input{Family: reduce.Name, Name: name, Size: n, SizeUnit: "elements", Rank: i,
			Kernels: []string{KReduceInterleaved, KReduceStridedIndex, KReduceSequential, KReduceShfl}, Work: 4 * 60 * float64(n), prepare: vec(6),
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindReduce(dev, n, data.([]float32))
			}})
		scan.Inputs = append(scan.Inputs, Input{Family: scan.Name, Name: name, Size: n, SizeUnit: "elements", Rank: i,
			Kernels: []string{KScanBlock}, Work: 100 * float64(n), prepare: vec(7),
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindScan(dev, n, data.([]float32))
			}})
		st1.Inputs = append(st1.Inputs, Input{Family: st1.Name, Name: name, Size: n, SizeUnit: "elements", Rank: i,
			Kernels: []string{KStencil1D}, Work: 40 * float64(n), prepare: vec(8),
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindStencil1D(dev, n, data.([]float32))
			}})
	}
	rank := 0
	for _, lg := range histLogN {
		n := 1 << lg
		for _, oneBin := range []bool{false, true} {
			name := fmt.Sprintf("random n=%s", pow2(n))
			if oneBin {
				name = fmt.Sprintf("one bin n=%s", pow2(n))
			}
			hist.Inputs = append(hist.Inputs, Input{Family: hist.Name, Name: name, Size: n, SizeUnit: "elements", Rank: rank,
				Kernels: []string{KHistGlobal, KHistShared}, Work: 2 * 20 * float64(n),
				prepare: func(context.Context) (any, error) { return histValues(n, oneBin), nil },
				bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
					return bindHist(dev, n, oneBin, data.([]uint32))
				}})
		}
		rank++
	}
	for i, n := range stencil2DN {
		st2.Inputs = append(st2.Inputs, Input{Family: st2.Name, Name: fmt.Sprintf("%dx%d", n, n), Size: n, SizeUnit: "grid edge", Rank: i,
			Kernels: []string{KStencil2D}, Work: 30 * float64(n) * float64(n),
			prepare: func(context.Context) (any, error) { return randFloats(n*n, 9, 0, 1), nil },
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindStencil2D(dev, n, data.([]float32))
			}})
	}
	for i, n := range gemmN {
		gemm.Inputs = append(gemm.Inputs, Input{Family: gemm.Name, Name: fmt.Sprintf("N=%d", n), Size: n, SizeUnit: "N", Rank: i,
			Kernels: []string{KGemmShared, KGemmConflict, KGemmPadded}, Work: 3 * 5 * float64(n) * float64(n) * float64(n),
			prepare: func(context.Context) (any, error) {
				return squarePair{randFloats(n*n, 10, -1, 1), randFloats(n*n, 11, -1, 1)}, nil
			},
			bind: func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindGemm(dev, n, data.(squarePair))
			}})
	}
	return []Family{stream, reduce, scan, hist, st1, st2, gemm}
}

// histValues returns n values for the histogram: uniformly random 32-bit
// values (bins = value mod 256), or all in bin 7 (every atomic on one
// address).
func histValues(n int, oneBin bool) []uint32 {
	v := make([]uint32, n)
	if oneBin {
		for i := range v {
			v[i] = 7
		}
		return v
	}
	r := rand.New(rand.NewPCG(12, 0x68697374))
	for i := range v {
		v[i] = r.Uint32()
	}
	return v
}

func bindStream(dev *gpuext.Device, n int, in []float32) (*bound, error) {
	b := newBound(fmt.Sprintf("%d float32 values in [0, 1), seed 5", n))
	X, err := upload(b, dev, "in", in)
	if err != nil {
		return nil, err
	}
	out, err := alloc[float32](b, dev, "out", n)
	if err != nil {
		return nil, err
	}
	y0 := randFloats(n, 13, 0, 1)
	Y, err := upload(b, dev, "y", y0)
	if err != nil {
		return nil, err
	}
	m := Module()
	grid, block := blocks1D(n), sim.Dim1(ownBlock)
	cfg := launchConfig(grid, block, 0)
	b.add(KCopy, cfg, func(ctx context.Context) (*gpuext.Launch, error) {
		return b.launchOn(ctx, dev, m, KCopy, grid, block, 0, X, out, int32(n))
	}, func() (string, error) {
		got, err := download(out)
		if err != nil {
			return "", err
		}
		for i := range got {
			if got[i] != in[i] {
				return "", fmt.Errorf("out[%d] = %g, want %g", i, got[i], in[i])
			}
		}
		return "all elements equal the input", nil
	})
	b.reset[KCopy] = func() error { return out.Fill(0) }
	b.add(KCopyStrided, cfg+fmt.Sprintf(", stride %d", stride), func(ctx context.Context) (*gpuext.Launch, error) {
		return b.launchOn(ctx, dev, m, KCopyStrided, grid, block, 0, X, out, int32(n), int32(stride))
	}, func() (string, error) {
		got, err := download(out)
		if err != nil {
			return "", err
		}
		for i := range got {
			if w := in[(uint32(i)*stride)&uint32(n-1)]; got[i] != w {
				return "", fmt.Errorf("out[%d] = %g, want %g", i, got[i], w)
			}
		}
		return "all elements equal the CPU gather", nil
	})
	b.reset[KCopyStrided] = func() error { return out.Fill(0) }
	b.add(KSaxpy, cfg+fmt.Sprintf(", a = %g", saxpyA), func(ctx context.Context) (*gpuext.Launch, error) {
		return b.launchOn(ctx, dev, m, KSaxpy, grid, block, 0, saxpyA, X, Y, int32(n))
	}, func() (string, error) {
		got, err := download(Y)
		if err != nil {
			return "", err
		}
		for i := range got {
			want := float64(saxpyA)*float64(in[i]) + float64(y0[i])
			if !closeTo(got[i], want, math.Abs(want)) {
				return "", fmt.Errorf("y[%d] = %g, want %g", i, got[i], want)
			}
		}
		return "all elements within 1e-4 of the CPU's a*x + y", nil
	})
	b.reset[KSaxpy] = func() error { return Y.CopyFrom(y0) }
	return b, nil
}

func bindReduce(dev *gpuext.Device, n int, in []float32) (*bound, error) {
	b := newBound(fmt.Sprintf("%d float32 values in [0, 1), seed 6", n))
	X, err := upload(b, dev, "in", in)
	if err != nil {
		return nil, err
	}
	grid, block := blocks1D(n), sim.Dim1(ownBlock)
	out, err := alloc[float32](b, dev, "out", grid.X)
	if err != nil {
		return nil, err
	}
	m := Module()
	want := make([]float64, grid.X)
	for i, v := range in {
		want[i/ownBlock] += float64(v)
	}
	for _, k := range []string{KReduceInterleaved, KReduceStridedIndex, KReduceSequential, KReduceShfl} {
		b.add(k, launchConfig(grid, block, 0), func(ctx context.Context) (*gpuext.Launch, error) {
			return b.launchOn(ctx, dev, m, k, grid, block, 0, X, out, int32(n))
		}, func() (string, error) {
			got, err := download(out)
			if err != nil {
				return "", err
			}
			for i := range got {
				if !closeTo(got[i], want[i], want[i]) {
					return "", fmt.Errorf("block %d's sum %g, CPU reference %g", i, got[i], want[i])
				}
			}
			return fmt.Sprintf("all %d block sums within 1e-4 of the CPU reference", len(got)), nil
		})
		b.reset[k] = func() error { return out.Fill(0) }
	}
	return b, nil
}

func bindScan(dev *gpuext.Device, n int, in []float32) (*bound, error) {
	b := newBound(fmt.Sprintf("%d float32 values in [0, 1), seed 7", n))
	X, err := upload(b, dev, "in", in)
	if err != nil {
		return nil, err
	}
	out, err := alloc[float32](b, dev, "out", n)
	if err != nil {
		return nil, err
	}
	m := Module()
	grid, block := blocks1D(n), sim.Dim1(ownBlock)
	b.add(KScanBlock, launchConfig(grid, block, 0), func(ctx context.Context) (*gpuext.Launch, error) {
		return b.launchOn(ctx, dev, m, KScanBlock, grid, block, 0, X, out, int32(n))
	}, func() (string, error) {
		got, err := download(out)
		if err != nil {
			return "", err
		}
		var acc float64
		for i := range got {
			if i%ownBlock == 0 {
				acc = 0
			}
			acc += float64(in[i])
			if !closeTo(got[i], acc, acc) {
				return "", fmt.Errorf("out[%d] = %g, CPU's inclusive block scan %g", i, got[i], acc)
			}
		}
		return "all elements within 1e-4 of the CPU's block scan", nil
	})
	b.reset[KScanBlock] = func() error { return out.Fill(0) }
	return b, nil
}

func bindHist(dev *gpuext.Device, n int, oneBin bool, in []uint32) (*bound, error) {
	what := "uniformly random 32-bit values, seed 12"
	if oneBin {
		what = "every value 7 (one bin)"
	}
	b := newBound(fmt.Sprintf("%d uint32 values, %s; 256 bins (value mod 256)", n, what))
	X, err := upload(b, dev, "in", in)
	if err != nil {
		return nil, err
	}
	H, err := alloc[uint32](b, dev, "hist", histBins)
	if err != nil {
		return nil, err
	}
	m := Module()
	var want [histBins]uint32
	for _, v := range in {
		want[v&255]++
	}
	grid, block := blocks1D(n), sim.Dim1(ownBlock)
	for _, k := range []string{KHistGlobal, KHistShared} {
		b.add(k, launchConfig(grid, block, 0), func(ctx context.Context) (*gpuext.Launch, error) {
			return b.launchOn(ctx, dev, m, k, grid, block, 0, X, H, int32(n))
		}, func() (string, error) {
			got, err := download(H)
			if err != nil {
				return "", err
			}
			for i := range got {
				if got[i] != want[i] {
					return "", fmt.Errorf("bin %d holds %d, CPU count %d", i, got[i], want[i])
				}
			}
			return "all 256 bins equal the CPU's counts", nil
		})
		b.reset[k] = func() error { return H.Fill(0) }
	}
	return b, nil
}

func bindStencil1D(dev *gpuext.Device, n int, in []float32) (*bound, error) {
	b := newBound(fmt.Sprintf("%d float32 values in [0, 1), seed 8", n))
	X, err := upload(b, dev, "in", in)
	if err != nil {
		return nil, err
	}
	out, err := alloc[float32](b, dev, "out", n)
	if err != nil {
		return nil, err
	}
	m := Module()
	grid, block := blocks1D(n), sim.Dim1(ownBlock)
	b.add(KStencil1D, launchConfig(grid, block, 0), func(ctx context.Context) (*gpuext.Launch, error) {
		return b.launchOn(ctx, dev, m, KStencil1D, grid, block, 0, X, out, int32(n))
	}, func() (string, error) {
		got, err := download(out)
		if err != nil {
			return "", err
		}
		for g := range got {
			var want float64
			for k := -radius; k <= radius; k++ {
				if j := g + k; j >= 0 && j < n {
					want += float64(in[j])
				}
			}
			if !closeTo(got[g], want, want) {
				return "", fmt.Errorf("out[%d] = %g, CPU stencil %g", g, got[g], want)
			}
		}
		return "all elements within 1e-4 of the CPU stencil", nil
	})
	b.reset[KStencil1D] = func() error { return out.Fill(0) }
	return b, nil
}

func bindStencil2D(dev *gpuext.Device, n int, in []float32) (*bound, error) {
	b := newBound(fmt.Sprintf("%dx%d float32 grid, values in [0, 1), seed 9", n, n))
	X, err := upload(b, dev, "in", in)
	if err != nil {
		return nil, err
	}
	out, err := alloc[float32](b, dev, "out", n*n)
	if err != nil {
		return nil, err
	}
	m := Module()
	grid, block := sim.Dim2((n+stencil2X-1)/stencil2X, (n+stencil2Y-1)/stencil2Y), sim.Dim2(stencil2X, stencil2Y)
	b.add(KStencil2D, launchConfig(grid, block, 0), func(ctx context.Context) (*gpuext.Launch, error) {
		return b.launchOn(ctx, dev, m, KStencil2D, grid, block, 0, X, out, int32(n))
	}, func() (string, error) {
		got, err := download(out)
		if err != nil {
			return "", err
		}
		for y := 1; y < n-1; y++ {
			for x := 1; x < n-1; x++ {
				c := y*n + x
				nb := float64(in[c-1]) + float64(in[c+1]) + float64(in[c-n]) + float64(in[c+n])
				want := 0.25*nb - float64(in[c])
				if !closeTo(got[c], want, 0.25*nb+float64(in[c])) {
					return "", fmt.Errorf("out[%d][%d] = %g, CPU stencil %g", y, x, got[c], want)
				}
			}
		}
		return "all interior points within 1e-4 of the CPU stencil", nil
	})
	b.reset[KStencil2D] = func() error { return out.Fill(0) }
	return b, nil
}

func bindGemm(dev *gpuext.Device, n int, p squarePair) (*bound, error) {
	b := newBound(fmt.Sprintf("%dx%d float32 matrices, values in [-1, 1), seeds 10 and 11", n, n))
	A, err := upload(b, dev, "A", p.a)
	if err != nil {
		return nil, err
	}
	B, err := upload(b, dev, "B", p.b)
	if err != nil {
		return nil, err
	}
	C, err := alloc[float32](b, dev, "C", n*n)
	if err != nil {
		return nil, err
	}
	m := Module()
	grid, block := sim.Dim2(n/gemmTile, n/gemmTile), sim.Dim2(gemmTile, gemmTile)
	for _, k := range []string{KGemmShared, KGemmConflict, KGemmPadded} {
		b.add(k, launchConfig(grid, block, 0), func(ctx context.Context) (*gpuext.Launch, error) {
			return b.launchOn(ctx, dev, m, k, grid, block, 0, A, B, C, int32(n))
		}, func() (string, error) {
			c, err := download(C)
			if err != nil {
				return "", err
			}
			return checkProduct(p.a, p.b, c, n)
		})
		b.reset[k] = func() error { return C.Fill(0) }
	}
	return b, nil
}

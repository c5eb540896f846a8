package cg

import (
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ptxcheck"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

func openSim(t testing.TB) *gpuext.Device {
	t.Helper()
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// TestModule checks the module's three forms belong together: the PTX was
// generated from this cg.cu, and every extern "C" kernel of cg.cu has an
// entry in the PTX and a Go mirror.
func TestModule(t *testing.T) {
	m := Module()
	if err := ptxcheck.Check("cg.cu", []byte(m.CUDA), []byte(m.PTX)); err != nil {
		t.Fatal(err)
	}
	kernels := regexp.MustCompile(`extern "C" __global__ void (\w+)\(`).FindAllStringSubmatch(m.CUDA, -1)
	var names []string
	for _, k := range kernels {
		names = append(names, k[1])
		if !strings.Contains(m.PTX, ".entry "+k[1]+"(") {
			t.Errorf("%s: no .entry in cg.ptx", k[1])
		}
		if m.Mirrors[k[1]] == nil {
			t.Errorf("%s: no mirror", k[1])
		}
	}
	if len(names) != len(m.Mirrors) {
		t.Errorf("cg.cu has kernels %v, the module %d mirrors", names, len(m.Mirrors))
	}
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = (r.Float64() - 0.5) * math.Pow(2, float64(r.IntN(20)-10))
	}
	return v
}

func upload(t *testing.T, dev *gpuext.Device, name string, v []float64) *gpuext.Buffer[float64] {
	t.Helper()
	b, err := gpuext.Upload(dev, name, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func download(t *testing.T, b *gpuext.Buffer[float64]) []float64 {
	t.Helper()
	v := make([]float64, b.Len())
	if err := b.Download(v); err != nil {
		t.Fatal(err)
	}
	return v
}

func launch(t *testing.T, dev *gpuext.Device, name string, grid, block int, args ...any) *sim.Stats {
	t.Helper()
	l, err := dev.Launch(Module(), name, sim.Dim1(grid), sim.Dim1(block), 0, args...)
	if err != nil {
		t.Fatal(err)
	}
	return l.Stats
}

// TestMirrorsMatchCPU runs every mirror on random inputs and compares with
// the CPU kernels: bit for bit where the order of operations is HPCCG's,
// with the tree written out in Go where it is not.
func TestMirrorsMatchCPU(t *testing.T) {
	dev := openSim(t)
	r := rand.New(rand.NewPCG(7, 37))
	p, err := Generate(Grid{7, 6, 5}, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, n := p.A, p.A.N
	// Random values in the stencil's pattern, so sums really depend on order.
	vals := randVec(r, a.NNZ())
	ar := &CSR{N: n, RowPtr: a.RowPtr, Cols: a.Cols, Vals: vals}
	x := randVec(r, n)
	dRow := testenv.Must(gpuext.Upload(dev, "rowPtr", a.RowPtr))(t)
	dCols := testenv.Must(gpuext.Upload(dev, "cols", a.Cols))(t)
	dVals := upload(t, dev, "vals", vals)
	dx := upload(t, dev, "x", x)
	want := make([]float64, n)
	spmv(ar, x, want)

	t.Run("spmv thread per row", func(t *testing.T) {
		for _, k := range []string{kSpMVThreadPerRow, kSpMVThreadPerRowUnroll1} {
			dy := upload(t, dev, "y", make([]float64, n))
			launch(t, dev, k, (n+127)/128, 128, int32(n), dRow, dCols, dVals, dx, dy)
			if got := download(t, dy); !equalBits(got, want) {
				t.Errorf("%s differs from the CPU SpMV", k)
			}
		}
	})
	t.Run("spmv subwarp", func(t *testing.T) {
		for _, tpr := range []int{1, 2, 4, 8, 16, 32} {
			dy := upload(t, dev, "y", make([]float64, n))
			launch(t, dev, kSpMVSubwarp, (n*tpr+255)/256, 256, int32(n), int32(tpr), dRow, dCols, dVals, dx, dy)
			got := download(t, dy)
			for i := range n {
				// Each row: lane g sums entries g, g+tpr, ...; then a
				// shuffle tree. Written out here in the same order.
				lo, hi := int(a.RowPtr[i]), int(a.RowPtr[i+1])
				part := make([]float64, tpr)
				for g := range tpr {
					for j := lo + g; j < hi; j += tpr {
						part[g] += float64(vals[j] * x[a.Cols[j]])
					}
				}
				for off := tpr / 2; off > 0; off /= 2 {
					for g := 0; g < off; g++ {
						part[g] += part[g+off]
					}
				}
				if math.Float64bits(got[i]) != math.Float64bits(part[0]) {
					t.Fatalf("tpr %d row %d: %v, the tree order gives %v", tpr, i, got[i], part[0])
				}
				if tpr == 1 && got[i] != want[i] {
					t.Fatalf("tpr 1 row %d: %v, sequential %v", i, got[i], want[i])
				}
				if math.Abs(got[i]-want[i]) > 1e-12*math.Abs(want[i])+1e-300 {
					t.Fatalf("tpr %d row %d: %v far from %v", tpr, i, got[i], want[i])
				}
			}
		}
	})
	t.Run("waxpby", func(t *testing.T) {
		y := randVec(r, n)
		dy := upload(t, dev, "y", y)
		for _, ab := range [][2]float64{{1, 0.37}, {1, -1}, {-2.5, 1}, {0.3, -0.7}, {1, 0}} {
			w := make([]float64, n)
			waxpby(ab[0], x, ab[1], y, w)
			dw := upload(t, dev, "w", make([]float64, n))
			launch(t, dev, kWaxpby, (n+255)/256, 256, int32(n), ab[0], dx, ab[1], dy, dw)
			if !equalBits(download(t, dw), w) {
				t.Errorf("waxpby(%v, x, %v, y) differs from the CPU", ab[0], ab[1])
			}
		}
	})
	t.Run("waxpbyDeviceScalar", func(t *testing.T) {
		y := randVec(r, n)
		dy := upload(t, dev, "y", y)
		for _, sign := range []float64{1, -1} {
			s := r.Float64() * 3
			w := make([]float64, n)
			waxpby(1, x, sign*s, y, w)
			dw := upload(t, dev, "w", make([]float64, n))
			launch(t, dev, kWaxpbyDeviceScalar, (n+255)/256, 256, int32(n), dx, upload(t, dev, "s", []float64{s}), sign, dy, dw)
			if !equalBits(download(t, dw), w) {
				t.Errorf("sign %v: differs from waxpby(1, x, sign·s, y)", sign)
			}
		}
	})
	t.Run("ddot", func(t *testing.T) {
		for _, m := range []int{1, 255, 256, 1000, 70000} {
			xv, yv := randVec(r, m), randVec(r, m)
			blocks := dotGrid(m)
			dp := upload(t, dev, "partial", make([]float64, blocks))
			dres := upload(t, dev, "result", []float64{0})
			launch(t, dev, kDdotPartial, blocks, dotThreads, int32(m), upload(t, dev, "x", xv), upload(t, dev, "y", yv), dp)
			launch(t, dev, kDdotFinal, 1, dotThreads, int32(blocks), dp, dres)
			got := download(t, dres)[0]
			if tree := treeDot(xv, yv, blocks); math.Float64bits(got) != math.Float64bits(tree) {
				t.Errorf("n %d: %v, the tree written out gives %v", m, got, tree)
			}
			if seq := ddot(xv, yv); math.Abs(got-seq) > 1e-13*math.Abs(seq)+1e-300 {
				t.Errorf("n %d: %v far from the sequential %v", m, got, seq)
			}
		}
	})
	t.Run("cgDivide and copyScalar", func(t *testing.T) {
		for _, nd := range [][2]float64{{3, 7}, {1, 0}, {0, 0}, {-2.5e-300, 1e10}} {
			out := upload(t, dev, "out", []float64{42})
			launch(t, dev, kCgDivide, 1, 1, upload(t, dev, "num", nd[0:1]), upload(t, dev, "den", nd[1:2]), out)
			want := 0.0
			if nd[1] != 0 {
				want = nd[0] / nd[1]
			}
			if got := download(t, out)[0]; math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("cgDivide(%v, %v) = %v, want %v", nd[0], nd[1], got, want)
			}
		}
		dst := upload(t, dev, "dst", []float64{0})
		launch(t, dev, kCopyScalar, 1, 1, upload(t, dev, "src", []float64{math.Pi}), dst)
		if got := download(t, dst)[0]; got != math.Pi {
			t.Errorf("copyScalar gave %v", got)
		}
	})
}

// treeDot is ddotPartial + ddotFinal written out serially: thread t of G
// sums t, t+G, ... from 0, each block adds its 256 sums as a tree, then the
// final pass adds the partials (one per thread) by the same tree.
func treeDot(x, y []float64, blocks int) float64 {
	tree := func(v []float64) float64 {
		for s := len(v) / 2; s > 0; s /= 2 {
			for i := 0; i < s; i++ {
				v[i] += v[i+s]
			}
		}
		return v[0]
	}
	G := blocks * dotThreads
	partial := make([]float64, dotThreads)
	for b := range blocks {
		sh := make([]float64, dotThreads)
		for tid := range dotThreads {
			for i := b*dotThreads + tid; i < len(x); i += G {
				sh[tid] += float64(x[i] * y[i])
			}
		}
		partial[b] = tree(sh)
	}
	return tree(partial)
}

func TestMirrorBadArgs(t *testing.T) {
	dev := openSim(t)
	v := upload(t, dev, "v", []float64{1, 2})
	i := testenv.Must(gpuext.Upload(dev, "i", []int32{0, 1}))(t)
	tests := []struct {
		kernel string
		args   []any
	}{
		{kWaxpby, []any{int32(2), 1.0, v, 1.0, v}},               // one short
		{kWaxpby, []any{int32(2), float32(1), v, 1.0, v, v}},     // float32 alpha
		{kSpMVThreadPerRow, []any{int32(1), v, i, v, v, v}},      // double rowPtr
		{kSpMVSubwarp, []any{int32(1), int32(3), i, i, v, v, v}}, // threadsPerRow 3
		{kCgDivide, []any{v, v, v, v}},                           // one too many
		{kSpMVThreadPerRow, []any{int32(2), i, i, v, v, v}},      // rowPtr too short: a fault
	}
	for _, tt := range tests {
		if _, err := dev.Launch(Module(), tt.kernel, sim.Dim1(1), sim.Dim1(32), 0, tt.args...); err == nil {
			t.Errorf("%s%v: no error", tt.kernel, tt.args)
		}
	}
	if slices.Contains([]int{dotGrid(0), dotGrid(1), dotGrid(256), dotGrid(257)}, 0) || dotGrid(1<<30) != dotBlocks || dotGrid(257) != 2 {
		t.Errorf("dotGrid: %d %d %d %d", dotGrid(0), dotGrid(256), dotGrid(257), dotGrid(1<<30))
	}
}

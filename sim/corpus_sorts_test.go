package sim_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The sorting, scanning and row kernels of testdata/corpus/sorts.cu, with
// their CPU references.

// lcg is a small deterministic generator for the corpus's inputs.
func lcg(n int, seed uint32) []uint32 {
	out := make([]uint32, n)
	x := seed
	for i := range out {
		x = x*1664525 + 1013904223
		out[i] = x
	}
	return out
}

// jds is a matrix in jagged diagonal storage (sorts.cu's jdsSpmv).
type jds struct {
	jdPtr, col, perm []int32
	val              []float32
}

// toJDS stores rows (each a list of (column, value)) as JDS: rows by
// decreasing length, ties in row order.
func toJDS(rows [][]struct {
	c int32
	v float32
}) jds {
	perm := seq(len(rows), func(i int) int32 { return int32(i) })
	sort.SliceStable(perm, func(a, b int) bool { return len(rows[perm[a]]) > len(rows[perm[b]]) })
	var m jds
	m.perm = perm
	m.jdPtr = []int32{0}
	for d := 0; len(rows) > 0 && d < len(rows[perm[0]]); d++ {
		for _, r := range perm {
			if d < len(rows[r]) {
				m.col = append(m.col, rows[r][d].c)
				m.val = append(m.val, rows[r][d].v)
			}
		}
		m.jdPtr = append(m.jdPtr, int32(len(m.col)))
	}
	return m
}

func init() {
	corpus = append(corpus,
		corpusCase{
			name: "sorts/radixPass", file: "sorts", kernel: "radixPass", grid: sim.Dim1(2), block: sim.Dim1(256),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const shift = 4
				keys := lcg(512, 7)
				in, _ := sim.Upload(d, "in", keys)
				out, _ := sim.Alloc[uint32](d, "out", 512)
				hist, _ := sim.Alloc[uint32](d, "hist", 32)
				return []any{in, out, hist, int32(shift)}, func(*sim.Stats) error {
					want := slices.Clone(keys)
					wantHist := make([]uint32, 32)
					for t := range 2 {
						tile := want[256*t : 256*t+256]
						sort.SliceStable(tile, func(a, b int) bool { return tile[a]>>shift&15 < tile[b]>>shift&15 })
						for _, k := range tile {
							wantHist[16*t+int(k>>shift&15)]++
						}
					}
					if err := equal("out", out.Data, want); err != nil {
						return err
					}
					return equal("hist", hist.Data, wantHist)
				}
			},
		},
		corpusCase{
			name: "sorts/bitonicSort", file: "sorts", kernel: "bitonicSort", grid: sim.Dim1(2), block: sim.Dim1(256),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				vals := seq(1024, func(i int) int32 { return int32(lcg(i+1, 3)[i]%2001) - 1000 })
				data, _ := sim.Upload(d, "data", vals)
				return []any{data}, func(*sim.Stats) error {
					want := slices.Clone(vals)
					slices.Sort(want[:512])
					slices.Sort(want[512:])
					return equal("data", data.Data, want)
				}
			},
		},
		corpusCase{
			name: "sorts/lookbackScan", file: "sorts", kernel: "lookbackScan", grid: sim.Dim1(4), block: sim.Dim1(256),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 1000
				vals := seq(n, func(i int) int32 { return int32(i*37%19) - 9 })
				in, _ := sim.Upload(d, "in", vals)
				out, _ := sim.Alloc[int32](d, "out", n)
				status, _ := sim.Alloc[int64](d, "status", 4)
				ticket, _ := sim.Alloc[uint32](d, "ticket", 1)
				return []any{in, out, status, ticket, int32(n)}, func(*sim.Stats) error {
					want := make([]int32, n)
					var s int32
					for i, v := range vals {
						s += v
						want[i] = s
					}
					if err := equal("out", out.Data, want); err != nil {
						return err
					}
					wantStatus := seq(4, func(t int) int64 { return 2<<32 | int64(uint32(want[min(256*t+255, n-1)])) })
					if err := equal("status", status.Data, wantStatus); err != nil {
						return err
					}
					return equal("ticket", ticket.Data, []uint32{4})
				}
			},
		},
		corpusCase{
			name: "sorts/jdsSpmv", file: "sorts", kernel: "jdsSpmv", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const rows, cols = 100, 80
				r := lcg(rows*8, 11)
				mat := make([][]struct {
					c int32
					v float32
				}, rows)
				for i := range mat {
					for k := range int(r[8*i] % 8) { // 0 to 7 entries, columns ascending
						mat[i] = append(mat[i], struct {
							c int32
							v float32
						}{int32((i*7 + 11*k) % cols), float32(int(r[8*i+k+1]%9) - 4)})
					}
					sort.Slice(mat[i], func(a, b int) bool { return mat[i][a].c < mat[i][b].c })
				}
				m := toJDS(mat)
				xs := seq(cols, func(j int) float32 { return float32(j%7-3) * 0.5 })
				jdPtr, _ := sim.Upload(d, "jdPtr", m.jdPtr)
				col, _ := sim.Upload(d, "col", m.col)
				val, _ := sim.Upload(d, "val", m.val)
				perm, _ := sim.Upload(d, "perm", m.perm)
				x, _ := sim.Upload(d, "x", xs)
				y, _ := sim.Alloc[float32](d, "y", rows)
				return []any{jdPtr, col, val, perm, x, y, int32(rows), int32(len(m.jdPtr) - 1)}, func(*sim.Stats) error {
					want := make([]float32, rows)
					for i, row := range mat {
						for _, e := range row {
							want[i] += e.v * xs[e.c]
						}
					}
					return equal("y", y.Data, want)
				}
			},
		},
		corpusCase{
			name: "sorts/attention", file: "sorts", kernel: "attention", grid: sim.Dim1(8), block: sim.Dim1(64),
			// expf through ex2.approx (2^-22 relative, PTX ISA) and a
			// correctly rounded division: each probability within a few
			// 2^-22 relative, |V| <= 2, so |o| errs by well under 1e-5.
			approx: map[string]float64{"o": 1e-5},
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const rows = 16
				qs := seq(rows*32, func(i int) float32 { return float32(i*7%9-4) * 0.25 })
				ks := seq(32*32, func(i int) float32 { return float32(i*5%11-5) * 0.25 })
				vs := seq(32*32, func(i int) float32 { return float32(i*3%9-4) * 0.5 })
				q, _ := sim.Upload(d, "q", qs)
				k, _ := sim.Upload(d, "k", ks)
				v, _ := sim.Upload(d, "v", vs)
				o, _ := sim.Alloc[float32](d, "o", rows*32)
				scale := float32(1 / math.Sqrt(32))
				return []any{q, k, v, o, scale}, func(*sim.Stats) error {
					want := make([]float32, rows*32)
					for r := range rows {
						s := make([]float64, 32)
						m := math.Inf(-1)
						for j := range 32 {
							for c := range 32 {
								s[j] += float64(qs[32*r+c]) * float64(ks[32*j+c])
							}
							s[j] *= float64(scale)
							m = math.Max(m, s[j])
						}
						var sum float64
						for j := range s {
							s[j] = math.Exp(s[j] - m)
							sum += s[j]
						}
						for c := range 32 {
							var acc float64
							for j := range 32 {
								acc += s[j] / sum * float64(vs[32*j+c])
							}
							want[32*r+c] = float32(acc)
						}
					}
					return closeTo("o", o.Data, want, 1e-5)
				}
			},
		},
	)
}

// TestCorpusSiteArrays: the JDS SpMV's memory sites are named by the
// arrays they access, as the .cu names the parameters (SetSource), and
// by the PTX's parameter names without the source.
func TestCorpusSiteArrays(t *testing.T) {
	cu, err := os.ReadFile(filepath.Join("testdata", "corpus", "sorts.cu"))
	if err != nil {
		t.Fatal(err)
	}
	for _, withSource := range []bool{true, false} {
		mod := corpusModule(t, "sorts")
		k, err := sim.NewPTXKernel(mod, "jdsSpmv")
		if err != nil {
			t.Fatal(err)
		}
		if withSource {
			k.SetSource(string(cu))
		}
		m, _ := sim.ModelByKey("h200")
		d := sim.NewDevice(m)
		var c corpusCase
		for _, cc := range corpus {
			if cc.name == "sorts/jdsSpmv" {
				c = cc
			}
		}
		args, _ := c.setup(d, mod)
		st, err := d.LaunchPTX(context.Background(), k, c.grid, c.block, c.shared, args...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range st.Sites {
			got = append(got, s.Array)
		}
		slices.Sort(got)
		got = slices.Compact(got)
		want := []string{"col", "jdPtr", "perm", "val", "x", "y"}
		if !withSource {
			want = []string{"jdsSpmv_param_0", "jdsSpmv_param_1", "jdsSpmv_param_2", "jdsSpmv_param_3", "jdsSpmv_param_4", "jdsSpmv_param_5"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("source %v: sites' arrays %q, want %q", withSource, got, want)
		}
	}
}

package sim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The tensor-core corpus after the first tile (testdata/corpus/tensor.cu):
// bf16 and tf32 WMMA, half accumulators, the m32n8k16 and m8n32k16
// shapes, a GEMM from WMMA tiles, and mma.sync for bf16, tf32 and half
// accumulators. The inputs are small multiples of 1/2 (bf16 and tf32 hold
// them exactly), so every product and sum is exact and any order of
// additions gives the same bits: the CPU references are plain loops.

// bf16Bits is the bfloat16 of f, which the tests choose exact in one (the
// float's upper half).
func bf16Bits(f float32) uint16 { return uint16(math.Float32bits(f) >> 16) }

// packPairs is v's 16-bit encodings two a word, little-endian.
func packPairs(v []float32, enc func(float32) uint16) []uint32 {
	return seq(len(v)/2, func(i int) uint32 { return uint32(enc(v[2*i])) | uint32(enc(v[2*i+1]))<<16 })
}

// gemmRef is Σ_k a(i,k)·b(k,j) + c(i,j) for an m×n result over kk.
func gemmRef(m, n, kk int, a, b func(i, k int) float32, c func(i, j int) float32) [][]float32 {
	out := make([][]float32, m)
	for i := range m {
		out[i] = make([]float32, n)
		for j := range n {
			s := c(i, j)
			for k := range kk {
				s += a(i, k) * b(k, j)
			}
			out[i][j] = s
		}
	}
	return out
}

// tensorTensor reports the launch's tensor counters against what the
// case expects: instrs warp-level mma instructions of macs multiply-adds
// each.
func checkTensor(st *sim.Stats, instrs, macs int64, tf32 bool) error {
	want := sim.TensorOps{Instructions: instrs, HalfMACs: instrs * macs}
	if tf32 {
		want.HalfMACs, want.TF32MACs = 0, instrs*macs
	}
	if st.Tensor != want {
		return fmt.Errorf("Tensor %+v, want %+v", st.Tensor, want)
	}
	return nil
}

func init() {
	const tiles = 2
	vals := func(mul, mod, off int, scale float32) func(i int) float32 {
		return func(i int) float32 { return float32(i*mul%mod-off) * scale }
	}
	corpus = append(corpus,
		corpusCase{
			name: "tensor/wmmaBf16", file: "tensor", kernel: "wmmaBf16", grid: sim.Dim1(tiles), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				a, _ := sim.Upload(d, "a", seq(tiles*256, vals(7, 9, 4, 0.5)))
				b, _ := sim.Upload(d, "b", seq(tiles*256, vals(5, 7, 3, 1)))
				c, _ := sim.Upload(d, "c", seq(tiles*256, vals(1, 11, 5, 1)))
				out, _ := sim.Alloc[float32](d, "d", tiles*256)
				return []any{a, b, c, out}, func(st *sim.Stats) error {
					var want []float32
					for t := range tiles {
						o := 256 * t
						for _, row := range gemmRef(16, 16, 16,
							func(i, k int) float32 { return a.Data[o+16*i+k] },
							func(k, j int) float32 { return b.Data[o+16*j+k] }, // column-major
							func(i, j int) float32 { return c.Data[o+16*i+j] }) {
							want = append(want, row...)
						}
					}
					if err := equal("d", out.Data, want); err != nil {
						return err
					}
					return checkTensor(st, tiles, 16*16*16, false)
				}
			},
		},
		corpusCase{
			name: "tensor/wmmaTf32", file: "tensor", kernel: "wmmaTf32", grid: sim.Dim1(tiles), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				// A's floats have low bits that __float_to_tf32 rounds
				// away (to nearest, ties away from zero): 1 + 2^-11 + 2^-20
				// becomes 1 + 2^-10, 1 + 2^-11 exactly (a tie) too.
				odd := []float32{1 + 0x1p-11 + 0x1p-20, 1 + 0x1p-11, -(1 + 0x1p-11), 3}
				a, _ := sim.Upload(d, "a", seq(tiles*128, func(i int) float32 { return odd[i%4] * float32(i%3+1) }))
				b, _ := sim.Upload(d, "b", seq(tiles*128, vals(5, 7, 3, 1)))
				c, _ := sim.Upload(d, "c", seq(tiles*256, vals(1, 11, 5, 1)))
				out, _ := sim.Alloc[float32](d, "d", tiles*256)
				tf := func(f float32) float32 { // cvt.rna.tf32.f32
					return math.Float32frombits((math.Float32bits(f) + 0x1000) &^ 0x1fff)
				}
				return []any{a, b, c, out, float32(0.5)}, func(st *sim.Stats) error {
					want := make([]float32, tiles*256)
					for t := range tiles {
						r := gemmRef(16, 16, 8,
							func(i, k int) float32 { return tf(a.Data[128*t+8*i+k]) },
							func(k, j int) float32 { return tf(b.Data[128*t+16*k+j]) },
							func(i, j int) float32 { return c.Data[256*t+16*j+i] }) // column-major
						for i := range 16 {
							for j := range 16 {
								want[256*t+16*j+i] = r[i][j] * 0.5
							}
						}
					}
					if err := equal("d", out.Data, want); err != nil {
						return err
					}
					return checkTensor(st, tiles, 16*16*8, true)
				}
			},
		},
		corpusCase{
			name: "tensor/wmmaHalfAcc", file: "tensor", kernel: "wmmaHalfAcc", grid: sim.Dim1(tiles), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				av := seq(tiles*512, vals(7, 9, 4, 0.5))
				bv := seq(tiles*128, vals(5, 7, 3, 0.5))
				a, _ := sim.Upload(d, "a", packPairs(av, halfBits))
				b, _ := sim.Upload(d, "b", packPairs(bv, halfBits))
				out, _ := sim.Alloc[uint32](d, "d", tiles*128)
				return []any{a, b, out}, func(st *sim.Stats) error {
					var want []float32
					for t := range tiles {
						for _, row := range gemmRef(32, 8, 16,
							func(i, k int) float32 { return av[512*t+32*k+i] }, // column-major, ld 32
							func(k, j int) float32 { return bv[128*t+8*k+j] },
							func(i, j int) float32 { return 1 }) {
							want = append(want, row...)
						}
					}
					got := make([]float32, 0, 2*len(out.Data))
					for _, w := range out.Data {
						got = append(got, halfFrom(uint16(w)), halfFrom(uint16(w>>16)))
					}
					if err := equal("d", got, want); err != nil {
						return err
					}
					return checkTensor(st, tiles, 32*8*16, false)
				}
			},
		},
		corpusCase{
			name: "tensor/wmma8x32", file: "tensor", kernel: "wmma8x32", grid: sim.Dim1(tiles), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				av := seq(tiles*128, vals(7, 9, 4, 0.5))
				bv := seq(tiles*512, vals(5, 7, 3, 1))
				a, _ := sim.Upload(d, "a", packPairs(av, bf16Bits))
				b, _ := sim.Upload(d, "b", packPairs(bv, bf16Bits))
				out, _ := sim.Alloc[float32](d, "d", tiles*256)
				return []any{a, b, out}, func(st *sim.Stats) error {
					var want []float32
					for t := range tiles {
						for _, row := range gemmRef(8, 32, 16,
							func(i, k int) float32 { return av[128*t+16*i+k] },
							func(k, j int) float32 { return bv[512*t+32*k+j] },
							func(i, j int) float32 { return 0 }) {
							want = append(want, row...)
						}
					}
					if err := equal("d", out.Data, want); err != nil {
						return err
					}
					return checkTensor(st, tiles, 8*32*16, false)
				}
			},
		},
		corpusCase{
			name: "tensor/wmmaGemm", file: "tensor", kernel: "wmmaGemm", grid: sim.Dim2(2, 2), block: sim.Dim1(128),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 64
				av := seq(n*n, vals(7, 9, 4, 0.5))
				bv := seq(n*n, vals(5, 7, 3, 0.5))
				a, _ := sim.Upload(d, "a", packPairs(av, halfBits))
				b, _ := sim.Upload(d, "b", packPairs(bv, halfBits))
				out, _ := sim.Alloc[float32](d, "c", n*n)
				return []any{a, b, out, int32(n)}, func(st *sim.Stats) error {
					var want []float32
					for _, row := range gemmRef(n, n, n,
						func(i, k int) float32 { return av[n*i+k] },
						func(k, j int) float32 { return bv[n*j+k] }, // column-major
						func(i, j int) float32 { return 0 }) {
						want = append(want, row...)
					}
					if err := equal("c", out.Data, want); err != nil {
						return err
					}
					// 16 warps, each 4 steps of k.
					return checkTensor(st, 16*n/16, 16*16*16, false)
				}
			},
		},
	)
	for form, name := range []string{"bf16.m16n8k16", "bf16.m16n8k8", "tf32.m16n8k8", "tf32.m16n8k4", "f16acc.m16n8k16"} {
		corpus = append(corpus, mmaFormsCase(int32(form), name, false))
	}
	corpus = append(corpus, mmaFormsCase(2, "tf32.m16n8k8.raw", true))
}

// mmaFormsCase is tensor.cu's mmaForms with form f (its comment lists
// them) on two tiles. raw (tf32 forms) gives A floats that are not tf32
// values (low mantissa bits set, never rounded by cvt.rna.tf32.f32): the
// simulator drops the 13 low bits, and the recorded H200 run says whether
// the tensor core does the same.
func mmaFormsCase(f int32, name string, raw bool) corpusCase {
	const tiles = 2
	K := []int{16, 8, 8, 4, 16}[f]
	return corpusCase{
		name: "tensor/mmaForms/" + name, file: "tensor", kernel: "mmaForms", grid: sim.Dim1(tiles), block: sim.Dim1(32),
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
			av := seq(tiles*256, func(i int) float32 { return float32(i*7%9-4) * 0.5 })
			bv := seq(tiles*128, func(i int) float32 { return float32(i*5%7 - 3) })
			cv := seq(tiles*128, func(i int) float32 { return float32(i%11) - 5 })
			a32v := av
			if raw { // 2^-12 or 2^-11 more: below tf32's ulp at 0.5 and up (a tie at 0.5, which cvt.rna would round away)
				a32v = seq(len(av), func(i int) float32 { return av[i] + float32(i%3)*0x1p-12 })
			}
			enc := bf16Bits
			if f == 4 {
				enc = halfBits
			}
			a16, _ := sim.Upload(d, "a16", packPairs(av, enc))
			b16, _ := sim.Upload(d, "b16", packPairs(bv, enc))
			a32, _ := sim.Upload(d, "a32", a32v)
			b32, _ := sim.Upload(d, "b32", bv)
			c, _ := sim.Upload(d, "c", cv)
			out, _ := sim.Alloc[uint32](d, "d", tiles*128)
			return []any{a16, b16, a32, b32, c, out, f}, func(st *sim.Stats) error {
				var want []uint32
				for t := range tiles {
					for _, row := range gemmRef(16, 8, K,
						func(i, k int) float32 {
							if raw { // the tf32 the tensor core reads: the low 13 bits dropped
								return math.Float32frombits(math.Float32bits(a32v[256*t+16*i+k]) &^ 0x1fff)
							}
							return av[256*t+16*i+k]
						},
						func(k, j int) float32 { return bv[128*t+8*k+j] },
						func(i, j int) float32 { return cv[128*t+8*i+j] }) {
						for _, v := range row {
							if f == 4 { // the half's bits in a word
								want = append(want, uint32(halfBits(v)))
							} else {
								want = append(want, math.Float32bits(v))
							}
						}
					}
				}
				if err := equal("d", out.Data, want); err != nil {
					return err
				}
				return checkTensor(st, tiles, int64(16*8*K), f == 2 || f == 3)
			}
		},
	}
}

// TestTensorTerm: the time model's tensor term for the WMMA GEMM (64
// mma instructions of 4096 multiply-adds on 4 blocks) is the
// multiply-adds over the 4 busy SMs at the H200's measured 1207.6 a
// cycle; the T4, with no measured rate, has none.
func TestTensorTerm(t *testing.T) {
	var c corpusCase
	for _, cc := range corpus {
		if cc.name == "tensor/wmmaGemm" {
			c = cc
		}
	}
	for _, key := range []string{"h200", "t4"} {
		m, _ := sim.ModelByKey(key)
		st, _, _, err := launchCorpus(t, c, m)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if key == "h200" {
			want = float64(st.Tensor.HalfMACs) / (4 * 1207.6 * m.ClockHz)
		}
		if got := st.Time.Terms.Tensor; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: tensor term %g s, want %g", key, got, want)
		}
	}
}

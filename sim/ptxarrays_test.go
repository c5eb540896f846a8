package sim

import (
	"slices"
	"testing"
)

// TestCuParams: a kernel's parameter names read from its .cu signature.
func TestCuParams(t *testing.T) {
	src := `
template <int B> __device__ float f(float *x);
extern "C" __global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {}
__global__ void __launch_bounds__(256) tiled(const float *A /* rows */, const float *B, // cols
    float C[], int n) {}
__global__ void none() {}
__global__ void templ(Pair<int, float> p, float *out) {}
`
	cases := []struct {
		kernel string
		want   []string
	}{
		{"saxpy", []string{"n", "a", "x", "y"}},
		{"_Z5tiledPKfS0_Pfi", []string{"A", "B", "C", "n"}},
		{"none", nil},
		{"_Z5templ4PairIifEPf", []string{"p", "out"}},
		{"missing", nil},
	}
	for _, c := range cases {
		if got := cuParams(src, c.kernel); !slices.Equal(got, c.want) {
			t.Errorf("cuParams(%s) = %q, want %q", c.kernel, got, c.want)
		}
	}
	if got := mangledName("_ZN2ns3fooEv"); got != "ns" {
		t.Errorf("mangledName of a namespaced name = %q", got)
	}
}

// TestLocalName: nvcc's names of a kernel's static __shared__ arrays read
// back as written.
func TestLocalName(t *testing.T) {
	for in, want := range map[string]string{
		"_ZZ6tile16E2sa":                         "sa",
		"_ZZ19tile_transposeILi1EEviPKfPfE4tile": "tile",
		"smem":                                   "smem",
		"_ZZ3fooE":                               "_ZZ3fooE",
	} {
		if got := localName(in); got != want {
			t.Errorf("localName(%q) = %q, want %q", in, got, want)
		}
	}
}

package gpuext

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// copyBetween uploads src, copies it into a second buffer of the same
// length with CopyFromBuffer, and checks the copy and that the source is
// unchanged.
func copyBetween[T sim.Elem](t *testing.T, d *Device, src []T) {
	t.Helper()
	a, err := Upload(d, "src", src)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Alloc[T](d, "dst", len(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromBuffer(a); err != nil {
		t.Fatalf("CopyFromBuffer: %v", err)
	}
	got := make([]T, len(src))
	if err := b.Download(got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, src) {
		i := 0
		for i < len(src) && got[i] == src[i] {
			i++
		}
		t.Fatalf("%T[%d]: element %d of the copy = %v, want %v", src[0], len(src), i, got[i], src[i])
	}
	if err := a.Download(got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, src) {
		t.Fatalf("%T[%d]: CopyFromBuffer changed its source", src[0], len(src))
	}
}

// ramp is n values that differ from each other and from zero.
func ramp(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i) + 0.5
	}
	return v
}

// checkCopyFromBuffer is the device-to-device copy's test, run on the
// simulator here and on a GPU by TestGPUCopyFromBuffer (cuMemcpyDtoD).
func checkCopyFromBuffer(t *testing.T, d *Device) {
	t.Run("types and sizes", func(t *testing.T) {
		copyBetween(t, d, []float32{1.5, -2, float32(math.Inf(1)), 3e-38})
		copyBetween(t, d, []float64{math.Pi}) // one double: the CG lesson's r·r copy
		copyBetween(t, d, ramp(100_003))      // 800 KB: more than the GPU backend stages through host memory
		copyBetween(t, d, []int32{math.MaxInt32, math.MinInt32, 7})
		copyBetween(t, d, []int64{math.MaxInt64, math.MinInt64, 7})
		copyBetween(t, d, []uint32{math.MaxUint32, 0, 9})
		e0 := testenv.Must(Alloc[float64](d, "e0", 0))(t)
		e1 := testenv.Must(Alloc[float64](d, "e1", 0))(t)
		if err := e1.CopyFromBuffer(e0); err != nil {
			t.Errorf("copy of empty buffers: %v", err)
		}
	})

	// The copy is ordered with the kernels around it: it sees what the
	// launch before it wrote, and the launch after it does not change it.
	t.Run("ordered with launches", func(t *testing.T) {
		const n = 10_007
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i%101), float32(i%7)
		}
		x, err := Upload(d, "x", xs)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Upload(d, "y", ys)
		if err != nil {
			t.Fatal(err)
		}
		keep, err := Alloc[float32](d, "keep", n)
		if err != nil {
			t.Fatal(err)
		}
		m := saxpyModule()
		saxpy := func() {
			t.Helper()
			if _, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: (n + 255) / 256, Block: 256}, int32(n), float32(2), x, y); err != nil {
				t.Fatal(err)
			}
		}
		saxpy() // y = 2x + y
		if err := keep.CopyFromBuffer(y); err != nil {
			t.Fatal(err)
		}
		saxpy() // y = 4x + y0, keep stays 2x + y0
		got := make([]float32, n)
		if err := keep.Download(got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if want := 2*xs[i] + ys[i]; got[i] != want {
				t.Fatalf("keep[%d] = %v, want %v (the copy must run between the two launches)", i, got[i], want)
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		a := testenv.Must(Upload(d, "a", []float64{1, 2, 3}))(t)
		b := testenv.Must(Alloc[float64](d, "b", 4))(t)
		other := openSimT(t, "sim")
		c := testenv.Must(Alloc[float64](other, "c", 3))(t)
		freed := testenv.Must(Alloc[float64](d, "freed", 3))(t)
		if err := freed.Free(); err != nil {
			t.Fatal(err)
		}
		var nilBuf *Buffer[float64]
		tests := []struct {
			name     string
			dst, src *Buffer[float64]
			want     string
		}{
			{"length", b, a, "source holds 3 elements, the buffer 4"},
			{"other device", c, a, "different devices"},
			{"freed source", a, freed, "freed"},
			{"freed destination", freed, a, "freed"},
			{"nil source", a, nilBuf, "nil buffer"},
		}
		for _, tc := range tests {
			err := tc.dst.CopyFromBuffer(tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: CopyFromBuffer = %v, want an error containing %q", tc.name, err, tc.want)
			}
		}
		// Onto itself: nothing to do, and the contents stay.
		if err := a.CopyFromBuffer(a); err != nil {
			t.Errorf("self copy: %v", err)
		}
		got := make([]float64, 3)
		if err := a.Download(got); err != nil || !slices.Equal(got, []float64{1, 2, 3}) {
			t.Errorf("after a self copy: %v, %v", got, err)
		}
	})
}

func TestCopyFromBuffer(t *testing.T) {
	checkCopyFromBuffer(t, openSimT(t, "sim"))
}

package gpuext

import (
	"context"
	"strings"
	"testing"
)

// checkReadAsync launches saxpy (y = 3x + y) launches times, queuing a
// ReadAsync of y's first elements after each launch without waiting, then
// waits on all of them in order: read k must hold y after exactly k+1
// launches, which it can only do when each copy is ordered after the launch
// before it and before the launch after it. It runs on either backend.
func checkReadAsync(t *testing.T, d *Device, n, launches int) {
	t.Helper()
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i%7), float32(i%5)
	}
	x, err := Upload(d, "x", xs)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Upload(d, "y", ys)
	if err != nil {
		t.Fatal(err)
	}
	m := saxpyModule()
	const block = 256
	const head = 5
	pend := make([]*Pending[float32], launches)
	for k := range pend {
		if _, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: (n + block - 1) / block, Block: block}, int32(n), float32(3), x, y); err != nil {
			t.Fatal(err)
		}
		if pend[k], err = y.ReadAsync(head); err != nil {
			t.Fatalf("ReadAsync after launch %d: %v", k+1, err)
		}
	}
	for k, p := range pend {
		got, err := p.Wait()
		if err != nil {
			t.Fatalf("Wait %d: %v", k, err)
		}
		if len(got) != head {
			t.Fatalf("Wait %d returned %d values, want %d", k, len(got), head)
		}
		for i, g := range got {
			want := ys[i]
			for range k + 1 {
				want = 3*xs[i] + want
			}
			if g != want {
				t.Fatalf("read after launch %d: y[%d] = %v, want %v", k+1, i, g, want)
			}
		}
		again, err := p.Wait()
		if err != nil || &again[0] != &got[0] {
			t.Errorf("second Wait %d = %p, %v; want the same slice %p", k, again, err, got)
		}
	}
}

func TestReadAsyncOnSimulator(t *testing.T) {
	d := openSimT(t, "sim:h200")
	checkReadAsync(t, d, 1000, 4)
}

func TestReadAsyncErrors(t *testing.T) {
	d, err := Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Upload(d, "v", []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{-1, 4} {
		if _, err := b.ReadAsync(n); err == nil || !strings.Contains(err.Error(), "ReadAsync v (float64[3])") {
			t.Errorf("ReadAsync(%d) error = %v, want one naming the call and the buffer", n, err)
		}
	}
	p0, err := b.ReadAsync(0)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := p0.Wait(); err != nil || len(v) != 0 {
		t.Errorf("ReadAsync(0).Wait = %v, %v; want no values", v, err)
	}
	p, err := b.ReadAsync(2)
	if err != nil {
		t.Fatal(err)
	}
	// The copy is of the values when it was queued, not when Wait runs.
	if err := b.CopyFrom([]float64{7, 8, 9}); err != nil {
		t.Fatal(err)
	}
	if v, err := p.Wait(); err != nil || len(v) != 2 || v[0] != 1 || v[1] != 2 {
		t.Errorf("Wait = %v, %v; want [1 2]", v, err)
	}
	late, err := b.ReadAsync(3)
	if err != nil {
		t.Fatal(err)
	}
	var nilP *Pending[float64]
	if _, err := nilP.Wait(); err == nil {
		t.Error("Wait on a nil Pending succeeded")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadAsync(1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("ReadAsync after Close error = %v, want one saying the device is closed", err)
	}
	for _, q := range []*Pending[float64]{late, p} {
		if v, err := q.Wait(); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("Wait after Close = %v, %v; want an error saying the device is closed", v, err)
		}
	}
}

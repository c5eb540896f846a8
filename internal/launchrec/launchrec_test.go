package launchrec

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// record is a `warplab bench launch` text as launchbench's WriteText
// prints it (timecheck's tests write theirs with WriteText itself).
func record(gpu string, empty, args, scalars float64, spin map[int]float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "launch overhead on %s, 20000 launches of an empty kernel (host clock, measured)\n", gpu)
	fmt.Fprintf(&b, "  back to back, one sync at the end: %8.2f us per launch\n", 4.1)
	fmt.Fprintf(&b, "lessons' protocol (3 warm-ups, CUDA events around 10 runs), median of 101 timings (measured)\n")
	fmt.Fprintf(&b, "  empty kernel, one block:           %8.2f us per call\n", empty)
	fmt.Fprintf(&b, "  six arguments, one block:          %8.2f us per call\n", args)
	fmt.Fprintf(&b, "  six scalar arguments, one block:   %8.2f us per call\n", scalars)
	for ns, v := range spin {
		fmt.Fprintf(&b, "  spin kernel, %6d ns on the GPU: %8.2f us per call\n", ns, v)
	}
	return b.String()
}

// TestFloorDir: the floor is the medians over a folder's records of the
// GPU asked for (the empty kernel's and the spin kernel's at most
// FloorSpinNs, less a scalar's cost, pooled), and a folder with none is
// an error that names it.
func TestFloorDir(t *testing.T) {
	dir := t.TempDir()
	recs := map[string]string{
		"launch-go-r1.txt": record("NVIDIA H200", 4, 6, 4.6, map[int]float64{0: 6.1, 2000: 7}),
		"launch-go-r2.txt": record("NVIDIA H200", 6, 8, 6.6, nil),
		"launch-go-r3.txt": record("NVIDIA H100 80GB HBM3", 50, 52, 50.6, nil),
	}
	for name, body := range recs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FloorDir(dir, "NVIDIA H200")
	if err != nil {
		t.Fatal(err)
	}
	// A scalar 0.1 µs in both; a buffer (2 − 0.1) / 5 = 0.38; the pool
	// 4, 6 and the spin at 0 ns less a scalar, 6.0: median 6.
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(got.TimedLaunch, 6e-6) || !near(got.TimedLaunchPerScalar, 0.1e-6) || !near(got.TimedLaunchPerBuffer, 0.38e-6) {
		t.Errorf("FloorDir = %+v, want 6 µs, 0.38 a buffer, 0.1 a scalar", got)
	}
	if _, err := FloorDir(t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "no warplab bench launch record") {
		t.Errorf("an empty folder: %v", err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "launch-go.txt"), []byte("launch overhead on X, 1 launches\n  back to back, one sync at the end: 4 us per launch\n  empty kernel, one block: 4 us per call\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FloorDir(bad, ""); err == nil || !strings.Contains(err.Error(), "lacks a line") || !strings.Contains(err.Error(), "launch-go.txt") {
		t.Errorf("a record missing the protocol's lines: %v", err)
	}
}

// TestFloorDirs: several leases' floor is the median of their floors,
// figure by figure (two: the mean); one folder is FloorDir's; a folder
// without records is an error that names it, and no folder is an error.
func TestFloorDirs(t *testing.T) {
	lease := func(empty, args, scalars float64) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "launch-go-r1.txt"), []byte(record("NVIDIA H200", empty, args, scalars, nil)), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	// Each lease: a scalar (scalars − empty) / 6, a buffer (args − empty
	// − scalar) / 5.
	a, b, c := lease(4, 6, 4.6), lease(6, 9, 7.2), lease(10, 10.5, 10.6)
	one, err := FloorDir(a, "")
	if err != nil {
		t.Fatal(err)
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	tests := []struct {
		name                 string
		dirs                 []string
		launch, buf, scalars float64 // µs
	}{
		{"one lease", []string{a}, one.TimedLaunch * 1e6, one.TimedLaunchPerBuffer * 1e6, one.TimedLaunchPerScalar * 1e6},
		{"two leases: the mean", []string{a, b}, 5, (0.38 + 0.56) / 2, (0.1 + 0.2) / 2},
		{"three leases: the median, figure by figure", []string{a, b, c}, 6, 0.38, 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FloorDirs(tc.dirs, "")
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.TimedLaunch, tc.launch*1e-6) || !near(got.TimedLaunchPerBuffer, tc.buf*1e-6) || !near(got.TimedLaunchPerScalar, tc.scalars*1e-6) {
				t.Errorf("FloorDirs = %+v, want %g µs, %g a buffer, %g a scalar", got, tc.launch, tc.buf, tc.scalars)
			}
		})
	}
	empty := t.TempDir()
	if _, err := FloorDirs([]string{a, empty}, ""); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("a folder without records: %v", err)
	}
	if _, err := FloorDirs(nil, ""); err == nil {
		t.Error("no folder: no error")
	}
}

// TestReadTextCopies: the copy kernels' lines are read when both are
// there, absent in older records, and one without the other is an error.
func TestReadTextCopies(t *testing.T) {
	base := record("NVIDIA H100 80GB HBM3", 3.6, 4.5, 3.8, nil)
	warp := "  copy of 32 floats, one warp:           5.10 us per call\n"
	copy16 := "  copy of 4096 floats, 16 blocks:        5.80 us per call\n"
	for _, tc := range []struct {
		name, text     string
		warpUs, copyUs float64
		err            string
	}{
		{"older record", base, 0, 0, ""},
		{"both", base + warp + copy16, 5.1, 5.8, ""},
		{"one", base + warp, 0, 0, "in pairs"},
	} {
		r, err := ReadText([]byte(tc.text))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || r.WarpCopy != tc.warpUs || r.Copy != tc.copyUs {
			t.Errorf("%s: WarpCopy %g, Copy %g, err %v; want %g, %g", tc.name, r.WarpCopy, r.Copy, err, tc.warpUs, tc.copyUs)
		}
	}
}

// TestWarpCopyGPU holds the rule's arithmetic: a record's copy less its
// spin curve's offset, only where the copy is over its own floor (the
// empty kernel, two buffers and a scalar at the record's costs) by more
// than CopyAboveFloor and the curve has a spin of CurveSpinNs or more;
// the median over those records.
func TestWarpCopyGPU(t *testing.T) {
	curve := map[int]float64{0: 4.0, 1000: 4.1, 5000: 7.2, 10000: 12.2} // offset 2.2
	for _, tc := range []struct {
		name  string
		recs  []Record
		want  float64 // µs
		wantN int
	}{
		{"one record", []Record{{Protocol: true, Empty: 4.0, WarpCopy: 5.5, Spin: curve}}, 3.3, 1},
		{"at the floor", []Record{{Protocol: true, Empty: 4.0, WarpCopy: 4.3, Spin: curve}}, 0, 0},
		{"no curve past 5 µs", []Record{{Protocol: true, Empty: 4.0, WarpCopy: 5.5, Spin: map[int]float64{0: 4, 3000: 5.2}}}, 0, 0},
		{"before the copy lines", []Record{{Protocol: true, Empty: 4.0, Spin: curve}}, 0, 0},
		// a scalar 0.1 µs, a buffer 0.38: the copy's floor 4.86 µs
		{"at its own arguments' floor", []Record{{Protocol: true, Empty: 4.0, Args: 6.0, Scalars: 4.6, WarpCopy: 5.0, Spin: curve}}, 0, 0},
		{"over its own arguments' floor", []Record{{Protocol: true, Empty: 4.0, Args: 6.0, Scalars: 4.6, WarpCopy: 5.5, Spin: curve}}, 3.3, 1},
		{"median of three", []Record{
			{Protocol: true, Empty: 4.0, WarpCopy: 5.5, Spin: curve},
			{Protocol: true, Empty: 4.0, WarpCopy: 6.0, Spin: curve},
			{Protocol: true, Empty: 4.0, WarpCopy: 5.0, Spin: curve},
			{Protocol: true, Empty: 4.0, WarpCopy: 4.2, Spin: curve}, // at the floor: out
		}, 3.3, 3},
	} {
		got, n := WarpCopyGPU(tc.recs)
		if n != tc.wantN || math.Abs(got-tc.want*1e-6) > 1e-12 {
			t.Errorf("%s: %g s over %d records, want %g µs over %d", tc.name, got, n, tc.want, tc.wantN)
		}
	}
}

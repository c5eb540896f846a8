package libs

import (
	"context"
	"testing"

	"github.com/warplab/warplab/gpuext"
)

// familyInputs are the corpus families at rows rows (seed CorpusSeed), as
// the simulator tests add them after their edge cases.
func familyInputs(t *testing.T, rows int, families ...string) []Input {
	t.Helper()
	var ins []Input
	for _, f := range families {
		in, err := FamilyInput(f, rows, CorpusSeed)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	return ins
}

// simCase is what a simulator test of a method's kernels gets for one
// input: the device, the lesson's module, the normalized default options
// and the input uploaded (freed when the subtest ends).
type simCase struct {
	ctx context.Context
	dev *gpuext.Device
	mod *gpuext.Module
	o   Options
	in  Input
	d   *devMatrix
}

// onSimulator runs each on every input, a subtest each named by its key,
// on one simulator device: the setup the bins, split, tile and
// tile-instruction tests share.
func onSimulator(t *testing.T, ins []Input, each func(t *testing.T, c simCase)) {
	t.Helper()
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	o, _ := Options{}.normalize()
	c := simCase{ctx: context.Background(), dev: dev, mod: Module(), o: o}
	for _, in := range ins {
		t.Run(in.Key, func(t *testing.T) {
			d, err := upload(dev, in)
			if err != nil {
				t.Fatal(err)
			}
			defer d.free()
			c := c
			c.in, c.d = in, d
			each(t, c)
		})
	}
}

// allZero fails t when a counter buffer the kernels reset after each SpMV
// (done-counts, piece slots) holds anything but 0 in its first n words.
func allZero(t *testing.T, what string, b *gpuext.Buffer[int32], n int) {
	t.Helper()
	got := make([]int32, b.Len())
	if err := b.Download(got); err != nil {
		t.Fatal(err)
	}
	for i, v := range got[:n] {
		if v != 0 {
			t.Errorf("%s %d is %d after the SpMV, want 0", what, i, v)
			return
		}
	}
}

package sim_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/warplab/warplab/sim"
)

// newDevice returns a simulated H200, the GPU DESIGN.md's counters were
// measured on.
func newDevice(t testing.TB) *sim.Device {
	t.Helper()
	m, err := sim.ModelByKey("h200")
	if err != nil {
		t.Fatal(err)
	}
	return sim.NewDevice(m)
}

// mustAlloc allocates n zeroed elements or stops the test.
func mustAlloc[T sim.Elem](t testing.TB, d *sim.Device, name string, n int) *sim.Global[T] {
	t.Helper()
	g, err := sim.Alloc[T](d, name, n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// mustUpload copies src to a new device buffer or stops the test.
func mustUpload[T sim.Elem](t testing.TB, d *sim.Device, name string, src []T) *sim.Global[T] {
	t.Helper()
	g, err := sim.Upload(d, name, src)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// launch runs k and stops the test on any error.
func launch(t testing.TB, d *sim.Device, k *sim.Kernel, grid, block sim.Dim3, shared int) *sim.Stats {
	t.Helper()
	st, err := launchGuarded(t, d, k, grid, block, shared)
	if err != nil {
		t.Fatalf("launch %s: %v", k.Name, err)
	}
	return st
}

// launchGuarded runs k and fails the test if the launch does not return
// within a minute: a hang is a bug the simulator promises not to have. The
// limit is a deadlock guard, not a speed assertion.
func launchGuarded(t testing.TB, d *sim.Device, k *sim.Kernel, grid, block sim.Dim3, shared int) (*sim.Stats, error) {
	t.Helper()
	type result struct {
		st  *sim.Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := d.Launch(k, grid, block, shared)
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		return r.st, r.err
	case <-time.After(time.Minute):
		t.Fatalf("launch %s did not return within a minute (deadlock?)", k.Name)
		return nil, nil
	}
}

// launchFault runs k, which must fault, and returns the *sim.Fault.
func launchFault(t testing.TB, d *sim.Device, k *sim.Kernel, grid, block sim.Dim3, shared int) *sim.Fault {
	t.Helper()
	st, err := launchGuarded(t, d, k, grid, block, shared)
	if err == nil {
		t.Fatalf("launch %s: no error (stats %+v), want a fault", k.Name, st)
	}
	if st != nil {
		t.Errorf("launch %s: stats returned alongside error %v", k.Name, err)
	}
	var f *sim.Fault
	if !errors.As(err, &f) {
		t.Fatalf("launch %s: error %v (%T) is not a *sim.Fault", k.Name, err, err)
	}
	return f
}

// withProcs runs f with GOMAXPROCS set to n and restores it afterwards.
func withProcs(n int, f func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	f()
}

// refSectors is the hand-written reference for the global sector rule: the
// distinct 32-byte sectors that accesses of size bytes at the given byte
// addresses touch. Inactive lanes are simply absent from addrs.
func refSectors(addrs []uint64, size uint64) int64 {
	seen := map[uint64]bool{}
	for _, a := range addrs {
		for s := a / 32; s <= (a+size-1)/32; s++ {
			seen[s] = true
		}
	}
	return int64(len(seen))
}

// refWavefronts is the hand-written reference for the shared-memory rule:
// 32 banks of 4 bytes, lanes touching the same word share it, and the
// request takes as many wavefronts as its busiest bank has distinct words.
func refWavefronts(byteAddrs []uint64, size uint64) (wavefronts, ideal int64) {
	words := map[uint64]bool{}
	for _, a := range byteAddrs {
		for w := a / 4; w <= (a+size-1)/4; w++ {
			words[w] = true
		}
	}
	var perBank [32]int64
	for w := range words {
		perBank[w%32]++
	}
	for _, n := range perBank {
		wavefronts = max(wavefronts, n)
	}
	ideal = max(1, (int64(len(words))+31)/32)
	return wavefronts, ideal
}

package labtest

import "testing"

// TestFreePorts: ports taken together are distinct (taken one after
// another, the kernel may give a closed one back).
func TestFreePorts(t *testing.T) {
	ports, err := FreePorts(16)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: %d repeated or not a port", ports, p)
		}
		seen[p] = true
	}
}

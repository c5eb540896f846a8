package gpuext

import (
	"encoding/json"
	"testing"
)

// TestKindsJSON: the typed kinds marshal to the strings results and
// recorded runs have always held, and read back from them.
func TestKindsJSON(t *testing.T) {
	type rec struct {
		Backend Kind     `json:"backend"`
		Time    TimeKind `json:"time_kind"`
		Path    LoadPath `json:"path"`
	}
	for _, tc := range []struct {
		in   rec
		want string
	}{
		{rec{GPU, Measured, PathCubin}, `{"backend":"gpu","time_kind":"measured","path":"cubin"}`},
		{rec{Sim, Modeled, PathPTX}, `{"backend":"sim","time_kind":"modeled","path":"ptx"}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.in, b, err, tc.want)
		}
		var back rec
		if err := json.Unmarshal(b, &back); err != nil || back != tc.in {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
		if tc.in.Backend.String() != string(tc.in.Backend) {
			t.Errorf("String of %q", tc.in.Backend)
		}
	}
	// A map keyed by a kind writes its keys as text too.
	b, err := json.Marshal(map[TimeKind]int{Modeled: 1})
	if err != nil || string(b) != `{"modeled":1}` {
		t.Errorf("map key: %s, %v", b, err)
	}
}

package sim

import (
	"encoding/json"
	"testing"
)

// TestKindsJSON: the typed kinds write the JSON the counters always had:
// a site's space and op as strings, InstrMix's classes as object keys.
func TestKindsJSON(t *testing.T) {
	s := SiteStats{Label: "x", Space: SpaceShared, Op: OpAtom}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || back["space"] != "shared" || back["op"] != "atom" {
		t.Errorf("SiteStats JSON %s (%v)", b, err)
	}
	b, err = json.Marshal(map[InstrClass]int64{ClassMemory: 3, ClassWarp: 1})
	if err != nil || string(b) != `{"memory":3,"warp":1}` {
		t.Errorf("InstrMix JSON %s (%v)", b, err)
	}
	for c, want := range map[InstrClass]string{ClassMemory: "memory", ClassInteger: "integer", ClassFloat: "float", ClassMove: "move", ClassControl: "control", ClassWarp: "warp"} {
		if c.String() != want {
			t.Errorf("%q.String() = %q", want, c.String())
		}
	}
	// The classes the executor counts are the declared ones.
	for _, n := range instrClassNames {
		switch InstrClass(n) {
		case ClassMemory, ClassInteger, ClassFloat, ClassMove, ClassControl, ClassWarp:
		default:
			t.Errorf("the executor's class %q is not declared in kinds.go", n)
		}
	}
}

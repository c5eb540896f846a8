package cg

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
)

func TestStageResultJSON(t *testing.T) {
	_, r := solve(t, Grid{4, 5, 6}, SolveOptions{})
	r.Transfers = Transfers{H2DCalls: 1, H2DBytes: 8, D2HCalls: 2, D2HBytes: 16, TimeKind: gpuext.Modeled}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, key := range []string{`"stage":0`, `"backend":"cpu"`, `"grid":[4,5,6]`, `"iterations":149`, `"final_residual":`,
		`"true_residual":`, `"max_err":`, `"residuals":[`, `"kernels":[`, `"name":"spmv"`, `"mflops":`, `"time_kind":"measured"`,
		`"timer":"host"`, `"h2d_calls":1`, `"d2h_bytes":16`, `"launches":0`, `"wall_seconds":`} {
		if !strings.Contains(s, key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	if strings.Contains(s, `"X"`) || strings.Contains(s, `"x":`) {
		t.Errorf("the solution vector is serialized")
	}
	var back StageResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.FinalResidual != r.FinalResidual || !equalBits(back.Residuals, r.Residuals) || len(back.Kernels) != 3 || back.Transfers != r.Transfers {
		t.Errorf("round trip changed the result")
	}
}

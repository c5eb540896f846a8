package cg

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
)

func TestPlotDataAndTables(t *testing.T) {
	dev := openSim(t)
	p := testenv.Must(Generate(Grid{4, 5, 6}, GenOptions{}))(t)
	var rs []*StageResult
	for s := range Stages {
		r, err := RunStage(dev, p, s, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	bars := TimeBars(rs)
	if len(bars) != Stages || bars[0].Kind != gpuext.Measured || bars[3].Kind != gpuext.Modeled {
		t.Fatalf("bars %+v", bars)
	}
	for i, b := range bars {
		bd := rs[i].Breakdown()
		if b.KernelMs != 1e3*bd.Kernel || b.TransferMs != 1e3*bd.Transfer || b.OverheadMs != 1e3*bd.Overhead || b.KernelMs <= 0 {
			t.Errorf("bar %d %+v, breakdown %+v", i, b, bd)
		}
	}
	rows := TransfersTable(rs)
	if rows[0].Copies != 0 || rows[3].D2DCalls != 148 || rows[4].Copies != 150 || rows[4].Setup != 5 || rows[1].Launches != 150 {
		t.Errorf("transfer rows %+v", rows)
	}
	h := TransfersHTML(rs)
	if strings.Count(h, "<tr>") != Stages+1 || !strings.Contains(h, "scalar-swap") {
		t.Errorf("HTML table: %s", h)
	}
	if s := SummaryHTML(rs); strings.Count(s, "<tr>") != Stages+1 {
		t.Errorf("summary HTML: %s", s)
	}
	conv := Convergence(rs)
	if len(conv) != Stages || len(conv[5].Residuals) != 149 {
		t.Errorf("convergence series: %d", len(conv))
	}
}

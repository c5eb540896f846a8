package timefig_test

import (
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

// The figure is compared, as a picture, with testdata/timemodel_golden.png
// as plots' figures are (plots/golden_test.go says how goldens are made and
// why they draw from fixed inputs): go test ./timefig -run Golden -regen.
func TestGoldenTimeModel(t *testing.T) { cmpimg.CheckPlot(ExampleTimeModel, t, "timemodel.png") }

package timefig

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/timecheck"
)

func TestTimeModelFigure(t *testing.T) {
	runs := []timecheck.Run{
		{Lesson: "spmv", Group: "a", Half: "train", Measured: 10e-6, Modeled: 11e-6},
		{Lesson: "spmv", Group: "a", Half: "train", Measured: 40e-6, Modeled: 100e-6},
		{Lesson: "cg", Group: "b", Half: "test", Measured: 5e-6, Modeled: 5e-6},
		{Lesson: "launch", Half: "calibration", Measured: 4e-6, Modeled: 4e-6},
	}
	rep, err := timecheck.NewReport("h200", runs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := TimeModel(rep, "spmv")
	if err != nil {
		t.Fatal(err)
	}
	if want := "spmv on the H200: 1 of 2 within ±25%"; !strings.Contains(p.Title.Text, want) {
		t.Errorf("title %q lacks %q", p.Title.Text, want)
	}
	p, err = TimeModel(rep, "")
	if err != nil || !strings.Contains(p.Title.Text, "2 of 3") {
		t.Errorf("all lessons: %v, title %q", err, p.Title.Text)
	}
	if _, err := TimeModel(rep, "tiling"); err == nil {
		t.Error("a lesson with no runs drew a figure")
	}
	if _, err := TimeModelFigure("cg"); err != nil {
		t.Errorf("TimeModelFigure(cg) from the embedded check: %v", err)
	}
}

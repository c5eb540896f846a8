package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warplab/warplab/timecheck"
)

// TestTimeModelCheckFrom runs `warplab timemodel check` on the timecheck
// fixture tree with modeled times taken from an earlier report (no
// simulation): the table, the figures and the JSON come out, and a run the
// earlier report lacks is listed as not modeled.
func TestTimeModelCheckFrom(t *testing.T) {
	root := filepath.Join("..", "..", "timecheck", "testdata", "repo")
	runs, err := timecheck.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	prev := append([]timecheck.Run(nil), runs...)
	for i := range prev {
		prev[i].Modeled = prev[i].Measured * 1.1
	}
	prev = prev[1:] // the first run is missing from the earlier report
	rep, err := timecheck.NewReport("h200", prev)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	from := filepath.Join(dir, "prev.json")
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(from, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"timemodel", "check", "--root", root, "--from", from, "--json", out}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	for _, want := range []string{"not modeled: not in the earlier report", "1.10", "all        2 runs:   2 within 25% (100%)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--json: %v", err)
	}
}

func TestTimeModelUsage(t *testing.T) {
	for _, args := range [][]string{
		{"timemodel"},
		{"timemodel", "nosuch"},
		{"timemodel", "check", "--half", "middle"},
		{"timemodel", "constants", "--model", "nosuch"},
		{"timemodel", "libs"},
		{"timemodel", "libs", "--modeled", "sim.json"},
		{"timemodel", "floorcopy"},
		{"timemodel", "floorcopy", "--model", "nosuch", "."},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"timemodel", "constants", "--model", "t4"}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "not measured here") || !strings.Contains(stdout.String(), "TimedLaunch") {
		t.Errorf("constants t4: exit %d\n%s", code, stdout.String())
	}
}

// TestTimeModelLibs: a simulator run of the libs lesson and a GPU run of
// the same matrix give the held-out report; the runs swapped are refused.
func TestTimeModelLibs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, backend string, tileMs float64) string {
		p := filepath.Join(dir, name)
		js := `{"lesson":"libs","backend":"` + backend + `","device":{"name":"` + backend + `","model":"h200"},"date":"2026-12-06T00:00:00Z",` +
			`"matrices":[{"key":"road-2^14","rows":16384,"runs":[{"method":"tile","time_ms":` + strconv.FormatFloat(tileMs, 'f', -1, 64) + `,"correct":true}]}]}`
		if err := os.WriteFile(p, []byte(js), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sim, gpu := write("sim.json", "sim", 0.009), write("gpu.json", "gpu", 0.010)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"timemodel", "libs", "--modeled", sim, gpu}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"libs-road", "road-2^14", "0.90", "1 within 25%", "times from the PTX"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"timemodel", "libs", "--modeled", gpu, sim}, &stdout, &stderr); code != exitFail ||
		!strings.Contains(stderr.String(), "not the simulator") {
		t.Errorf("swapped runs: exit %d, stderr %q", code, stderr.String())
	}
}

// TestTimeModelFloorCopy: the rule's figures from launch records that time
// the copy kernels (the H100's record of 2026-12-07 with copy lines
// added: 5.575 µs a call, the spin curve's offset 2.075 µs past 5 µs, so
// 3.50 µs of GPU time); a record without them is an error that says so,
// and a copy at the floor gives no cost.
func TestTimeModelFloorCopy(t *testing.T) {
	base, err := os.ReadFile("../../evidence/timemodel-sweep-h100-2026-12-07/launch-go-sweep-r3.txt")
	if err != nil {
		t.Fatal(err)
	}
	write := func(copyUs string) string {
		dir := t.TempDir()
		text := string(base)
		if copyUs != "" {
			text = strings.Replace(text, "  spin kernel,      0 ns", "  copy of 32 floats, one warp:       "+copyUs+" us per call\n  copy of 4096 floats, 16 blocks:        6.00 us per call\n  spin kernel,      0 ns", 1)
		}
		if err := os.WriteFile(filepath.Join(dir, "launch-go-sweep.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tc := range []struct {
		name, copyUs, model string
		code                int
		want                []string
	}{
		{"over the floor", "5.575", "h100", exitOK, []string{"1 of 1 records time it, 1 over", "median: 3.500 µs", "by the rule: "}},
		{"at the floor", "3.70", "h100", exitOK, []string{"no fixed cost by the rule"}},
		{"no copy lines", "", "h100", exitFail, []string{"none of the 1 launch records"}},
		{"another GPU's records", "5.53", "h200", exitFail, []string{"none of the 0 launch records of NVIDIA H200"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"timemodel", "floorcopy", "--model", tc.model, write(tc.copyUs)}, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, code, tc.code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, out)
			}
		}
	}
}

package timecheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/warplab/warplab/sim"
)

// microbenchDir matches a recorded microbenchmark folder and captures the
// GPU's model key: evidence/timemodel-microbench-<key>-<date>, whose
// microbench.csv is the run, or evidence/timemodel-calib-<key>-<date>
// (scripts/evidence/timemodel-calib.sh: every microbenchmark of a model in
// one call), whose microbench/microbench.csv is.
var microbenchDir = regexp.MustCompile(`^timemodel-(microbench|calib)-([a-z0-9]+)-(\d{4}-\d{2}-\d{2})$`)

// newestMicrobench returns, per model key, the newest recorded
// microbench.csv under root/evidence (by the date in its folder's name).
func newestMicrobench(root string) map[string]string {
	dirs, _ := filepath.Glob(filepath.Join(root, "evidence", "timemodel-*"))
	out := map[string]string{}
	date := map[string]string{}
	for _, d := range dirs {
		m := microbenchDir.FindStringSubmatch(filepath.Base(d))
		if m == nil {
			continue
		}
		f := filepath.Join(d, "microbench.csv")
		if m[1] == "calib" {
			f = filepath.Join(d, "microbench", "microbench.csv")
		}
		if _, err := os.Stat(f); err == nil && m[3] >= date[m[2]] {
			out[m[2]], date[m[2]] = f, m[3]
		}
	}
	return out
}

// Calibrate copies the newest recorded microbenchmark run of each model
// that has one to sim/calibration/<key>.csv, after checking that it parses
// and names a known model. It returns the last copy's source and
// destination.
func Calibrate(root string) (src, dst string, err error) {
	runs := newestMicrobench(root)
	if len(runs) == 0 {
		return "", "", fmt.Errorf("no evidence/timemodel-microbench-<model>-<date>/microbench.csv under %s", root)
	}
	keys := make([]string, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, err := sim.ModelByKey(k); err != nil {
			return "", "", err
		}
		data, err := os.ReadFile(runs[k])
		if err != nil {
			return "", "", err
		}
		if _, _, err := sim.ParseMicrobench(data); err != nil {
			return "", "", fmt.Errorf("%s: %w", rel(root, runs[k]), err)
		}
		dst = filepath.Join(root, "sim", "calibration", k+".csv")
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return "", "", err
		}
		src = runs[k]
	}
	return rel(root, src), rel(root, dst), nil
}

// StaleCalibration says what differs between the recorded microbenchmark
// runs and the simulator's calibration copies ("" when they agree).
func StaleCalibration(root string) string {
	for k, f := range newestMicrobench(root) {
		want, err := os.ReadFile(f)
		if err != nil {
			return err.Error()
		}
		got, err := os.ReadFile(filepath.Join(root, "sim", "calibration", k+".csv"))
		if err != nil || !bytes.Equal(got, want) {
			return fmt.Sprintf("sim/calibration/%s.csv is not %s: run `warplab timemodel calibrate`, rebuild, and check again", k, rel(root, f))
		}
	}
	return ""
}

// TakeModeled copies modeled times from an earlier report's runs into
// runs, matching by Key; runs without a match stay unmodeled.
func TakeModeled(runs, prev []Run) {
	by := map[string]Run{}
	for _, p := range prev {
		by[p.Key()] = p
	}
	for i := range runs {
		p, ok := by[runs[i].Key()]
		if !ok {
			runs[i].Skipped = "not in the earlier report"
			continue
		}
		runs[i].Modeled, runs[i].ModeledKernel, runs[i].ModeledGPU, runs[i].Bound, runs[i].Skipped = p.Modeled, p.ModeledKernel, p.ModeledGPU, p.Bound, p.Skipped
	}
}

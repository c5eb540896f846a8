// Package evidence keeps the lessons' embedded copies of recorded GPU runs
// (lessons/*/recorded/) generated from evidence/, where every recorded run
// lives in a folder of its own. go:embed cannot reach outside a package's
// directory, so a lesson that shows a recorded run on a machine without a
// GPU must carry a copy; Copies is the one table that says which evidence
// file each copy is, so that a copy can never drift from what was measured
// (Check fails, and `go run ./internal/evidence/cmd/recorded` writes them
// again).
package evidence

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Copy is one embedded file: evidence/Run/File, copied byte for byte to
// lessons/Lesson/recorded/As.
type Copy struct {
	Lesson string // lessons/<Lesson>/recorded
	As     string // the name under recorded/, which the lesson's go:embed names
	Run    string // the evidence folder: <subject>-<gpu>-<date>
	File   string // the file in it
	What   string // one line for the generated README: what the lesson takes from it
}

// Source is the copy's evidence file, relative to the module root.
func (c Copy) Source() string { return path.Join("evidence", c.Run, c.File) }

// Dest is the copy's path relative to the module root.
func (c Copy) Dest() string { return path.Join("lessons", c.Lesson, "recorded", c.As) }

// Copies is every recorded file a lesson embeds. The copy is named after the
// run folder, so the name alone says lesson, size, GPU and date; spmv's
// Recorded takes the last name in sort order, so a newer run of the same
// subject sorts after an older one.
var Copies = []Copy{
	{Lesson: "spmv", As: "spmv-2p19-h200-2026-11-29.json", Run: "spmv-2p19-h200-2026-11-29", File: "spmv.json",
		What: "`spmv.Recorded()`: the lesson at its defaults (2^19 rows, 1,056-block probe, kernels as nvcc unrolls them), times by CUDA events; the notebook shows it where no GPU answers"},
	{Lesson: "spmv", As: "spmv-seed-2p19-h200-2026-11-29-ncu-unroll4.csv", Run: "spmv-seed-2p19-h200-2026-11-29", File: "ncu-unroll4.csv",
		What: "`spmv.NCUSeed()`: Nsight Compute's global-load requests and sectors of the lesson's kernels as nvcc compiles them, seed matrices at 2^19 rows, probe on 320 blocks"},
	{Lesson: "spmv", As: "spmv-suitesparse-unroll1-h200-2026-11-29-ncu-bayer10.csv", Run: "spmv-suitesparse-unroll1-h200-2026-11-29", File: "ncu-bayer10.csv",
		What: "`spmv.NCUSuiteSparse(\"bayer10\")`: Nsight Compute's global-load requests and sectors with `#pragma unroll 1`"},
	{Lesson: "spmv", As: "spmv-suitesparse-unroll1-h200-2026-11-29-ncu-bcsstk13.csv", Run: "spmv-suitesparse-unroll1-h200-2026-11-29", File: "ncu-bcsstk13.csv",
		What: "`spmv.NCUSuiteSparse(\"bcsstk13\")`: Nsight Compute's global-load requests and sectors with `#pragma unroll 1`"},
	{Lesson: "spmv", As: "spmv-suitesparse-unroll1-h200-2026-11-29-ncu-cryg2500.csv", Run: "spmv-suitesparse-unroll1-h200-2026-11-29", File: "ncu-cryg2500.csv",
		What: "`spmv.NCUSuiteSparse(\"cryg2500\")`: Nsight Compute's global-load requests and sectors with `#pragma unroll 1`"},
	{Lesson: "spmv", As: "spmv-suitesparse-unroll1-h200-2026-11-29-ncu-rajat01.csv", Run: "spmv-suitesparse-unroll1-h200-2026-11-29", File: "ncu-rajat01.csv",
		What: "`spmv.NCUSuiteSparse(\"rajat01\")`: Nsight Compute's global-load requests and sectors with `#pragma unroll 1`"},
	{Lesson: "tiling", As: "tiling-512-h200-2026-11-29.json", Run: "tiling-512-h200-2026-11-29", File: "tiling.json",
		What: "`tiling.Recorded()`: every lecture-4 kernel at N = 512, times by CUDA events; the JSON names the device but not driver or date, which `Recorded` adds"},
	{Lesson: "tiling", As: "tiling-ncu-256-h200-2026-11-29.csv", Run: "tiling-ncu-256-h200-2026-11-29", File: "ncu.csv",
		What: "`tiling.HardwareCounters()`: Nsight Compute's global requests and sectors, shared wavefronts and bank conflicts of every launch at N = 256"},
	{Lesson: "cg", As: "cg-100-h200-2026-11-30.json", Run: "cg-100-h200-2026-11-30", File: "cg.json",
		What: "`cg.Recorded()` stages 0–8: `warplab run cg --backend gpu --grid 100 --stage all`, stage 3's r·r copy by cuMemcpyDtoD, the binary built against CUDA 13.0's cuda.h"},
	{Lesson: "cg", As: "cg-occupancy-100-h200-2026-12-01-ncu-stage4.csv", Run: "cg-occupancy-100-h200-2026-12-01", File: "ncu-stage4.csv",
		What: "`cg.RecordedOccupancy()`: Nsight Compute's achieved occupancy and eligible warps per scheduler cycle, the first 12 solver launches of stage 4 at 100³"},
	{Lesson: "cg", As: "cg-occupancy-100-h200-2026-12-01-ncu-stage5.csv", Run: "cg-occupancy-100-h200-2026-12-01", File: "ncu-stage5.csv",
		What: "`cg.RecordedOccupancy()`: Nsight Compute's achieved occupancy and eligible warps per scheduler cycle, the first 12 solver launches of stage 5 at 100³"},
	{Lesson: "cg", As: "cg-occupancy-100-h200-2026-12-01-ncu-stage8.csv", Run: "cg-occupancy-100-h200-2026-12-01", File: "ncu-stage8.csv",
		What: "`cg.RecordedOccupancy()`: Nsight Compute's achieved occupancy and eligible warps per scheduler cycle, the first 12 solver launches of stage 8 at 100³"},
}

// Lessons returns the lessons that embed recorded files, sorted.
func Lessons() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range Copies {
		if !seen[c.Lesson] {
			seen[c.Lesson] = true
			out = append(out, c.Lesson)
		}
	}
	sort.Strings(out)
	return out
}

// readmeName is the generated index of a lesson's recorded/ folder.
const readmeName = "README.md"

// Expected returns what every lessons/<lesson>/recorded/ folder of Copies
// should hold, by path relative to root: the copies, read from root's
// evidence/, and each folder's README.md generated from the table.
func Expected(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, c := range Copies {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Source())))
		if err != nil {
			return nil, fmt.Errorf("evidence: %s (copied to %s): %w", c.Source(), c.Dest(), err)
		}
		if _, dup := out[c.Dest()]; dup {
			return nil, fmt.Errorf("evidence: two copies are named %s", c.Dest())
		}
		out[c.Dest()] = b
	}
	for _, l := range Lessons() {
		out[path.Join("lessons", l, "recorded", readmeName)] = readme(l)
	}
	return out, nil
}

// readme is lessons/<lesson>/recorded/README.md: which evidence each file is
// and where to read how it was measured.
func readme(lesson string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Recorded GPU runs of the %s lesson\n\n", lesson)
	b.WriteString("Generated by `go run ./internal/evidence/cmd/recorded` from `internal/evidence.Copies`;\n")
	b.WriteString("do not edit. Each file is a byte-for-byte copy of a file under `evidence/`\n")
	b.WriteString("(`go:embed` cannot reach outside the package); `go test ./internal/evidence`\n")
	b.WriteString("fails when a copy differs from its source. The run folder's README says the\n")
	b.WriteString("GPU, driver, date and command that produced it.\n\n")
	b.WriteString("| file | copy of | what the lesson takes from it |\n|---|---|---|\n")
	for _, c := range Copies {
		if c.Lesson == lesson {
			fmt.Fprintf(&b, "| `%s` | [`%s`](../../../evidence/%s/README.md) | %s |\n", c.As, c.Source(), c.Run, c.What)
		}
	}
	b.WriteString("\nTo embed a newer run: record it into its own folder under `evidence/`, point\n")
	b.WriteString("the lesson's entry in `Copies` at it, run the generator, and update the\n")
	b.WriteString("lesson's `go:embed` line and constants if the name changed.\n")
	return b.Bytes()
}

// Check compares root's lessons/*/recorded/ folders with Expected and
// returns one error per file that is missing, differs, or is there without
// an entry in Copies.
func Check(root string) []error {
	want, err := Expected(root)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, p := range sortedKeys(want) {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		case !bytes.Equal(got, want[p]):
			errs = append(errs, fmt.Errorf("%s differs from what evidence/ and internal/evidence.Copies give", p))
		}
	}
	extra, err := extraFiles(root, want)
	if err != nil {
		return append(errs, err)
	}
	for _, p := range extra {
		errs = append(errs, fmt.Errorf("%s is in a recorded/ folder but not in internal/evidence.Copies", p))
	}
	return errs
}

// Write makes root's lessons/*/recorded/ folders what Expected says,
// removing files that no entry of Copies produces.
func Write(root string) error {
	want, err := Expected(root)
	if err != nil {
		return err
	}
	extra, err := extraFiles(root, want)
	if err != nil {
		return err
	}
	for _, p := range extra {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			return err
		}
	}
	for _, p := range sortedKeys(want) {
		dst := filepath.Join(root, filepath.FromSlash(p))
		if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, want[p]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, want[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// extraFiles lists, relative to root, the files in the recorded/ folder of
// every lesson (any lessons/*/recorded, not only those in Copies) that want
// does not name.
func extraFiles(root string, want map[string][]byte) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "lessons", "*", "recorded"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); want[rel] == nil {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RunName is the shape of an evidence folder: a subject of lowercase words
// and numbers naming the lesson, what was run and its size, then the GPU,
// then the date (say cg-100-h200-2026-11-29).
var RunName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*-(19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]$`)

// attemptWord matches the words that named attempts in the old single
// folder (-final, -again, call-A, -after-review): a file's name says what
// it holds, and the history, not the name, says which try it was.
var attemptWord = regexp.MustCompile(`(^|[-_.])(final|again|retry|attempt|call|after-review)([-_.]|$)`)

// tryNumber splits a file name like ptx-2.json into its stem and try
// number: repeats of one measurement numbered 1, 2, 3 are attempts kept
// side by side, where a folder should keep one under a canonical name.
var tryNumber = regexp.MustCompile(`^(.+)-([1-9])(\.[^.]+)?$`)

// Runs returns the run folders under root's evidence/, sorted.
func Runs(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "evidence"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// CheckLayout returns one error per way root's evidence/ departs from its
// layout: a folder not named <subject>-<gpu>-<date> or without a README.md,
// a README that still says TODO (the script's stub), a folder
// evidence/README.md does not link, a file named like an attempt,
// a file directly in evidence/ other than the index, or a line of ncu's
// own chatter (==PROF==, which names process ids and the device machine's
// paths) in a recorded file.
func CheckLayout(root string) []error {
	var errs []error
	runs, err := Runs(root)
	if err != nil {
		return []error{err}
	}
	index, err := os.ReadFile(filepath.Join(root, "evidence", readmeName))
	if err != nil {
		return []error{fmt.Errorf("evidence/README.md, the index: %w", err)}
	}
	top, err := os.ReadDir(filepath.Join(root, "evidence"))
	if err != nil {
		return []error{err}
	}
	for _, e := range top {
		if !e.IsDir() && e.Name() != readmeName {
			errs = append(errs, fmt.Errorf("evidence/%s: every recorded file belongs in a run folder", e.Name()))
		}
	}
	for _, r := range runs {
		if !RunName.MatchString(r) {
			errs = append(errs, fmt.Errorf("evidence/%s: want <subject>-<gpu>-<yyyy-mm-dd>", r))
		}
		if !bytes.Contains(index, []byte("("+r+"/README.md)")) {
			errs = append(errs, fmt.Errorf("evidence/README.md does not link %s/README.md", r))
		}
		dir := filepath.Join(root, "evidence", r)
		switch b, err := os.ReadFile(filepath.Join(dir, readmeName)); {
		case err != nil:
			errs = append(errs, fmt.Errorf("evidence/%s has no README.md (GPU, driver, date, command, what it supports)", r))
		case bytes.Contains(b, []byte("TODO:")):
			// scripts/evidence/h200.sh leaves the claim to whoever commits the run.
			errs = append(errs, fmt.Errorf("evidence/%s/README.md still says TODO: write what the run supports", r))
		}
		err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(root, "evidence"), p)
			if attemptWord.MatchString(strings.TrimSuffix(e.Name(), path.Ext(e.Name()))) {
				errs = append(errs, fmt.Errorf("evidence/%s is named like an attempt; name it by what it holds", filepath.ToSlash(rel)))
			}
			// A numbered repeat whose first try sits beside it (x-1 and x-2).
			if m := tryNumber.FindStringSubmatch(e.Name()); m != nil && m[2] != "1" {
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), m[1]+"-1"+m[3])); err == nil {
					errs = append(errs, fmt.Errorf("evidence/%s is try %s of a repeated measurement; keep one under a canonical name (the history keeps the rest)", filepath.ToSlash(rel), m[2]))
				}
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.HasPrefix(b, []byte("==PROF==")) || bytes.Contains(b, []byte("\n==PROF==")) {
				errs = append(errs, fmt.Errorf("evidence/%s holds ncu's ==PROF== lines; strip them (scripts/evidence/h200.sh does)", filepath.ToSlash(rel)))
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

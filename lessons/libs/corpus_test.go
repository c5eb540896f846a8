package libs

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/sparse/gen"
)

// TestCorpusOnSimulator runs every sparse/gen family at 512 rows through
// Run, as `warplab run libs --families all` does, with the chooser's pick
// and the balancing methods, each output checked against the CPU
// reference; each key names its family back (Family), which the
// leave-one-family-out judgement groups by.
func TestCorpusOnSimulator(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	o := Options{SeedRows: []int{}, Families: gen.Names(), FamilyRows: []int{512},
		Methods: []string{VectorMethod(4, false), MethodBinned, MethodMerge}, CopyBytes: -1}
	res, err := Run(context.Background(), dev, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	if len(res.Matrices) != len(gen.Names()) {
		t.Fatalf("%d matrices, want one a family (%d)", len(res.Matrices), len(gen.Names()))
	}
	for i, m := range res.Matrices {
		want := gen.Names()[i]
		if m.Key != FamilyKey(want, 512) || Family(m.Key) != want {
			t.Errorf("matrix %d: key %q, family %q; want %q of family %q", i, m.Key, Family(m.Key), FamilyKey(want, 512), want)
		}
		if m.XSectors <= 0 || m.XSectors > 1 {
			t.Errorf("%s: x sectors a nonzero %v, want in (0, 1]", m.Key, m.XSectors)
		}
	}
	// The same seed gives the same matrix; another seed another one.
	a, _ := FamilyInput("powerlaw20", 4096, 1)
	b, _ := FamilyInput("powerlaw20", 4096, 1)
	c, _ := FamilyInput("powerlaw20", 4096, 2)
	if a.CSR.NNZ() != b.CSR.NNZ() || a.Want[17] != b.Want[17] {
		t.Error("seed 1 twice: different matrices")
	}
	if a.CSR.NNZ() == c.CSR.NNZ() {
		t.Error("seeds 1 and 2: the same nonzero count, want other draws")
	}
}

func TestFamily(t *testing.T) {
	for key, want := range map[string]string{
		"even-2^19": "seed", "skewed-2^23": "seed", "powerlaw20c-2^20": "powerlaw20c",
		"stencil27-2^14": "stencil27", "rajat01": "rajat01", "uniform": "uniform",
	} {
		if got := Family(key); got != want {
			t.Errorf("Family(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestValidateCorpus(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"unknown family", Options{Families: []string{"lattice"}}, "no matrix family"},
		{"family rows too few", Options{SeedRows: []int{}, Families: []string{"road"}, FamilyRows: []int{8}}, "family rows 8"},
		{"family rows too many", Options{SeedRows: []int{}, Families: []string{"road"}, FamilyRows: []int{1 << 24}}, "family rows"},
		{"families without sizes", Options{SeedRows: []int{}, Families: []string{"road"}, FamilyRows: []int{}}, "without sizes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestMaxPasses: a method whose longest row is over the limit is recorded
// as skipped with its reason, neither timed nor a failure, while the
// chooser's pick runs whatever its passes.
func TestMaxPasses(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	in, err := FamilyInput("denserows", 1024, CorpusSeed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunInputs(context.Background(), dev, []Input{in}, Options{MaxPasses: 64,
		Methods: []string{VectorMethod(2, false), VectorMethod(32, false), SplitMethod(2, false)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatal(res.Failures)
	}
	m := res.Matrices[0]
	for _, r := range m.Runs {
		// 1024-long rows: vector2 512 passes, vector32 32, split 16.
		skip := r.Method == VectorMethod(2, false) && r.Method != m.Choice.Method
		if (r.Skipped != "") != skip || skip && (r.TimeMs != 0 || !strings.Contains(r.Skipped, "512 dependent passes")) {
			t.Errorf("%s: skipped %q, time %v; want skipped %v", r.Method, r.Skipped, r.TimeMs, skip)
		}
		if !skip && (!r.Correct || r.TimeMs <= 0) {
			t.Errorf("%s: correct %v, time %v", r.Method, r.Correct, r.TimeMs)
		}
	}
}

// TestCorpusRun holds the recorded H200 corpus run (when present): every
// run correct or skipped for its passes, every matrix with a correct
// cuSPARSE line, DefaultRules equal to Fit on the whole run (so a change of
// the constants without a refit fails here), and leave-one-family-out
// machinery working on it, one judgement per matrix.
func TestCorpusRun(t *testing.T) {
	rec, err := FindCorpus()
	if errors.Is(err, ErrNotRecorded) {
		t.Skip("no corpus run: evidence/" + CorpusName + " absent")
	}
	if err != nil {
		t.Fatal(err)
	}
	if rec.Ours.Device.Name != "NVIDIA H200" || rec.Ours.Backend != "gpu" {
		t.Fatalf("corpus run on %s (%s), want the H200", rec.Ours.Device.Name, rec.Ours.Backend)
	}
	for _, m := range rec.Ours.Matrices {
		if Unseen(m.Key) {
			t.Errorf("%s: a held-out draw in the run the rules are fitted on", m.Key)
		}
		for _, r := range m.Runs {
			if !r.Correct && r.Skipped == "" {
				t.Errorf("%s %s: recorded wrong", m.Key, r.Method)
			}
		}
		if _, ok := PeerBest(rec.Peer, m.Key); !ok {
			t.Errorf("%s: no correct cuSPARSE line", m.Key)
		}
	}
	resident, err := ResidentThreadsOf(rec.Ours)
	if err != nil {
		t.Fatal(err)
	}
	if r, loss := Fit(rec.Ours.Matrices, resident); r != DefaultRules() {
		t.Errorf("Fit on the corpus run gives %v (loss %.4f); DefaultRules are %v", r, loss, DefaultRules())
	}
	hs, err := LeaveOneFamilyOut(rec.Ours, rec.Peer)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != len(rec.Ours.Matrices) {
		t.Errorf("%d judged, want %d", len(hs), len(rec.Ours.Matrices))
	}
	// The held-out draws, when the run has them: every run correct, a
	// cuSPARSE line each, and DefaultRules' picks measured.
	un, err := FindUnseen()
	if errors.Is(err, ErrNotRecorded) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range un.Ours.Matrices {
		for _, r := range m.Runs {
			if !r.Correct && r.Skipped == "" {
				t.Errorf("%s %s: recorded wrong", m.Key, r.Method)
			}
		}
		if _, ok := PeerBest(un.Peer, m.Key); !ok {
			t.Errorf("%s: no correct cuSPARSE line", m.Key)
		}
	}
	if _, err := CorpusLines(un, DefaultRules()); err != nil {
		t.Error(err)
	}
}

// TestCorpusFigure draws the recorded corpus run (when present) to SVG:
// two panels, no error.
func TestCorpusFigure(t *testing.T) {
	rec, err := FindCorpus()
	if errors.Is(err, ErrNotRecorded) {
		t.Skip("no corpus run")
	}
	if err != nil {
		t.Fatal(err)
	}
	fig, err := CorpusFigure(rec, DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 2 {
		t.Errorf("%d panels, want 2", len(fig.Panels))
	}
	if _, err := chart.SVG(fig, chart.DefaultWidth, 2*chart.DefaultHeight); err != nil {
		t.Fatal(err)
	}
}

// TestUnseenKeys: the held-out draws' keys carry their seed and the corpus's
// do not, Family and the size class read both alike, and only another
// seed's keys are Unseen.
func TestUnseenKeys(t *testing.T) {
	for _, tt := range []struct {
		family string
		rows   int
		seed   uint64
		key    string
	}{
		{"powerlaw20", 1 << 20, CorpusSeed, "powerlaw20-2^20"},
		{"powerlaw20", 1 << 20, 0, "powerlaw20-2^20"},
		{"powerlaw20c", 1 << 17, UnseenSeed, "powerlaw20c-s2-2^17"},
		{"stencil27", 1 << 20, 13, "stencil27-s13-2^20"},
		{"road", 1000, 2, "road-s2-1000"},
	} {
		key := FamilySeedKey(tt.family, tt.rows, tt.seed)
		if key != tt.key {
			t.Errorf("FamilySeedKey(%s, %d, %d) = %q, want %q", tt.family, tt.rows, tt.seed, key, tt.key)
		}
		if Family(key) != tt.family {
			t.Errorf("Family(%q) = %q, want %q", key, Family(key), tt.family)
		}
		wantSeed := tt.seed
		if wantSeed == 0 {
			wantSeed = CorpusSeed
		}
		if tt.rows == 1000 {
			wantSeed = CorpusSeed // not a power of two: "road-s2-1000" is not a draw's key
		}
		if KeySeed(key) != wantSeed || Unseen(key) != (wantSeed != CorpusSeed) {
			t.Errorf("%q: seed %d, unseen %v; want seed %d", key, KeySeed(key), Unseen(key), wantSeed)
		}
		if tt.rows == 1<<20 && SizeClass(key) != 20 {
			t.Errorf("%q: size class %d, want 20", key, SizeClass(key))
		}
	}
	for _, key := range []string{"even-2^19", "skewed-2^23", "rajat01", "powerlaw20-sx-2^20", "a-s2-b"} {
		if Unseen(key) {
			t.Errorf("Unseen(%q), want a corpus key", key)
		}
	}
	in, err := FamilyInput("road", 256, UnseenSeed)
	if err != nil || in.Key != "road-s2-2^8" {
		t.Errorf("FamilyInput(road, 256, %d): key %q, %v", UnseenSeed, in.Key, err)
	}
}

// TestLoadUnseen: one folder with a corpus batch and a held-out batch;
// LoadCorpus reads the corpus's matrices alone (what Fit, DefaultRules and
// leave one family out see), LoadUnseen the held-out ones alone, both with
// the copy reference; a folder without held-out draws is ErrNotRecorded.
func TestLoadUnseen(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, keys ...string) {
		r := &Result{Lesson: "libs", Backend: "gpu", Device: Device{Name: "NVIDIA H200", Model: "h200"}}
		if name == "libs-16384.json" {
			r.Copy = []CopyRun{{What: "copy", GBs: 4000}}
		}
		for _, k := range keys {
			r.Matrices = append(r.Matrices, MatrixResult{Key: k})
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, "cusparse.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	write("libs-16384.json", "road-2^14", "rajat01")
	if _, err := LoadUnseen(dir); !errors.Is(err, ErrNotRecorded) {
		t.Errorf("LoadUnseen without held-out draws: %v, want ErrNotRecorded", err)
	}
	write("libs-unseen.json", "road-s2-2^17", "powerlaw20-s2-2^20")
	keys := func(rec *Recorded) string {
		var ks []string
		for _, m := range rec.Ours.Matrices {
			ks = append(ks, m.Key)
		}
		return strings.Join(ks, ",")
	}
	rec, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	un, err := LoadUnseen(dir)
	if err != nil {
		t.Fatal(err)
	}
	if keys(rec) != "road-2^14,rajat01" || keys(un) != "road-s2-2^17,powerlaw20-s2-2^20" {
		t.Errorf("corpus %q, held out %q", keys(rec), keys(un))
	}
	if rec.Ours.CopyGBs() != 4000 || un.Ours.CopyGBs() != 4000 {
		t.Errorf("copy reference %v and %v, want 4000 both", rec.Ours.CopyGBs(), un.Ours.CopyGBs())
	}
}

// TestUnseenFlag: --unseen is every family at UnseenRows from UnseenSeed,
// no seed pair and no files; --rows and --seed change it, and the
// corpus's own seed, --corpus, --families or --matrix with it are refused.
func TestUnseenFlag(t *testing.T) {
	parse := func(args ...string) (Options, error) {
		fs := flag.NewFlagSet("libs", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cmd := Lesson().Flags(fs, lab.Options{})
		if err := fs.Parse(args); err != nil {
			return Options{}, err
		}
		if err := cmd.Validate(); err != nil {
			return Options{}, err
		}
		return cmd.(*cliLesson).opts, nil
	}
	o, err := parse("--unseen")
	if err != nil {
		t.Fatal(err)
	}
	if o.Seed != UnseenSeed || len(o.SeedRows) != 0 || len(o.Matrices) != 0 || !slices.Equal(o.Families, gen.Names()) || !slices.Equal(o.FamilyRows, UnseenRows) {
		t.Errorf("--unseen: seed %d, seed rows %v, files %v, families %v at %v", o.Seed, o.SeedRows, o.Matrices, o.Families, o.FamilyRows)
	}
	if o, err = parse("--unseen", "--rows", "4096", "--seed", "5"); err != nil || o.Seed != 5 || !slices.Equal(o.FamilyRows, []int{4096}) {
		t.Errorf("--unseen --rows 4096 --seed 5: %+v, %v", o, err)
	}
	if o, err = parse("--families", "road", "--seed", "3", "--no-pair", "--rows", "512"); err != nil || o.Seed != 3 {
		t.Errorf("--seed 3: seed %d, %v", o.Seed, err)
	}
	for _, args := range [][]string{
		{"--unseen", "--seed", "1"}, {"--unseen", "--corpus"}, {"--unseen", "--families", "road"},
		{"--unseen", "--matrix", "a.mtx"}, {"--seed", "x"},
	} {
		if _, err := parse(args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

package libs

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/plots/chart"
	"github.com/warplab/warplab/sparse/gen"
	"github.com/warplab/warplab/sparse/spmvref"
)

// Summary is the lesson's one line, in `warplab help` and its usage.
const Summary = `How libraries win — CSR-vector, binned and merge-path SpMV, a chooser from row statistics, against cuSPARSE`

// Lesson returns the lesson's descriptor (see package lesson): --rows,
// --matrix, --methods, --warmups, --runs, --copy-mib, --dump and --peer
// bound to an Options. The command line's default size is 2^17 rows, the
// notebook's, not Options' 2^14. Its self-test runs every method on two
// small generated matrices (selftest.go). It has no time-check cases: the
// time check covers the lessons whose runs it reads.
func Lesson() *lesson.Lesson {
	return &lesson.Lesson{
		Name: "libs",
		Doc:  Summary,
		Flags: func(fs *flag.FlagSet, env lab.Options) lesson.Command {
			l := &cliLesson{rows: "131072", warmups: 3, runs: 10, env: env}
			l.RegisterFlags(fs)
			return l
		},
		Recorded: recordedResult,
		Module:   Module,
		SelfTest: selfTest,
	}
}

// cliLesson is one run of the lesson from the command line (lesson.Command).

type cliLesson struct {
	rows, matrix, methods, dump, peer string
	families                          string
	corpus, noPair, unseen            bool
	seed                              uint64
	seedSet                           bool // --seed given on the command line
	warmups, runs, copyMiB, maxPasses int
	opts                              Options     // set by Validate
	rowsSet                           bool        // --rows given on the command line
	env                               lab.Options // the environment's switches, from the edge
}

func (l *cliLesson) RegisterFlags(fs *flag.FlagSet) {
	fs.Func("rows", `sizes (rows) of the seed pair (even, skewed; multiples of 32 from 448) and of the families, comma-separated; "none" for no seed matrices (default 2^17, the notebook's; 2^14,2^17,2^20,2^23 with --corpus)`,
		func(v string) error { l.rows, l.rowsSet = v, true; return nil })
	fs.StringVar(&l.families, "families", "", `generated matrix families (sparse/gen) to run at the --rows sizes, comma-separated, or "all": `+strings.Join(gen.Names(), ", "))
	fs.BoolVar(&l.corpus, "corpus", false, "the corpus: every family, the seed pair and the shared SuiteSparse matrices (WARPLAB_MATRICES or shared/matrices), at --rows sizes (default 2^14,2^17,2^20,2^23)")
	fs.BoolVar(&l.noPair, "no-pair", false, "leave out the seed pair (even, skewed)")
	l.seed = CorpusSeed
	fs.Func("seed", fmt.Sprintf("the families' generator seed (default %d, the corpus's; another seed: the same shapes, matrices no rule was fitted on, keyed family-s<seed>-2^k)", CorpusSeed),
		func(v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a seed (a whole number)", v)
			}
			l.seed, l.seedSet = n, true
			return nil
		})
	fs.BoolVar(&l.unseen, "unseen", false, fmt.Sprintf("the corpus's held-out draws: every family from seed %d (--seed to change) at %s rows (--rows to change), no seed pair, no files; LoadCorpus keeps them out of the chooser's fit", UnseenSeed, joinInts(UnseenRows)))
	fs.StringVar(&l.matrix, "matrix", "", "Matrix Market files to run after the seed pair and the families, comma-separated (a file named twice, or one --corpus already runs, runs once; two files of one name are refused)")
	fs.StringVar(&l.methods, "methods", "", "methods to run, comma-separated (default all; the chooser's pick always runs)")
	fs.IntVar(&l.maxPasses, "max-passes", DefaultMaxPasses, "skip (and record as skipped) a method whose longest row is more than this many dependent passes of its group; -1: no limit")
	fs.IntVar(&l.warmups, "warmups", l.warmups, "GPU warm-up runs per method")
	fs.IntVar(&l.runs, "runs", l.runs, "GPU timed runs per method")
	fs.IntVar(&l.copyMiB, "copy-mib", 0, "size of the copy reference in MiB (default 256 on a GPU; on the simulator, as many bytes read plus written as the largest seed SpMV's minimum; -1 skips it)")
	fs.StringVar(&l.dump, "dump", "", "write each matrix to DIR/<matrix>.csr for scripts/evidence/libs/cusparse_peer.cu")
	fs.StringVar(&l.peer, "peer", "", "the peer program's JSON lines: print ours against cuSPARSE, and draw cuSPARSE in the figure")
}

// splitList reads a comma-separated flag, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// MaxCopyMiB caps --copy-mib: 64 GiB, a copy of which (read and written)
// still fits the largest GPU's memory; beyond 2^43 MiB the byte count would
// not even fit int64.
const MaxCopyMiB = 64 << 10

// Validate reads the flags into Options and checks them without a device
// or a file, each error naming its flag in the command line's terms; the
// --dump folder is checked here too, being an output.
func (l *cliLesson) Validate() error {
	o := Options{SeedRows: []int{}, FamilyRows: []int{}, Matrices: splitList(l.matrix), Methods: splitList(l.methods),
		Warmups: l.warmups, Runs: l.runs, DumpDir: l.dump, Seed: l.seed, MaxPasses: l.maxPasses}
	if l.maxPasses == 0 || l.maxPasses < -1 {
		return fmt.Errorf("--max-passes %d: want a positive limit or -1 (none)", l.maxPasses)
	}
	if l.seed == 0 {
		return fmt.Errorf("--seed 0: want 1 or more (0 is Options' 'the default')")
	}
	rows := l.rows
	if l.unseen {
		switch {
		case l.corpus:
			return fmt.Errorf("--unseen with --corpus: the held-out draws are their own batch (run them apart)")
		case l.families != "" || l.matrix != "":
			return fmt.Errorf("--unseen is every family and no files: leave out --families and --matrix")
		case l.seedSet && l.seed == CorpusSeed:
			return fmt.Errorf("--unseen --seed %d: that is the corpus's own seed, the matrices the chooser is fitted on", l.seed)
		}
		if !l.seedSet {
			o.Seed = UnseenSeed
		}
		if !l.rowsSet {
			rows = joinInts(UnseenRows)
		}
	}
	noPair := l.noPair || l.unseen
	switch fams := splitList(l.families); {
	case l.corpus || l.unseen || (len(fams) == 1 && fams[0] == "all"):
		o.Families = gen.Names()
	default:
		for _, f := range fams {
			if _, err := gen.Lookup(f); err != nil {
				return fmt.Errorf("--families %q: %v", l.families, err)
			}
		}
		o.Families = fams
	}
	if l.corpus && !l.rowsSet {
		rows = joinInts(CorpusRows)
	}
	if l.corpus {
		if dir := l.env.MatricesDir(); dir != "" {
			for _, n := range spmvref.SuiteSparseNames {
				if p := filepath.Join(dir, n+".mtx"); fileExists(p) {
					o.Matrices = append(o.Matrices, p)
				}
			}
		}
	}
	if rows != "none" {
		for _, s := range splitList(rows) {
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("--rows %q: %q is not a number", rows, s)
			}
			if !noPair {
				if want := seedRowsWant(n); want != "" {
					return fmt.Errorf("--rows %q: %d: %s (the seed pair's sizes; --no-pair leaves it out)", rows, n, want)
				}
				o.SeedRows = append(o.SeedRows, n)
			}
			if len(o.Families) > 0 {
				if want := familyRowsWant(n); want != "" {
					return fmt.Errorf("--rows %q: %d: %s (the families' sizes)", rows, n, want)
				}
				o.FamilyRows = append(o.FamilyRows, n)
			}
		}
	}
	if len(o.Families) > 0 && len(o.FamilyRows) == 0 {
		return fmt.Errorf("--rows %q: the families need sizes", rows)
	}
	if len(o.SeedRows) == 0 && len(o.Matrices) == 0 && len(o.Families) == 0 {
		return fmt.Errorf("--rows %q and no --matrix: no matrices to run; give --rows sizes or --matrix files", l.rows)
	}
	if len(o.Methods) == 0 {
		o.Methods = nil
	}
	all := Methods()
	for _, m := range o.Methods {
		if !slices.Contains(all, m) {
			return fmt.Errorf("--methods %q: no method %q (methods: %s)", l.methods, m, strings.Join(all, ", "))
		}
	}
	switch {
	case l.copyMiB < -1 || l.copyMiB > MaxCopyMiB:
		return fmt.Errorf("--copy-mib %d: want -1 (no copy), 0 (the default) or a size from 1 to %d", l.copyMiB, MaxCopyMiB)
	case l.copyMiB == -1:
		o.CopyBytes = -1
	default:
		o.CopyBytes = int64(l.copyMiB) << 20
	}
	if l.warmups < 1 {
		// Options.Warmups 0 means the default, 3: 0 here would silently
		// be 3.
		return fmt.Errorf("--warmups %d: want 1 or more", l.warmups)
	}
	if l.runs < 1 {
		return fmt.Errorf("--runs %d: want 1 or more", l.runs)
	}
	if err := lesson.CheckOutputDir("--dump", o.DumpDir); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	l.opts = o
	return nil
}

func joinInts(v []int) string {
	var parts []string
	for _, n := range v {
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ",")
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// Run checks the files the flags name (the matrices, the peer's lines)
// before any kernel runs, then runs the lesson on dev.
func (l *cliLesson) Run(ctx context.Context, dev *gpuext.Device, p lesson.Progress) (lesson.Result, error) {
	o := l.opts
	for _, path := range o.Matrices {
		if err := lesson.CheckInputFile("--matrix", path); err != nil {
			return nil, err
		}
	}
	var peer []PeerRun
	if l.peer != "" {
		f, err := os.Open(l.peer)
		if err != nil {
			return nil, fmt.Errorf("--peer: %w", err)
		}
		peer, err = ReadPeer(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--peer %s: %w", l.peer, err)
		}
	}
	o.Progress = p.Stage
	res, err := Run(ctx, dev, o)
	if err != nil {
		return nil, spmvref.MatrixFlagError("--matrix", o.Matrices, err)
	}
	return &CLIResult{Result: res, Peer: peer}, nil
}

// recordedResult returns the H200 run of the refitted chooser
// (FindChosen, in evidence/) with cuSPARSE's lines from the same call,
// labelled with its GPU, driver and date.
func recordedResult() (lesson.Result, string, error) {
	rec, err := FindChosen()
	if err != nil {
		return nil, "", fmt.Errorf("%w (looked for evidence/%s here and above)", err, ChosenName)
	}
	r := rec.Ours
	return &CLIResult{Result: r, Peer: rec.Peer}, lesson.MeasuredOn(r.Device.Name, r.Driver, r.Date), nil
}

// CLIResult is a Result as the command line writes it, with the peer's
// lines when --peer gave them: the text then ends with ours against
// cuSPARSE, and the figure draws cuSPARSE's best.
type CLIResult struct {
	*Result
	Peer []PeerRun
}

// WriteText writes the lesson's tables, then ours against the peer.
func (r *CLIResult) WriteText(w io.Writer) error {
	if err := r.Result.WriteText(w); err != nil {
		return err
	}
	if r.Peer == nil {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n%s", Text(CompareTable(r.Result, r.Peer)))
	return err
}

// WriteFailures writes one line per failed check; nothing when OK.
func (r *CLIResult) WriteFailures(w io.Writer) error {
	var b strings.Builder
	for _, s := range r.Failures {
		fmt.Fprintln(&b, "FAIL:", s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFigure draws Figure (with the peer's cuSPARSE bars when it has
// them) to path, SVG or PNG by its extension.
func (r *CLIResult) WriteFigure(path string) error {
	fig, err := Figure(r.Result, r.Peer)
	if err != nil {
		return err
	}
	return chart.WriteFile(path, fig, chart.DefaultWidth, chart.DefaultHeight)
}

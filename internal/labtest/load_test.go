package labtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/nbtest"
)

// loadNotebook is the lesson every student runs in the load test.
const loadNotebook = "spmv.ipynb"

// StudentRun is one student's run in the load test. Every student has one,
// finished or not: a run that did not complete says why in Err.
type StudentRun struct {
	Name        string   `json:"name"`
	ServerReady float64  `json:"server_ready_s"` // from the class's start to the server ready
	FirstCell   float64  `json:"first_cell_s"`   // from the class's start to the first code cell's end
	Finish      float64  `json:"finish_s"`       // from the class's start to the last cell's end (0: did not finish)
	PeakRSS     int64    `json:"peak_rss_bytes"` // peak of the student's processes' summed RSS
	Err         string   `json:"error,omitempty"`
	Problems    []string `json:"problems,omitempty"` // nbtest.Check on the executed notebook
}

// ClassRun is one load test run of n students.
type ClassRun struct {
	Students     int          `json:"students"`
	Limit        float64      `json:"limit_s"`
	Runs         []StudentRun `json:"runs"`
	Wall         float64      `json:"wall_s"`
	MinAvailable int64        `json:"min_mem_available_bytes"` // the machine's MemAvailable, lowest seen
	HubRSS       int64        `json:"hub_peak_rss_bytes"`      // hub, proxy (root's processes in the hub's namespace)
	Load         []float64    `json:"loadavg_end"`
}

// TestClassroomLoad: n students (WARPLAB_LOADTEST_SIZES, default 4,8,16)
// start their servers through the hub's REST API and run the SpMV lesson at
// once, on loopback; each class run is stopped after WARPLAB_LOADTEST_LIMIT
// (default 15m). Every student's run must end in a finished notebook or a
// clear error. Results go to WARPLAB_LOADTEST_OUT (default
// artifacts/loadtest) as JSON and a Markdown table. Run by hand with
// scripts/lab/loadtest.sh, not in CI (tens of minutes).
func TestClassroomLoad(t *testing.T) {
	needLab(t)
	if os.Getenv("WARPLAB_LOADTEST") != "1" {
		t.Skip("the classroom load test is run by hand: WARPLAB_LOADTEST=1 (scripts/lab/loadtest.sh)")
	}
	sizes := []int{4, 8, 16}
	if s := os.Getenv("WARPLAB_LOADTEST_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 64 {
				t.Fatalf("WARPLAB_LOADTEST_SIZES: %q is not a class size from 1 to 64", f)
			}
			sizes = append(sizes, n)
		}
	}
	limit := 15 * time.Minute
	if s := os.Getenv("WARPLAB_LOADTEST_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || d > 15*time.Minute {
			t.Fatalf("WARPLAB_LOADTEST_LIMIT: %q is not a duration up to 15m", s)
		}
		limit = d
	}
	out := os.Getenv("WARPLAB_LOADTEST_OUT")
	if out == "" {
		out = filepath.Join(repoRoot(t), "artifacts", "loadtest")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	nbJSON, err := os.ReadFile(filepath.Join(repoRoot(t), "notebooks", loadNotebook))
	if err != nil {
		t.Fatal(err)
	}
	img := image(t, "hub")
	var all []ClassRun
	for _, n := range sizes {
		t.Run(fmt.Sprintf("%d students", n), func(t *testing.T) {
			run := classRun(t, img, n, limit, nbJSON, out)
			all = append(all, run)
			for _, r := range run.Runs {
				t.Logf("%s: ready %.0f s, first cell %.0f s, finish %.0f s, peak %.0f MiB, err %q, %d problems",
					r.Name, r.ServerReady, r.FirstCell, r.Finish, float64(r.PeakRSS)/(1<<20), r.Err, len(r.Problems))
			}
			if len(run.Runs) != n {
				t.Errorf("%d students, %d results: a notebook was lost", n, len(run.Runs))
			}
			for _, r := range run.Runs {
				if r.Finish == 0 && r.Err == "" {
					t.Errorf("%s: neither finished nor reported an error", r.Name)
				}
			}
		})
	}
	if b, err := json.MarshalIndent(all, "", "  "); err != nil {
		t.Error(err)
	} else if err := os.WriteFile(filepath.Join(out, "loadtest.json"), b, 0o644); err != nil {
		t.Error(err)
	}
	if err := os.WriteFile(filepath.Join(out, "loadtest.md"), []byte(LoadTable(all)), 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("results in %s:\n%s", out, LoadTable(all))
}

// classRun runs one class of n students on a fresh hub.
func classRun(t *testing.T, img string, n int, limit time.Duration, nbJSON []byte, out string) ClassRun {
	r := newRoot(t, img)
	ctx, cancel := context.WithTimeout(context.Background(), limit+5*time.Minute)
	defer cancel()
	hub, err := StartHub(ctx, r, NewToken())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		hub.Stop()
		_ = os.WriteFile(filepath.Join(out, fmt.Sprintf("hub-%d.log", n)), []byte(hub.Log()), 0o644)
	}()
	names := make([]string, n)
	tokens := make([]string, n)
	uids := map[int]bool{}
	uidOf := map[string]int{}
	for i := range names {
		names[i] = fmt.Sprintf("student%02d", i+1)
		if tokens[i], err = hub.AddStudent(ctx, names[i]); err != nil {
			t.Fatal(err)
		}
		uid, err := hub.UID(names[i])
		if err != nil {
			t.Fatal(err)
		}
		uids[uid], uidOf[names[i]] = true, uid
	}

	// Memory: every 2 s, each student's processes' RSS and the machine's
	// MemAvailable; the hub's own processes are root's in its namespace,
	// approximated by the hub and proxy process trees.
	runCtx, stop := context.WithTimeout(ctx, limit)
	defer stop()
	var mu sync.Mutex
	peak := map[int]int64{}
	minAvail := memAvailable()
	var hubPeak int64
	sampled := make(chan struct{})
	// The hub's children (not the unshare wrapper) are in the image's PID namespace.
	hubNS := ""
	if kids := descendants(hub.cmd.Process.Pid); len(kids) > 0 {
		hubNS = PIDNamespace(kids[len(kids)-1])
	}
	go func() {
		defer close(sampled)
		for {
			rss := RSSByUID(uids, hubNS)
			a := memAvailable()
			h := treeRSS(hub.cmd.Process.Pid)
			mu.Lock()
			for u, v := range rss {
				peak[u] = max(peak[u], v)
			}
			minAvail = min(minAvail, a)
			hubPeak = max(hubPeak, h)
			mu.Unlock()
			select {
			case <-runCtx.Done():
				return
			case <-time.After(2 * time.Second):
			}
		}
	}()

	start := time.Now()
	runs := make([]StudentRun, n)
	var wg sync.WaitGroup
	for i := range names {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runs[i] = student(runCtx, hub, names[i], tokens[i], nbJSON, start)
		}(i)
	}
	wg.Wait()
	wall := time.Since(start).Seconds()
	stop()
	<-sampled
	for i := range runs {
		runs[i].PeakRSS = peak[uidOf[names[i]]]
	}
	return ClassRun{Students: n, Limit: limit.Seconds(), Runs: runs, Wall: wall, MinAvailable: minAvail, HubRSS: hubPeak, Load: loadavg()}
}

// student is one student's session: server, kernel, every cell of the
// lesson, then the check of the executed notebook.
func student(ctx context.Context, hub *Hub, name, token string, nbJSON []byte, start time.Time) (r StudentRun) {
	r.Name = name
	since := func() float64 { return time.Since(start).Seconds() }
	if err := hub.StartServer(ctx, name, token); err != nil {
		r.Err = err.Error()
		return r
	}
	r.ServerReady = since()
	k, err := StartKernel(ctx, hub.UserURL(name), token, "gonb", "notebooks/"+loadNotebook)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer k.Shutdown(context.Background())
	kernelUp := since()
	executed, first, err := k.RunNotebook(ctx, nbJSON)
	if first > 0 {
		r.FirstCell = kernelUp + first
	}
	if err != nil {
		r.Err = err.Error()
		if ctx.Err() != nil {
			r.Err = fmt.Sprintf("stopped at the class's time limit: %v", err)
		}
		return r
	}
	r.Finish = since()
	nb, err := nbtest.Parse(executed)
	if err != nil {
		r.Err = "executed notebook does not parse: " + err.Error()
		return r
	}
	for _, p := range nbtest.Check(nb) {
		r.Problems = append(r.Problems, p.String())
	}
	return r
}

// memAvailable is the machine's MemAvailable in bytes (0 if unknown).
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0 // unreadable counts as unknown, as a missing file does
			}
			return kb << 10
		}
	}
	return 0
}

// loadavg is /proc/loadavg's three averages, or nil where it cannot be
// read (the table then leaves the load out).
func loadavg() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(b))
	var out []float64
	for _, s := range f[:min(3, len(f))] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// treeRSS sums the RSS of pid and its descendants that run as root (the
// hub, its proxy; students' processes run as the students).
func treeRSS(pid int) int64 {
	var sum int64
	for _, p := range append([]int{pid}, descendants(pid)...) {
		if u, rss, ok := procUIDRSS(p); ok && u == 0 {
			sum += rss
		}
	}
	return sum
}

// LoadTable renders the runs as the Markdown table docs/classroom.md and
// README.platform.md quote. "ran" counts notebooks whose every cell ran with
// no error output; "unmet checks" counts those of them with a problem from
// nbtest.Check (a promised number not found); "errors" counts the runs that
// did not complete, each with its reason in the JSON.
func LoadTable(runs []ClassRun) string {
	var b strings.Builder
	b.WriteString("| students | ran | unmet checks | errors | server ready (median / max) | first cell (median / max) | last cell (median / max) | peak RSS per student (median / max) | hub + proxy RSS | lowest MemAvailable | load avg at end |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range runs {
		var ready, first, fin, rss []float64
		ran, unmet, errs := 0, 0, 0
		for _, r := range c.Runs {
			if r.ServerReady > 0 {
				ready = append(ready, r.ServerReady)
			}
			if r.FirstCell > 0 {
				first = append(first, r.FirstCell)
			}
			switch {
			case r.Err != "" || r.Finish == 0:
				errs++
			default:
				ran++
				fin = append(fin, r.Finish)
				if hasErrorProblem(r.Problems) {
					errs++
					ran--
				} else if len(r.Problems) > 0 {
					unmet++
				}
			}
			rss = append(rss, float64(r.PeakRSS)/(1<<20))
		}
		fmt.Fprintf(&b, "| %d | %d | %d | %d | %s | %s | %s | %s MiB | %.0f MiB | %.1f GiB | %s |\n", c.Students, ran, unmet, errs,
			medMax(ready, " s"), medMax(first, " s"), medMax(fin, " s"), medMax(rss, ""),
			float64(c.HubRSS)/(1<<20), float64(c.MinAvailable)/(1<<30), fmtLoad(c.Load))
	}
	return b.String()
}

// hasErrorProblem reports whether a check found an error output (a cell
// that failed), as opposed to a promised number not found.
func hasErrorProblem(problems []string) bool {
	for _, p := range problems {
		if strings.Contains(p, ": error: ") || strings.HasPrefix(p, "error: ") {
			return true
		}
	}
	return false
}

// TestLoadTableFromJSON rewrites loadtest.md from a recorded loadtest.json
// (WARPLAB_LOADTEST_JSON), so the table can change shape without rerunning
// the class.
func TestLoadTableFromJSON(t *testing.T) {
	p := os.Getenv("WARPLAB_LOADTEST_JSON")
	if p == "" {
		t.Skip("set WARPLAB_LOADTEST_JSON to a loadtest.json to rewrite its loadtest.md")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var runs []ClassRun
	if err := json.Unmarshal(b, &runs); err != nil {
		t.Fatal(err)
	}
	md := LoadTable(runs)
	if err := os.WriteFile(filepath.Join(filepath.Dir(p), "loadtest.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + md)
}

// TestLoadTable: the table counts a run with an unmet check apart from one
// that did not complete or had an error output.
func TestLoadTable(t *testing.T) {
	runs := []ClassRun{{Students: 3, Runs: []StudentRun{
		{Name: "a", ServerReady: 10, FirstCell: 20, Finish: 100, PeakRSS: 500 << 20},
		{Name: "b", ServerReady: 12, FirstCell: 25, Finish: 120, PeakRSS: 600 << 20, Problems: []string{`promised output "x" not found`}},
		{Name: "c", ServerReady: 14, Err: "stopped at the class's time limit", PeakRSS: 400 << 20},
	}, HubRSS: 100 << 20, MinAvailable: 10 << 30, Load: []float64{1, 2, 3}}}
	got := LoadTable(runs)
	want := "| 3 | 2 | 1 | 1 | 12 s / 14 s | 25 s / 25 s | 120 s / 120 s | 500 / 600 MiB | 100 MiB | 10.0 GiB | 1.0 2.0 3.0 |"
	if !strings.Contains(got, want) {
		t.Errorf("LoadTable:\n%s\nwant the row\n%s", got, want)
	}
	if hasErrorProblem([]string{`promised output "x" not found`}) || !hasErrorProblem([]string{"cell 3: error: exit status 1"}) {
		t.Error("hasErrorProblem confuses an unmet promise with an error output")
	}
}

func medMax(v []float64, unit string) string {
	if len(v) == 0 {
		return "–"
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return fmt.Sprintf("%.0f%s / %.0f%s", s[len(s)/2], unit, s[len(s)-1], unit)
}

func fmtLoad(l []float64) string {
	var f []string
	for _, v := range l {
		f = append(f, strconv.FormatFloat(v, 'f', 1, 64))
	}
	return strings.Join(f, " ")
}

// descendants returns the ids of every live process below pid, from /proc.
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		if f := strings.Fields(string(stat[i+1:])); len(f) >= 2 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

package labtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// z2jh is the part of a Zero to JupyterHub values file docs/classroom.md
// must set (https://z2jh.jupyter.org, chart 4 for JupyterHub 5).
type z2jh struct {
	Hub struct {
		Config map[string]any `yaml:"config"`
	} `yaml:"hub"`
	Singleuser struct {
		Image struct {
			Name string `yaml:"name"`
			Tag  string `yaml:"tag"`
		} `yaml:"image"`
		DefaultURL string   `yaml:"defaultUrl"`
		CPU        resource `yaml:"cpu"`
		Memory     resource `yaml:"memory"`
		Profiles   []struct {
			DisplayName string         `yaml:"display_name"`
			Slug        string         `yaml:"slug"`
			Default     bool           `yaml:"default"`
			Override    map[string]any `yaml:"kubespawner_override"`
		} `yaml:"profileList"`
	} `yaml:"singleuser"`
	Cull struct {
		Enabled bool `yaml:"enabled"`
		Timeout int  `yaml:"timeout"`
	} `yaml:"cull"`
}

type resource struct {
	Guarantee any `yaml:"guarantee"`
	Limit     any `yaml:"limit"`
}

// classroomDoc returns docs/classroom.md.
func classroomDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "classroom.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// yamlBlock returns the first ```yaml fenced block after the heading.
func yamlBlock(doc, heading string) (string, error) {
	i := strings.Index(doc, heading)
	if i < 0 {
		return "", fmt.Errorf("no heading %q", heading)
	}
	rest := doc[i:]
	j := strings.Index(rest, "```yaml\n")
	if j < 0 {
		return "", fmt.Errorf("no ```yaml block after %q", heading)
	}
	body := rest[j+len("```yaml\n"):]
	k := strings.Index(body, "\n```")
	if k < 0 {
		return "", fmt.Errorf("unterminated ```yaml block after %q", heading)
	}
	return body[:k+1], nil
}

// memBytes reads a Kubernetes memory quantity ("1G", "1536M", "2Gi").
func memBytes(v any) (int64, error) {
	s := fmt.Sprint(v)
	m := regexp.MustCompile(`^([0-9.]+)\s*(Ki|Mi|Gi|K|M|G)?$`).FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("memory %q is not a quantity like 1G or 1536Mi", s)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, err
	}
	mult := map[string]float64{"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}[m[2]]
	return int64(f * mult), nil
}

// measuredPeaks reads the load test's table in the doc (LoadTable's
// format) and returns, over its rows, the largest median and the largest
// maximum of the peak RSS per student, in bytes.
func measuredPeaks(doc string) (median, maximum int64, rows int, err error) {
	re := regexp.MustCompile(`(?m)^\| (\d+) \|.*\| (\d+) / (\d+) MiB \| \d+ MiB \|`)
	for _, m := range re.FindAllStringSubmatch(doc, -1) {
		med, _ := strconv.ParseInt(m[2], 10, 64)
		mx, _ := strconv.ParseInt(m[3], 10, 64)
		median, maximum = max(median, med<<20), max(maximum, mx<<20)
		rows++
	}
	if rows == 0 {
		return 0, 0, 0, fmt.Errorf("no load-test table row (| students | … | median / max MiB | hub MiB | …)")
	}
	return median, maximum, rows, nil
}

// TestClassroomConfig: the Zero to JupyterHub configuration in
// docs/classroom.md parses as YAML, names the image, has a simulator and a
// T4 GPU profile and idle culling, and its memory guarantee and limit cover
// what the load test measured per student (the table in the same doc).
func TestClassroomConfig(t *testing.T) {
	doc := classroomDoc(t)
	block, err := yamlBlock(doc, "## Zero to JupyterHub")
	if err != nil {
		t.Fatal(err)
	}
	var cfg z2jh
	dec := yaml.NewDecoder(strings.NewReader(block))
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("docs/classroom.md's configuration: %v", err)
	}
	su := cfg.Singleuser
	if su.Image.Name == "" || su.Image.Tag == "" {
		t.Errorf("singleuser.image: name %q tag %q, want both", su.Image.Name, su.Image.Tag)
	}
	if su.DefaultURL != "/lab" && !strings.HasPrefix(su.DefaultURL, "/lab/") {
		t.Errorf("singleuser.defaultUrl %q: students use JupyterLab (/lab)", su.DefaultURL)
	}
	if su.CPU.Guarantee == nil || su.CPU.Limit == nil || su.Memory.Guarantee == nil || su.Memory.Limit == nil {
		t.Errorf("singleuser cpu and memory need a guarantee and a limit: %+v %+v", su.CPU, su.Memory)
	}
	guarantee, err := memBytes(su.Memory.Guarantee)
	if err != nil {
		t.Error(err)
	}
	limit, err := memBytes(su.Memory.Limit)
	if err != nil {
		t.Error(err)
	}
	med, mx, rows, err := measuredPeaks(doc)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("measured (%d class sizes): peak RSS per student up to %d MiB median, %d MiB max; config guarantees %d MiB, limits %d MiB",
		rows, med>>20, mx>>20, guarantee>>20, limit>>20)
	if guarantee < med {
		t.Errorf("memory guarantee %v is below the measured median peak per student, %d MiB", su.Memory.Guarantee, med>>20)
	}
	if limit < mx {
		t.Errorf("memory limit %v is below the measured largest peak per student, %d MiB: students would be killed", su.Memory.Limit, mx>>20)
	}
	if limit < guarantee {
		t.Errorf("memory limit %v below guarantee %v", su.Memory.Limit, su.Memory.Guarantee)
	}
	var sim, t4 bool
	for _, p := range su.Profiles {
		o := fmt.Sprint(p.Override)
		switch {
		case strings.Contains(o, "nvidia.com/gpu") && strings.Contains(strings.ToLower(o), "t4"):
			t4 = true
		case !strings.Contains(o, "nvidia.com/gpu"):
			sim = true
		}
	}
	if !sim || !t4 {
		t.Errorf("profileList: simulator profile %v, T4 GPU profile (nvidia.com/gpu and a T4 node selector) %v; want both", sim, t4)
	}
	if !cfg.Cull.Enabled || cfg.Cull.Timeout <= 0 {
		t.Errorf("cull: enabled %v timeout %d, want idle culling on", cfg.Cull.Enabled, cfg.Cull.Timeout)
	}
}

// TestYAMLBlockErrors: the extraction fails clearly on a doc without the
// block.
func TestYAMLBlockErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"# x\n", "no heading"},
		{"## Zero to JupyterHub\ntext\n", "no ```yaml block"},
		{"## Zero to JupyterHub\n```yaml\na: 1\n", "unterminated"},
	} {
		if _, err := yamlBlock(tc.doc, "## Zero to JupyterHub"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("yamlBlock(%q): %v, want %q", tc.doc, err, tc.want)
		}
	}
	if _, _, _, err := measuredPeaks("no table"); err == nil {
		t.Error("measuredPeaks on a doc without the table: no error")
	}
}

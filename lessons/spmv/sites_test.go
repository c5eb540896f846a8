package spmv

import (
	"regexp"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim"
)

// The parameter names LoadSites reports are spmv.cu's, in order.
func TestKernelParamsMatchSource(t *testing.T) {
	lastWord := regexp.MustCompile(`(\w+)\s*$`)
	for _, k := range KernelNames() {
		src, err := KernelSource(k)
		if err != nil {
			t.Fatal(err)
		}
		open := strings.Index(src, k+"(")
		closing := strings.Index(src[open:], ")")
		var names []string
		for _, p := range strings.Split(src[open+len(k)+1:open+closing], ",") {
			names = append(names, lastWord.FindStringSubmatch(p)[1])
		}
		if got, want := strings.Join(kernelParams(k), ","), strings.Join(names, ","); got != want {
			t.Errorf("%s: kernelParams %s, spmv.cu %s", k, got, want)
		}
	}
}

// TestLoadSites: every load of every kernel is attributed to one array;
// the groups add up to the launch's global loads; each kernel reads the
// arrays spmv.cu says it reads, and no others.
func TestLoadSites(t *testing.T) {
	seeds, err := SeedMatrices(1024)
	if err != nil {
		t.Fatal(err)
	}
	dev := openSim(t)
	for _, m := range append(seeds, irregularMatrix(1000)) {
		for _, k := range KernelNames() {
			_, l := execWith(t, dev, Module(), k, m, 16)
			sites, err := LoadSites(KernelRun{CUDAKernel: k, Stats: l.Stats})
			if err != nil {
				t.Fatal(err)
			}
			var req, sec int64
			arrays := map[string]bool{}
			for _, s := range sites {
				req += s.Requests
				sec += s.Sectors
				arrays[s.Array] = true
				if !strings.HasPrefix(s.Source, "spmv.cu:") || !strings.Contains(s.Source, s.Array+"[") {
					t.Errorf("%s on %s: %s attributed to %q", k, m.Name, s.Array, s.Source)
				}
			}
			if req != l.Stats.GlobalLoad.Requests || sec != l.Stats.GlobalLoad.Sectors {
				t.Errorf("%s on %s: sites add up to %d/%d, the launch %+v", k, m.Name, req, sec, l.Stats.GlobalLoad)
			}
			want := map[string]bool{"rowPtr": true, "colIdx": true, "val": true, "x": true}
			if k == KernelProbe {
				delete(want, "rowPtr")
			}
			if len(arrays) != len(want) {
				t.Errorf("%s on %s: loads from %v, want %v", k, m.Name, arrays, want)
			}
			for a := range want {
				if !arrays[a] {
					t.Errorf("%s on %s: no load of %s among %v", k, m.Name, a, arrays)
				}
			}
		}
	}
	// A GPU run has no sites; a label that is no load of the kernel is an
	// error, not a guess.
	if s, err := LoadSites(KernelRun{CUDAKernel: KernelProbe}); s != nil || err != nil {
		t.Errorf("GPU run: %v, %v", s, err)
	}
	la, err := parseLoadArrays(KernelProbe)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"spmv.cu:1 foo [ld.global.f32 %f1, [%rd99]]", "x ld"} {
		if _, err := la.array(KernelProbe, siteLabelled(s)); err == nil {
			t.Errorf("site %q attributed", s)
		}
	}
	if _, err := parseLoadArrays("nosuch"); err == nil {
		t.Error("parseLoadArrays(nosuch): no error")
	}
}

func siteLabelled(label string) sim.SiteStats {
	return sim.SiteStats{Label: label, Space: "global", Op: "ld", Requests: 1}
}

package cg

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSiteBytes: a site's width per lane comes from its PTX instruction's
// type and vector width, whatever the source line says, and a label without
// a PTX instruction has none.
func TestSiteBytes(t *testing.T) {
	for _, c := range []struct {
		label, where, instr string
		bytes               int
	}{
		{"cg.cu:74 sum = __dadd_rn(sum, __dmul_rn(vals[j], x[cols[j]])); [ld.global.nc.u32 %r15, [%rd48]]", "cg.cu:74", "ld.global.nc.u32 %r15, [%rd48]", 4},
		{"cg.cu:74 sum = __dadd_rn(sum, __dmul_rn(vals[j], x[cols[j]])); [ld.global.nc.f64 %fd12, [%rd31]]", "cg.cu:74", "ld.global.nc.f64 %fd12, [%rd31]", 8},
		{"cg.cu:72 const int end = rowPtr[row + 1]; [ld.global.nc.u32 %r2, [%rd27+4]]", "cg.cu:72", "ld.global.nc.u32 %r2, [%rd27+4]", 4},
		{"k.cu:9 a[i] = b[i]; [ld.global.v2.f32 {%f1, %f2}, [%rd4]]", "k.cu:9", "ld.global.v2.f32 {%f1, %f2}, [%rd4]", 8},
		{"k.cu:9 a[i] = b[i]; [ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4]]", "k.cu:9", "ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4]", 16},
		{"k.cu:3 c[i] = 1; [st.global.u8 [%rd2], %rs1]", "k.cu:3", "st.global.u8 [%rd2], %rs1", 1},
		{"k.ptx:40 ld.global.f64 %fd1, [%rd4]", "k.ptx:40", "ld.global.f64 %fd1, [%rd4]", 8}, // no line information
		{"k.ptx:41 st.shared.f32 [%r4], %f1", "k.ptx:41", "st.shared.f32 [%r4], %f1", 4},
		{"k.cu:5 if (ok) v = a[i]; [@%p1 ld.global.nc.f32 %f1, [%rd7]]", "k.cu:5", "@%p1 ld.global.nc.f32 %f1, [%rd7]", 4},
		{"k.cu:5 v = a[b[i]]; [x]", "k.cu:5 v = a[b[i]]; [x]", "", 0},
		{"vals[j]", "vals[j]", "", 0},
	} {
		where, instr := siteParts(c.label)
		if where != c.where || instr != c.instr || siteBytes(c.label) != c.bytes {
			t.Errorf("%q: where %q, instr %q, %d bytes; want %q, %q, %d", c.label, where, instr, siteBytes(c.label), c.where, c.instr, c.bytes)
		}
	}
}

// TestLoadArrays: every global load of every cg.cu kernel is traced back to
// exactly one pointer parameter, named as cg.cu names it, and the SpMVs'
// loads read the arrays their source says.
func TestLoadArrays(t *testing.T) {
	want := map[string][]string{
		kSpMVThreadPerRow:        {"cols", "rowPtr", "vals", "x"},
		kSpMVThreadPerRowUnroll1: {"cols", "rowPtr", "vals", "x"},
		kSpMVSubwarp:             {"cols", "rowPtr", "vals", "x"},
		kSpMVStencil27:           {"p"},
		kWaxpby:                  {"x", "y"},
		kDdotPartial:             {"x", "y"},
		kUpdateXRDotTo:           {"Ap", "alpha", "p", "rIn", "xIn"},
		kCgDivide:                {"den", "num"},
	}
	loads := regexp.MustCompile(`(?m)^\s*(ld\.global[^;]*;)`)
	for _, k := range regexp.MustCompile(`\.entry (\w+)\(`).FindAllStringSubmatch(Module().PTX, -1) {
		arrays, err := loadArrays(k[1])
		if err != nil {
			t.Fatalf("%s: %v", k[1], err)
		}
		// Every ld.global of the kernel has a name.
		body := Module().PTX[strings.Index(Module().PTX, k[0]):]
		if e := strings.Index(body[1:], ".entry "); e > 0 {
			body = body[:e+1]
		}
		if n := len(loads.FindAllString(body, -1)); n != len(arrays) {
			t.Errorf("%s: %d global loads, %d with an array", k[1], n, len(arrays))
		}
		if w, ok := want[k[1]]; ok {
			names := slices.Sorted(maps.Keys(setOf(slices.Collect(maps.Values(arrays)))))
			if !slices.Equal(names, w) {
				t.Errorf("%s reads %v, want %v", k[1], names, w)
			}
		}
	}
	if _, err := loadArrays("noSuchKernel"); err == nil {
		t.Error("loadArrays of a kernel cg.ptx lacks: no error")
	}
}

func setOf(v []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range v {
		m[s] = true
	}
	return m
}

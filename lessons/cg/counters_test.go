package cg

import "testing"

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
		{"vals[j]", "vals[j]", "", 0},
	} {
		where, instr := siteParts(c.label)
		if where != c.where || instr != c.instr || siteBytes(c.label) != c.bytes {
			t.Errorf("%q: where %q, instr %q, %d bytes; want %q, %q, %d", c.label, where, instr, siteBytes(c.label), c.where, c.instr, c.bytes)
		}
	}
}

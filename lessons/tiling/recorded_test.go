package tiling

import (
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
)

// The recorded run is the H200's at N = 512: labeled with GPU, driver and
// date, every kernel the lesson times, each measured, correct and
// bit-identical, with no simulator counters.
func TestRecorded(t *testing.T) {
	r, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	if r.Backend != "gpu" || r.Device.Name != "NVIDIA H200" || r.Device.SMs != 132 || r.Device.CC != "9.0" {
		t.Errorf("device: backend %q, %+v", r.Backend, r.Device)
	}
	if r.Driver != "580.159.04" || r.Date != "2026-11-29" {
		t.Errorf("label: driver %q, date %q", r.Driver, r.Date)
	}
	if r.Options.N != 512 || len(r.Failures) != 0 {
		t.Errorf("N = %d, failures %q", r.Options.N, r.Failures)
	}
	want := []string{KMatmulNaive, KMatmulTiled, "matmulTiledCoarse4", KTransposeNaive, KTransposeShared, KTransposeSharedPadded,
		KDenseRowCount, KDenseToCSR, KSpMVThread, KSpMVWarp, KSpMVWarpShfl}
	if len(r.Runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(r.Runs), len(want))
	}
	for i, k := range r.Runs {
		if k.Kernel != want[i] || k.N != 512 {
			t.Errorf("run %d: %s at N = %d, want %s at 512", i, k.Kernel, k.N, want[i])
		}
		if k.TimeKind != gpuext.Measured || !(k.TimeMs > 0) || !k.Correct || !k.BitIdentical {
			t.Errorf("%s: time %v ms (%s), correct %v, bits %v", k.Kernel, k.TimeMs, k.TimeKind, k.Correct, k.BitIdentical)
		}
		if k.Requests != nil || k.SharedWavefronts != nil || k.Stats != nil {
			t.Errorf("%s: a GPU run has no simulator counters", k.Kernel)
		}
	}
	// Two times from the JSON, to the digit (evidence/tiling-512-h200-2026-11-29/README.md: 0.0584 and 0.0043 ms).
	if got := r.Runs[0].TimeMs; got != 0.05842559933662415 {
		t.Errorf("matmulNaive time %v ms", got)
	}
	if got := r.Runs[4].TimeMs; got != 0.004300799965858459 {
		t.Errorf("transposeShared time %v ms", got)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "measured on NVIDIA H200, driver 580.159.04, 2026-11-29") {
		t.Errorf("text lacks the GPU/driver/date label:\n%s", b.String())
	}
}

// Every ncu counter of the eleven kernels at N = 256, a few to the unit.
func TestHardwareCounters(t *testing.T) {
	hw, err := HardwareCounters()
	if err != nil {
		t.Fatal(err)
	}
	if len(hw) != 11 {
		t.Fatalf("%d kernels, want 11", len(hw))
	}
	byKernel := map[string]HWCounters{}
	for _, c := range hw {
		if c.N != 256 || c.Source != "ncu, NVIDIA H200, driver 580.159.04, 2026-11-29, N=256" {
			t.Errorf("%s: N = %d, source %q", c.Kernel, c.N, c.Source)
		}
		byKernel[c.Kernel] = c
	}
	if hw[0].Kernel != KMatmulNaive || hw[10].Kernel != KSpMVWarpShfl {
		t.Errorf("order: first %s, last %s; want launch order", hw[0].Kernel, hw[10].Kernel)
	}
	for _, tc := range []struct {
		kernel, what string
		got          func(HWCounters) int64
		want         int64
	}{
		{KTransposeShared, "bank conflicts", func(c HWCounters) int64 { return c.BankConflicts }, 63488},
		{KTransposeShared, "shared wavefronts", func(c HWCounters) int64 { return c.SharedWavefronts }, 67584},
		{KTransposeSharedPadded, "bank conflicts", func(c HWCounters) int64 { return c.BankConflicts }, 0},
		{KTransposeSharedPadded, "shared wavefronts", func(c HWCounters) int64 { return c.SharedWavefronts }, 4096},
		{KTransposeNaive, "store sectors", func(c HWCounters) int64 { return c.StoreSectors }, 65536},
		{KTransposeNaive, "store requests", func(c HWCounters) int64 { return c.StoreRequests }, 2048},
		{KMatmulNaive, "load requests", func(c HWCounters) int64 { return c.LoadRequests }, 1048576},
		{KMatmulTiled, "load sectors", func(c HWCounters) int64 { return c.LoadSectors }, 262144},
		{KDenseToCSR, "store sectors", func(c HWCounters) int64 { return c.StoreSectors }, 28726},
		{KSpMVThread, "load requests", func(c HWCounters) int64 { return c.LoadRequests }, 2400},
		{KSpMVThread, "load sectors", func(c HWCounters) int64 { return c.LoadSectors }, 35486},
		{KSpMVWarpShfl, "shared wavefronts", func(c HWCounters) int64 { return c.SharedWavefronts }, 0},
	} {
		c, ok := byKernel[tc.kernel]
		if !ok {
			t.Errorf("%s missing", tc.kernel)
			continue
		}
		if got := tc.got(c); got != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.kernel, tc.what, got, tc.want)
		}
	}
}

// ncuRow writes one row of ncu's CSV.
func ncuRow(id, kernel, metric, value string) string {
	return `"` + id + `","1","p","h","` + kernel + `","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","s","` + metric + `","","` + value + `"` + "\n"
}

const ncuHeader = `"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n"

// ncuLaunch writes every metric HardwareCounters reads for one launch, each
// with value v, except the ones in override.
func ncuLaunch(id, kernel, v string, override map[string]string) string {
	var b strings.Builder
	for _, m := range []string{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
		"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
		"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"} {
		val, ok := override[m]
		if !ok {
			val = v
		}
		if val == "-" {
			continue // leave the metric out
		}
		b.WriteString(ncuRow(id, kernel, m, val))
	}
	return b.String()
}

// Bad or inconsistent CSV is an error that names the problem, never a panic
// or a silently wrong number.
func TestParseHWCounters(t *testing.T) {
	const wave = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
	for _, tc := range []struct {
		name, csv, wantErr string
	}{
		{"empty", "", ""},
		{"header only", ncuHeader, "no kernel launches"},
		{"missing metric", ncuHeader + ncuLaunch("0", "k", "1", map[string]string{wave: "-"}), "has no " + wave},
		{"fraction", ncuHeader + ncuLaunch("0", "k", "1", map[string]string{wave: "1.5"}), "is not a count"},
		{"launches disagree", ncuHeader + ncuLaunch("0", "k", "1", nil) + ncuLaunch("1", "k", "2", nil), "should count the same"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseHWCounters([]byte(tc.csv), "test.csv", 8, "test")
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not say %q", err, tc.wantErr)
			}
		})
	}
	// Two agreeing launches of one kernel and one of another: two rows, in
	// launch order, shared and conflict metrics summed over loads and stores.
	csv := ncuHeader + ncuLaunch("0", "b", "3", nil) + ncuLaunch("1", "b", "3", nil) + ncuLaunch("2", "a", "1", nil)
	hw, err := parseHWCounters([]byte(csv), "test.csv", 8, "src")
	if err != nil {
		t.Fatal(err)
	}
	want := []HWCounters{
		{Kernel: "b", N: 8, LoadRequests: 3, LoadSectors: 3, StoreRequests: 3, StoreSectors: 3, SharedWavefronts: 6, BankConflicts: 6, Source: "src"},
		{Kernel: "a", N: 8, LoadRequests: 1, LoadSectors: 1, StoreRequests: 1, StoreSectors: 1, SharedWavefronts: 2, BankConflicts: 2, Source: "src"},
	}
	if len(hw) != len(want) || hw[0] != want[0] || hw[1] != want[1] {
		t.Errorf("got %+v\nwant %+v", hw, want)
	}
}

package ncu

import (
	"strings"
	"testing"
)

const sample = `GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)
==PROF== Connected to process 1
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1","p","h","probe(const int *, float)","1","7","(256, 1, 1)","(320, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","786,432"
"0","1","p","h","probe(const int *, float)","1","7","(256, 1, 1)","(320, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","2,883,576"
"1","1","p","h","probe(const int *, float)","1","7","(256, 1, 1)","(320, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","786,432"
"2","1","p","h","other(int)","1","7","(256, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_pipe_lsu_wavefronts_mem_lg.sum","","n/a"
`

func TestRead(t *testing.T) {
	ls, err := Read(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	// The program's own lines before the header may be JSON, whose quotes
	// read as CSV open a field that swallowed the header (libs' cuSPARSE
	// peer prints a JSON line per run).
	jsonFirst := `{"matrix":"banded-2^20","alg":"CUSPARSE_SPMV_ALG_DEFAULT","mean_ms":242.3,"correct":true}` + "\n" + sample
	if ls2, err := Read(strings.NewReader(jsonFirst)); err != nil || len(ls2) != len(ls) {
		t.Errorf("after a JSON line: %d launches, %v; want %d", len(ls2), err, len(ls))
	}
	if len(ls) != 3 || ls[0].Kernel != "probe" || ls[2].Kernel != "other" {
		t.Fatalf("launches %+v", ls)
	}
	if v, ok := ls[0].Metric(LoadSectors); !ok || v != 2883576 {
		t.Errorf("sectors %v %v", v, ok)
	}
	if _, ok := ls[2].Metric("l1tex__data_pipe_lsu_wavefronts_mem_lg.sum"); ok {
		t.Error("n/a read as a number")
	}
	g := Groups(ls)
	if len(g) != 2 || len(g[0]) != 2 || len(g[1]) != 1 {
		t.Errorf("groups %v", g)
	}
}

func TestReadErrors(t *testing.T) {
	for _, in := range []string{"", "no csv here\n", `"ID","Process ID","a","b","c","d","e","f","g","h","i","j"` + "\n"} {
		if _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

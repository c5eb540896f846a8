package libs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/sparse"
)

// TestWriteCSRLayout reads a written file back field by field, in the
// order and widths cusparse_peer.cu's readCsr expects.
func TestWriteCSRLayout(t *testing.T) {
	if !littleEndianHost() {
		t.Fatal("big-endian host: WriteCSR's raw bytes would not be little-endian")
	}
	in := NewInput("tiny", &sparse.CSR{Rows: 3, Cols: 4, RowPtr: []int32{0, 2, 2, 3},
		ColIdx: []int32{0, 3, 1}, Val: []float32{2, -1, 5}})
	var b bytes.Buffer
	if err := WriteCSR(&b, in); err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b.Bytes())
	magic := make([]byte, 8)
	r.Read(magic)
	if string(magic) != CSRMagic {
		t.Fatalf("magic %q", magic)
	}
	var dims [3]int64
	binary.Read(r, binary.LittleEndian, &dims)
	if dims != [3]int64{3, 4, 3} {
		t.Fatalf("dims %v", dims)
	}
	rowPtr, col := make([]int32, 4), make([]int32, 3)
	val, x, want, scale := make([]float32, 3), make([]float32, 4), make([]float32, 3), make([]float32, 3)
	for _, v := range []any{rowPtr, col, val, x, want, scale} {
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	if r.Len() != 0 {
		t.Errorf("%d bytes left over", r.Len())
	}
	// x[c] = c%13+1: row 0 is 2·1 + (-1)·4 = -2, scale 2 + 4 = 6.
	if want[0] != -2 || scale[0] != 6 || want[1] != 0 || want[2] != 10 || x[3] != 4 {
		t.Errorf("want %v scale %v x %v", want, scale, x)
	}
	if len(b.Bytes()) != 8+24+4*4+3*4+3*4+4*4+3*4+3*4 {
		t.Errorf("file is %d bytes", len(b.Bytes()))
	}
}

func TestReadPeer(t *testing.T) {
	good := `{"matrix":"even-2^19","alg":"CUSPARSE_SPMV_ALG_DEFAULT","mean_ms":0.05,"min_ms":0.049,"prep_ms":0.3,"bytes":0,"max_rel_err":1e-07,"correct":true,"gpu":"G","driver":13000,"cusparse":12600}
# a comment

{"matrix":"","alg":"memcpy","mean_ms":0.2,"min_ms":0.2,"prep_ms":0,"bytes":268435456,"max_rel_err":0,"correct":true,"gpu":"G","driver":13000,"cusparse":12600}
`
	tests := []struct {
		name, in, wantErr string
		n                 int
	}{
		{"two lines", good, "", 2},
		{"empty", "", "", 0},
		{"not json", good + "garbage\n", "line 5", 0},
		{"no alg", `{"matrix":"x"}` + "\n", "line 1: no alg", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadPeer(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != tt.n {
				t.Fatalf("%d runs, %v; want %d", len(got), err, tt.n)
			}
		})
	}
	runs, err := ReadPeer(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if g := PeerCopyGBs(runs); math.Abs(g-2*268435456/0.2e-3/1e9) > 1e-6 {
		t.Errorf("PeerCopyGBs = %v", g)
	}
	if p, ok := PeerBest(runs, "even-2^19"); !ok || p.MeanMs != 0.05 {
		t.Errorf("PeerBest = %+v, %v", p, ok)
	}
}

// TestLoadRecorded: no folder is ErrNotRecorded; a folder with both files
// loads; a malformed libs.json is an error, not "not recorded".
func TestLoadRecorded(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadRecorded(filepath.Join(dir, "none")); !errors.Is(err, ErrNotRecorded) {
		t.Errorf("missing folder: %v", err)
	}
	res := &Result{Lesson: "libs", Backend: "gpu", Matrices: []MatrixResult{{Key: "even-2^19", MinBytes: 1e6,
		Choice: Choice{Method: "vector4_v4"}, Runs: []KernelRun{{Method: "vector4_v4", TimeMs: 0.04, Correct: true}}}}}
	var b bytes.Buffer
	res.WriteJSON(&b)
	os.WriteFile(filepath.Join(dir, "libs.json"), b.Bytes(), 0o644)
	if _, err := LoadRecorded(dir); !errors.Is(err, ErrNotRecorded) {
		t.Errorf("no cusparse.jsonl: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "cusparse.jsonl"), []byte(`{"matrix":"even-2^19","alg":"CUSPARSE_SPMV_CSR_ALG2","mean_ms":0.05,"correct":true}`+"\n"), 0o644)
	rec, err := LoadRecorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	tab := CompareTable(rec.Ours, rec.Peer)
	if len(tab.Rows) != 1 || tab.Rows[0][len(tab.Rows[0])-1] != "at or above cuSPARSE" || tab.Rows[0][8] != "0.80×" {
		t.Errorf("compare row %v", tab.Rows)
	}
	os.WriteFile(filepath.Join(dir, "libs.json"), []byte("{"), 0o644)
	if _, err := LoadRecorded(dir); err == nil || errors.Is(err, ErrNotRecorded) {
		t.Errorf("malformed libs.json: %v", err)
	}
}

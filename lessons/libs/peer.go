package libs

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// CSRMagic starts every file WriteCSR writes; the peer program checks it.
const CSRMagic = "WLCSR01\x00"

// WriteCSR writes in as the peer program (scripts/evidence/libs/
// cusparse_peer.cu) reads it, all little-endian: the 8-byte CSRMagic; rows,
// cols and nnz as int64; rowPtr (rows+1 int32), colIdx (nnz int32), val
// (nnz float32), x (cols float32); then the CPU reference y and the row
// scales (rows float32 each), so that the peer checks cuSPARSE's output with
// the lesson's own Tolerance. The same bytes our kernels run on, so the two
// are timed on identical inputs.
func WriteCSR(w io.Writer, in Input) error {
	if !littleEndianHost() {
		return errors.New("libs: WriteCSR writes the host's bytes, and this host is big-endian")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	c := in.CSR
	if _, err := bw.WriteString(CSRMagic); err != nil {
		return err
	}
	if err := binary.Write(bw, binary.LittleEndian, [3]int64{int64(c.Rows), int64(c.Cols), int64(c.NNZ())}); err != nil {
		return err
	}
	for _, v := range [][]byte{raw(c.RowPtr), raw(c.ColIdx), raw(c.Val), raw(in.X), raw(in.Want), raw(in.Scale)} {
		if _, err := bw.Write(v); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// raw is s's memory as bytes, without a copy: a 2^23-row matrix is over a
// gigabyte, and encoding it element by element took seconds. The bytes are
// the host's order, little-endian on every machine Go and CUDA share here
// (amd64, arm64); littleEndianHost is checked by the test.
func raw[T int32 | float32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4)
}

// littleEndianHost reports whether this machine stores the low byte first.
func littleEndianHost() bool {
	v := uint16(1)
	return *(*byte)(unsafe.Pointer(&v)) == 1
}

// WriteCSRFile writes in to dir/<key>.csr.
func WriteCSRFile(dir string, in Input) (string, error) {
	p := filepath.Join(dir, in.Key+".csr")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	if err := WriteCSR(f, in); err != nil {
		f.Close()
		return "", fmt.Errorf("libs: writing %s: %w", p, err)
	}
	return p, f.Close()
}

// PeerRun is one line of the peer program's output: cusparseSpMV with one
// algorithm on one matrix, or (Alg "memcpy") the device-to-device copy.
type PeerRun struct {
	Matrix    string  `json:"matrix"`
	Alg       string  `json:"alg"` // "CUSPARSE_SPMV_ALG_DEFAULT" | "CUSPARSE_SPMV_CSR_ALG2" | "memcpy"
	MeanMs    float64 `json:"mean_ms"`
	MinMs     float64 `json:"min_ms"`
	PrepMs    float64 `json:"prep_ms"` // buffer size query + preprocess, CUDA events
	Bytes     int64   `json:"bytes"`   // memcpy only
	MaxRelErr float64 `json:"max_rel_err"`
	Correct   bool    `json:"correct"`
	GPU       string  `json:"gpu"`
	Driver    int     `json:"driver"`   // cudaDriverGetVersion
	CUSPARSE  int     `json:"cusparse"` // cusparseGetVersion
}

// ReadPeer reads the peer program's JSON lines; a malformed line is an
// error naming its line number.
func ReadPeer(r io.Reader) ([]PeerRun, error) {
	var out []PeerRun
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var p PeerRun
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, fmt.Errorf("libs: peer output line %d: %w", n, err)
		}
		if p.Alg == "" {
			return nil, fmt.Errorf("libs: peer output line %d: no alg", n)
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// Recorded is a GPU run recorded in evidence/: our lesson's JSON and the
// peer's lines from the same device call, and the folder's README.
type Recorded struct {
	Dir    string
	Ours   *Result
	Peer   []PeerRun
	README string
}

// RecordedName is the evidence folder of the first H200 run (03:17 UTC):
// every method timed on every matrix with the chooser of the time, the run
// MergeCost was fitted on. The notebook's fit, repick, model-check and
// preparation sections read it.
const RecordedName = "libs-spmv-h200-2026-12-01"

// ChosenName is the evidence folder of the H200 run of the refitted
// chooser (04:04 UTC, same script): the run the notebook's "ours against
// cuSPARSE" table reads, because its picks are today's and were timed, not
// re-read off the first run.
const ChosenName = "libs-spmv-chosen-h200-2026-12-01"

// ErrNotRecorded says the H200 run has not been recorded yet.
var ErrNotRecorded = errors.New("libs: no recorded GPU run in evidence/ yet (scripts/evidence/libs.sh has not been recorded)")

// LoadRecorded reads dir/libs.json and dir/cusparse.jsonl. A missing
// folder or file is ErrNotRecorded; a malformed one is an error.
func LoadRecorded(dir string) (*Recorded, error) {
	rec := &Recorded{Dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, "libs.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotRecorded
	}
	if err != nil {
		return nil, err
	}
	rec.Ours = &Result{}
	if err := json.Unmarshal(b, rec.Ours); err != nil {
		return nil, fmt.Errorf("libs: %s/libs.json: %w", dir, err)
	}
	if err := rec.readPeerAndREADME(dir); errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotRecorded
	} else if err != nil {
		return nil, err
	}
	return rec, nil
}

// readPeerAndREADME reads a recorded folder's cuSPARSE lines
// (cusparse.jsonl; its absence is os.ErrNotExist) and its README, if any.
func (rec *Recorded) readPeerAndREADME(dir string) error {
	f, err := os.Open(filepath.Join(dir, "cusparse.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	if rec.Peer, err = ReadPeer(f); err != nil {
		return err
	}
	if readme, err := os.ReadFile(filepath.Join(dir, "README.md")); err == nil {
		rec.README = string(readme)
	}
	return nil
}

// FindRecorded looks for evidence/RecordedName in the working directory
// and the directories above it (a notebook runs in notebooks/); where there
// is none, the folder fallback names (a device call's output not yet
// recorded: lab.Options.LibsRecorded, WARPLAB_LIBS_RECORDED read at the
// edge), if set.
func FindRecorded(fallback string) (*Recorded, error) {
	rec, err := findRecorded()
	if errors.Is(err, ErrNotRecorded) && fallback != "" {
		return LoadRecorded(fallback)
	}
	return rec, err
}

func findRecorded() (*Recorded, error) { return findEvidence(RecordedName, LoadRecorded) }

// FindChosen looks for evidence/ChosenName in the working directory and the
// directories above it, as FindRecorded does (without an environment
// fallback: the run is recorded).
func FindChosen() (*Recorded, error) { return findEvidence(ChosenName, LoadRecorded) }

// findEvidence loads evidence/name with load from the nearest directory at
// or above the working directory that has it; none is ErrNotRecorded.
func findEvidence(name string, load func(dir string) (*Recorded, error)) (*Recorded, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		cand := filepath.Join(dir, "evidence", name)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return load(cand)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, ErrNotRecorded
		}
		dir = parent
	}
}

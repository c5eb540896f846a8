// Package ncu reads the CSV that Nsight Compute writes with
// `ncu --csv --metrics ...`, so that tests can hold the simulator's counters
// to the hardware's, as recorded under evidence/.
package ncu

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Launch is one profiled kernel launch: its kernel name (without the
// parameter list) and its metric values by metric name.
type Launch struct {
	ID      int
	Kernel  string
	Metrics map[string]float64
}

// Metric returns metric m, and false when the launch has no number for it.
func (l Launch) Metric(m string) (float64, bool) {
	v, ok := l.Metrics[m]
	return v, ok
}

// Read parses ncu's CSV (one row per launch and metric), skipping the
// lines the profiled program and ncu itself printed before the header.
func Read(r io.Reader) ([]Launch, error) {
	// The lines before the header are the program's, not CSV: a JSON line
	// read as CSV opens a quoted field that can swallow the header, so the
	// reader starts at the header's line.
	all, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("ncu: %w", err)
	}
	skipped := 0
	for len(all) > 0 && !bytes.HasPrefix(all, []byte(`"ID",`)) && !bytes.HasPrefix(all, []byte("ID,")) {
		i := bytes.IndexByte(all, '\n')
		if i < 0 {
			all = nil
			break
		}
		all = all[i+1:]
		skipped++
	}
	cr := csv.NewReader(bytes.NewReader(all))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	var (
		col    map[string]int
		out    []Launch
		byID   = map[int]int{}
		lineNo = skipped // records before the header, counted as lines
	)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		lineNo++
		if err != nil {
			return nil, fmt.Errorf("ncu: record %d: %w", lineNo, err)
		}
		if col == nil {
			if len(rec) > 10 && rec[0] == "ID" {
				col = map[string]int{}
				for i, h := range rec {
					col[h] = i
				}
				for _, need := range []string{"ID", "Kernel Name", "Metric Name", "Metric Value"} {
					if _, ok := col[need]; !ok {
						return nil, fmt.Errorf("ncu: header has no %q column", need)
					}
				}
			}
			continue
		}
		if len(rec) <= col["Metric Value"] {
			continue
		}
		id, err := strconv.Atoi(rec[col["ID"]])
		if err != nil {
			return nil, fmt.Errorf("ncu: record %d: launch id %q: %v", lineNo, rec[col["ID"]], err)
		}
		i, ok := byID[id]
		if !ok {
			name, _, _ := strings.Cut(rec[col["Kernel Name"]], "(")
			out = append(out, Launch{ID: id, Kernel: strings.TrimSpace(name), Metrics: map[string]float64{}})
			i = len(out) - 1
			byID[id] = i
		}
		v := strings.ReplaceAll(rec[col["Metric Value"]], ",", "")
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[i].Metrics[rec[col["Metric Name"]]] = f
		}
	}
	if col == nil {
		return nil, fmt.Errorf("ncu: no CSV header (ID, Kernel Name, ...) found")
	}
	return out, nil
}

// ReadFile is Read on a file.
func ReadFile(path string) ([]Launch, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Groups splits launches into runs of consecutive launches of one kernel:
// a lesson launches each kernel several times in a row (checked run,
// warm-ups, timed runs), and every launch of a run counts the same.
func Groups(ls []Launch) [][]Launch {
	var g [][]Launch
	for _, l := range ls {
		if n := len(g); n > 0 && g[n-1][0].Kernel == l.Kernel {
			g[n-1] = append(g[n-1], l)
			continue
		}
		g = append(g, []Launch{l})
	}
	return g
}

// Metric names the lessons compare.
const (
	LoadRequests  = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
	LoadSectors   = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
	StoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
	StoreSectors  = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
	SharedLdWaves = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
	SharedStWaves = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
	SharedLdConfl = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
	SharedStConfl = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
	Instructions  = "smsp__inst_executed.sum"
	DurationNs    = "gpu__time_duration.sum"
	DRAMReadBytes = "dram__bytes_read.sum"
	L2ReadSectors = "lts__t_sectors_srcunit_tex_op_read.sum"
)

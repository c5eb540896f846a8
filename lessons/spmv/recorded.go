package spmv

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// recordedRuns holds copies of the committed GPU runs (evidence/*/spmv.json),
// because a notebook on a machine without a GPU shows those, labeled with
// GPU, driver and date, instead of pretending to measure. The copies are
// generated (go run ./internal/evidence/cmd/recorded) and checked (go test
// ./internal/evidence) from internal/evidence.Copies.
//
//go:embed recorded
var recordedRuns embed.FS

// Recorded returns the newest recorded GPU run of the lesson (the JSON that
// `warplab run spmv --backend gpu --json` wrote, copied into recorded/ and
// named after its evidence folder, <subject>-<gpu>-<date>). Its
// times are measured, on the GPU and driver it names, on the date it names;
// nothing in it ran now.
func Recorded() (*Result, error) {
	entries, err := fs.ReadDir(recordedRuns, "recorded")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, errors.New("spmv: no recorded GPU run is embedded yet (lessons/spmv/recorded/ holds no .json)")
	}
	sort.Strings(names) // named by GPU and date; the last is the newest
	name := names[len(names)-1]
	data, err := recordedRuns.ReadFile(path.Join("recorded", name))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("spmv: recorded run %s: %w", name, err)
	}
	if r.Backend != gpuext.GPU {
		return nil, fmt.Errorf("spmv: recorded run %s has backend %q, not a GPU's", name, r.Backend)
	}
	return &r, nil
}

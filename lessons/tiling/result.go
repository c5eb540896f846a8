package tiling

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// Device describes where a result was computed.
type Device struct {
	Name  string      `json:"name"`
	Kind  gpuext.Kind `json:"kind"`
	Model string      `json:"model"`
	SMs   int         `json:"sms"`
	CC    string      `json:"cc"`
}

// KernelRun is one kernel launch of the lesson at full size. Counters are the
// simulator's (null on a GPU, where Nsight Compute is the instrument).
type KernelRun struct {
	Kernel string `json:"kernel"`
	N      int    `json:"n"`
	Tile   int    `json:"tile"`
	Coarse int    `json:"coarse"`

	// Global memory: requests and 32-byte sectors, loads and stores together,
	// and each direction on its own.
	Requests      *int64 `json:"requests"`
	Sectors       *int64 `json:"sectors"`
	LoadRequests  *int64 `json:"load_requests"`
	LoadSectors   *int64 `json:"load_sectors"`
	StoreRequests *int64 `json:"store_requests"`
	StoreSectors  *int64 `json:"store_sectors"`
	// ElementLoads is the number of float loads from global memory (active
	// lanes summed over the load sites of A and B for matmul).
	ElementLoads *int64 `json:"element_loads"`
	// Shared memory, loads and stores together.
	SharedWavefronts *int64 `json:"shared_wavefronts"`
	BankConflicts    *int64 `json:"bank_conflicts"`
	DRAMBytes        *int64 `json:"dram_bytes"` // modeled
	WarpInstructions *int64 `json:"warp_instructions"`

	Flops    int64           `json:"flops"`
	Bytes    int64           `json:"bytes"` // the bytes the kernel must move at least (inputs read once, output written once)
	TimeMs   float64         `json:"time_ms"`
	TimeKind gpuext.TimeKind `json:"time_kind"`
	Bound    string          `json:"bound,omitempty"`
	GFlops   float64         `json:"gflops"`
	GBps     float64         `json:"gbps"`
	Correct  bool            `json:"correct"`
	// BitIdentical is true when the output equals the CPU reference that adds
	// in the kernel's order, bit for bit.
	BitIdentical bool `json:"bit_identical"`

	Stats *sim.Stats `json:"-"`
}

// LoadRow is one point of the load sweep: the counted global element loads of
// one matmul variant at one TILE (and COARSE), next to the lecture's formula.
type LoadRow struct {
	Kernel   string `json:"kernel"`
	N        int    `json:"n"`
	Tile     int    `json:"tile"`
	Coarse   int    `json:"coarse"`
	ALoads   int64  `json:"a_loads"`
	BLoads   int64  `json:"b_loads"`
	Counted  int64  `json:"element_loads"`
	Formula  int64  `json:"formula"`
	Text     string `json:"formula_text"`
	Requests int64  `json:"requests"`
	Sectors  int64  `json:"sectors"`
	// WarpInstructions is the launch's simulated warp instructions.
	WarpInstructions int64 `json:"warp_instructions"`
}

// RooflineRow places one kernel on one device model's roofline.
type RooflineRow struct {
	Kernel string `json:"kernel"`
	Model  string `json:"model"`
	// Arithmetic intensities in flop/byte: over the modeled DRAM bytes, and
	// over the bytes the kernel's global load instructions ask for (the
	// lecture's accounting: naive matmul 2 flops per 8 bytes).
	IntensityDRAM  float64 `json:"intensity_dram"`
	IntensityLoads float64 `json:"intensity_loads"`
	PeakFlops      float64 `json:"peak_flops"`
	Bandwidth      float64 `json:"bandwidth"`
	Ridge          float64 `json:"ridge"` // flop/byte where the roof turns
	// Attainable flop/s, min(peak, intensity x bandwidth), for each intensity.
	AttainableDRAM  float64 `json:"attainable_dram"`
	AttainableLoads float64 `json:"attainable_loads"`
}

// Demo is a deliberate bug run on the simulator, and what it reported.
type Demo struct {
	Name   string        `json:"name"`
	Kernel string        `json:"kernel"`
	N      int           `json:"n"`
	Tile   int           `json:"tile"`
	Kind   sim.FaultKind `json:"kind"`  // the fault's kind (sim.FaultSharedRace, sim.FaultOutOfBounds)
	Fault  string        `json:"fault"` // the full message
	Where  string        `json:"where"` // the shared word or buffer element, decoded
}

// Result is everything the lesson computed.
type Result struct {
	Lesson  string      `json:"lesson"` // "tiling"
	Backend gpuext.Kind `json:"backend"`
	Device  Device      `json:"device"`
	// Driver and Date label a recorded GPU run (Recorded): the CUDA driver
	// and the day it was measured. A live run leaves them empty.
	Driver   string        `json:"driver,omitempty"`
	Date     string        `json:"date,omitempty"`
	Options  Options       `json:"options"`
	Runs     []KernelRun   `json:"runs"`
	Loads    []LoadRow     `json:"loads"`
	Roofline []RooflineRow `json:"roofline"`
	Demos    []Demo        `json:"demos"`
	Failures []string      `json:"failures"`
}

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func i64(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func ratio(a, b *int64) string {
	if a == nil || b == nil || *b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(*a)/float64(*b))
}

// WriteText writes the lesson's tables, and the failed checks, if any.
func (r *Result) WriteText(w io.Writer) error { return r.writeText(w, true) }

// writeText writes the tables, and the failed checks when failures is set
// (the command line writes those to stderr instead).
func (r *Result) writeText(w io.Writer, failures bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Lecture 4: tiling, coalescing, bank conflicts on %s (%s backend)\n", r.Device.Name, r.Backend)
	fmt.Fprintf(&b, "N = %d, TILE = %d, COARSE = %d; load sweep at N = %d\n\n", r.Options.N, r.Options.Tile, r.Options.Coarse, r.Options.SweepN)

	b.WriteString("Kernels (counters: simulator; time: " + timeKinds(r) + ")\n")
	tw := tabwriter.NewWriter(&b, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kernel\tN\tTILE\tCOARSE\tld req\tld sect\tsect/req ld\tst req\tst sect\tsect/req st\tsmem wavefronts\tbank conflicts\tDRAM bytes\ttime ms\tGFLOP/s\tGB/s\tcorrect\tbits\t")
	for _, x := range r.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.4f\t%.1f\t%.1f\t%v\t%v\t\n",
			x.Kernel, x.N, x.Tile, x.Coarse, i64(x.LoadRequests), i64(x.LoadSectors), ratio(x.LoadSectors, x.LoadRequests),
			i64(x.StoreRequests), i64(x.StoreSectors), ratio(x.StoreSectors, x.StoreRequests),
			i64(x.SharedWavefronts), i64(x.BankConflicts), i64(x.DRAMBytes), x.TimeMs, x.GFlops, x.GBps, x.Correct, bitsWord(x.BitIdentical))
	}
	tw.Flush()

	if len(r.Loads) > 0 {
		b.WriteString("\nGlobal element loads of A and B, counted (sum of active lanes at the load sites) vs the lecture's formula\n")
		tw = tabwriter.NewWriter(&b, 2, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "kernel\tN\tTILE\tCOARSE\tA loads\tB loads\tcounted\tformula\t\t=\trequests\tsectors\tsect/req\t")
		for _, x := range r.Loads {
			eq := "yes"
			if x.Counted != x.Formula {
				eq = "NO"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%.2f\t\n", x.Kernel, x.N, x.Tile, x.Coarse, x.ALoads, x.BLoads,
				x.Counted, x.Formula, x.Text, eq, x.Requests, x.Sectors, float64(x.Sectors)/float64(max(x.Requests, 1)))
		}
		tw.Flush()
	}

	if len(r.Roofline) > 0 {
		b.WriteString("\nRoofline (FP32 peak; attainable = min(peak, intensity x DRAM bandwidth); modeled)\n")
		tw = tabwriter.NewWriter(&b, 2, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "kernel\tmodel\tflop/B (DRAM)\tflop/B (loads)\tridge\tattainable GFLOP/s (DRAM)\tattainable GFLOP/s (loads)\t")
		for _, x := range r.Roofline {
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.1f\t%.0f\t%.0f\t\n", x.Kernel, x.Model, x.IntensityDRAM, x.IntensityLoads, x.Ridge,
				x.AttainableDRAM/1e9, x.AttainableLoads/1e9)
		}
		tw.Flush()
	}

	if len(r.Demos) > 0 {
		b.WriteString("\nDeliberate bugs, caught by the simulator\n")
		for _, d := range r.Demos {
			fmt.Fprintf(&b, "  %s (%s, N=%d, TILE=%d): %s\n    %s\n", d.Name, d.Kernel, d.N, d.Tile, d.Where, d.Fault)
		}
	}
	if failures && len(r.Failures) > 0 {
		b.WriteString("\nFAILURES\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func bitsWord(ok bool) string {
	if ok {
		return "identical"
	}
	return "differ"
}

func timeKinds(r *Result) string {
	if r.Backend == gpuext.GPU {
		s := "measured on " + r.Device.Name
		if r.Driver != "" {
			s += ", driver " + r.Driver
		}
		if r.Date != "" {
			s += ", " + r.Date
		}
		return s
	}
	return "modeled for " + r.Device.Name
}

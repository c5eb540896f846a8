package gpuext

import "github.com/warplab/warplab/sim/timing"

// The values that name a kind are typed, declared once here and compared
// against these constants, not string literals. Each is a string type
// whose value is its JSON and its text (MarshalText), so results and
// recorded runs keep the JSON they had; String makes fmt print the same.
// (String types rather than integers: an untyped "gpu" still converts, so
// code written against the old strings keeps compiling while it moves to
// the constants.)

// Kind is a Device's backend: GPU or Sim.
type Kind string

const (
	GPU Kind = "gpu" // a real GPU through the CUDA driver API
	Sim Kind = "sim" // the SIMT simulator
)

func (k Kind) String() string                { return string(k) }
func (k Kind) MarshalText() ([]byte, error)  { return []byte(k), nil }
func (k *Kind) UnmarshalText(b []byte) error { *k = Kind(b); return nil }

// TimeKind says what a time is: Measured on a GPU (CUDA events, naming
// the GPU, driver and date) or Modeled by the simulator's time model
// (nothing ran on a GPU). Every result that carries a time carries one.
// It is sim/timing's type (declared once, below the simulator, so that
// the simulator's Modeled.Kind is typed too).
type TimeKind = timing.TimeKind

const (
	Measured = timing.TimeMeasured
	Modeled  = timing.TimeModeled
)

// LoadPath is how a module's code reached the device: PathCubin, compiled
// here by nvcc for the exact GPU, or PathPTX, PTX that the driver
// JIT-compiled or that the simulator executes.
type LoadPath string

const (
	PathCubin LoadPath = "cubin"
	PathPTX   LoadPath = "ptx"
)

func (p LoadPath) String() string                { return string(p) }
func (p LoadPath) MarshalText() ([]byte, error)  { return []byte(p), nil }
func (p *LoadPath) UnmarshalText(b []byte) error { *p = LoadPath(b); return nil }

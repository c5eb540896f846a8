package timing

// TimeKind says what a time is: TimeMeasured on a GPU (CUDA events,
// naming the GPU, driver and date) or TimeModeled by this package's model
// (nothing ran on a GPU). It is declared here, at the bottom of the
// layering, so that Modeled.Kind is typed; gpuext.TimeKind is this type
// (gpuext.Measured, gpuext.Modeled). A string type whose value is its JSON
// and its text, so results keep the JSON they had.
type TimeKind string

const (
	TimeMeasured TimeKind = "measured"
	TimeModeled  TimeKind = "modeled"
)

func (k TimeKind) String() string                { return string(k) }
func (k TimeKind) MarshalText() ([]byte, error)  { return []byte(k), nil }
func (k *TimeKind) UnmarshalText(b []byte) error { *k = TimeKind(b); return nil }

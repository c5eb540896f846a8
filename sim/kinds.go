package sim

// The kinds the counters and traces name are typed and declared here,
// once: string types whose value is the JSON the results have always held,
// with String and MarshalText (so a map keyed by one, InstrMix, writes the
// same keys). String types rather than integers so that code comparing
// against the old literals keeps compiling while it moves to the constants.

// Space is a memory access's state space: SpaceGlobal or SpaceShared.
type Space string

const (
	SpaceGlobal Space = "global"
	SpaceShared Space = "shared"
)

func (s Space) String() string               { return string(s) }
func (s Space) MarshalText() ([]byte, error) { return []byte(s), nil }

// Op is a memory access's operation: OpLoad, OpStore or OpAtom.
type Op string

const (
	OpLoad  Op = "ld"
	OpStore Op = "st"
	OpAtom  Op = "atom"
)

func (o Op) String() string               { return string(o) }
func (o Op) MarshalText() ([]byte, error) { return []byte(o), nil }

// InstrClass is a class of Stats.InstrMix: "memory", "integer", "float",
// "move", "control" or "warp".
type InstrClass string

const (
	ClassMemory  InstrClass = "memory"
	ClassInteger InstrClass = "integer"
	ClassFloat   InstrClass = "float"
	ClassMove    InstrClass = "move"
	ClassControl InstrClass = "control"
	ClassWarp    InstrClass = "warp"
)

func (c InstrClass) String() string               { return string(c) }
func (c InstrClass) MarshalText() ([]byte, error) { return []byte(c), nil }

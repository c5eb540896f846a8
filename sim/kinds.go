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

// FaultKind is what a Fault is: the kinds compute-sanitizer reports on
// hardware (an out-of-bounds access, a race, a divergent barrier, ...) and
// the simulator's own (a runaway warp, a cancelled launch, a limitation).
type FaultKind string

const (
	FaultOutOfBounds         FaultKind = "out of bounds"
	FaultMisaligned          FaultKind = "misaligned address"
	FaultSharedRace          FaultKind = "shared race"
	FaultDivergentBarrier    FaultKind = "divergent barrier"
	FaultDivergentIntrinsic  FaultKind = "divergent warp intrinsic"
	FaultShuffleExited       FaultKind = "shuffle from exited lane"
	FaultShuffleInactive     FaultKind = "shuffle from inactive lane"
	FaultBadWarpMask         FaultKind = "bad warp mask"
	FaultUninitRegister      FaultKind = "uninitialized register"
	FaultUninitShared        FaultKind = "uninitialized shared memory"
	FaultWriteConstant       FaultKind = "write to constant memory"
	FaultStackOverflow       FaultKind = "stack overflow"
	FaultTrap                FaultKind = "trap"
	FaultAssertion           FaultKind = "assertion failed"
	FaultRunawayWarp         FaultKind = "runaway warp"
	FaultRunawayThread       FaultKind = "runaway thread"
	FaultCancelled           FaultKind = "cancelled"
	FaultPanic               FaultKind = "panic"
	FaultSharedExhausted     FaultKind = "shared memory exhausted"
	FaultSharedRedeclared    FaultKind = "shared array redeclared"
	FaultBadSharedArray      FaultKind = "bad shared array"
	FaultSyncWithoutSync     FaultKind = "synchronisation in a kernel without Sync"
	FaultUnsupportedCall     FaultKind = "unsupported call"
	FaultUnsupportedAtomic   FaultKind = "unsupported atomic"
	FaultSimulatorLimitation FaultKind = "simulator limitation"
	FaultInternal            FaultKind = "internal"
)

func (k FaultKind) String() string               { return string(k) }
func (k FaultKind) MarshalText() ([]byte, error) { return []byte(k), nil }

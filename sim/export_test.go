package sim

// ParsePTXFile lets the external tests (package sim_test) read PTX files
// with the same helper as the internal ones.
var ParsePTXFile = parsePTXFile

// SeedCSR and SeedX give the external benchmarks Day 37's seed matrices
// and vector, built as the internal tests build them.
var (
	SeedCSR = seedCSR
	SeedX   = seedX
)

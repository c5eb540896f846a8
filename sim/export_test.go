package sim

// ParsePTXFile lets the external tests (package sim_test) read PTX files
// with the same helper as the internal ones.
var ParsePTXFile = parsePTXFile

// Package libs is the lesson "How libraries win": what cuSPARSE does that
// the Day-37 textbook kernels (thread per row, warp per row; package spmv)
// do not.
//
// A library has several SpMV kernels and picks one from the matrix. This
// lesson builds them in CUDA C (libs.cu) and runs them from its PTX on the
// simulator and on a GPU:
//
//   - CSR-vector with a sub-warp width W of 2 to 32 lanes a row, scalar or
//     with 16-byte (float4/int4) loads of the aligned middle of each row;
//   - binned (CSR-adaptive style): rows sorted once by length into bins,
//     thread per row for the short, 2 to 32 lanes for the medium, a block
//     for rows over 1024;
//   - merge path (Merrill and Garland): every thread gets the same number of
//     row ends plus nonzeros, which no skew can unbalance;
//   - split: CSR-vector in one launch with every row longer than 16 passes
//     of its group cut into warps of the same launch, the pieces added by
//     the last warp to finish (no second pass);
//   - nonzero tiles (CUB's DeviceSpmv, CSR5): each warp takes TileNZ (512)
//     consecutive nonzeros whatever their rows, loaded 32 (float4: 128)
//     consecutive a load, and finishes a row crossing tiles with its last
//     piece, in one launch.
//
// Choose reads only row statistics (median, longest, coefficient of
// variation) and the device's resident threads, and says why it picks a
// method. Its rules come in an order fixed by a cost argument (a long row,
// whose critical path has no bound, before "small"; see chooser.go); their
// thresholds (Rules) are Fit on measured times and judged by
// LeaveOneFamilyOut. The matrices come from the seed pair, Matrix Market
// files, and the sparse/gen corpus (Options.Families); LoadCorpus reads the
// H200 corpus run the thresholds are fitted on.
// Predict gives each method's lane-slots from the row lengths before
// anything runs, and on the simulator Run sets them beside the executed
// counts and sectors. Every
// output is checked against a float64 CPU reference (Tolerance says why
// float32 outputs are not bit-exact). Preparation (bins, merge-path
// partitions) is timed apart from the per-SpMV time, as cuSPARSE's analysis
// is excluded from its SpMV time.
//
// The peer, cusparseSpMV timed with CUDA events in the same GPU call, is
// scripts/evidence/libs/cusparse_peer.cu, run by scripts/evidence/libs.sh,
// which reads the matrices WriteCSR writes (`warplab run libs --dump`).
// LoadRecorded and FindRecorded read the first recorded H200 run (the one
// MergeCost was fitted on) from evidence/, FindChosen the run of the
// refitted chooser that the notebook's ours-against-cuSPARSE table shows;
// Repicks reads it again with today's chooser (the run timed every method,
// so a changed rule's picks have recorded times), PaybackTable weighs each
// preparation against the SpMVs it serves, and ModelCheckTable sets the
// simulator's modeled times beside the recorded ones.
//
// Lesson is what `warplab run libs` runs (package lessons/lesson: the
// shared --backend, --model, --json, --svg and --recorded, and this
// lesson's flags in command.go); Figure draws the lesson's figure with
// plots/chart, cuSPARSE's best beside ours when the peer's lines are given.
package libs

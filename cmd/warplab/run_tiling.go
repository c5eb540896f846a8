package main

import "github.com/warplab/warplab/lessons/tiling"

// tilingCommand is `warplab run tiling`.
var tilingCommand = lessonCommand{
	summary: "Lecture 4 — tiling, coalescing, bank conflicts: matmul, transposes and CSR on the simulator and the GPU",
	run:     tiling.Command,
}

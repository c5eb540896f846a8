package main

import "github.com/warplab/warplab/lessons/tiling"

func init() {
	lessonCommands["tiling"] = lessonCommand{
		summary: "Lecture 4 — tiling, coalescing, bank conflicts: matmul, transposes and CSR on the simulator and the GPU",
		run:     tiling.Command,
	}
}

package main

import "github.com/warplab/warplab/lessons/cg"

func init() {
	lessonCommands["cg"] = lessonCommand{
		summary: "Porting a CG solver to the GPU, one step at a time (HPCCG's 27-point stencil, stages 0–5)",
		run:     cg.Command,
	}
}

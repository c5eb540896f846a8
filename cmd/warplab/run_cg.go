package main

import "github.com/warplab/warplab/lessons/cg"

// cgCommand is `warplab run cg`.
var cgCommand = lessonCommand{
	summary: "Porting a CG solver to the GPU, one step at a time (HPCCG's 27-point stencil, stages 0–8)",
	run:     cg.Command,
}

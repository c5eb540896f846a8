package main

import (
	"fmt"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// openDevice opens the backend a command line asked for: auto, sim or gpu,
// with model naming the GPU the simulator models ("" for its default H200).
func openDevice(backend, model string) (*gpuext.Device, error) {
	if model != "" {
		if _, err := sim.ModelByKey(model); err != nil {
			return nil, usageErrorf("--model %q: want one of %s", model, strings.Join(modelKeys(), ", "))
		}
	}
	switch backend {
	case "sim":
		if model == "" {
			return gpuext.Open("sim")
		}
		return gpuext.Open("sim:" + model)
	case "gpu":
		if model != "" {
			return nil, usageErrorf("--model picks the GPU the simulator models; with --backend gpu the GPU is the one installed")
		}
		return gpuext.Open("gpu")
	case "auto", "":
		dev, err := gpuext.Open("auto")
		if err != nil || model == "" || dev.Kind() != "sim" {
			return dev, err
		}
		dev.Close()
		return gpuext.Open("sim:" + model)
	}
	return nil, usageErrorf("--backend %q: want auto, sim or gpu", backend)
}

func modelKeys() []string {
	var keys []string
	for _, m := range sim.Models() {
		keys = append(keys, m.Key)
	}
	return keys
}

// deviceError shortens the error of a device that would not open.
func deviceError(err error) error {
	return fmt.Errorf("opening the device: %w", err)
}

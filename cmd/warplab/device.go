package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/sim"
)

// openDevice opens the backend a command line asked for, with the meanings
// every command shares:
//
//	auto    the GPU when this build has the GPU backend and a GPU answers,
//	        else the simulator (modelling --model, default h200)
//	sim     the simulator modelling --model (default: the GPU present, else h200)
//	gpu     GPU 0; gpu:N GPU N (--model is then a usage error)
//
// The device gets the environment's settings (lab.FromEnv: WARPLAB_PTX_ONLY,
// WARPLAB_NVCC, the caches), read here, at the command line's edge.
func openDevice(backend, model string) (*gpuext.Device, error) {
	env := lab.FromEnv()
	if model != "" {
		if _, err := sim.ModelByKey(model); err != nil {
			return nil, usageErrorf("--model %q: want one of %s", model, strings.Join(modelKeys(), ", "))
		}
	}
	switch {
	case backend == "sim":
		if model == "" {
			model = defaultModel()
		}
		return env.Open("sim:" + model)
	case backend == "gpu" || strings.HasPrefix(backend, "gpu:"):
		if n, ok := strings.CutPrefix(backend, "gpu:"); ok {
			if i, err := strconv.Atoi(n); err != nil || i < 0 {
				return nil, usageErrorf("--backend %q: want auto, sim, gpu or gpu:N with N a GPU number", backend)
			}
		}
		if model != "" {
			return nil, usageErrorf("--model picks the GPU the simulator models; with --backend %s the GPU is the one installed", backend)
		}
		return env.Open(backend)
	case backend == "auto" || backend == "":
		dev, err := env.Open("auto")
		// auto fell back to the simulator only when no GPU answered, so
		// the default model is h200, gpuext's.
		if err != nil || model == "" || dev.Kind() != gpuext.Sim || dev.Model().Key == model {
			return dev, err
		}
		dev.Close()
		return env.Open("sim:" + model)
	}
	return nil, usageErrorf("--backend %q: want auto, sim, gpu or gpu:N", backend)
}

// defaultModel is the simulator model --model defaults to: the model of the
// GPU present when this build has the GPU backend, one answers and the
// simulator knows its kind; else h200.
func defaultModel() string {
	dev, err := lab.FromEnv().Open("gpu")
	if err != nil {
		return "h200"
	}
	defer dev.Close()
	key := dev.Model().Key
	if _, err := sim.ModelByKey(key); err != nil {
		return "h200"
	}
	return key
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

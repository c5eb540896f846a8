package lesson

import (
	"fmt"
	"strings"
)

// MeasuredOn names where and when a measured run ran, "NVIDIA H200, driver
// 580.95.05, 2026-11-29", so that a GPU number is never shown without its
// GPU, driver and date: every lesson labels its recorded and live GPU runs
// with it. A driver recorded as words ("CUDA 13.0 driver API") is kept as
// is; a date in RFC 3339 is cut to the day; unknown parts say so rather than
// vanish.
func MeasuredOn(gpu, driver, date string) string {
	if gpu == "" {
		gpu = "unknown GPU"
	}
	switch {
	case driver == "":
		driver = "driver unknown"
	case !strings.Contains(strings.ToLower(driver), "driver"):
		driver = "driver " + driver
	}
	if len(date) >= 10 {
		date = date[:10]
	}
	if date == "" {
		date = "undated"
	}
	return fmt.Sprintf("%s, %s, %s", gpu, driver, date)
}

// SimLabel says, once, that a device name is the simulator's: gpuext names
// the simulator "simulated NVIDIA H200 (modeled)", a result may hold the
// bare model name; both become "simulated NVIDIA H200".
func SimLabel(name string) string {
	name = strings.TrimSpace(strings.TrimSuffix(name, "(modeled)"))
	if name == "" {
		return "simulator"
	}
	if !strings.Contains(strings.ToLower(name), "simulated") {
		name = "simulated " + name
	}
	return name
}

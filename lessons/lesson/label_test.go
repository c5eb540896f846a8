package lesson

import "testing"

func TestLabels(t *testing.T) {
	for in, want := range map[string]string{
		"simulated NVIDIA H200 (modeled)": "simulated NVIDIA H200",
		"NVIDIA H200":                     "simulated NVIDIA H200",
		"":                                "simulator",
	} {
		if got := SimLabel(in); got != want {
			t.Errorf("SimLabel(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		gpu, driver, date, want string
	}{
		{"", "", "", "unknown GPU, driver unknown, undated"},
		{"NVIDIA H200", "580.95.05", "2026-11-29T15:08:00Z", "NVIDIA H200, driver 580.95.05, 2026-11-29"},
		{"NVIDIA H200", "CUDA 13.0 driver API", "2026-11-29", "NVIDIA H200, CUDA 13.0 driver API, 2026-11-29"},
	} {
		if got := MeasuredOn(tc.gpu, tc.driver, tc.date); got != tc.want {
			t.Errorf("MeasuredOn(%q, %q, %q) = %q, want %q", tc.gpu, tc.driver, tc.date, got, tc.want)
		}
	}
}

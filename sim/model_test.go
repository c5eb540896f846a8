package sim

import "testing"

// TestModelNamed: a GPU's name finds the model whose key is a word of it,
// and only a whole word does.
func TestModelNamed(t *testing.T) {
	for _, tc := range []struct {
		name, want string // want "": no model
	}{
		{"NVIDIA H200", "h200"},
		{"NVIDIA H100 80GB HBM3", "h100"},
		{"NVIDIA H100 PCIe", "h100"},
		{"NVIDIA A100-SXM4-80GB", "a100"},
		{"Tesla T4", "t4"},
		{"simulated NVIDIA H200 (modeled)", "h200"},
		{"Fake H1000", ""},
		{"NVIDIA GeForce RTX 4090", ""},
		{"", ""},
	} {
		m, ok := ModelNamed(tc.name)
		if ok != (tc.want != "") || m.Key != tc.want {
			t.Errorf("ModelNamed(%q) = %q, %v; want %q", tc.name, m.Key, ok, tc.want)
		}
	}
}

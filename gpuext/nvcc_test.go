package gpuext

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestFindCompilerPTXOnly(t *testing.T) {
	c, why := findCompiler(Options{PTXOnly: true})
	if c != nil || !strings.Contains(why, "WARPLAB_PTX_ONLY") {
		t.Fatalf("findCompiler(PTXOnly) = %v, %q; want nil and a reason naming the switch", c, why)
	}
	c, why = findCompiler(Options{NVCC: "/nonexistent/nvcc"})
	if c != nil || why == "" {
		t.Fatalf("findCompiler(missing nvcc) = %v, %q; want nil and a reason", c, why)
	}
}

func TestNVCCRelease(t *testing.T) {
	out := "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.8, V11.8.89\nBuild cuda_11.8.r11.8/compiler.31833905_0\n"
	if got := nvccRelease(out); got != "11.8.89" {
		t.Fatalf("nvccRelease = %q, want 11.8.89", got)
	}
	if got := nvccRelease("garbage"); got != "unknown" {
		t.Fatalf("nvccRelease(garbage) = %q, want unknown", got)
	}
}

// TestCubinCache compiles the test module with the nvcc on PATH, when there
// is one: the cubin path of the GPU backend, minus the GPU.
func TestCubinCache(t *testing.T) {
	c, why := findCompiler(Options{CacheDir: t.TempDir()})
	if c == nil {
		t.Skip("cubin path unavailable here: " + why)
	}
	img, path, err := c.cubin("saxpy test", kernelsCUDA, "sm_75")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(img, []byte("\x7fELF")) || !bytes.Contains(img, []byte("saxpy")) {
		t.Fatalf("cubin is not an ELF image holding saxpy (%d bytes)", len(img))
	}
	// A second request is served from the cache file, unchanged.
	if err := os.WriteFile(path, append(img[:len(img):len(img)], 0), 0o644); err != nil {
		t.Fatal(err)
	}
	img2, path2, err := c.cubin("saxpy test", kernelsCUDA, "sm_75")
	if err != nil || path2 != path || len(img2) != len(img)+1 {
		t.Fatalf("second request: %d bytes from %s (%v), want the cached file %s", len(img2), path2, err, path)
	}
	// Another architecture or another source is another cache entry.
	if c.cacheKey(kernelsCUDA, "sm_80") == c.cacheKey(kernelsCUDA, "sm_75") ||
		c.cacheKey(kernelsCUDA+" ", "sm_75") == c.cacheKey(kernelsCUDA, "sm_75") {
		t.Fatal("cache key ignores the architecture or the source")
	}
	// A compile error comes back with nvcc's message about the student's file.
	_, _, err = c.cubin("broken", "extern \"C\" __global__ void k() { undeclared_thing = 1; }\n", "sm_75")
	if err == nil || !strings.Contains(err.Error(), "undeclared_thing") || !strings.Contains(err.Error(), "broken.cu") {
		t.Fatalf("compile error: %v, want nvcc's message naming broken.cu and the identifier", err)
	}
}

package gpuext

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// nvccTimeout bounds one compilation, so a broken toolchain cannot hang a
// notebook cell.
const nvccTimeout = 2 * time.Minute

// compiler compiles CUDA C to a cubin for one exact GPU with nvcc, caching
// the result by content: the sha256 of the source, the target architecture
// and nvcc's full version text name the cache file, so an edited kernel, a
// different GPU or a different nvcc never reuses a stale cubin.
type compiler struct {
	nvcc     string // absolute path
	version  string // `nvcc --version` output
	release  string // e.g. "11.8.89"
	cacheDir string
}

// findCompiler locates nvcc (opts.NVCC, else PATH) and the cache folder.
// It returns (nil, reason) when the cubin path is unavailable or disabled.
func findCompiler(opts Options) (*compiler, string) {
	if opts.PTXOnly {
		return nil, "PTX only was asked for (Options.PTXOnly / WARPLAB_PTX_ONLY=1)"
	}
	name := opts.NVCC
	if name == "" {
		name = "nvcc"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, "no nvcc on PATH"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Sprintf("%s --version failed: %v", path, err)
	}
	dir := opts.CacheDir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, "no user cache folder for cubins: " + err.Error()
		}
		dir = filepath.Join(base, "warplab", "cubin")
	}
	return &compiler{nvcc: path, version: string(out), release: nvccRelease(string(out)), cacheDir: dir}, ""
}

var releaseRE = regexp.MustCompile(`release [0-9.]+, V([0-9.]+)`)

// nvccRelease extracts "11.8.89" from `nvcc --version` output.
func nvccRelease(version string) string {
	if m := releaseRE.FindStringSubmatch(version); m != nil {
		return m[1]
	}
	return "unknown"
}

// cacheKey names the cubin of src for arch compiled by this nvcc.
func (c *compiler) cacheKey(src, arch string) string {
	h := sha256.New()
	for _, s := range []string{src, arch, c.version} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cubin returns the cubin of src for arch ("sm_90"), from the cache or
// freshly compiled with `nvcc -cubin -arch=<arch> -O3`. name labels the
// module in errors. A compile error carries nvcc's own messages.
func (c *compiler) cubin(name, src, arch string) (image []byte, cachePath string, err error) {
	return c.output("cubin", name, src, arch)
}

// ptx is cubin's PTX: `nvcc -ptx` with the same flags, cached beside it, so
// the simulator can run the code this nvcc handed to ptxas for that cubin.
func (c *compiler) ptx(name, src, arch string) (text []byte, cachePath string, err error) {
	return c.output("ptx", name, src, arch)
}

// output compiles src with `nvcc -<kind> -arch=<arch> -O3` (kind "cubin" or
// "ptx"), from the cache when the file for this source, arch and nvcc exists.
func (c *compiler) output(kind, name, src, arch string) (image []byte, cachePath string, err error) {
	key := c.cacheKey(src, arch)
	cachePath = filepath.Join(c.cacheDir, key+"."+kind)
	if image, err := os.ReadFile(cachePath); err == nil && len(image) > 0 {
		return image, cachePath, nil
	}
	if err := os.MkdirAll(c.cacheDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("cubin cache: %w", err)
	}
	tmp, err := os.MkdirTemp(c.cacheDir, "build-")
	if err != nil {
		return nil, "", fmt.Errorf("cubin cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	srcFile := filepath.Join(tmp, sanitize(name)+".cu")
	out := filepath.Join(tmp, "out."+kind)
	if err := os.WriteFile(srcFile, []byte(src), 0o644); err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), nvccTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.nvcc, "-"+kind, "-arch="+arch, "-O3", "-o", out, srcFile)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(strings.ReplaceAll(stderr.String(), srcFile, sanitize(name)+".cu"))
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			msg = fmt.Sprintf("nvcc ran longer than %v", nvccTimeout)
		}
		return nil, "", fmt.Errorf("nvcc %s -%s -arch=%s failed: %v\n%s", c.release, kind, arch, err, msg)
	}
	image, err = os.ReadFile(out)
	if err != nil {
		return nil, "", err
	}
	// Rename is atomic, so concurrent notebooks never read a half-written file.
	if err := os.Rename(out, cachePath); err != nil {
		return nil, "", fmt.Errorf("cubin cache: %w", err)
	}
	return image, cachePath, nil
}

// sanitize makes a module name usable as a file name.
func sanitize(name string) string {
	if name == "" {
		return "module"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
}

package nbtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDockerfilesRunSetup checks that the images are set up by the script CI
// tests: the simulator image is Debian trixie with the checkout, the CUDA
// and hub images build on it (scripts/lab/build.sh builds all three; the
// JupyterLab tests in internal/labtest run the first two).
func TestDockerfilesRunSetup(t *testing.T) {
	runsSetup := regexp.MustCompile(`(?m)^(RUN|CMD)\b.*scripts/setup\.sh`)
	for _, tc := range []struct {
		file, from string
		want       []string
	}{
		// Offline once built (issue 31): the module list read at build time, GOPROXY=off after.
		{"docker/Dockerfile", "${DEBIAN}", []string{"ARG DEBIAN=debian:trixie", "COPY . .", "jupyterlab", "8888",
			"go list -m -json all", "ENV GOPROXY=off", "ARG WARPLAB_APT_MIRROR", "shared/matrices"}},
		{"docker/Dockerfile.cuda", "${BASE}", []string{"ARG BASE=", "nvidia-cuda-toolkit", "-tags cuda", "8888"}},
		{"docker/Dockerfile.hub", "${BASE}", []string{"ARG BASE=", "jupyterhub"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			df := readRepoFile(t, tc.file)
			if !regexp.MustCompile(`(?m)^FROM\s+` + regexp.QuoteMeta(tc.from)).MatchString(df) {
				t.Errorf("does not start FROM %s", tc.from)
			}
			for _, w := range tc.want {
				if !strings.Contains(df, w) {
					t.Errorf("does not mention %q", w)
				}
			}
			if tc.file != "docker/Dockerfile.hub" && !runsSetup.MatchString(df) {
				t.Errorf("no RUN or CMD line calls scripts/setup.sh")
			}
		})
	}
}

// TestPlatformDocs checks that the README, docker/README.md and docs/colab.md
// point at the commands and files that CI tests.
func TestPlatformDocs(t *testing.T) {
	readme := ""
	for _, name := range []string{"README.md", "README.platform.md"} {
		if b, err := os.ReadFile(filepath.Join(moduleRoot(t), name)); err == nil {
			readme += string(b)
		}
	}
	for _, tc := range []struct {
		doc, text string
		want      []string
	}{
		{"README", readme, []string{"scripts/site.sh", "scripts/test.sh", "docker/README.md", "docs/classroom.md", "docs/colab.md"}},
		{"docker/README.md", readRepoFile(t, "docker/README.md"), []string{"docker/Dockerfile", "docker/Dockerfile.cuda", "docker/Dockerfile.hub", "scripts/lab/build.sh", "8888:8888", "--gpus all", "-v "}},
		{"docs/colab.md", readRepoFile(t, "docs/colab.md"), []string{"scripts/setup.sh", "T4", "compute_75", "Go (gonb)", "not been executed"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.text, w) {
				t.Errorf("%s does not mention %q", tc.doc, w)
			}
		}
	}
}

// TestCIRunsTestScript checks that CI's entry point runs the README's test command.
func TestCIRunsTestScript(t *testing.T) {
	root := moduleRoot(t)
	run := readRepoFile(t, ".ci/run")
	for _, w := range []string{"#!/usr/bin/env bash", "set -euo pipefail", "scripts/test.sh"} {
		if !strings.Contains(run, w) {
			t.Errorf(".ci/run lacks %q", w)
		}
	}
	for _, f := range []string{".ci/run", "scripts/setup.sh", "scripts/test.sh", "scripts/site.sh"} {
		st, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Error(err)
			continue
		}
		if st.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", f)
		}
	}
	if !strings.Contains(readRepoFile(t, "scripts/test.sh"), "scripts/setup.sh") {
		t.Errorf("scripts/test.sh does not run scripts/setup.sh")
	}
}

// TestSetupKernelEnv runs scripts/setup.sh into a scratch Jupyter data
// directory as on three hosts — a GPU (a stand-in nvidia-smi) with a cuda.h
// the GPU build compiles against (Debian's CUDA 11.8 header and link stub,
// which scripts/test.sh fetches first), a GPU with a cuda.h that does not
// compile, and no GPU — and checks the GoNB kernel spec it writes: only the
// first may build notebooks with -tags=cuda; the second must say what to do
// and leave the notebooks on the simulator rather than break every cell.
// Needs what setup installs, so it runs with the notebook tests.
func TestSetupKernelEnv(t *testing.T) {
	if os.Getenv("WARPLAB_NOTEBOOK_TESTS") != "1" {
		t.Skip("needs a set-up machine: runs with WARPLAB_NOTEBOOK_TESTS=1 (scripts/test.sh)")
	}
	root := moduleRoot(t)
	tmp := t.TempDir()
	fake := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "nvidia-smi"), []byte("#!/bin/sh\necho 'GPU 0: Stand-in (UUID: GPU-0)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", filepath.Join(root, "scripts", "cuda", "env.sh"), "--dir", "11.8").Output()
	if err != nil {
		t.Fatalf("scripts/cuda/env.sh --dir 11.8: %v", err)
	}
	debian := strings.TrimSpace(string(out))
	header, err := os.ReadFile(filepath.Join(debian, "include", "cuda.h"))
	if err != nil {
		t.Fatalf("%v: run scripts/cuda/fetch-headers.sh 11.8 first (scripts/test.sh does)", err)
	}
	stub, err := os.ReadFile(filepath.Join(debian, "stubs", "libcuda.so"))
	if err != nil {
		t.Fatal(err)
	}
	// cudaRoot lays out a toolkit root as setup.sh looks for one.
	cudaRoot := func(name string, header []byte) string {
		t.Helper()
		dir := filepath.Join(tmp, name)
		for _, f := range []struct {
			rel  string
			data []byte
		}{{"include/cuda.h", header}, {"lib64/stubs/libcuda.so", stub}} {
			p := filepath.Join(dir, filepath.FromSlash(f.rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	good := cudaRoot("cuda-11.8", header)
	broken := cudaRoot("cuda-broken", []byte("#define CUDA_VERSION 99000\n#error \"a cuda.h the GPU build cannot compile against\"\n"))

	data := filepath.Join(tmp, "jupyter")
	setup := func(t *testing.T, gpu bool, cuda string, env ...string) (map[string]any, string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(root, "scripts", "setup.sh"))
		cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data, "CUDA_HOME="+cuda, "WARPLAB_NO_CUDA=0")
		cmd.Env = append(cmd.Env, env...)
		if gpu {
			cmd.Env = append(cmd.Env, "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("setup.sh: %v\n%s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(data, "kernels", "gonb", "kernel.json"))
		if err != nil {
			t.Fatal(err)
		}
		var spec struct {
			Argv []string       `json:"argv"`
			Env  map[string]any `json:"env"`
		}
		if err := json.Unmarshal(b, &spec); err != nil {
			t.Fatal(err)
		}
		if w, _ := kernelGoWork(spec.Argv); w != root {
			t.Errorf("kernel argv %q lacks -go_work=%s", spec.Argv, root)
		}
		return spec.Env, string(out)
	}
	tests := []struct {
		name     string
		gpu      bool
		cuda     string
		wantCUDA bool     // GOFLAGS=-tags=cuda and the CGO paths in the kernel env
		wantOut  []string // in setup's output
	}{
		{"GPU and a cuda.h that compiles", true, good, true,
			[]string{"compiling the GPU build against " + filepath.Join(good, "include", "cuda.h") + " (CUDA_VERSION 11080, CUDA 11.8)", "cuda: kernel env has GOFLAGS=-tags=cuda"}},
		{"GPU and a cuda.h that does not compile", true, broken, false,
			[]string{"(CUDA_VERSION 99000, CUDA 99.0)", "a cuda.h the GPU build cannot compile against",
				"warning: the GPU build does not compile against " + filepath.Join(broken, "include", "cuda.h"),
				"CUDA_HOME to it", "cuda: simulator only (the GPU build does not compile"}},
		{"no GPU", false, good, false, []string{"cuda: simulator only (no working nvidia-smi"}},
		// As in the images (docker/Dockerfile): Go offline, the kernel too.
		{"no GPU, GOPROXY=off", false, good, false, []string{"cuda: simulator only (no working nvidia-smi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			offline := strings.HasSuffix(tc.name, "GOPROXY=off")
			var extra []string
			if offline {
				extra = append(extra, "GOPROXY=off")
			}
			env, out := setup(t, tc.gpu, tc.cuda, extra...)
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("setup's output lacks %q:\n%s", w, out)
				}
			}
			_, hasFlags := env["GOFLAGS"]
			if !tc.wantCUDA {
				if hasFlags {
					t.Errorf("kernel env = %v, want no GOFLAGS: notebooks on the simulator", env)
				}
			} else if env["GOFLAGS"] != "-tags=cuda" || env["CGO_CFLAGS"] != "-I"+filepath.Join(tc.cuda, "include") ||
				!strings.Contains(env["CGO_LDFLAGS"].(string), filepath.Join(tc.cuda, "lib64")) {
				t.Errorf("kernel env = %v, want the cuda build and CGO paths", env)
			}
			if p, _ := env["GOPROXY"].(string); offline && p != "off" {
				t.Errorf("kernel GOPROXY = %q, want off: the machine's Go is offline", p)
			} else if !offline && !strings.HasPrefix(p, "file://") {
				t.Errorf("kernel GOPROXY = %q, want the module cache first", p)
			}
		})
	}
}

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

// TestDockerfilesRunSetup checks that both images are set up by the script CI
// tests (they cannot be built here: no image registry).
func TestDockerfilesRunSetup(t *testing.T) {
	runsSetup := regexp.MustCompile(`(?m)^(RUN|CMD)\b.*scripts/setup\.sh`)
	for _, tc := range []struct{ file, from string }{
		{"docker/Dockerfile", "debian:bookworm"},
		{"docker/Dockerfile.cuda", "nvidia/cuda:11.8"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			df := readRepoFile(t, tc.file)
			if !regexp.MustCompile(`(?m)^FROM\s+` + regexp.QuoteMeta(tc.from)).MatchString(df) {
				t.Errorf("does not start FROM %s", tc.from)
			}
			if !strings.Contains(df, "COPY . .") {
				t.Errorf("does not copy the checkout (COPY . .)")
			}
			if !runsSetup.MatchString(df) {
				t.Errorf("no RUN or CMD line calls scripts/setup.sh")
			}
			if !strings.Contains(df, "8888") {
				t.Errorf("does not serve Jupyter on port 8888")
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
		{"README", readme, []string{"scripts/site.sh", "scripts/test.sh", "docker/Dockerfile", "docker/Dockerfile.cuda", "docs/colab.md"}},
		{"docker/README.md", readRepoFile(t, "docker/README.md"), []string{"scripts/setup.sh", "-p 8888:8888", "--gpus all", "-v "}},
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
// directory, once as on a GPU host (a stand-in nvidia-smi and cuda.h) and once
// without, and checks the GoNB kernel spec it writes. Needs what setup
// installs, so it runs with the notebook tests.
func TestSetupKernelEnv(t *testing.T) {
	if os.Getenv("WARPLAB_NOTEBOOK_TESTS") != "1" {
		t.Skip("needs a set-up machine: runs with WARPLAB_NOTEBOOK_TESTS=1 (scripts/test.sh)")
	}
	root := moduleRoot(t)
	tmp := t.TempDir()
	fake := filepath.Join(tmp, "bin")
	cuda := filepath.Join(tmp, "cuda")
	for _, d := range []string{fake, filepath.Join(cuda, "include"), filepath.Join(cuda, "lib64", "stubs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cuda, "include", "cuda.h"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "nvidia-smi"), []byte("#!/bin/sh\necho 'GPU 0: Stand-in (UUID: GPU-0)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(tmp, "jupyter")
	setup := func(gpu bool) map[string]any {
		t.Helper()
		cmd := exec.Command(filepath.Join(root, "scripts", "setup.sh"))
		cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data, "CUDA_HOME="+cuda, "WARPLAB_NO_CUDA=0")
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
		if !strings.Contains(strings.Join(spec.Argv, " "), "-go_work="+root) {
			t.Errorf("kernel argv %q lacks -go_work=%s", spec.Argv, root)
		}
		return spec.Env
	}
	env := setup(true)
	if env["GOFLAGS"] != "-tags=cuda" || env["CGO_CFLAGS"] != "-I"+filepath.Join(cuda, "include") ||
		!strings.Contains(env["CGO_LDFLAGS"].(string), filepath.Join(cuda, "lib64")) {
		t.Errorf("with a GPU and cuda.h: kernel env = %v, want the cuda build and CGO paths", env)
	}
	env = setup(false)
	if _, ok := env["GOFLAGS"]; ok {
		t.Errorf("without a GPU: kernel env = %v, want no GOFLAGS", env)
	}
	if p, _ := env["GOPROXY"].(string); !strings.HasPrefix(p, "file://") {
		t.Errorf("kernel GOPROXY = %q, want the module cache first", p)
	}
}

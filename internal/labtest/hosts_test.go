package labtest

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// registryHosts matches the host of a package registry, mirror or proxy
// (issue 31, item 9): a script, image or doc that names one bypasses the
// mirror or proxy of the machine or class network it runs on. The scripts
// take the Debian mirror from the machine's apt sources
// (scripts/apt-mirror.sh; WARPLAB_APT_MIRROR overrides), the images take it
// and Go's proxy as build arguments, and docs/colab.md asks `go env
// GOPROXY`. Module paths (golang.org/x/tools, golang.org/toolchain) are
// names, not hosts, and do not match.
//
// The patterns are spelled with escaped dots, so this file does not match
// itself.
var registryHosts = regexp.MustCompile(`(^|[^A-Za-z0-9.-])(` + strings.Join([]string{
	// Debian's and Ubuntu's archives.
	`(deb|security|ftp|ftp\.[a-z]{2}|httpredir|snapshot|archive|cdn-fastly\.deb)\.debian\.org`,
	`([a-z]{2}\.)?(archive|security|ports)\.ubuntu\.com`,
	`ppa\.launchpad(content)?\.net`,
	// Go's module proxy, checksum database and index, and other Go proxies.
	`(proxy|sum|index)\.golang\.org`,
	`goproxy\.(io|cn)`,
	// Python, JavaScript, Rust, Ruby, Java, conda.
	`pypi\.org`, `pypi\.python\.org`, `files\.pythonhosted\.org`,
	`registry\.npmjs\.org`, `registry\.yarnpkg\.com`,
	`(static\.)?crates\.io`, `rubygems\.org`,
	`repo1\.maven\.org`, `repo\.maven\.apache\.org`,
	`conda\.anaconda\.org`, `repo\.anaconda\.com`,
	// Container registries.
	`docker\.io`, `(registry-1|index|hub|download)\.docker\.(io|com)`,
	`ghcr\.io`, `quay\.io`, `([a-z0-9-]+\.)?gcr\.io`, `registry\.k8s\.io`,
	`mcr\.microsoft\.com`, `public\.ecr\.aws`,
	// Vendors' apt repositories.
	`packages\.cloud\.google\.com`, `developer\.download\.nvidia\.com`, `deb\.nodesource\.com`,
}, "|") + `)($|[^A-Za-z0-9-])`)

// repoFiles lists the checkout's files as git sees them: tracked, and new
// ones not ignored, so a host is caught before it is committed. Without git
// (an exported tree) it walks the tree, skipping what .gitignore names.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		return files
	}
	t.Logf("git ls-files: %v; walking the tree instead", err)
	var files []string
	skip := map[string]bool{".git": true, "bin": true, "site": true, ".cuda": true, ".cache": true, "artifacts": true}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && skip[rel] {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestNoRegistryHost fails for every line of the repository that names a
// package registry's, mirror's or proxy's host (registryHosts).
func TestNoRegistryHost(t *testing.T) {
	root := repoRoot(t)
	files := repoFiles(t, root)
	if len(files) < 100 {
		t.Fatalf("only %d files in %s: not the checkout?", len(files), root)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted, not yet committed
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 {
			continue // binary
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := registryHosts.FindStringSubmatch(line); m != nil {
				t.Errorf("%s:%d names %s: take the mirror or proxy from the machine (scripts/apt-mirror.sh, `go env GOPROXY`, a build argument) instead: %s",
					f, i+1, m[2], clipLine(line))
			}
		}
	}
}

func clipLine(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// TestRegistryHostsPattern checks the pattern on what it must and must not
// find.
func TestRegistryHostsPattern(t *testing.T) {
	dot := func(s string) string { return strings.ReplaceAll(s, "_", ".") } // spelled with _ so this file stays clean
	for _, s := range []string{
		dot("URIs: http://deb_debian_org/debian"),
		dot("deb http://ftp_de_debian_org/debian bookworm main"),
		dot("curl https://proxy_golang_org/golang_org/toolchain/@v/list"),
		dot("GONOSUMDB= GOSUMDB=sum_golang_org"),
		dot("FROM docker_io/library/debian:trixie"),
		dot("pip install --index-url https://pypi_org/simple x"),
		dot("image: quay_io/jupyterhub/k8s-hub"),
		dot("http://archive_ubuntu_com/ubuntu jammy main"),
	} {
		if !registryHosts.MatchString(s) {
			t.Errorf("not found in %q", s)
		}
	}
	for _, s := range []string{
		dot("import \"golang_org/x/tools/imports\""),
		dot("the module golang_org/toolchain"),
		dot("https://github_com/warplab/warplab"),
		dot("name: registry_example_edu/warplab-hub"),
		dot("https://packages_debian_org/trixie/jupyterlab"),
		dot("https://sparse_tamu_edu"),
		dot("see docker/Dockerfile_dockerignore"),
	} {
		if registryHosts.MatchString(s) {
			t.Errorf("found in %q", s)
		}
	}
}

// TestAptMirror runs scripts/apt-mirror.sh, with POSIX sh as in a bare
// Debian image, on apt sources as Debian, a class network and a host with
// third-party archives write them: it must print the Debian mirror the
// sources use (not the security archive, not a third party's), honour
// WARPLAB_APT_MIRROR, say what to set when there is none, and with --use
// point the Debian sources at the override and leave the rest alone.
func TestAptMirror(t *testing.T) {
	script := filepath.Join(repoRoot(t), "scripts", "apt-mirror.sh")
	osRelease := filepath.Join(t.TempDir(), "os-release")
	if err := os.WriteFile(osRelease, []byte("ID=debian\nVERSION_CODENAME=trixie\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// etc lays out an apt folder with the given files.
	etc := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "sources.list.d"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	run := func(t *testing.T, dir string, env []string, args ...string) (string, error) {
		cmd := exec.Command("sh", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), "WARPLAB_APT_ETC="+dir, "WARPLAB_OS_RELEASE="+osRelease, "WARPLAB_APT_MIRROR=")
		cmd.Env = append(cmd.Env, env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return stderr.String(), err
		}
		return strings.TrimSpace(string(out)), nil
	}
	deb822 := "Types: deb\nURIs: http://mirror.example/debian/\nSuites: trixie trixie-updates\nComponents: main\n" +
		"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n" +
		"Types: deb\nURIs: http://mirror.example/debian-security\nSuites: trixie-security\nComponents: main\n"
	tests := []struct {
		name  string
		files map[string]string
		env   []string
		want  string // "" : exit 1 naming WARPLAB_APT_MIRROR
	}{
		{"deb822", map[string]string{"sources.list.d/debian.sources": deb822}, nil, "http://mirror.example/debian"},
		{"one-line, after a third party and the security archive", map[string]string{"sources.list": "# a comment\n" +
			"deb-src http://src.example/debian trixie main\n" +
			"deb [signed-by=/k.gpg] http://mirror.example/debian-security trixie-security main\n" +
			"deb http://vendor.example/apt vendor-trixie main\n" +
			"deb [arch=amd64 trusted=yes] http://class.example:3142/debian trixie main contrib\n"}, nil, "http://class.example:3142/debian"},
		{"a disabled stanza", map[string]string{"sources.list.d/debian.sources": "Types: deb\nURIs: http://off.example/debian\nSuites: trixie\nEnabled: no\n\n" + deb822}, nil, "http://mirror.example/debian"},
		{"the override", map[string]string{"sources.list.d/debian.sources": deb822}, []string{"WARPLAB_APT_MIRROR=http://class.example/debian/"}, "http://class.example/debian"},
		{"no Debian archive", map[string]string{"sources.list": "deb http://vendor.example/apt jammy main\n"}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, etc(t, tc.files), tc.env)
			if tc.want == "" {
				if err == nil || !strings.Contains(got, "WARPLAB_APT_MIRROR") {
					t.Errorf("apt-mirror.sh = %q, %v; want exit 1 saying to set WARPLAB_APT_MIRROR", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("apt-mirror.sh = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Run("--use", func(t *testing.T) {
		dir := etc(t, map[string]string{"sources.list.d/debian.sources": deb822})
		if out, err := run(t, dir, []string{"WARPLAB_APT_MIRROR=http://class.example/debian"}, "--use"); err != nil {
			t.Fatalf("--use: %v\n%s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, "sources.list.d", "debian.sources"))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(deb822, "http://mirror.example/debian/\n", "http://class.example/debian\n", 1)
		if string(b) != want {
			t.Errorf("after --use:\n%s\nwant:\n%s", b, want)
		}
		if got, err := run(t, dir, nil); err != nil || got != "http://class.example/debian" {
			t.Errorf("apt-mirror.sh after --use = %q, %v", got, err)
		}
		// Without the override, --use changes nothing.
		if _, err := run(t, dir, nil, "--use"); err != nil {
			t.Fatal(err)
		}
		if b2, _ := os.ReadFile(filepath.Join(dir, "sources.list.d", "debian.sources")); string(b2) != want {
			t.Errorf("--use without WARPLAB_APT_MIRROR changed the sources:\n%s", b2)
		}
	})
}

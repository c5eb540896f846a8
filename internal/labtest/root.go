package labtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Root is a fresh working container of a built image, mounted as a folder
// on the host (scripts/lab/root.sh). Programs run in it with chroot in a
// mount and PID namespace of their own: /proc, /dev and /sys are mounted
// there and vanish with it, and killing the command ends everything it
// started. The network is the host's, so its servers are reached on
// loopback, unless Offline is set.
type Root struct {
	Repo      string   // the checkout, for scripts/lab
	Image     string   // e.g. localhost/warplab:lab
	Container string   // buildah working container
	Dir       string   // the container's / on the host
	Env       []string // the image's environment (its Dockerfile's ENV lines), KEY=VALUE
	// Offline runs each command in a network namespace of its own, as a
	// classroom behind a firewall that drops what it does not allow: its
	// loopback works, and whatever is sent anywhere else is silently dropped
	// (a default route into loopback, where a packet for another address is
	// discarded), so a program that tries the network waits out its timeouts
	// instead of failing at once, as on a machine with no network at all.
	// Its servers cannot be reached from the host.
	Offline bool
}

// Build builds image kind ("sim", "hub" or "cuda") from its Dockerfile with
// scripts/lab/build.sh and returns the image name. Built layers are cached
// outside the checkout; with an empty cache this takes minutes.
func Build(ctx context.Context, repo, kind string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(repo, "scripts/lab/build.sh"), kind)
	cmd.Dir = repo
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/lab/build.sh %s: %v\n%s", kind, err, tailString(errb.String(), 4000))
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	if len(lines) == 0 {
		return "", fmt.Errorf("scripts/lab/build.sh %s printed no image name", kind)
	}
	return lines[len(lines)-1], nil
}

// NewRoot makes a fresh working container of image.
func NewRoot(ctx context.Context, repo, image string) (*Root, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(repo, "scripts/lab/root.sh"), "new", image).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("scripts/lab/root.sh new %s: %v\n%s", image, err, out)
	}
	f := strings.Fields(strings.TrimSpace(string(out)))
	if len(f) < 2 {
		return nil, fmt.Errorf("scripts/lab/root.sh new %s: want \"CONTAINER DIR\", got %q", image, out)
	}
	r := &Root{Repo: repo, Image: image, Container: f[len(f)-2], Dir: f[len(f)-1]}
	if _, err := os.Stat(filepath.Join(r.Dir, "usr/bin")); err != nil {
		r.Close()
		return nil, fmt.Errorf("working container %s of %s: %v", r.Container, image, err)
	}
	env, err := exec.CommandContext(ctx, filepath.Join(repo, "scripts/lab/root.sh"), "env", image).Output()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("scripts/lab/root.sh env %s: %v", image, err)
	}
	for _, l := range strings.Split(string(env), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			r.Env = append(r.Env, l)
		}
	}
	r.Env = append(r.Env, "HOME=/root")
	return r, nil
}

// Close removes the working container and everything written in it.
func (r *Root) Close() error {
	out, err := exec.Command(filepath.Join(r.Repo, "scripts/lab/root.sh"), "rm", r.Container).CombinedOutput()
	if err != nil {
		return fmt.Errorf("scripts/lab/root.sh rm %s: %v\n%s", r.Container, err, out)
	}
	return nil
}

// Path returns the host path of p, a path inside the root.
func (r *Root) Path(p string) string { return filepath.Join(r.Dir, p) }

// Command returns a command that runs argv inside the root as root, in dir
// (a path in the root), with env (KEY=VALUE) on top of the image's environment. Killing it
// (its context ending) ends every process it started: it is the first
// process of its own PID namespace's parent, unshare --kill-child.
func (r *Root) Command(ctx context.Context, dir string, env []string, argv ...string) *exec.Cmd {
	// The shell mounts /proc, /dev and /sys inside the new mount namespace
	// (private: nothing leaks to the host) and then chroots; env -i gives
	// the image's environment, not the host's. Offline, it first brings up
	// the new network namespace's loopback and routes everything else into
	// it (the host's ip(8), before the chroot).
	script := `set -e; R="$1"; D="$2"; N="$3"; shift 3
if [ "$N" = offline ]; then ip link set lo up; ip route add default dev lo; fi
mount -t proc proc "$R/proc"
mount --rbind /dev "$R/dev"
mount -t sysfs sysfs "$R/sys" 2>/dev/null || true
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm" 2>/dev/null || true
exec chroot "$R" /bin/sh -c 'cd "$0" && exec "$@"' "$D" "$@"`
	net, full := "host", []string{"--mount", "--pid", "--fork", "--kill-child=SIGKILL"}
	if r.Offline {
		net, full = "offline", append(full, "--net")
	}
	full = append(full, "--", "/bin/sh", "-c", script, "sh", r.Dir, dir, net, "/usr/bin/env", "-i")
	full = append(full, r.Env...)
	full = append(full, env...)
	full = append(full, argv...)
	cmd := exec.CommandContext(ctx, "unshare", full...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// Run runs argv in the root and returns its combined output.
func (r *Root) Run(ctx context.Context, argv ...string) (string, error) {
	out, err := r.Command(ctx, "/", nil, argv...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s in %s: %v\n%s", strings.Join(argv, " "), r.Image, err, tailString(string(out), 3000))
	}
	return string(out), nil
}

func tailString(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

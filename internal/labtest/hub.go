package labtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Hub is a JupyterHub running in a Root of the hub image
// (docker/Dockerfile.hub), on loopback, with an admin API token.
type Hub struct {
	*Server
	Root *Root
}

// StartHub starts the image's JupyterHub (its CMD, docker/hub/jupyterhub_config.py) in r on
// free loopback ports, with adminToken as the warplab-admin service's token,
// and returns once the hub's API answers.
func StartHub(ctx context.Context, r *Root, adminToken string) (*Hub, error) {
	ports, err := FreePorts(3)
	if err != nil {
		return nil, err
	}
	env := []string{
		"WARPLAB_HUB_PORT=" + strconv.Itoa(ports[0]),
		"WARPLAB_HUB_API_PORT=" + strconv.Itoa(ports[1]),
		"WARPLAB_HUB_PROXY_API_PORT=" + strconv.Itoa(ports[2]),
		"WARPLAB_HUB_ADMIN_TOKEN=" + adminToken,
	}
	cmd := r.Command(ctx, "/srv/jupyterhub", env, "jupyterhub", "-f", "/etc/jupyterhub/jupyterhub_config.py")
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), Token: adminToken, cmd: cmd}
	if err := s.start(); err != nil {
		return nil, err
	}
	if err := s.waitReady(ctx, "/hub/api/users", 3*time.Minute); err != nil {
		s.Stop()
		return nil, err
	}
	return &Hub{Server: s, Root: r}, nil
}

// api sends method to /hub/api/<path> with the admin token and decodes a
// JSON answer into out (when not nil); want lists the statuses that count as
// success.
func (h *Hub) api(ctx context.Context, method, path string, body, out any, want ...int) error {
	code, b, err := Request(ctx, method, h.URL+"/hub/api/"+path, h.Token, body)
	if err != nil {
		return fmt.Errorf("%s /hub/api/%s: %w", method, path, err)
	}
	for _, w := range want {
		if code == w {
			if out != nil {
				return json.Unmarshal(b, out)
			}
			return nil
		}
	}
	return fmt.Errorf("%s /hub/api/%s: %d %.300s", method, path, code, b)
}

// AddStudent adds a user to the hub (the hub makes the Unix account) and
// returns an API token issued to that student, valid for an hour.
func (h *Hub) AddStudent(ctx context.Context, name string) (token string, err error) {
	if err := h.api(ctx, http.MethodPost, "users/"+name, nil, nil, http.StatusCreated, http.StatusConflict); err != nil {
		return "", err
	}
	var t struct {
		Token string `json:"token"`
	}
	if err := h.api(ctx, http.MethodPost, "users/"+name+"/tokens",
		map[string]any{"note": "warplab test", "expires_in": 3600}, &t, http.StatusCreated, http.StatusOK); err != nil {
		return "", err
	}
	if t.Token == "" {
		return "", fmt.Errorf("no token issued for %s", name)
	}
	return t.Token, nil
}

// StartServer asks the hub to start name's server (with the student's own
// token, as the student's browser would) and waits until it is ready.
func (h *Hub) StartServer(ctx context.Context, name, token string) error {
	code, b, err := Request(ctx, http.MethodPost, h.URL+"/hub/api/users/"+name+"/server", token, nil)
	if err != nil {
		return fmt.Errorf("starting %s's server: %w", name, err)
	}
	if code != http.StatusCreated && code != http.StatusAccepted && code != http.StatusBadRequest {
		return fmt.Errorf("starting %s's server: %d %.300s", name, code, b)
	}
	for {
		var u struct {
			Servers map[string]struct {
				Ready   bool   `json:"ready"`
				Pending string `json:"pending"`
			} `json:"servers"`
		}
		if err := h.api(ctx, http.MethodGet, "users/"+name, nil, &u, http.StatusOK); err != nil {
			return err
		}
		if s, ok := u.Servers[""]; ok && s.Ready {
			return nil
		} else if !ok && code != http.StatusBadRequest {
			// No server and none pending: the spawn failed.
			return fmt.Errorf("%s's server failed to start (see the hub's log)", name)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s's server not ready: %w", name, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// UserURL is the base URL of name's server through the hub's proxy.
func (h *Hub) UserURL(name string) string { return h.URL + "/user/" + name }

// DirectURL finds name's server's own address (it listens on loopback
// behind the proxy), from the JUPYTERHUB_SERVICE_URL the hub gave the
// server's process: a way past the proxy, for the access test.
func (h *Hub) DirectURL(name string) (string, error) {
	uid, err := h.UID(name)
	if err != nil {
		return "", err
	}
	for _, pid := range procsOf(uid) {
		env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := strings.CutPrefix(string(kv), "JUPYTERHUB_SERVICE_URL="); ok {
				return strings.TrimSuffix(v, "/"), nil
			}
		}
	}
	return "", fmt.Errorf("no process of %s (uid %d) has JUPYTERHUB_SERVICE_URL", name, uid)
}

// UID returns name's uid in the hub's root (/etc/passwd there).
func (h *Hub) UID(name string) (int, error) {
	f, err := os.Open(h.Root.Path("/etc/passwd"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), ":")
		if len(p) > 2 && p[0] == name {
			return strconv.Atoi(p[2])
		}
	}
	return 0, fmt.Errorf("%s: no such user in the hub's /etc/passwd", name)
}

// procsOf returns the ids of the processes running as uid.
func procsOf(uid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if u, _, ok := procUIDRSS(pid); ok && u == uid {
			out = append(out, pid)
		}
	}
	return out
}

// procUIDRSS reads a process's real uid and resident set size (bytes).
func procUIDRSS(pid int) (uid int, rss int64, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0, false
	}
	uid = -1
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "Uid:":
			uid, _ = strconv.Atoi(f[1])
		case "VmRSS:":
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			rss = kb << 10
		}
	}
	return uid, rss, uid >= 0
}

// PIDNamespace returns the PID namespace of process pid (as /proc shows it),
// or "" when it cannot be read.
func PIDNamespace(pid int) string {
	ns, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "ns", "pid"))
	return ns
}

// RSSByUID returns the summed resident memory of the processes of each uid
// in uids, now, counting only processes in the PID namespace ns (when not
// ""): a uid inside the image's root may belong to someone else on the host.
func RSSByUID(uids map[int]bool, ns string) map[int]int64 {
	out := map[int]int64{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ns != "" && PIDNamespace(pid) != ns {
			continue
		}
		if u, rss, ok := procUIDRSS(pid); ok && uids[u] {
			out[u] += rss
		}
	}
	return out
}

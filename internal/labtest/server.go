package labtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// Server is a Jupyter server (JupyterLab) or a JupyterHub running in a Root,
// on loopback.
type Server struct {
	URL   string // base URL, e.g. http://127.0.0.1:41234
	Token string // the server's token (Lab) or an admin API token (hub)
	cmd   *exec.Cmd
	log   *syncBuffer
	done  chan struct{}
	err   error // cmd.Wait's result, once done is closed
}

// Log returns what the server printed so far.
func (s *Server) Log() string { return s.log.String() }

// Stop ends the server and everything it started.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Cancel()
	}
	<-s.done
}

// NewToken returns a random 32-hex-digit token.
func NewToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	p, err := FreePorts(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// FreePorts returns n distinct TCP ports on 127.0.0.1 that were free a
// moment ago. It holds every listener open until it has all n: ports asked
// for one after another can come back the same once the first is closed
// (the hub's API and its proxy's API were once given one port, and the hub
// could not bind).
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// StartLab starts JupyterLab in r as root, on 127.0.0.1 only, serving dir
// (a path in the root), with token as its token: the image's own command
// (docker/Dockerfile's CMD) with the address and token pinned for the test.
// It returns once the server answers /api/status with that token.
func StartLab(ctx context.Context, r *Root, dir, token string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	cmd := r.Command(ctx, dir, nil, "jupyter", "lab", "--ip=127.0.0.1", "--port="+strconv.Itoa(port),
		"--no-browser", "--allow-root", "--ServerApp.root_dir="+dir, "--IdentityProvider.token="+token,
		"--ServerApp.port_retries=0")
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Token: token, cmd: cmd}
	if err := s.start(); err != nil {
		return nil, err
	}
	if err := s.waitReady(ctx, "/api/status", 3*time.Minute); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start() error {
	s.log = &syncBuffer{}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.done = make(chan struct{})
	if err := s.cmd.Start(); err != nil {
		return err
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	return nil
}

// waitReady polls path (with the token) until it answers 200, the server
// exits, or limit passes.
func (s *Server) waitReady(ctx context.Context, path string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		code, _, err := s.Get(ctx, path, s.Token)
		if err == nil && code == http.StatusOK {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("server exited before answering %s: %v\n%s", path, s.err, tailString(s.Log(), 4000))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server not answering %s after %v (last: %d %v)\n%s", path, limit, code, err, tailString(s.Log(), 4000))
		}
	}
}

// Get sends GET base+path with "Authorization: token TOKEN" when token is not
// "", follows no redirect, and returns the status and body.
func (s *Server) Get(ctx context.Context, path, token string) (int, []byte, error) {
	return Request(ctx, http.MethodGet, s.URL+path, token, nil)
}

// noRedirect is an HTTP client that reports redirects instead of following
// them: a redirect to a login page is a refusal, and must not be mistaken
// for the page.
var noRedirect = &http.Client{
	Timeout:       60 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Request sends one request with "Authorization: token TOKEN" (when token
// is not "") and a JSON body (when body is not nil), and returns the status
// and the body.
func Request(ctx context.Context, method, url, token string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	return resp.StatusCode, b, err
}

// syncBuffer is a bytes.Buffer safe for a process's stdout and stderr and a
// reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

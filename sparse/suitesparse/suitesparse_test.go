package suitesparse

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

const goodMTX = "%%MatrixMarket matrix coordinate real symmetric\n% test\n3 3 3\n1 1 4\n2 1 -1\n3 3 2\n"

// tarFile is one member of a test archive.
type tarFile struct {
	name string
	body string
	typ  byte // 0 means a regular file
}

func makeTarGz(t *testing.T, files ...tarFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}
		if f.typ != 0 {
			hdr.Typeflag = f.typ
			hdr.Size = 0
			hdr.Linkname = "/etc/passwd"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if f.typ == 0 {
			if _, err := tw.Write([]byte(f.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// server serves body at /MM/HB/small.tar.gz (404 elsewhere) and counts
// requests.
func server(t *testing.T, status int, body []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/MM/HB/small.tar.gz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// listFiles returns every file under dir, relative, so tests can assert that
// a failed fetch left nothing (not even a temp file) behind.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel := testenv.Must(filepath.Rel(dir, p))(t)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestGetSuccessAndCache(t *testing.T) {
	archive := makeTarGz(t,
		tarFile{name: "small/small_b.mtx", body: "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n"},
		tarFile{name: "small/small.mtx", body: goodMTX},
	)
	srv, hits := server(t, http.StatusOK, archive)
	cache := t.TempDir()
	var lastDone, lastTotal int64
	calls := 0
	f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL, CacheDir: cache,
		Progress: func(done, total int64) { calls++; lastDone, lastTotal = done, total }}

	path, err := f.Get(context.Background(), "HB/small")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "HB", "small.mtx"); path != want {
		t.Errorf("path = %q, want %q", path, want)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != goodMTX {
		t.Errorf("cached file = %q, want %q", got, goodMTX)
	}
	if calls == 0 || lastDone != int64(len(archive)) || lastTotal != int64(len(archive)) {
		t.Errorf("progress: %d calls, last (%d, %d), want last (%d, %d)", calls, lastDone, lastTotal, len(archive), len(archive))
	}
	if files := listFiles(t, cache); len(files) != 1 {
		t.Errorf("cache holds %v, want only HB/small.mtx", files)
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("%d requests for the first Get, want 1", n)
	}

	// Second call, through the package function: served from the cache.
	path2, err := Get(context.Background(), srv.Client(), srv.URL, cache, "HB/small")
	if err != nil || path2 != path {
		t.Fatalf("second Get = %q, %v; want %q", path2, err, path)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("%d requests after a cached Get, want still 1", n)
	}
}

func TestGetErrorsLeaveNothing(t *testing.T) {
	bigBody := strings.Repeat("% padding\n", 2000) + goodMTX
	tests := []struct {
		name     string
		status   int
		body     []byte
		maxBytes int64
		matrix   string
		want     string
	}{
		{name: "404", status: http.StatusNotFound, body: []byte("no"), want: "404"},
		{name: "server error", status: http.StatusInternalServerError, want: "500"},
		{name: "wrong name on server", status: http.StatusOK, matrix: "HB/other", want: "404"},
		{name: "corrupt gzip", status: http.StatusOK, body: []byte("this is not gzip at all"), want: "not a gzip archive"},
		{name: "truncated gzip", status: http.StatusOK, body: makeTarGz(t, tarFile{name: "small/small.mtx", body: bigBody})[:200], want: "unexpected EOF"},
		{name: "gzip of not a tar", status: http.StatusOK, body: gz(t, "hello"), want: "reading archive"},
		{name: "archive without the mtx", status: http.StatusOK,
			body: makeTarGz(t, tarFile{name: "small/small_b.mtx", body: goodMTX}, tarFile{name: "other/small.mtx", body: goodMTX}),
			want: "archive has no small/small.mtx"},
		{name: "path traversal entry ignored", status: http.StatusOK,
			body: makeTarGz(t, tarFile{name: "../small/small.mtx", body: goodMTX}, tarFile{name: "/small/small.mtx", body: goodMTX}),
			want: "archive has no"},
		{name: "symlink instead of the mtx", status: http.StatusOK,
			body: makeTarGz(t, tarFile{name: "small/small.mtx", typ: tar.TypeSymlink}),
			want: "not a regular file"},
		{name: "malformed mtx inside", status: http.StatusOK,
			body: makeTarGz(t, tarFile{name: "small/small.mtx", body: "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n3 1 1\n"}),
			want: "line 4: row index 3 out of range"},
		{name: "truncated mtx inside", status: http.StatusOK,
			body: makeTarGz(t, tarFile{name: "small/small.mtx", body: goodMTX[:len(goodMTX)-7]}),
			want: "does not parse"},
		{name: "mtx over the size limit", status: http.StatusOK, maxBytes: 1000,
			body: makeTarGz(t, tarFile{name: "small/small.mtx", body: bigBody}),
			want: "over the 1000-byte limit"},
		{name: "archive over the size limit", status: http.StatusOK, maxBytes: 100,
			body: makeTarGz(t, tarFile{name: "small/small.mtx", body: bigBody}),
			want: "exceeds the 100-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := server(t, tt.status, tt.body)
			cache := t.TempDir()
			f := &Fetcher{Client: srv.Client(), BaseURL: srv.URL, CacheDir: cache, MaxBytes: tt.maxBytes}
			name := tt.matrix
			if name == "" {
				name = "HB/small"
			}
			path, err := f.Get(context.Background(), name)
			if err == nil {
				t.Fatalf("Get = %q, want an error containing %q", path, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if files := listFiles(t, cache); len(files) != 0 {
				t.Errorf("failed Get left %v in the cache", files)
			}
		})
	}
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGetCanceled(t *testing.T) {
	srv, _ := server(t, http.StatusOK, makeTarGz(t, tarFile{name: "small/small.mtx", body: goodMTX}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cache := t.TempDir()
	_, err := Get(ctx, srv.Client(), srv.URL, cache, "HB/small")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if files := listFiles(t, cache); len(files) != 0 {
		t.Errorf("canceled Get left %v", files)
	}
}

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"HB/bcsstk13", true},
		{"HB/1138_bus", true},
		{"SNAP/soc-LiveJournal1", true},
		{"Grund/bayer10", true},
		{"a.b/c+d", true},
		{"", false},
		{"HB", false},
		{"HB/", false},
		{"/bcsstk13", false},
		{"HB/a/b", false},
		{"../etc", false},
		{"HB/..", false},
		{"HB/a..b", false},
		{"HB/.hidden", false},
		{"HB/-x", false},
		{"HB/a b", false},
		{"HB/a%2Fb", false},
		{`HB\x`, false},
		{"HB/a?x=1", false},
		{"HB/" + strings.Repeat("a", 200), false},
	}
	for _, tt := range tests {
		err := ValidName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestGetRejectsBadNameWithoutRequest(t *testing.T) {
	srv, hits := server(t, http.StatusOK, nil)
	cache := t.TempDir()
	if _, err := Get(context.Background(), srv.Client(), srv.URL, cache, "../../etc/passwd"); err == nil {
		t.Error("Get accepted a traversal name")
	}
	if hits.Load() != 0 {
		t.Error("a bad name reached the server")
	}
	if files := listFiles(t, cache); len(files) != 0 {
		t.Errorf("bad name left %v", files)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg-test")
	t.Setenv("HOME", "/tmp/home-test")
	d, err := DefaultCacheDir()
	if err != nil {
		t.Skipf("no user cache dir on this system: %v", err)
	}
	base := testenv.Must(os.UserCacheDir())(t)
	if want := filepath.Join(base, "warplab", "matrices"); d != want {
		t.Errorf("DefaultCacheDir() = %q, want %q", d, want)
	}
}

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarGz returns a gzipped tar holding one file.
func tarGz(t *testing.T, name, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(body))
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// `warplab matrix get` against a local server standing in for the
// Collection: the path printed is a file that parses, and then runs.
func TestMatrixGet(t *testing.T) {
	const mtx = "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 2\n3 1 -1\n3 3 4\n"
	archive := tarGz(t, "tiny/tiny.mtx", mtx)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/MM/Test/tiny.tar.gz" {
			http.NotFound(w, r)
			return
		}
		w.Write(archive)
	}))
	defer srv.Close()
	cache := t.TempDir()

	code, stdout, stderr := runCLI("matrix", "get", "Test/tiny", "--cache", cache, "--url", srv.URL)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	path := strings.TrimSpace(stdout)
	if filepath.Dir(filepath.Dir(path)) != cache {
		t.Errorf("path %q is not in the cache %q", path, cache)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != mtx {
		t.Errorf("cached file %q: %v", b, err)
	}
	if code, out, stderr := runCLI("run", "spmv", "--backend", "sim", "--matrix", path); code != exitOK || !strings.Contains(out, "tiny") {
		t.Errorf("running the fetched matrix: exit %d, stderr %q", code, stderr)
	}

	code, _, stderr = runCLI("matrix", "get", "Test/missing", "--cache", cache, "--url", srv.URL)
	if code != exitFail || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "404") {
		t.Errorf("missing matrix: exit %d, stderr %q (want one line naming the 404)", code, stderr)
	}
}

// Package suitesparse fetches matrices from the SuiteSparse Matrix
// Collection (https://sparse.tamu.edu) into a local cache, so lessons and
// benchmarks can run on real matrices beyond the few kept beside the
// repository, downloading each one once.
//
// The Collection serves each matrix's Matrix Market archive at
// <base>/MM/<Group>/<Name>.tar.gz, holding <Name>/<Name>.mtx (and sometimes
// right-hand sides and other files, which are ignored). The cache keeps only
// the matrix, as <cacheDir>/<Group>/<Name>.mtx. A file appears in the cache
// only after it was read back with sparse.ReadMatrixMarket, and appears by an
// atomic rename, so an interrupted or failed fetch leaves nothing behind and
// a cached file can be trusted without fetching again.
package suitesparse

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/warplab/warplab/sparse"
)

// DefaultBaseURL is the Collection's home, used when no base URL is given.
const DefaultBaseURL = "https://sparse.tamu.edu"

// DefaultMaxBytes bounds both the downloaded archive and the unpacked .mtx
// when Fetcher.MaxBytes is zero. The largest matrices CSR with int32 offsets
// can hold are a few tens of GiB of text; anything bigger than this is far
// beyond what a lesson needs, and a bound keeps a bad server or a
// decompression bomb from filling the disk.
const DefaultMaxBytes = 8 << 30

// DefaultCacheDir returns os.UserCacheDir()/warplab/matrices, the cache that
// persists across notebooks and test runs of one user.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("suitesparse: no user cache directory: %w", err)
	}
	return filepath.Join(d, "warplab", "matrices"), nil
}

// Fetcher downloads matrices into a cache. The zero value works: it uses
// http.DefaultClient, DefaultBaseURL, DefaultCacheDir() and DefaultMaxBytes.
type Fetcher struct {
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// BaseURL is the Collection's address; "" means DefaultBaseURL.
	BaseURL string
	// CacheDir is where matrices are kept; "" means DefaultCacheDir().
	CacheDir string
	// MaxBytes bounds the archive and the unpacked .mtx; 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// Progress, if set, is called as the archive downloads with the bytes
	// received so far and the total (-1 when the server does not say).
	Progress func(done, total int64)
}

// Get returns the path of the cached Matrix Market file for name
// ("Group/Name", e.g. "HB/bcsstk13"), downloading it first if it is not
// cached. See Fetcher for the meaning of the zero arguments.
func Get(ctx context.Context, client *http.Client, baseURL, cacheDir, name string) (path string, err error) {
	f := &Fetcher{Client: client, BaseURL: baseURL, CacheDir: cacheDir}
	return f.Get(ctx, name)
}

// ValidName reports whether name is a Collection name this package will
// fetch: exactly one slash between a group and a matrix name, each starting
// with a letter or digit and holding only letters, digits, '_', '-', '+' and
// '.', and no "..". The check keeps the name from steering the URL or the
// cache path anywhere else.
func ValidName(name string) error {
	group, mat, ok := strings.Cut(name, "/")
	if !ok {
		return fmt.Errorf("suitesparse: name %q: want Group/Name", name)
	}
	for _, part := range []string{group, mat} {
		if part == "" || strings.Contains(part, "..") || len(part) > 128 {
			return fmt.Errorf("suitesparse: name %q: want Group/Name", name)
		}
		if !isAlnum(part[0]) {
			return fmt.Errorf("suitesparse: name %q: each part must start with a letter or digit", name)
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !isAlnum(c) && c != '_' && c != '-' && c != '+' && c != '.' {
				return fmt.Errorf("suitesparse: name %q: character %q not allowed", name, c)
			}
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// Get is the package-level Get with this Fetcher's settings.
func (f *Fetcher) Get(ctx context.Context, name string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	group, mat, _ := strings.Cut(name, "/")
	cacheDir := f.CacheDir
	if cacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return "", err
		}
		cacheDir = d
	}
	dir := filepath.Join(cacheDir, group)
	dst := filepath.Join(dir, mat+".mtx")
	if st, err := os.Stat(dst); err == nil && st.Mode().IsRegular() {
		return dst, nil
	}

	base := f.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.JoinPath(base, "MM", group, mat+".tar.gz")
	if err != nil {
		return "", fmt.Errorf("suitesparse: base URL %q: %w", base, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("suitesparse: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+mat+".mtx.tmp-*")
	if err != nil {
		return "", fmt.Errorf("suitesparse: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := f.download(ctx, u, mat, tmp); err != nil {
		return "", fmt.Errorf("suitesparse: %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		return "", fmt.Errorf("suitesparse: %s: %w", name, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("suitesparse: %s: %w", name, err)
	}
	if _, _, err := sparse.ReadMatrixMarket(tmp); err != nil {
		return "", fmt.Errorf("suitesparse: %s: downloaded %s/%s.mtx does not parse: %w", name, mat, mat, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("suitesparse: %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("suitesparse: %s: %w", name, err)
	}
	ok = true
	return dst, nil
}

// download fetches the archive at u and copies <mat>/<mat>.mtx out of it
// into w. Nothing from the archive names a path on disk, so entries like
// "../x" can only fail to match.
func (f *Fetcher) download(ctx context.Context, u, mat string, w io.Writer) error {
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if resp.ContentLength > limit {
		return fmt.Errorf("GET %s: archive of %d bytes exceeds the %d-byte limit", u, resp.ContentLength, limit)
	}
	body := &countingReader{r: io.LimitReader(resp.Body, limit+1), total: resp.ContentLength, progress: f.Progress}
	zr, err := gzip.NewReader(body)
	if err != nil {
		return fmt.Errorf("GET %s: not a gzip archive: %w", u, err)
	}
	want := mat + "/" + mat + ".mtx"
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if body.done > limit {
				return fmt.Errorf("GET %s: archive exceeds the %d-byte limit", u, limit)
			}
			return fmt.Errorf("GET %s: reading archive: %w", u, err)
		}
		if strings.TrimPrefix(hdr.Name, "./") != want {
			continue
		}
		if hdr.Typeflag != tar.TypeReg {
			return fmt.Errorf("GET %s: %s in the archive is not a regular file", u, want)
		}
		if hdr.Size > limit {
			return fmt.Errorf("GET %s: %s is %d bytes, over the %d-byte limit", u, want, hdr.Size, limit)
		}
		n, err := io.Copy(w, tr)
		if err != nil {
			if body.done > limit {
				return fmt.Errorf("GET %s: archive exceeds the %d-byte limit", u, limit)
			}
			return fmt.Errorf("GET %s: unpacking %s: %w", u, want, err)
		}
		if n != hdr.Size {
			return fmt.Errorf("GET %s: %s: got %d of %d bytes", u, want, n, hdr.Size)
		}
		return nil
	}
	return fmt.Errorf("GET %s: archive has no %s", u, want)
}

// countingReader counts the bytes read and reports them to progress.
type countingReader struct {
	r        io.Reader
	done     int64
	total    int64
	progress func(done, total int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.done += int64(n)
	if c.progress != nil && n > 0 {
		c.progress(c.done, c.total)
	}
	return n, err
}

package browser

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFindExplicitPath(t *testing.T) {
	if p, err := Find("/opt/some/chromium"); err != nil || p != "/opt/some/chromium" {
		t.Errorf("Find with a path: %q, %v", p, err)
	}
}

// TestLoadWaitsAndShoots: DumpDOM waits for an element a script adds after
// the load event, and Screenshot gives a PNG of the asked viewport (a few
// seconds of headless Chromium; with the browser tests on).
func TestLoadWaitsAndShoots(t *testing.T) {
	if os.Getenv("WARPLAB_NOTEBOOK_TESTS") != "1" && os.Getenv("WARPLAB_BROWSER_TESTS") != "1" ||
		os.Getenv("WARPLAB_BROWSER_TESTS") == "0" {
		t.Skip("browser tests are off: set WARPLAB_BROWSER_TESTS=1 (Chromium needed)")
	}
	page := filepath.Join(t.TempDir(), "p.html")
	html := `<html><body style="background:#08c"><script>
window.addEventListener('load', () => setTimeout(() => {
  const p = document.createElement('pre'); p.id = 'late'; p.textContent = 'added late'; document.body.appendChild(p);
}, 300));
</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := Options{Width: 320, Height: 200}
	dom, err := DumpDOM(ctx, o, "file://"+page, "#late", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dom, "added late") {
		t.Errorf("DumpDOM returned before the late element: %.300s", dom)
	}
	b, err := Screenshot(ctx, o, "file://"+page, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if r := img.Bounds(); r.Dx() != 320 || r.Dy() != 200 {
		t.Errorf("screenshot is %v, want 320×200", r)
	}
	if _, err := DumpDOM(ctx, o, "file://"+page, "#never", 5*time.Second); err == nil {
		t.Error("DumpDOM waiting for an element that never comes: no error")
	}
}

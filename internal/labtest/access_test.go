package labtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// refusesOthers checks the server at base against intruders (label →
// token; "" is no credentials): with the owner's token a lesson file reads
// and a kernel starts (so a refusal below is a refusal, not a wrong path);
// with an intruder's, the file is not read (contents API or raw download),
// no kernel or session is started, and the owner's kernel's channels do not
// open. Afterwards the owner's server has only the owner's kernel.
func refusesOthers(t *testing.T, ctx context.Context, base, owner, file string, intruders map[string]string) {
	t.Helper()
	// Positive controls.
	code, body, err := Request(ctx, http.MethodGet, base+"/api/contents/"+file+"?content=1", owner, nil)
	if err != nil || code != http.StatusOK || !strings.Contains(string(body), "cell_type") {
		t.Fatalf("owner cannot read %s on %s: %d %v %.200s", file, base, code, err, body)
	}
	k, err := StartKernel(ctx, base, owner, "gonb", "")
	if err != nil {
		t.Fatalf("owner cannot start a kernel on %s: %v", base, err)
	}
	defer k.Shutdown(context.Background())
	outs, err := k.Execute(ctx, `%%
fmt.Println("owner's cell ran")`)
	if err != nil || !strings.Contains(stdoutOf(outs), "owner's cell ran") {
		t.Fatalf("owner's kernel on %s does not run a cell: %v %v", base, err, outs)
	}

	for label, tok := range intruders {
		refused := func(what string, code int, body []byte, err error) {
			t.Helper()
			if err != nil {
				t.Errorf("%s, %s: %v", label, what, err)
				return
			}
			if code >= 200 && code < 300 {
				t.Errorf("%s, %s: %d (accepted), body %.200s", label, what, code, body)
			}
			if strings.Contains(string(body), "cell_type") {
				t.Errorf("%s, %s: the answer holds the notebook (%d)", label, what, code)
			}
		}
		code, body, err := Request(ctx, http.MethodGet, base+"/api/contents/"+file+"?content=1", tok, nil)
		refused("GET /api/contents/"+file, code, body, err)
		code, body, err = Request(ctx, http.MethodGet, base+"/files/"+file, tok, nil)
		refused("GET /files/"+file, code, body, err)
		code, body, err = Request(ctx, http.MethodPost, base+"/api/kernels", tok, map[string]string{"name": "gonb"})
		refused("POST /api/kernels", code, body, err)
		code, body, err = Request(ctx, http.MethodPost, base+"/api/sessions", tok,
			map[string]any{"path": file, "type": "notebook", "kernel": map[string]string{"name": "gonb"}})
		refused("POST /api/sessions", code, body, err)
		ws := "ws" + strings.TrimPrefix(base, "http") + "/api/kernels/" + k.ID + "/channels"
		hdr := http.Header{}
		if tok != "" {
			hdr.Set("Authorization", "token "+tok)
		}
		dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if c, resp, err := websocket.Dial(dctx, ws, &websocket.DialOptions{HTTPHeader: hdr}); err == nil {
			c.Close(websocket.StatusNormalClosure, "")
			t.Errorf("%s: the owner's kernel channels opened (%d)", label, resp.StatusCode)
		}
		cancel()
	}

	// No kernel but the owner's was started.
	code, body, err = Request(ctx, http.MethodGet, base+"/api/kernels", owner, nil)
	var ks []struct{ ID string }
	if err != nil || code != http.StatusOK || json.Unmarshal(body, &ks) != nil {
		t.Fatalf("owner cannot list kernels: %d %v %.200s", code, err, body)
	}
	if len(ks) != 1 || ks[0].ID != k.ID {
		t.Errorf("kernels on %s after the intruders: %d (%s), want only the owner's %s", base, len(ks), body, k.ID)
	}
}

// stdoutOf joins a cell's stdout stream outputs.
func stdoutOf(outs []Output) string {
	var b strings.Builder
	for _, o := range outs {
		if o["output_type"] == "stream" && o["name"] == "stdout" {
			b.WriteString(sourceText(o["text"]))
		}
	}
	return b.String()
}

// TestAccess: nobody gets into a server that is not theirs — a request
// without credentials, and one with another's token, start no kernel and
// read no file, on the bare image's JupyterLab, on the hub's proxy, and on a
// student's server reached directly on its loopback port.
func TestAccess(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	t.Run("image", func(t *testing.T) {
		r := newRoot(t, image(t, "sim"))
		srv, err := StartLab(ctx, r, "/warplab/notebooks", NewToken())
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Stop()
		refusesOthers(t, ctx, srv.URL, srv.Token, "spmv.ipynb", map[string]string{
			"no credentials":         "",
			"another server's token": NewToken(),
		})
	})

	t.Run("hub", func(t *testing.T) {
		r := newRoot(t, image(t, "hub"))
		hub, err := StartHub(ctx, r, NewToken())
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			hub.Stop()
			if t.Failed() {
				t.Logf("hub log:\n%s", tailString(hub.Log(), 6000))
			}
		}()
		alice, err := hub.AddStudent(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		bob, err := hub.AddStudent(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		for name, tok := range map[string]string{"alice": alice, "bob": bob} {
			if err := hub.StartServer(ctx, name, tok); err != nil {
				t.Fatal(err)
			}
		}
		intruders := map[string]string{"no credentials": "", "alice's token": alice}

		// The hub's own API: bob's account is not alice's to use.
		for _, c := range []struct{ method, path, tok string }{
			{http.MethodGet, "users/bob", ""},
			{http.MethodGet, "users/bob", alice},
			{http.MethodPost, "users/bob/tokens", ""},
			{http.MethodPost, "users/bob/tokens", alice},
			{http.MethodDelete, "users/bob/server", alice},
			{http.MethodPost, "users/bob/server", alice},
		} {
			code, body, err := Request(ctx, c.method, hub.URL+"/hub/api/"+c.path, c.tok, map[string]any{})
			if err != nil || code < 400 {
				t.Errorf("hub API %s %s with %q: %d %v %.200s (want refused)", c.method, c.path, c.tok, code, err, body)
			}
		}
		t.Run("through the proxy", func(t *testing.T) {
			refusesOthers(t, ctx, hub.UserURL("bob"), bob, "notebooks/spmv.ipynb", intruders)
		})
		t.Run("server directly", func(t *testing.T) {
			direct, err := hub.DirectURL("bob")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(direct, "http://127.0.0.1:") {
				t.Errorf("bob's server listens on %s, want loopback", direct)
			}
			refusesOthers(t, ctx, direct, bob, "notebooks/spmv.ipynb", intruders)
		})
	})
}

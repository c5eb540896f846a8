package labtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// Kernel is a Jupyter kernel driven over a Jupyter server's REST and
// websocket API (/api/kernels/<id>/channels), the way JupyterLab drives it:
// the load test runs a lesson for each student this way, through the hub's
// proxy, without a browser per student.
type Kernel struct {
	ID      string
	base    string // the server's base URL, e.g. http://127.0.0.1:8000/user/s1
	token   string
	conn    *websocket.Conn
	session string
}

// StartKernel starts a kernel of kernel spec name on the server at base
// with token, and connects to its channels. With path "" it is a bare kernel
// (POST base/api/kernels); otherwise it is the kernel of a notebook session
// for path (POST base/api/sessions), running in the notebook's folder as
// JupyterLab's would.
func StartKernel(ctx context.Context, base, token, name, path string) (*Kernel, error) {
	api, req := "/api/kernels", any(map[string]string{"name": name})
	if path != "" {
		api, req = "/api/sessions", map[string]any{"path": path, "type": "notebook", "name": path, "kernel": map[string]string{"name": name}}
	}
	code, body, err := Request(ctx, http.MethodPost, base+api, token, req)
	if err != nil {
		return nil, fmt.Errorf("POST %s%s: %w", base, api, err)
	}
	if code != http.StatusCreated && code != http.StatusOK {
		return nil, fmt.Errorf("POST %s%s: %d %.300s", base, api, code, body)
	}
	var k struct {
		ID     string
		Kernel struct{ ID string }
	}
	if err := json.Unmarshal(body, &k); err == nil && path != "" {
		k.ID = k.Kernel.ID
	}
	if k.ID == "" {
		return nil, fmt.Errorf("POST %s%s: no kernel id in %.300s", base, api, body)
	}
	kn := &Kernel{ID: k.ID, base: base, token: token, session: newID()}
	ws := "ws" + strings.TrimPrefix(base, "http") + "/api/kernels/" + k.ID + "/channels?session_id=" + kn.session
	conn, resp, err := websocket.Dial(ctx, ws, &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"token " + token}},
	})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		kn.Shutdown(context.Background())
		return nil, fmt.Errorf("websocket %s: %d %w", ws, status, err)
	}
	conn.SetReadLimit(64 << 20) // a figure is one message
	kn.conn = conn
	return kn, nil
}

// Shutdown closes the channels and deletes the kernel.
func (k *Kernel) Shutdown(ctx context.Context) {
	if k.conn != nil {
		k.conn.Close(websocket.StatusNormalClosure, "")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, _, _ = Request(ctx, http.MethodDelete, k.base+"/api/kernels/"+k.ID, k.token, nil)
}

// message is a Jupyter message on the websocket (JSON, one per frame).
type message struct {
	Header       header          `json:"header"`
	ParentHeader header          `json:"parent_header"`
	Metadata     map[string]any  `json:"metadata"`
	Content      json.RawMessage `json:"content"`
	Channel      string          `json:"channel"`
	Buffers      []any           `json:"buffers,omitempty"`
}

type header struct {
	MsgID    string `json:"msg_id,omitempty"`
	MsgType  string `json:"msg_type,omitempty"`
	Session  string `json:"session,omitempty"`
	Username string `json:"username,omitempty"`
	Date     string `json:"date,omitempty"`
	Version  string `json:"version,omitempty"`
}

// Output is one cell output in nbformat 4's shape.
type Output = map[string]any

// Execute runs code as one cell and returns its outputs (nbformat 4
// outputs: stream, display_data, execute_result, error) once the kernel has
// replied and gone idle. An error output is a result, not an error; Execute
// fails when the kernel cannot be reached or ctx ends.
func (k *Kernel) Execute(ctx context.Context, code string) ([]Output, error) {
	id := newID()
	content, _ := json.Marshal(map[string]any{
		"code": code, "silent": false, "store_history": true,
		"user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": false,
	})
	msg := message{
		Header:   header{MsgID: id, MsgType: "execute_request", Session: k.session, Username: "warplab-loadtest", Date: time.Now().UTC().Format(time.RFC3339Nano), Version: "5.3"},
		Metadata: map[string]any{}, Content: content, Channel: "shell",
	}
	b, _ := json.Marshal(msg)
	if err := k.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return nil, fmt.Errorf("sending execute_request: %w", err)
	}
	var outs []Output
	replied, idle := false, false
	for !replied || !idle {
		_, data, err := k.conn.Read(ctx)
		if err != nil {
			return outs, fmt.Errorf("kernel %s: %w", k.ID, err)
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			return outs, fmt.Errorf("kernel %s: bad message: %v", k.ID, err)
		}
		if m.ParentHeader.MsgID != id {
			continue
		}
		var c map[string]any
		_ = json.Unmarshal(m.Content, &c)
		switch m.Header.MsgType {
		case "execute_reply":
			replied = true
		case "status":
			idle = c["execution_state"] == "idle"
		case "stream":
			outs = append(outs, Output{"output_type": "stream", "name": c["name"], "text": c["text"]})
		case "display_data":
			outs = append(outs, Output{"output_type": "display_data", "data": c["data"], "metadata": map[string]any{}})
		case "execute_result":
			outs = append(outs, Output{"output_type": "execute_result", "data": c["data"], "metadata": map[string]any{}, "execution_count": c["execution_count"]})
		case "error":
			outs = append(outs, Output{"output_type": "error", "ename": c["ename"], "evalue": c["evalue"], "traceback": c["traceback"]})
		case "update_display_data":
			// A progress display updated in place: keep its latest state.
			outs = append(outs, Output{"output_type": "display_data", "data": c["data"], "metadata": map[string]any{}})
		}
	}
	return outs, nil
}

// RunNotebook executes every code cell of the nbformat 4 notebook nb (its
// JSON) in order and returns the notebook with the outputs filled in, and
// the seconds to the end of the first code cell. It stops at the first cell
// that cannot be run (ctx ended, kernel gone), returning what ran so far.
func (k *Kernel) RunNotebook(ctx context.Context, nb []byte) (executed []byte, firstCell float64, err error) {
	var doc map[string]any
	if err := json.Unmarshal(nb, &doc); err != nil {
		return nil, 0, err
	}
	cells, _ := doc["cells"].([]any)
	start := time.Now()
	n := 0
	for i, ci := range cells {
		c, _ := ci.(map[string]any)
		if c["cell_type"] != "code" {
			continue
		}
		src := sourceText(c["source"])
		outs, err := k.Execute(ctx, src)
		n++
		c["outputs"] = outs
		c["execution_count"] = n
		if n == 1 {
			firstCell = time.Since(start).Seconds()
		}
		if err != nil {
			out, _ := json.Marshal(doc)
			return out, firstCell, fmt.Errorf("code cell %d (cell %d): %w", n, i, err)
		}
	}
	out, err := json.Marshal(doc)
	return out, firstCell, err
}

func sourceText(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, l := range s {
			if ls, ok := l.(string); ok {
				b.WriteString(ls)
			}
		}
		return b.String()
	}
	return ""
}

func newID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("crypto/rand failed"))
	}
	return hex.EncodeToString(b)
}

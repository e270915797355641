//go:build !wasip1

// The examples are the SDK's end-to-end test: each committed module.wasm runs under kobako's engine
// and WASI host, with a subako_http host module defined here, exactly as an ABI 1 host starts it.
package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako/sdk"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
)

// httpState is one store's subako_http: the held answer and what the guest asked for.
type httpState struct {
	volume   string // host directory behind /volume/tmp
	held     []byte
	requests []*sdk.Request
	misread  int32 // when non-zero, read_response returns it
}

// httpKey holds a store's subako_http test state.
var httpKey = engine.NewKey[*httpState]()

func i32(v int32) uint64 { return uint64(uint32(v)) }

// testHTTP answers like a host with no network: requests to denied.example are refused with
// host_not_allowed, file outputs get a small body written into the volume, inline outputs echo the
// URL. It checks every guest pointer and length as a real host must.
var testHTTP = &engine.HostModule{
	Name: "subako_http",
	Funcs: []engine.HostFunc{
		{
			Name: "request", Params: []engine.ValueType{engine.I32, engine.I32}, Results: []engine.ValueType{engine.I32},
			Fn: func(_ context.Context, c *engine.Caller, stack []uint64) {
				st, _ := httpKey.Get(c.Store())
				b, ok := c.Memory().Read(uint32(stack[0]), uint32(stack[1]))
				if !ok {
					stack[0] = i32(-1)
					return
				}
				st.held = answer(st, b)
				stack[0] = i32(int32(len(st.held)))
			},
		},
		{
			Name: "read_response", Params: []engine.ValueType{engine.I32, engine.I32}, Results: []engine.ValueType{engine.I32},
			Fn: func(_ context.Context, c *engine.Caller, stack []uint64) {
				st, _ := httpKey.Get(c.Store())
				switch {
				case st.misread != 0:
					stack[0] = i32(st.misread)
				case st.held == nil:
					stack[0] = i32(-2)
				case uint32(stack[1]) != uint32(len(st.held)):
					stack[0] = i32(-3)
				case !c.Memory().Write(uint32(stack[0]), st.held):
					stack[0] = i32(-1)
				default:
					st.held = nil
					stack[0] = 0
				}
			},
		},
	},
}

func answer(st *httpState, b []byte) []byte {
	fail := func(kind sdk.ErrorKind, msg string) []byte {
		a, _ := sdk.EncodeAnswer(nil, &sdk.Error{Kind: kind, Message: msg})
		return a
	}
	req, err := sdk.ParseRequest(b)
	if err != nil {
		return fail(sdk.KindInvalidRequest, err.Error())
	}
	st.requests = append(st.requests, req)
	u, err := url.Parse(req.URL)
	if err != nil || u.Scheme != "https" {
		return fail(sdk.KindForbiddenDestination, "only https URLs")
	}
	if u.Host == "denied.example" {
		return fail(sdk.KindHostNotAllowed, u.Host+" is not in this function's network allowlist")
	}
	resp := &sdk.Response{Status: 200, Headers: map[string]string{"content-type": "text/plain"}}
	if req.Output != nil && req.Output.Type == sdk.OutputFile {
		rel, ok := strings.CutPrefix(req.Output.Path, "/volume/tmp/")
		if !ok || rel == "" || strings.Contains(rel, "/") {
			return fail(sdk.KindBadPath, req.Output.Path+" is not a file in /volume/tmp")
		}
		body := []byte("saved body of " + req.URL)
		if err := os.WriteFile(filepath.Join(st.volume, rel), body, 0o644); err != nil {
			return fail(sdk.KindBadPath, err.Error())
		}
		resp.Body = sdk.ResponseBody{Type: sdk.OutputFile, Path: req.Output.Path, Bytes: int64(len(body))}
	} else {
		resp.Body = sdk.ResponseBody{Type: sdk.OutputInline, Text: "you asked for " + req.URL}
	}
	a, _ := sdk.EncodeAnswer(resp, nil)
	return a
}

var (
	eng     *engine.Engine
	engOnce sync.Once
	engErr  error
	modules sync.Map // name -> *engine.Module
)

func compiled(t *testing.T, name string) *engine.Module {
	t.Helper()
	ctx := context.Background()
	engOnce.Do(func() { eng, engErr = engine.New(ctx, engine.Config{}) })
	if engErr != nil {
		t.Fatal(engErr)
	}
	if m, ok := modules.Load(name); ok {
		return m.(*engine.Module)
	}
	wasm, err := os.ReadFile(filepath.Join(name, "module.wasm"))
	if err != nil {
		t.Fatalf("%v (run subako/sdk/examples/build.sh)", err)
	}
	m, err := eng.Compile(ctx, wasm)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	modules.Store(name, m)
	return m
}

type run struct {
	stdout, stderr string
	http           *httpState
}

// start runs the example once as the host would: argv [pkg] (plus extra), lines on stdin, the
// volume's tmp directory preopened, and subako_http beside WASI. It fails the test unless the
// module exits 0.
func start(t *testing.T, name string, st *httpState, extra []string, lines ...string) run {
	t.Helper()
	ctx := context.Background()
	m := compiled(t, name)
	s, err := eng.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if st == nil {
		st = &httpState{}
	}
	if st.volume == "" {
		st.volume = t.TempDir()
	}
	httpKey.Set(s, st)
	var stdout, stderr bytes.Buffer
	stdin := strings.Join(lines, "\n")
	if stdin != "" {
		stdin += "\n"
	}
	h, err := preview1.Bind(s, preview1.Config{
		Args:     append([]string{"pkg"}, extra...),
		Stdin:    strings.NewReader(stdin),
		Stdout:   &stdout,
		Stderr:   &stderr,
		Preopens: []wasi.Preopen{{GuestPath: "/volume/tmp", HostDir: st.volume}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	inst, err := s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module, "subako_http": testHTTP})
	if err != nil {
		t.Fatalf("instantiate %s: %v", name, err)
	}
	_, err = inst.Call(ctx, "_start")
	var exit *engine.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.Code == 0) {
		t.Fatalf("%s: _start: %v\nstderr: %s", name, err, stderr.String())
	}
	return run{stdout: stdout.String(), stderr: stderr.String(), http: st}
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"subako","version":"0.2.3"},"io.modelcontextprotocol/clientCapabilities":{}}`

func call(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + meta + `}}`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// answers splits stdout into responses, failing on any line that is not a JSON-RPC result.
func answers(t *testing.T, out string) []response {
	t.Helper()
	var rs []response
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var r response
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" || r.Result == nil || r.Error != nil {
			t.Fatalf("stdout line is not a JSON-RPC result: %q", line)
		}
		rs = append(rs, r)
	}
	return rs
}

func callResult(t *testing.T, r response) sdk.Result {
	t.Helper()
	var res sdk.Result
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("result %s: %v", r.Result, err)
	}
	return res
}

func TestManifests(t *testing.T) {
	for _, name := range []string{"hello", "swatch", "fetch"} {
		t.Run(name, func(t *testing.T) {
			file, err := os.ReadFile(filepath.Join(name, "subako-package.json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := sdk.ParseManifest(file)
			if err != nil {
				t.Fatal(err)
			}
			r := start(t, name, nil, []string{sdk.ManifestFlag})
			got, err := sdk.ParseManifest([]byte(r.stdout))
			if err != nil {
				t.Fatalf("%s printed %q: %v", sdk.ManifestFlag, r.stdout, err)
			}
			if got != want {
				t.Errorf("module says %+v, subako-package.json says %+v", got, want)
			}
		})
	}
}

func TestDiscovery(t *testing.T) {
	tests := []struct {
		name  string
		tools []string
	}{
		{"hello", []string{"greet", "echo"}},
		{"swatch", []string{"paint"}},
		{"fetch", []string{"get", "save"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := start(t, tt.name, nil, nil,
				`{"jsonrpc":"2.0","id":"discover-1","method":"server/discover","params":{`+meta+`}}`,
				`{"jsonrpc":"2.0","id":"tools-list-1","method":"tools/list","params":{`+meta+`}}`)
			rs := answers(t, r.stdout)
			if len(rs) != 2 || string(rs[0].ID) != `"discover-1"` || string(rs[1].ID) != `"tools-list-1"` {
				t.Fatalf("answers %s", r.stdout)
			}
			var d struct {
				ResultType        string                     `json:"resultType"`
				SupportedVersions []string                   `json:"supportedVersions"`
				Capabilities      map[string]json.RawMessage `json:"capabilities"`
			}
			if err := json.Unmarshal(rs[0].Result, &d); err != nil || d.ResultType != "complete" || len(d.SupportedVersions) == 0 || d.SupportedVersions[0] != sdk.ProtocolVersion || d.Capabilities["tools"] == nil {
				t.Errorf("discover %s (%v)", rs[0].Result, err)
			}
			var l struct {
				Tools []struct {
					Name        string         `json:"name"`
					InputSchema map[string]any `json:"inputSchema"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			}
			if err := json.Unmarshal(rs[1].Result, &l); err != nil || l.NextCursor != "" || len(l.Tools) != len(tt.tools) {
				t.Fatalf("tools/list %s (%v)", rs[1].Result, err)
			}
			for i, tool := range l.Tools {
				if tool.Name != tt.tools[i] || tool.InputSchema["type"] != "object" {
					t.Errorf("tool %d: %s with schema %v", i, tool.Name, tool.InputSchema)
				}
			}
		})
	}
}

func TestHello(t *testing.T) {
	r := start(t, "hello", nil, nil,
		call("c1", "greet", `{"name":"Ada"}`),
		call("c2", "echo", `{"message":"hi","repeat":3}`),
		call("c3", "greet", `{"name":"  "}`),
		call("c4", "echo", `{"message":"x","repeat":11}`),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`,
		call("c5", "greet", `{"nom":"Ada"}`))
	rs := answers(t, r.stdout)
	if len(rs) != 5 {
		t.Fatalf("%d answers: %s", len(rs), r.stdout)
	}
	if res := callResult(t, rs[0]); res.IsError || res.Content[0].Text != "Hello, Ada!" {
		t.Errorf("greet: %+v", res)
	}
	res := callResult(t, rs[1])
	if res.IsError || string(res.StructuredContent) != `{"message":"hihihi","characters":6}` || res.Content[0].Text != string(res.StructuredContent) {
		t.Errorf("echo: %+v", res)
	}
	for i, want := range map[int]string{2: "name must not be empty", 3: "repeat must be between 1 and 10", 4: `missing required argument "name"`} {
		if res := callResult(t, rs[i]); !res.IsError || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("answer %d: %+v, want isError with %q", i, res, want)
		}
	}
}

func TestSwatch(t *testing.T) {
	r := start(t, "swatch", nil, nil, call("c1", "paint", `{"color":"#ff8000","size":4,"inline":true}`), call("c2", "paint", `{"color":"red"}`))
	rs := answers(t, r.stdout)
	res := callResult(t, rs[0])
	if res.IsError || len(res.Content) != 3 {
		t.Fatalf("paint: %+v\nstderr: %s", res, r.stderr)
	}
	link := res.Content[1]
	if link.Type != sdk.ContentResourceLink || link.URI != "volume:///tmp/swatch%20ff8000.png" || link.MimeType != "image/png" {
		t.Fatalf("link %+v", link)
	}
	p, err := sdk.VolumePath(link.URI)
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(r.http.volume, strings.TrimPrefix(p, "/volume/tmp/")))
	if err != nil {
		t.Fatalf("linked file: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("linked file is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 4 || b.Dy() != 4 {
		t.Errorf("image is %v", b)
	}
	if cr, cg, cb, _ := img.At(1, 1).RGBA(); cr>>8 != 0xff || cg>>8 != 0x80 || cb>>8 != 0 {
		t.Errorf("colour %x %x %x", cr, cg, cb)
	}
	if inline := res.Content[2]; inline.Type != sdk.ContentImage || !bytes.Equal(inline.Data, file) {
		t.Errorf("inline image differs from the file")
	}
	if res := callResult(t, rs[1]); !res.IsError || !strings.Contains(res.Content[0].Text, "#rrggbb") {
		t.Errorf("bad colour: %+v", res)
	}
}

func TestFetch(t *testing.T) {
	r := start(t, "fetch", nil, nil,
		call("c1", "get", `{"url":"https://a.example/page"}`),
		call("c2", "get", `{"url":"https://denied.example/"}`),
		call("c3", "save", `{"url":"https://a.example/file.bin","name":"file.bin"}`),
		call("c4", "get", `{"url":"http://a.example/"}`))
	rs := answers(t, r.stdout)
	if len(rs) != 4 {
		t.Fatalf("answers %s\nstderr %s", r.stdout, r.stderr)
	}
	res := callResult(t, rs[0])
	var got struct {
		Status      int    `json:"status"`
		ContentType string `json:"content_type"`
		Text        string `json:"text"`
	}
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil || res.IsError || got.Status != 200 || got.Text != "you asked for https://a.example/page" || got.ContentType != "text/plain" {
		t.Errorf("get: %+v (%v)", res, err)
	}
	if first := r.http.requests[0]; first.Headers["accept"] == "" || first.URL != "https://a.example/page" {
		t.Errorf("host saw %+v", first)
	}
	if res := callResult(t, rs[1]); !res.IsError || !strings.Contains(res.Content[0].Text, "host_not_allowed") {
		t.Errorf("denied: %+v", res)
	}
	res = callResult(t, rs[2])
	if res.IsError || !strings.Contains(string(res.StructuredContent), `"path":"/volume/tmp/file.bin"`) {
		t.Errorf("save: %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(r.http.volume, "file.bin")); err != nil || string(b) != "saved body of https://a.example/file.bin" {
		t.Errorf("saved file %q %v", b, err)
	}
	if res := callResult(t, rs[3]); !res.IsError || !strings.Contains(res.Content[0].Text, "https://") {
		t.Errorf("plain http: %+v", res)
	}
	if len(r.http.requests) != 3 {
		t.Errorf("host saw %d requests, want 3 (the plain http one is refused by the tool before sending)", len(r.http.requests))
	}
}

// A host that breaks the two-step protocol shows up as an abi error the model can read, not as a
// crashed module.
func TestFetchHostMisbehaves(t *testing.T) {
	for _, code := range []int32{-1, -2, -3} {
		r := start(t, "fetch", &httpState{misread: code}, nil, call("c1", "get", `{"url":"https://a.example/"}`))
		res := callResult(t, answers(t, r.stdout)[0])
		if !res.IsError || !strings.Contains(res.Content[0].Text, "subako_http: abi: read_response") {
			t.Errorf("code %d: %+v", code, res)
		}
	}
}

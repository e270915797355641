package subako

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"testing"

	"github.com/kobako/kobako/egress"
)

// FuzzSubakoMessage feeds stdout lines to the JSON-RPC line parser. Nothing may panic; a failure
// wraps ErrMessage; an accepted message is consistent with its kind, and its id, when present, is
// a JSON string or number that decodes.
func FuzzSubakoMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"call-1","result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom","data":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`,
		`{"jsonrpc":"2.0","id":"r","method":"sampling/createMessage","params":[]}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
		`{"jsonrpc":"2.0","id":1e999,"result":{}}`,
		`debug line`, `{}`, `{"jsonrpc":"2.0","id":"a","result":{},"result":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := parseMessage(line)
		if err != nil {
			if !errors.Is(err, ErrMessage) {
				t.Fatalf("error %v does not wrap ErrMessage", err)
			}
			return
		}
		switch m.Kind {
		case kindNotification:
			if m.ID != nil {
				t.Fatalf("notification with id %s", m.ID)
			}
		case kindRequest, kindResult, kindError:
			var id any
			d := json.NewDecoder(bytes.NewReader(m.ID))
			d.UseNumber()
			if err := d.Decode(&id); err != nil {
				t.Fatalf("id %s does not decode: %v", m.ID, err)
			}
			switch id.(type) {
			case string, json.Number:
			default:
				t.Fatalf("id %s is %T", m.ID, id)
			}
			if m.Kind == kindResult && !json.Valid(m.Result) || m.Kind == kindError && m.Error == nil {
				t.Fatalf("inconsistent %+v", m)
			}
		default:
			t.Fatalf("kind %d", m.Kind)
		}
	})
}

// FuzzSubakoHTTPRequest feeds request JSON to the subako_http parser. Nothing may panic; every
// failure is an invalid_request *egress.Error; an accepted request has a URL, a documented method,
// a known body and output type, and lower-case header names.
func FuzzSubakoHTTPRequest(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://a.example/"}`,
		`{"method":"POST","url":"https://a.example/o","headers":{"accept":"application/json"},"body":{"type":"json","json":{"order":1042}},"output":{"type":"inline"},"follow_redirects":true,"timeout_ms":5000}`,
		`{"method":"PUT","url":"https://a.example/u","body":{"type":"file","path":"/volume/tmp/in"},"output":{"type":"file","path":"/volume/tmp/out"}}`,
		`{"url":"https://a.example/","body":{"type":"text","text":"hi"},"timeout_ms":1.5}`,
		`{"url":"x","extra":1}`, `[]`, `{"url":"https://a/"} {}`,
	} {
		f.Add([]byte(s))
	}
	methods := map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseHTTPRequest(b)
		if err != nil {
			if k, ok := egress.KindOf(err); !ok || k != egress.KindInvalidRequest {
				t.Fatalf("error %v is not invalid_request", err)
			}
			return
		}
		if r.URL == "" || !methods[r.Method] || r.Timeout < 0 {
			t.Fatalf("accepted %+v", r)
		}
		if r.Output.Type != "inline" && (r.Output.Type != "file" || r.Output.Path == "") {
			t.Fatalf("output %+v", r.Output)
		}
		if r.Body != nil && r.Body.Type != "text" && r.Body.Type != "file" && (r.Body.Type != "json" || !json.Valid(r.Body.JSON)) {
			t.Fatalf("body %+v", r.Body)
		}
		for name := range r.Headers {
			if bytes.ContainsAny([]byte(name), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				t.Fatalf("header %q", name)
			}
		}
	})
}

// FuzzSubakoZip feeds archives to the package zip reader (fuzz.FuzzSubakoLoadZip drives the same
// reader through Runtime.LoadZip). Nothing may panic; an accepted archive
// has the manifest at its root and only valid paths, each readable.
func FuzzSubakoZip(f *testing.F) {
	mk := func(names ...string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			w, _ := zw.Create(n)
			w.Write([]byte(`{"abi":1,"name":"x"}`))
		}
		zw.Close()
		return buf.Bytes()
	}
	f.Add(mk(ManifestFile, ModuleFile, "assets/a.txt"))
	f.Add(mk("pkg/", "pkg/"+ManifestFile, "pkg/"+ModuleFile))
	f.Add(mk(ManifestFile, "../x"))
	f.Add(mk(ManifestFile, "a", "a/b"))
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	f.Fuzz(func(t *testing.T, b []byte) {
		fsys, err := readZip(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if !errors.Is(err, ErrPackage) && !errors.Is(err, ErrManifest) {
				t.Fatalf("error %v wraps neither ErrPackage nor ErrManifest", err)
			}
			return
		}
		if _, err := fs.Stat(fsys, ManifestFile); err != nil {
			t.Fatalf("accepted without a manifest: %v", err)
		}
		err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !fs.ValidPath(p) {
				t.Fatalf("invalid path %q", p)
			}
			if !d.IsDir() {
				_, err = fs.ReadFile(fsys, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzHandleAnswerOneDecode: for any result a module answers a tools/call with, the one decode
// of callDriver.predecode reaches the verdict of the general path's separate decodes.
func FuzzHandleAnswerOneDecode(f *testing.F) {
	for _, s := range []string{`{"content":[]}`, `{"content":[],"resultType":null}`, `{"content":5,"resultType":"x"}`,
		`{"resultType":7}`, `{"CONTENT":[{"type":"text","text":"a"}],"isError":true}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, result string) {
		line := `{"jsonrpc":"2.0","id":"call-0123","result":` + result + `}`
		one, _ := handleOutcome(t, &callDriver{}, line)
		two, _ := handleOutcome(t, plainDriver{&callDriver{}}, line)
		if one != two {
			t.Fatalf("%s:\none decode:  %s\ntwo decodes: %s", result, one, two)
		}
	})
}

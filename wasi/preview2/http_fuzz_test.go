package preview2

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/kobako/kobako/egress"
)

// FuzzFields drives the fields operations with guest-chosen names and values: nothing
// panics, and whatever a fields resource holds is a valid, lower-case, allowed field within
// the size limit.
func FuzzFields(f *testing.F) {
	f.Add("Content-Type", []byte("text/plain"), "x-a", []byte("1"))
	f.Add("connection", []byte("close"), "Proxy-X", []byte("v"))
	f.Add("a b", []byte("v\r\nx: y"), "", []byte(" lead"))
	f.Add("x", []byte("\x00"), "X", []byte("\t"))
	f.Fuzz(func(t *testing.T, n1 string, v1 []byte, n2 string, v2 []byte) {
		h, err := NewHost(Config{}, WithHTTP(HTTPConfig{MaxFieldsBytes: 256,
			Send: func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
				return nil, errors.New("unused")
			}}))
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		r, err := h.fieldsFromList([]fieldEntry{{n1, v1}, {n2, v2}})
		if err != nil {
			t.Fatal(err)
		}
		o, _ := push(h, &fields{})
		if !r.IsErr {
			o = r.Ok
		}
		rep := lend(o)
		for _, op := range []func() (headerResult, error){
			func() (headerResult, error) { return h.fieldsAppend(rep, n1, v2) },
			func() (headerResult, error) { return h.fieldsSet(rep, n2, [][]byte{v1, v2}) },
			func() (headerResult, error) { return h.fieldsDelete(rep, n1) },
			func() (headerResult, error) { return h.fieldsAppend(rep, n2, v1) },
		} {
			if _, err := op(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := h.fieldsGet(rep, n1); err != nil {
			t.Fatal(err)
		}
		fs, _ := borrowed(h, rep)
		size := 0
		for _, e := range fs.entries {
			size += len(e.Name) + len(e.Value)
			if !validFieldName(e.Name) || e.Name != strings.ToLower(e.Name) || !validFieldValue(e.Value) || IsForbiddenHeader(e.Name) {
				t.Fatalf("fields hold %q: %q", e.Name, e.Value)
			}
		}
		if size != fs.size || size > 256 {
			t.Fatalf("size %d, recorded %d", size, fs.size)
		}
		// Whatever the fields hold converts to a header net/http will write.
		for k, vs := range fs.header() {
			for _, v := range vs {
				if strings.ContainsAny(k+v, "\r\n\x00") {
					t.Fatalf("header %q: %q", k, v)
				}
			}
		}
	})
}

// FuzzRequestTarget drives method, scheme, authority and path-with-query through the setters
// and handle's checks: nothing panics, and a request that passes goes to exactly the
// authority and path the guest set, with nothing that could split the request line.
func FuzzRequestTarget(f *testing.F) {
	f.Add("GET", "https", "api.example.com", "/a?b=c")
	f.Add("PROPFIND", "http", "[::1]:8080", "/")
	f.Add("G T", "ftp", "user@host", "a b")
	f.Add("", "", "host:", "*")
	f.Add("POST", "HTTPS", "h:65536", "/%zz")
	f.Fuzz(func(t *testing.T, m, sch, auth, path string) {
		sent := 0
		h, err := NewHost(Config{}, WithHTTP(HTTPConfig{Send: func(context.Context, *http.Request, egress.SendOptions) (*http.Response, error) {
			return nil, errors.New("unused")
		}}))
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		r := &outgoingRequest{method: method{Other: &m}, headers: &fields{}}
		if validMethod(r.method) {
			r.method = method{Other: &m}
		}
		switch strings.ToLower(sch) {
		case "http":
			r.scheme = &scheme{HTTP: true}
		case "https":
			r.scheme = &scheme{HTTPS: true}
		default:
			r.scheme = &scheme{Other: &sch}
		}
		r.authority, r.path = &auth, &path
		req, herr := h.buildRequest(r)
		if herr != nil {
			return
		}
		sent++
		if !validFieldName(m) || req.Method != m {
			t.Fatalf("method %q sent as %q", m, req.Method)
		}
		if req.Host != auth || req.URL.Host != auth {
			t.Fatalf("authority %q sent as %q / %q", auth, req.Host, req.URL.Host)
		}
		if got := req.URL.RequestURI(); path != "*" && got != path && req.URL.EscapedPath()+queryOf(req) != path {
			t.Fatalf("path %q sent as %q", path, got)
		}
		if strings.ContainsAny(m+auth+path, " \r\n\x00") {
			t.Fatalf("accepted %q %q %q", m, auth, path)
		}
		_ = sent
	})
}

func queryOf(req *http.Request) string {
	if req.URL.RawQuery == "" && !req.URL.ForceQuery {
		return ""
	}
	return "?" + req.URL.RawQuery
}

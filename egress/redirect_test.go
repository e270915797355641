package egress

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// redirectServer serves /r/N (redirect to /r/N-1, 200 at 0), /to?code=C&u=URL (redirect to
// URL with status C) and /echo (method, body and the headers the test looks at).
func redirectServer(t *testing.T, h2 bool) (int, *hits) {
	h := &hits{}
	mux := http.NewServeMux()
	mux.HandleFunc("/r/{n}", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n <= 0 {
			io.WriteString(w, "done")
			return
		}
		http.Redirect(w, r, "/r/"+strconv.Itoa(n-1), http.StatusFound)
	})
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		if code == 0 {
			code = http.StatusFound
		}
		if loc := r.URL.Query().Get("u"); loc != "" {
			w.Header().Set("Location", loc)
		}
		w.WriteHeader(code)
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		w.Header().Set("Location", "/"+strings.Repeat("a", MaxURLBytes))
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		h.add(r.URL.Path)
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Method", r.Method)
		w.Header().Set("X-Content-Type", r.Header.Get("Content-Type"))
		w.Header().Set("X-Authorization", r.Header.Get("Authorization"))
		w.Header().Set("X-Cookie", r.Header.Get("Cookie"))
		w.Header().Set("X-Custom", r.Header.Get("X-Custom"))
		w.Header().Set("X-Api-Key", r.Header.Get("X-Api-Key"))
		w.Header().Set("X-Host", r.Host)
		w.Write(b)
	})
	_, port := newServerProto(t, mux, h2)
	return port, h
}

func to(base string, code int, loc string) string {
	return base + "/to?code=" + strconv.Itoa(code) + "&u=" + url.QueryEscape(loc)
}

func TestClient_RedirectCount(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run("h2="+strconv.FormatBool(h2), func(t *testing.T) {
			port, h := redirectServer(t, h2)
			c := loopbackClient(t, nil, nil)
			p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
			base := u("127.0.0.1", port, "")

			resp, err := c.Do(testContext(t), p, &Request{URL: base + "/r/10"})
			if err != nil {
				t.Fatalf("10 redirects: %v", err)
			}
			if resp.Status != 200 || resp.Redirects != 10 || resp.URL != base+"/r/0" || readBody(t, resp) != "done" {
				t.Fatalf("10 redirects: %+v", resp)
			}

			before := h.total()
			_, err = c.Do(testContext(t), p, &Request{URL: base + "/r/11"})
			wantKind(t, err, KindTooManyRedirects)
			if got := h.total() - before; got != 11 {
				t.Fatalf("11 redirects made %d requests, want 11 (the 11th redirect is not followed)", got)
			}

			resp, err = c.Do(testContext(t), p, &Request{URL: base + "/r/3", NoRedirects: true})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Status != http.StatusFound || HeaderMap(resp.Header)["location"] != "/r/2" || resp.Redirects != 0 {
				t.Fatalf("disabled redirects: %+v", resp)
			}

			for _, code := range []int{301, 302, 303, 307, 308} {
				resp, err := c.Do(testContext(t), p, &Request{URL: to(base, code, "/echo")})
				if err != nil {
					t.Fatalf("%d: %v", code, err)
				}
				resp.Body.Close()
				if resp.Status != 200 || resp.Redirects != 1 {
					t.Fatalf("%d not followed: %+v", code, resp)
				}
			}
			// Not followed: statuses that are not redirects, and a redirect without Location.
			for _, tt := range []struct {
				code int
				loc  string
			}{{300, "/echo"}, {304, "/echo"}, {305, "/echo"}, {302, ""}} {
				resp, err := c.Do(testContext(t), p, &Request{URL: to(base, tt.code, tt.loc)})
				if err != nil {
					t.Fatalf("%d: %v", tt.code, err)
				}
				resp.Body.Close()
				if resp.Status != tt.code || resp.Redirects != 0 {
					t.Fatalf("%d %q followed: %+v", tt.code, tt.loc, resp)
				}
			}
			// Relative forms resolve against the current URL.
			for _, loc := range []string{"echo", "./echo", "/echo", "//127.0.0.1:" + strconv.Itoa(port) + "/echo", base + "/echo"} {
				resp, err := c.Do(testContext(t), p, &Request{URL: to(base, 302, loc)})
				if err != nil {
					t.Fatalf("%q: %v", loc, err)
				}
				resp.Body.Close()
				if resp.URL != base+"/echo" {
					t.Fatalf("%q → %s", loc, resp.URL)
				}
			}
		})
	}
}

func TestClient_RedirectRules(t *testing.T) {
	port, h := redirectServer(t, true)
	r := newFakeResolver()
	r.set("metadata.example.com", []string{"169.254.169.254"})
	r.set("private.example.com", []string{"10.1.2.3"})
	r.set("ula.example.com", []string{"fd00::5"})
	c := loopbackClient(t, nil, r)
	base := u("127.0.0.1", port, "")
	ps := strconv.Itoa(port)
	tests := []struct {
		name  string
		allow []string
		loc   string
		kind  Kind
		msg   string
	}{
		{"private IPv4 literal", []string{"*"}, "https://10.0.0.1/", KindForbiddenDestination, "redirect: destination address is private-use"},
		{"private IPv6 literal", []string{"*"}, "https://[fd00::1]/", KindForbiddenDestination, "unique local"},
		{"link-local literal", []string{"*"}, "https://169.254.169.254/latest/meta-data/", KindForbiddenDestination, "link-local"},
		{"mapped loopback literal", []string{"*"}, "https://[::ffff:127.0.0.2]:" + ps + "/", KindForbiddenDestination, "IPv4-mapped loopback"},
		{"loopback not exempt", []string{"*"}, "https://127.0.0.2:" + ps + "/", KindForbiddenDestination, "loopback"},
		{"IPv6 loopback not exempt", []string{"*"}, "https://[::1]:" + ps + "/", KindForbiddenDestination, "loopback"},
		{"name resolving to metadata", []string{"*"}, "https://metadata.example.com/", KindForbiddenDestination, "metadata.example.com resolves to 169.254.169.254, an address that is link-local"},
		{"name resolving to private", []string{"*"}, "https://private.example.com/", KindForbiddenDestination, "private-use"},
		{"name resolving to ULA", []string{"*"}, "https://ula.example.com/", KindForbiddenDestination, "unique local"},
		{"localhost", []string{"*"}, "https://localhost:" + ps + "/", KindForbiddenDestination, "loopback name"},
		{"plain http", []string{"*"}, "http://127.0.0.1:" + ps + "/echo", KindForbiddenDestination, "redirect: plain http"},
		{"host not allowed", []string{"127.0.0.1"}, "https://evil.example/", KindHostNotAllowed, "redirect: evil.example is not in this function's network allowlist"},
		{"other scheme", []string{"*"}, "ftp://127.0.0.1/", KindInvalidRequest, "redirect:"},
		{"user info", []string{"*"}, "https://u:p@127.0.0.1:" + ps + "/echo", KindInvalidRequest, "user info"},
		{"unparsable", []string{"*"}, "https://%zz/", KindConnection, "does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPolicy(t, PolicyConfig{AllowHosts: tt.allow})
			before := h.total()
			_, err := c.Do(testContext(t), p, &Request{URL: to(base, 302, tt.loc)})
			e := wantKind(t, err, tt.kind)
			if !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("message %q does not contain %q", e.Message, tt.msg)
			}
			if got := h.total() - before; got != 1 {
				t.Fatalf("%d requests reached the test server, want only the first hop", got)
			}
		})
	}
	_, err := c.Do(testContext(t), mustPolicy(t, PolicyConfig{AllowHosts: []string{"*"}}), &Request{URL: base + "/long"})
	if e := wantKind(t, err, KindConnection); !strings.Contains(e.Message, "longer than") {
		t.Fatalf("long Location: %v", e)
	}
}

func TestClient_RedirectMethods(t *testing.T) {
	port, _ := redirectServer(t, true)
	c := loopbackClient(t, nil, nil)
	p := mustPolicy(t, PolicyConfig{AllowHosts: []string{"127.0.0.1"}})
	base := u("127.0.0.1", port, "")
	const body = `{"order":1042}`
	seekable := func() io.Reader { return strings.NewReader(body) }
	stream := func() io.Reader { return io.MultiReader(strings.NewReader(body)) }
	tests := []struct {
		method     string
		code       int
		body       func() io.Reader
		wantStatus int
		wantMethod string
		wantBody   string
		wantCT     string
	}{
		{"POST", 301, seekable, 200, "GET", "", ""},
		{"POST", 302, seekable, 200, "GET", "", ""},
		{"POST", 303, seekable, 200, "GET", "", ""},
		{"PUT", 303, seekable, 200, "GET", "", ""},
		{"DELETE", 303, nil, 200, "GET", "", ""},
		{"HEAD", 303, nil, 200, "HEAD", "", "application/json"},
		{"PUT", 302, seekable, 200, "PUT", body, "application/json"},
		{"PATCH", 301, seekable, 200, "PATCH", body, "application/json"},
		{"POST", 307, seekable, 200, "POST", body, "application/json"},
		{"POST", 308, seekable, 200, "POST", body, "application/json"},
		{"OPTIONS", 307, nil, 200, "OPTIONS", "", "application/json"},
		// A streamed body cannot be sent twice: the redirect comes back unfollowed.
		{"POST", 307, stream, 307, "", "", ""},
		{"PUT", 308, stream, 308, "", "", ""},
		// ... but a redirect that drops the body is still followed.
		{"POST", 303, stream, 200, "GET", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+strconv.Itoa(tt.code), func(t *testing.T) {
			req := &Request{Method: tt.method, URL: to(base, tt.code, "/echo"), Header: []Field{{"content-type", "application/json"}}}
			if tt.body != nil {
				req.Body, req.ContentLength = tt.body(), int64(len(body))
			}
			resp, err := c.Do(testContext(t), p, req)
			if err != nil {
				t.Fatal(err)
			}
			got := readBody(t, resp)
			m := HeaderMap(resp.Header)
			if resp.Status != tt.wantStatus || m["x-method"] != tt.wantMethod || (tt.method != "HEAD" && got != tt.wantBody) || m["x-content-type"] != tt.wantCT {
				t.Fatalf("status %d method %q body %q content-type %q", resp.Status, m["x-method"], got, m["x-content-type"])
			}
		})
	}
	// A chunked body of unknown length replays too when it can seek.
	resp, err := c.Do(testContext(t), p, &Request{Method: "POST", URL: to(base, 307, "/echo"), Body: bytes.NewReader([]byte(body)), ContentLength: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, resp); got != body {
		t.Fatalf("chunked replay = %q", got)
	}
}

// Credentials are injected per hop for that hop's origin only, and nothing credential-like
// that the guest set crosses to another origin.
func TestClient_RedirectCredentials(t *testing.T) {
	port, h := redirectServer(t, true)
	port2, _ := redirectServer(t, true)
	r := newFakeResolver()
	for _, n := range []string{"a.example.com", "b.example.com", "c.example.com"} {
		r.set(n, []string{"127.0.0.1"})
	}
	c := loopbackClient(t, nil, r)
	a, b, cc := u("a.example.com", port, ""), u("b.example.com", port, ""), u("c.example.com", port, "")
	a2 := u("a.example.com", port2, "") // same host, other port: another origin
	p := mustPolicy(t, PolicyConfig{
		AllowHosts: []string{"*.example.com"},
		Grants: []Grant{
			{Origin: a, Candidates: []Credential{{Label: "vault/a", Header: []Field{{"authorization", "Bearer " + secret}}}}},
			{Origin: cc, Headers: []string{"x-api-key"}},
		},
	})
	guest := []Field{{"cookie", "session=guest"}, {"x-custom", "kept"}}
	tests := []struct {
		name  string
		start string
		guest []Field
		kind  Kind
		// want holds the echo's view at the final hop.
		auth, cookie, custom string
	}{
		{"granted origin", a + "/echo", guest, 0, "Bearer " + secret, "session=guest", "kept"},
		{"not granted", b + "/echo", guest, 0, "", "session=guest", "kept"},
		{"same origin keeps everything", to(a, 302, a+"/echo"), guest, 0, "Bearer " + secret, "session=guest", "kept"},
		{"to another host drops the injected credential and cookie", to(a, 302, b+"/echo"), guest, 0, "", "", "kept"},
		{"to another port drops them too", to(a, 307, a2+"/echo"), guest, 0, "", "", "kept"},
		{"to a granted origin injects there", to(b, 302, a+"/echo"), guest, 0, "Bearer " + secret, "", "kept"},
		{"guest authorization stays on its origin", to(b, 302, a2+"/echo"), []Field{{"authorization", "Basic guest"}}, 0, "", "", ""},
		{"guest authorization on same origin", to(b, 302, b+"/echo"), []Field{{"authorization", "Basic guest"}}, 0, "Basic guest", "", ""},
		{"away and back: dropped stays dropped", to(a, 302, to(b, 302, a+"/echo")), guest, 0, "Bearer " + secret, "", "kept"},
		{"guest sets the granted header", a + "/echo", []Field{{"authorization", "Bearer mine"}}, KindCredentialHeader, "", "", ""},
		{"granted origin without credential, reached by a redirect", to(b, 302, cc+"/echo"), []Field{{"x-custom", "1"}}, KindCredentialUnavailable, "", "", ""},
		{"granted origin without credential", cc + "/echo", nil, KindCredentialUnavailable, "", "", ""},
		{"declared credential header on granted origin", cc + "/echo", []Field{{"x-api-key", "k"}}, KindCredentialHeader, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Do(testContext(t), p, &Request{Method: "PUT", URL: tt.start, Header: tt.guest, Body: strings.NewReader("x"), ContentLength: 1})
			if tt.kind != 0 {
				e := wantKind(t, err, tt.kind)
				if strings.Contains(e.Error(), secret) {
					t.Fatalf("error leaks the credential: %v", e)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			m := HeaderMap(resp.Header)
			if m["x-authorization"] != tt.auth || m["x-cookie"] != tt.cookie || m["x-custom"] != tt.custom {
				t.Fatalf("final hop %s saw authorization %q cookie %q x-custom %q", m["x-host"], m["x-authorization"], m["x-cookie"], m["x-custom"])
			}
		})
	}
	// The guest's own header conflicting with a grant is refused before anything is sent.
	before := h.total()
	_, err := c.Do(testContext(t), p, &Request{URL: a + "/echo", Header: []Field{{"authorization", "x"}}})
	wantKind(t, err, KindCredentialHeader)
	if h.total() != before {
		t.Fatal("a refused request reached the server")
	}
}

package egress_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"time"

	"github.com/kobako/kobako/egress"
)

// Policies are checked before any network access; every refusal carries the ABI 1 wire kind.
func ExamplePolicy_CheckURL() {
	p, err := egress.NewPolicy(egress.PolicyConfig{
		AllowHosts: []string{"api.example.com", "*.cdn.example.com", "*"},
	})
	if err != nil {
		panic(err)
	}
	strict, _ := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com", "*.cdn.example.com"}})
	for _, raw := range []string{
		"https://API.example.com./v1/orders#top",
		"https://img.cdn.example.com/a.png",
		"http://api.example.com/",
		"https://169.254.169.254/latest/meta-data/",
		"https://[::ffff:10.0.0.1]/",
	} {
		u, o, err := p.CheckURL(raw)
		if err != nil {
			k, _ := egress.KindOf(err)
			fmt.Printf("%-45s %s\n", raw, k)
			continue
		}
		fmt.Printf("%-45s ok %s %s\n", raw, o, u)
	}
	_, _, err = strict.CheckURL("https://cdn.example.com/")
	fmt.Println(err)
	// Output:
	// https://API.example.com./v1/orders#top        ok https://api.example.com https://api.example.com/v1/orders
	// https://img.cdn.example.com/a.png             ok https://img.cdn.example.com https://img.cdn.example.com/a.png
	// http://api.example.com/                       forbidden_destination
	// https://169.254.169.254/latest/meta-data/     forbidden_destination
	// https://[::ffff:10.0.0.1]/                    forbidden_destination
	// egress: host_not_allowed: cdn.example.com is not in this function's network allowlist
}

// A request with a host-injected credential. The server here is an httptest server on
// loopback, which the default Client refuses; the example reaches it only through the
// test-only Options.UnsafeAllowAddrs. A real embedder uses egress.NewClient(egress.Options{}).
func ExampleClient_Do() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"auth":%q}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())

	client := egress.NewClient(egress.Options{
		RootCAs:          roots,
		UnsafeAllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, // tests only
	})
	defer client.CloseIdleConnections()

	origin := srv.URL // https://127.0.0.1:PORT
	policy, err := egress.NewPolicy(egress.PolicyConfig{
		AllowHosts: []string{"127.0.0.1"},
		Grants: []egress.Grant{{
			Origin:     origin,
			Candidates: []egress.Credential{{Label: "vault/orders", Header: []egress.Field{{Name: "authorization", Value: "Bearer t0ken"}}}},
		}},
	})
	if err != nil {
		panic(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := client.Do(ctx, policy, &egress.Request{
		Method:           "GET",
		URL:              origin + "/orders/1042",
		Header:           []egress.Field{{Name: "accept", Value: "application/json"}},
		Timeout:          5 * time.Second, // shortens ctx's deadline, never extends it
		MaxResponseBytes: 256 << 10,       // ABI 1 INLINE_MAX_BYTES
	})
	if err != nil {
		k, _ := egress.KindOf(err)
		fmt.Println("error kind:", k)
		return
	}
	text, err := resp.Text()
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Status, egress.HeaderMap(resp.Header)["content-type"], text)

	// The guest may not set the header the credential sets.
	_, err = client.Do(ctx, policy, &egress.Request{
		URL:    origin + "/orders/1042",
		Header: []egress.Field{{Name: "authorization", Value: "Bearer guess"}},
	})
	fmt.Println(strings.ReplaceAll(err.Error(), origin, "https://127.0.0.1:PORT"))

	// The default client cannot reach the same server.
	_, err = egress.NewClient(egress.Options{RootCAs: roots}).Do(ctx, policy, &egress.Request{URL: origin})
	k, _ := egress.KindOf(err)
	fmt.Println(k)
	// Output:
	// 200 application/json {"auth":"Bearer t0ken"}
	// egress: credential_header: header "authorization" is set by the credential the host injects for https://127.0.0.1:PORT; do not set it
	// forbidden_destination
}

// An embedder's Sender audits and vetoes requests, then hands the rest to the policy sender.
// The same function serves subako.CallOptions.Send and preview2.HTTPConfig.Send.
func ExampleNewSender() {
	policy, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com"}})
	if err != nil {
		panic(err)
	}
	next := egress.NewSender(egress.SenderConfig{Policy: policy})
	audit := func(ctx context.Context, req *http.Request, opts egress.SendOptions) (*http.Response, error) {
		if req.Method != http.MethodGet {
			return nil, egress.Deny("only GET requests are allowed")
		}
		return next(ctx, req, opts)
	}
	for _, r := range []struct{ method, url string }{
		{"DELETE", "https://api.example.com/items/1"},
		{"GET", "https://internal.example.com/"},
	} {
		req, _ := http.NewRequest(r.method, r.url, nil)
		_, err := audit(context.Background(), req, egress.SendOptions{})
		kind, _ := egress.KindOf(err)
		reason, _ := egress.ReasonOf(err)
		fmt.Println(kind, reason)
	}
	// Output:
	// host_not_allowed denied
	// host_not_allowed host_not_allowed
}

package subako_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/subako"
)

// Grant an ABI 1 call network access: the public egress package builds the policy (which hosts
// subako_http may reach, which credentials the host injects), and CallOptions.Network hands it to
// one call. Without a policy the same request is refused.
//
// The server is an httptest server on loopback, which the default client refuses; the example
// reaches it only through the test-only egress.Options.UnsafeAllowAddrs. A real embedder keeps
// subako.Config.HTTPClient nil and allows public hosts such as "api.example.com".
func ExampleCallOptions_network() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "orders for %s", r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	client := egress.NewClient(egress.Options{
		RootCAs:          roots,
		UnsafeAllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, // tests only
	})
	defer client.CloseIdleConnections()

	ctx := context.Background()
	rt, err := subako.New(ctx, subako.Config{HTTPClient: client})
	if err != nil {
		panic(err)
	}
	defer rt.Close(ctx)
	dir := networkPackage()
	defer os.RemoveAll(dir)
	pkg, err := rt.Load(ctx, dir)
	if err != nil {
		panic(err)
	}
	defer pkg.Close()

	policy, err := egress.NewPolicy(egress.PolicyConfig{
		AllowHosts: []string{"127.0.0.1"},
		Grants: []egress.Grant{{
			Origin:     srv.URL,
			Candidates: []egress.Credential{{Label: "vault/orders", Header: []egress.Field{{Name: "authorization", Value: "Bearer t0ken"}}}},
		}},
	})
	if err != nil {
		panic(err)
	}
	// The fixture's "http" tool passes its request to subako_http and returns the host's answer.
	args, _ := json.Marshal(map[string]any{"request": map[string]any{"url": srv.URL + "/orders"}})
	for _, opts := range []subako.CallOptions{{Network: policy}, {}} {
		res, err := pkg.Call(ctx, "http", args, opts)
		if err != nil {
			panic(err)
		}
		var answer struct {
			OK *struct {
				Status int
				Body   struct{ Text string }
			}
			Error *struct{ Kind string }
		}
		if err := json.Unmarshal([]byte(res.Content[0].Text), &answer); err != nil {
			panic(err)
		}
		if answer.OK != nil {
			fmt.Println(answer.OK.Status, answer.OK.Body.Text)
		} else {
			fmt.Println("refused:", answer.Error.Kind)
		}
	}
	// Output:
	// 200 orders for Bearer t0ken
	// refused: host_not_allowed
}

// networkPackage writes a package directory around the fixture whose "http" tool calls subako_http.
func networkPackage() string {
	dir, err := os.MkdirTemp("", "subako-network-")
	if err != nil {
		panic(err)
	}
	wasm, err := os.ReadFile(filepath.Join("testdata", "everything.wasm"))
	if err != nil {
		panic(err)
	}
	man := `{"abi":1,"name":"everything","description":"Calls subako_http for the example."}`
	if err := os.WriteFile(filepath.Join(dir, subako.ManifestFile), []byte(man), 0o644); err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, subako.ModuleFile), wasm, 0o644); err != nil {
		panic(err)
	}
	return dir
}

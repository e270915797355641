package main

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const fetchToolWasm = "../../wasi/preview2/testdata/http/fetch-tool.wasm"

// kobako run links wasi:http behind the egress policy: without --allow-host every request is
// denied (and logged), with --allow-host, --allow-private and --http-ca the guest's fetch()
// reaches a loopback server. The fetch tool also imports zeroclaw:plugin interfaces, which
// --trap-unknown-imports stands in for (it never calls them).
func TestRunWASIHTTP(t *testing.T) {
	skipHeavyJS(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hi "+r.Method)
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"url": srv.URL + "/x"})
	invoke := "zeroclaw:plugin/tool@0.1.0#execute(" + strconv.Quote(string(args)) + ")"
	tests := []struct {
		name             string
		flags            []string
		wantOut, wantErr string
	}{
		{"denied without --allow-host", nil, "success: false", "error-code=HTTP-request-denied"},
		{"loopback refused without --allow-private", []string{"--allow-host", "127.0.0.1", "--http-ca", ca}, "success: false", "error-code=destination-IP-prohibited"},
		{"allowed", []string{"--allow-host", "127.0.0.1", "--allow-private", "--http-ca", ca}, `\"body\":\"hi GET\"`, ""},
		{"bad pattern", []string{"--allow-host", "*.com"}, "", "--allow-host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "allowed" && runtime.GOOS == "js" {
				t.Skip("js/wasm has no sockets, so the loopback server cannot be dialled")
			}
			a := append([]string{"run", "--trap-unknown-imports"}, tt.flags...)
			a = append(a, "--invoke", invoke, fetchToolWasm)
			_, out, errs := runCLI(t, a...)
			if !strings.Contains(out, tt.wantOut) || !strings.Contains(errs, tt.wantErr) {
				t.Fatalf("stdout %q, stderr %q; want %q and %q", out, errs, tt.wantOut, tt.wantErr)
			}
		})
	}
}

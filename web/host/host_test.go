package host

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// packageZip zips an ABI 1 package from a manifest and a module file.
func packageZip(t testing.TB, manifest, module string) []byte {
	t.Helper()
	wasm, err := os.ReadFile(module)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range map[string][]byte{"subako-package.json": []byte(manifest), "module.wasm": wasm} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newHost(t testing.TB) *Host {
	t.Helper()
	h, err := New(context.Background(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func TestCalls(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	example, err := h.OpenPackage(ctx, packageZip(t, `{"abi":1,"name":"hello","description":"Says hello."}`, "../../subako/example/module.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	mis, err := h.OpenPlugin(ctx, string(readFile(t, "../testdata/misbehave.toml")), readFile(t, "../../zeroclaw/runner/testdata/misbehave.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	gotool, err := h.OpenPlugin(ctx, string(readFile(t, "../testdata/go-tool.toml")), readFile(t, "../../zeroclaw/runner/testdata/gotool.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if got := mis.Tools(); len(got) != 1 || got[0].Name != "misbehave" || !json.Valid(got[0].InputSchema) {
		t.Errorf("misbehave tools: %+v", got)
	}
	if got := example.Tools(); len(got) != 1 || got[0].Name != "greet" {
		t.Errorf("example tools: %+v", got)
	}
	for _, c := range []struct {
		name     string
		p        *Handle
		tool     string
		args     string
		opts     CallOptions
		want     string // a substring of the result, or of the error
		kind     string // the error's kind, "" for success
		wantLogs int
	}{
		{"package greet", example, "greet", `{"name":"Ada"}`, CallOptions{}, `Hello, Ada!`, "", 0},
		{"package isError", example, "greet", `{}`, CallOptions{}, `"isError":true`, "", 0},
		{"package unknown tool", example, "nope", `{}`, CallOptions{}, "unknown tool", "usage", 0},
		{"package out of fuel", example, "greet", `{"name":"Ada"}`, CallOptions{Fuel: 100}, "fuel", "fuel", 0},
		{"plugin echo", mis, "misbehave", `{"mode":"echo"}`, CallOptions{}, `"output":"{\"mode\":\"echo\"}"`, "", 0},
		{"plugin log", mis, "misbehave", `{"mode":"log"}`, CallOptions{}, `"output":"logged"`, "", 1},
		{"plugin spin fuel", mis, "misbehave", `{"mode":"spin"}`, CallOptions{Fuel: 1_000_000}, "fuel", "fuel", 0},
		{"plugin spin deadline", mis, "misbehave", `{"mode":"spin"}`, CallOptions{Timeout: 300 * time.Millisecond, Fuel: 1 << 50}, "deadline", "deadline", 0},
		{"plugin hosts malformed", mis, "misbehave", `{}`, CallOptions{AllowHosts: []string{"bad host!"}}, "allowed hosts", "usage", 0},
		{"go plugin echo", gotool, "go-echo", `{"text":"hi"}`, CallOptions{}, `go-echo:hi`, "", 0},
		{"go plugin log", gotool, "go-echo", `{"text":"hi","log":"hello"}`, CallOptions{}, `go-echo:hi`, "", 1},
		{"go plugin guest error", gotool, "go-echo", `{"fail":"no way"}`, CallOptions{}, "no way", "guest", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := c.p.Call(ctx, c.tool, json.RawMessage(c.args), c.opts)
			if c.kind != "" {
				if err == nil || ErrorKind(err) != c.kind || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v (kind %q), want kind %q containing %q", err, ErrorKind(err), c.kind, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res.Result), c.want) || res.FuelConsumed == 0 || res.Ms <= 0 || len(res.Logs) != c.wantLogs {
				t.Errorf("result %s fuel %d ms %v logs %+v", res.Result, res.FuelConsumed, res.Ms, res.Logs)
			}
		})
	}
}

// TestDeterministicFuel: the same call uses the same fuel every time, and a call's fuel does not
// depend on the limits it ran under (a plugin gets a new runtime for new limits).
func TestDeterministicFuel(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	example, err := h.OpenPackage(ctx, packageZip(t, `{"abi":1,"name":"hello","description":"Says hello."}`, "../../subako/example/module.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	mis, err := h.OpenPlugin(ctx, string(readFile(t, "../testdata/misbehave.toml")), readFile(t, "../../zeroclaw/runner/testdata/misbehave.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p          *Handle
		tool, args string
	}{{example, "greet", `{"name":"Ada"}`}, {mis, "misbehave", `{"mode":"echo"}`}} {
		var fuel []uint64
		for _, o := range []CallOptions{{}, {Fuel: 5_000_000}, {}} {
			res, err := c.p.Call(ctx, c.tool, json.RawMessage(c.args), o)
			if err != nil {
				t.Fatal(err)
			}
			fuel = append(fuel, res.FuelConsumed)
		}
		if fuel[0] != fuel[1] || fuel[1] != fuel[2] {
			t.Errorf("%s: fuel %v, want one count", c.p.Name(), fuel)
		}
	}
}

func TestProgressAndCancel(t *testing.T) {
	h := newHost(t)
	mis, err := h.OpenPlugin(context.Background(), string(readFile(t, "../testdata/misbehave.toml")), readFile(t, "../../zeroclaw/runner/testdata/misbehave.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	_, err = mis.Call(ctx, "misbehave", json.RawMessage(`{"mode":"spin"}`), CallOptions{Fuel: 1 << 50, Timeout: time.Minute,
		ProgressInterval: 10 * time.Millisecond, Progress: func(consumed, budget uint64) {
			if budget != 1<<50 {
				t.Errorf("budget %d", budget)
			}
			if calls.Add(1) == 3 {
				cancel()
			}
		}})
	var ce *CallError
	if !errors.As(err, &ce) || ErrorKind(err) != "canceled" || ce.FuelConsumed == 0 {
		t.Fatalf("err = %v (kind %s)", err, ErrorKind(err))
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	wasm := readFile(t, "../../zeroclaw/runner/testdata/misbehave.wasm")
	for _, c := range []struct{ name, manifest, want string }{
		{"not toml", "name = ", "manifest.toml"},
		{"escaping wasm_path", "name = \"x\"\nversion = \"0.1.0\"\nwasm_path = \"../x.wasm\"\ncapabilities = [\"tool\"]\n", "wasm_path"},
		{"no tool", "name = \"x\"\nversion = \"0.1.0\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"memory\"]\n", "no tool capability"},
	} {
		if _, err := h.OpenPlugin(ctx, c.manifest, wasm); !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := h.OpenPackage(ctx, []byte("not a zip")); !errors.Is(err, ErrOpen) {
		t.Errorf("not a zip: %v", err)
	}
}

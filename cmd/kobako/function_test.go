package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runFunction(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := kobako(context.Background(), append([]string{"function"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// fixturePackage writes a package directory around a module of subako's test fixtures.
func fixturePackage(t *testing.T, fixture string, assets map[string]string) string {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "..", "subako", "testdata", fixture+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "subako-package.json"), []byte(`{"abi":1,"name":"`+filepath.Base(fixture)+`","description":"d"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "module.wasm"), wasm, 0o644)
	for name, body := range assets {
		p := filepath.Join(dir, "assets", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	return dir
}

func TestFunction_Example(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"validate", "example"}, 0, "ok: hello (ABI 1): 1 tools: greet\n"},
		{[]string{"call", "example", "greet", `{"name":"Ada"}`}, 0, `{"content":[{"type":"text","text":"Hello, Ada!"}]}` + "\n"},
		// The example checks its arguments as a package built with subako/sdk does.
		{[]string{"call", "example", "greet"}, 0, `{"content":[{"type":"text","text":"missing required argument \"name\""}],"isError":true}` + "\n"},
		{[]string{"call", "example", "greet", `{"name":7}`}, 0, `{"content":[{"type":"text","text":"argument \"name\" must be a string"}],"isError":true}` + "\n"},
		{[]string{"call", "example", "greet", `{"x":{"name":1},"name":"B\"q"}`}, 0, `{"content":[{"type":"text","text":"argument \"name\" must be a string"}],"isError":true}` + "\n"},
		{[]string{"call", "example", "greet", `{"x":1,"name":"B\"q"}`}, 0, `{"content":[{"type":"text","text":"Hello, B\"q!"}]}` + "\n"},
		{[]string{"call", "example", "nope", "{}"}, exitUsage, ""},
	}
	for _, tt := range tests {
		code, out, errOut := runFunction(t, tt.args...)
		if code != tt.code || out != tt.out {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q", tt.args, code, out, errOut, tt.code, tt.out)
		}
	}
	code, out, _ := runFunction(t, "tools", "example")
	var tools []struct {
		Name        string
		InputSchema map[string]any
	}
	if err := json.Unmarshal([]byte(out), &tools); code != 0 || err != nil || len(tools) != 1 || tools[0].Name != "greet" || tools[0].InputSchema["type"] != "object" {
		t.Errorf("tools: exit %d, %q, %v", code, out, err)
	}
}

func TestFunction_Call(t *testing.T) {
	t.Run("crash", func(t *testing.T) {
		code, out, errOut := runFunction(t, "call", fixturePackage(t, "rpc_error", nil), "greet")
		if code != exitCrash || out != "" || !strings.Contains(errOut, "answered with a JSON-RPC error") || !strings.Contains(errOut, "rpc_error: giving up") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		code, _, errOut := runFunction(t, "call", "--timeout", "200ms", "--fuel", "9000000000000", fixturePackage(t, "spin", nil), "greet")
		// spin spins at its first request, discovery's: --timeout bounds that run too.
		if code != exitCrash || !strings.Contains(errOut, "ran out of time") || !strings.Contains(errOut, "deadline of 200ms") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("memory", func(t *testing.T) {
		code, _, errOut := runFunction(t, "call", fixturePackage(t, "memgrow", nil), "greet", "--max-memory", "2MiB")
		if code != exitCrash || !strings.Contains(errOut, "ran out of memory") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("volumes, skills and flags after the package", func(t *testing.T) {
		vol, data, skill := t.TempDir(), t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("skill text"), 0o644)
		pkg := fixturePackage(t, "everything", map[string]string{"hello.txt": "hi"})
		code, out, errOut := runFunction(t, "call", "--volume", vol, pkg, "env", "{}", "--data", data, "--skill", "writing="+skill, "--allow-host", "api.example.com")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var res struct{ Content []struct{ Text string } }
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Content) != 1 {
			t.Fatalf("%q: %v", out, err)
		}
		for _, want := range []string{`"preopens":["/volume/tmp","/volume/data","/package","/skills","/skills/writing"]`, `"skill":"skill text"`, `"asset":"hi"`} {
			if !strings.Contains(res.Content[0].Text, want) {
				t.Errorf("env %s lacks %s", res.Content[0].Text, want)
			}
		}
		code, out, _ = runFunction(t, "call", "--volume", vol, pkg, "write", `{"path":"/volume/tmp/f","bytes":10}`)
		if fi, err := os.Stat(filepath.Join(vol, "f")); code != 0 || err != nil || fi.Size() != 10 {
			t.Errorf("write: exit %d, %q, %v", code, out, err)
		}
	})
	t.Run("isError exits 0", func(t *testing.T) {
		code, out, _ := runFunction(t, "call", fixturePackage(t, "everything", nil), "fail")
		if code != 0 || !strings.Contains(out, `"isError":true`) {
			t.Errorf("exit %d, %q", code, out)
		}
	})
}

func TestFunction_Errors(t *testing.T) {
	bad := fixturePackage(t, "tiny", nil)
	os.WriteFile(filepath.Join(bad, "subako-package.json"), []byte(`{"abi":2,"name":"x"}`), 0o644)
	tests := []struct {
		args []string
		code int
		say  string
	}{
		{nil, exitUsage, "Usage"},
		{[]string{"frobnicate"}, exitUsage, "unknown function subcommand"},
		{[]string{"validate"}, exitUsage, "error: want one PKG, got 0 arguments\nRun 'kobako function validate -h' for usage.\n"},
		{[]string{"validate", bad}, exitError, "ABI 1 only"},
		{[]string{"tools", filepath.Join(t.TempDir(), "missing")}, exitError, "invalid package"},
		{[]string{"validate", fixturePackage(t, "exit_early", nil)}, exitCrash, "exited before answering"},
		{[]string{"tools", fixturePackage(t, "exit_early", nil)}, exitCrash, "exited before answering"},
		{[]string{"call", "example"}, exitUsage, "want PKG TOOL [ARGS], got 1 arguments"},
		{[]string{"call", "example", "greet", "[1]"}, exitUsage, "arguments must be a JSON object"},
		{[]string{"call", "--skill", "nodir", "example", "greet"}, exitUsage, "want NAME=DIR"},
		{[]string{"call", "--allow-host", "*.com", "example", "greet"}, exitUsage, "--allow-host"},
		{[]string{"call", "--fuel", "0", "example", "greet"}, exitUsage, "error: --fuel 0 out of range"},
		{[]string{"call", "--timeout", "0", "example", "greet"}, exitUsage, "error: --timeout 0s: want a positive duration"},
		{[]string{"call", "--max-memory", "0", "example", "greet"}, exitUsage, "error: --max-memory 0: want at least one byte"},
		{[]string{"pack", "example"}, exitUsage, "-o PKG.zip is required"},
	}
	for _, tt := range tests {
		code, _, errOut := runFunction(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.say) {
			t.Errorf("%q: exit %d, stderr %q; want %d saying %q", tt.args, code, errOut, tt.code, tt.say)
		}
	}
}

func TestFunction_Pack(t *testing.T) {
	dir := fixturePackage(t, "everything", map[string]string{"hello.txt": "hi", "sub/x.json": "{}"})
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("not part of the package"), 0o644)
	zipPath := filepath.Join(t.TempDir(), "pkg.zip")
	code, out, errOut := runFunction(t, "pack", dir, "-o", zipPath)
	if code != 0 || !strings.Contains(out, "(4 files)") {
		t.Fatalf("pack: exit %d, %q, %q", code, out, errOut)
	}
	first, _ := os.ReadFile(zipPath)
	if code, _, _ := runFunction(t, "pack", dir, "-o", zipPath); code != 0 {
		t.Fatal("second pack failed")
	}
	if second, _ := os.ReadFile(zipPath); !bytes.Equal(first, second) {
		t.Error("packing twice gave different bytes")
	}
	code, out, errOut = runFunction(t, "call", zipPath, "env")
	if code != 0 || !strings.Contains(out, `\"asset\":\"hi\"`) {
		t.Errorf("call the zip: exit %d, %q, %q", code, out, errOut)
	}

	t.Run("symlink in assets", func(t *testing.T) {
		d := fixturePackage(t, "tiny", map[string]string{"a.txt": "a"})
		os.Symlink("/etc/passwd", filepath.Join(d, "assets", "link"))
		code, _, errOut := runFunction(t, "pack", d, "-o", filepath.Join(t.TempDir(), "x.zip"))
		if code != exitError || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("exit %d, %q", code, errOut)
		}
	})
	t.Run("invalid module", func(t *testing.T) {
		d := fixturePackage(t, "validate/no_memory", nil)
		out := filepath.Join(t.TempDir(), "x.zip")
		code, _, errOut := runFunction(t, "pack", d, "-o", out)
		if _, err := os.Stat(out); code != exitError || !strings.Contains(errOut, "missing export memory") || err == nil {
			t.Errorf("exit %d, %q, zip written: %v", code, errOut, err == nil)
		}
	})
}

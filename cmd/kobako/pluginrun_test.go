package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/kobako/kobako/internal/race"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pluginRunSetup installs runtime fixtures (from zeroclaw/runtime/testdata) into a fresh plugins
// directory and returns the --config flag pointing at a config file for it.
func pluginRunSetup(t *testing.T, extraConfig string) []string {
	t.Helper()
	pluginIsolate(t)
	dir := t.TempDir()
	plugins := []struct{ name, capability, wasm, extra string }{
		{"misbehave", "tool", "misbehave.wasm", ""},
		{"gotool", "tool", "gotool.wasm", ""},
		{"chan", "channel", "channel-v0.wasm", ""},
		{"mem", "memory", "memory.wasm", ""},
	}
	for _, p := range plugins {
		wasm, err := os.ReadFile(filepath.Join("..", "..", "zeroclaw", "runtime", "testdata", p.wasm))
		if err != nil {
			t.Fatal(err)
		}
		pluginWriteFile(t, filepath.Join(dir, "plugins", p.name, "manifest.toml"),
			"name = \""+p.name+"\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\""+p.capability+"\"]\n"+p.extra)
		if err := os.WriteFile(filepath.Join(dir, "plugins", p.name, "plugin.wasm"), wasm, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "config.toml")
	pluginWriteFile(t, cfg, "[plugins]\nplugins_dir = \""+filepath.ToSlash(filepath.Join(dir, "plugins"))+"\"\n"+extraConfig)
	return []string{"--config", cfg}
}

func runPluginCLIStdin(t *testing.T, stdin string, args ...string) pluginResult {
	t.Helper()
	var out, errOut bytes.Buffer
	code := pluginCommand(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return pluginResult{code, out.String(), errOut.String()}
}

func TestPluginCall(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string
		stderrHas  []string
		stderrNone bool
	}{
		{"ok", []string{"misbehave", `{"mode":"echo"}`}, 0, `{"success":true,"output":"{\"mode\":\"echo\"}","error":null}` + "\n", nil, true},
		{"tool error result", []string{"gotool", `{"tool_error":"bad"}`}, 0, `{"success":false,"output":"","error":"bad"}` + "\n", nil, true},
		{"guest err", []string{"gotool", `{"fail":"boom"}`}, 1, "", []string{"error: plugin execute returned error: boom\n"}, false},
		{"snapshot", []string{"gotool", `{"tool_error":"bad"}`, "--snapshot"}, 0, `{"success":false,"output":"","error":"bad"}` + "\n", nil, true},
		{"snapshot wat", []string{"misbehave", `{"mode":"echo"}`, "--snapshot"}, 0, `{"success":true,"output":"{\"mode\":\"echo\"}","error":null}` + "\n", nil, true},
		{"snapshot fuel", []string{"misbehave", `{"mode":"spin"}`, "--fuel", "100000", "--snapshot"}, 1, "", []string{"error: tool.execute trapped: ", "fuel exhausted"}, false},
		{"deadline", []string{"misbehave", `{"mode":"spin"}`, "--timeout", "200ms"}, 1, "", []string{"error: plugin call exceeded wall-clock deadline of 200 ms\n"}, false},
		{"fuel", []string{"misbehave", `{"mode":"spin"}`, "--fuel", "100000"}, 1, "", []string{"error: tool.execute trapped: ", "fuel exhausted"}, false},
		{"memory cap", []string{"misbehave", `{"mode":"grow"}`, "--max-memory", "1MiB"}, 0, `{"success":true,"output":"16","error":null}` + "\n", nil, true},
		{"not a tool", []string{"mem", `{}`}, 1, "", []string{"has no tool capability"}, false},
		{"bad args", []string{"misbehave", `[1]`}, 1, "", []string{"must be a JSON object"}, false},
		{"bad log format", []string{"misbehave", `{}`, "--log-format", "xml"}, 2, "", []string{"want text or json"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runPluginCLI(t, append(append([]string{"call"}, tc.args...), cfg...)...)
			if r.code != tc.code || r.stdout != tc.stdout {
				t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			for _, s := range tc.stderrHas {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr %q lacks %q", r.stderr, s)
				}
			}
			if tc.stderrNone && r.stderr != "" {
				t.Errorf("stderr %q", r.stderr)
			}
			if strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("a Go stack on stderr: %s", r.stderr)
			}
			if tc.code == 1 && strings.Count("\n"+r.stderr, "\nerror: ") != 1 {
				t.Errorf("want one error: line, got %q", r.stderr)
			}
		})
	}
}

func TestPluginCallLogs(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	r := runPluginCLI(t, append([]string{"call", "misbehave", `{"mode":"log"}`, "--log-format", "json"}, cfg...)...)
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one log line, got %q", r.stderr)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"level": "warn", "plugin": "misbehave", "plugin_capability": "tool",
		"plugin_binding": "misbehave", "plugin_fn": "execute", "function_name": "execute", "action": "note",
		"outcome": "success", "duration_ms": float64(5), "message": "hello from wat", "raw": `{"mode":"log"}`} {
		if rec[k] != want {
			t.Errorf("%s = %v, want %v", k, rec[k], want)
		}
	}
	// Text format: one line per record; a flood adds the drop count line.
	if race.Enabled {
		return
	}
	r = runPluginCLI(t, append([]string{"call", "misbehave", `{"mode":"flood"}`}, cfg...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "plugin log records dropped") || !strings.Contains(r.stderr, "dropped=") {
		t.Fatalf("flood: %d, stderr %d bytes, tail %q", r.code, len(r.stderr), r.stderr[max(0, len(r.stderr)-200):])
	}
}

func TestPluginShellMemory(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	in := strings.Join([]string{
		`store-entry("k", "v", core, none)`,
		`get("k")`,
		`count()`,
		`reindex()`,
		`purge-session("s")`,
		`ensure-agent-uuid("alias")`,
		`get-for-agent("k", "agent")`,
		`nope()`,
		`store-entry(1)`,
	}, "\n") + "\n"
	r := runPluginCLIStdin(t, in, append([]string{"shell", "mem"}, cfg...)...)
	want := []string{
		`ok`,
		`ok(some({id: "id-1", key: "k", content: "v", category: core, timestamp: "t1", namespace: "default"}))`,
		`ok(1)`,
		`ok(42)`,
		`err("not supported")`,
		`ok("alias")`,
		`ok(none)`,
	}
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(got) != 9 {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d: %q, want %q", i+1, got[i], w)
		}
	}
	for _, i := range []int{7, 8} {
		if !strings.HasPrefix(got[i], "error: ") {
			t.Errorf("line %d: %q, want an error", i+1, got[i])
		}
	}
}

func TestPluginShellChannel(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	in := strings.Join([]string{
		`inbound {id: "m1", sender: "al", reply-target: "al", content: "hi", channel: "x", channel-alias: none, timestamp: 1, thread-ts: none, interruption-scope-id: none, subject: none}`,
		`send({content: "hello", recipient: "bob", subject: none, thread-ts: none, attachments: [], in-reply-to: none})`,
		`supports-free-form-ask()`,
		`multi-message-delay-ms()`,
		`stop-typing("bob")`,
		`inbound {id: 1}`,
	}, "\n") + "\n"
	r := runPluginCLIStdin(t, in, append([]string{"shell", "chan"}, cfg...)...)
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	var replies, messages []string
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if strings.HasPrefix(l, "message ") {
			messages = append(messages, l)
		} else {
			replies = append(replies, l)
		}
	}
	if len(replies) != 6 || replies[0] != "queued 1" || replies[1] != "ok" || replies[2] != "true" || replies[3] != "250" ||
		replies[4] != "ok" || !strings.HasPrefix(replies[5], "error: ") {
		t.Errorf("replies %q", replies)
	}
	joined := strings.Join(messages, "\n")
	if len(messages) != 2 || !strings.Contains(joined, `content: "hi", channel: "chan", channel-alias: some("chan")`) ||
		!strings.Contains(joined, `content: "echo:hello"`) {
		t.Errorf("messages %q", messages)
	}
}

func TestPluginInfoWorld(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	for _, tc := range []struct{ name, want string }{
		{"misbehave", "Tool:         misbehave\n  Description: A tool that misbehaves on request.\n"},
		{"chan", "Channel:      echo-channel, configure(config: string) (v0)\n  Capabilities: health-check, self-handle, start-typing, multi-message-delay-ms, add-reaction\n"},
		{"mem", "Memory:       map-memory\n  Capabilities: purge-namespace, reindex\n"},
	} {
		r := runPluginCLI(t, append([]string{"info", tc.name}, cfg...)...)
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: %d %q %q", tc.name, r.code, r.stdout, r.stderr)
		}
	}
	r := runPluginCLI(t, append([]string{"info", "mem", "--json"}, cfg...)...)
	var info struct {
		World struct {
			Memory struct{ Name string } `json:"memory"`
		} `json:"world"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || info.World.Memory.Name != "map-memory" {
		t.Errorf("json: %v %s", err, r.stdout)
	}
}

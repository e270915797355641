package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/internal/race"
	"github.com/kobako/kobako/zeroclaw/runner"
)

// pluginRunSetup installs runtime fixtures (from zeroclaw/runner/testdata) into a fresh plugins
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
		wasm, err := os.ReadFile(filepath.Join("..", "..", "zeroclaw", "runner", "testdata", p.wasm))
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
		{"bad args", []string{"misbehave", `[1]`}, 2, "", []string{"error: ARGS: arguments must be a JSON object, not an array\n"}, false},
		{"malformed args", []string{"misbehave", `{"mode":`}, 2, "", []string{"error: ARGS: invalid JSON at line 1, column 8: "}, false},
		{"args checked before the plugin is looked up", []string{"no-such-plugin", `{"mode":`}, 2, "", []string{"error: ARGS: invalid JSON"}, false},
		{"args from a missing file", []string{"misbehave", "@/nonexistent/args.json"}, 2, "", []string{"error: ARGS @/nonexistent/args.json: open /nonexistent/args.json: no such file or directory"}, false},
		{"zero fuel", []string{"misbehave", `{}`, "--fuel", "0"}, 2, "", []string{"error: --fuel 0: want at least 1"}, false},
		{"zero timeout", []string{"misbehave", `{}`, "--timeout", "0s"}, 2, "", []string{"error: --timeout 0s: want at least 1ms"}, false},
		{"bad log format", []string{"misbehave", `{}`, "--log-format", "xml"}, 2, "", []string{"want text or json"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runPluginCLI(t, append(append([]string{"call"}, tc.args...), cfg...)...)
			if r.code != tc.code || r.stdout != tc.stdout {
				t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			for _, s := range tc.stderrHas {
				// The system's own words differ in case between ports (js/wasm capitalizes errno texts).
				if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower(s)) {
					t.Errorf("stderr %q lacks %q", r.stderr, s)
				}
			}
			if tc.stderrNone && r.stderr != "" {
				t.Errorf("stderr %q", r.stderr)
			}
			if strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("a Go stack on stderr: %s", r.stderr)
			}
			if tc.code != 0 && strings.Count("\n"+r.stderr, "\nerror: ") != 1 {
				t.Errorf("want one error: line, got %q", r.stderr)
			}
		})
	}
}

// ARGS is read as function call reads it: the JSON itself, "-" for stdin, or @FILE.
func TestPluginCall_ArgsSources(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	file := filepath.Join(t.TempDir(), "args.json")
	pluginWriteFile(t, file, `{"text":"from file"}`)
	r := runPluginCLIStdin(t, `{"text":"from stdin"}`+"\n", append([]string{"call", "gotool", "-"}, cfg...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "from stdin") {
		t.Errorf("stdin: %+v", r)
	}
	r = runPluginCLI(t, append([]string{"call", "gotool", "@" + file}, cfg...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "from file") {
		t.Errorf("@FILE: %+v", r)
	}
}

// Ctrl-C while ARGS is read from a terminal (stdin open, nothing typed) ends function call and
// plugin call at once with 130 and an interrupted line; it is not swallowed by the read.
func TestCall_InterruptWhileReadingArgs(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	tests := []struct {
		name string
		run  func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int
	}{
		{"function call", func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
			return functionCommand(ctx, []string{"call", "example", "greet", "-"}, stdin, stdout, stderr)
		}},
		{"plugin call", func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
			return pluginCommand(ctx, append([]string{"call", "misbehave", "-"}, cfg...), stdin, stdout, stderr)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var out, errOut syncBuffer
			codec := make(chan int, 1)
			go func() { codec <- tc.run(ctx, pr, &out, &errOut) }()
			time.Sleep(50 * time.Millisecond)
			cancel()
			select {
			case code := <-codec:
				if code != exitInterrupted || !strings.Contains(errOut.String(), "interrupted") || out.String() != "" {
					t.Fatalf("code %d, stdout %q, stderr %q", code, out.String(), errOut.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the command kept reading stdin after its context was cancelled")
			}
		})
	}
}

// A trap shows the end of what the guest wrote to stderr, as function call does for ABI 1: here
// the Go runtime's "out of memory" crash of gotool, given a 3 MiB argument under an 8 MiB cap.
func TestPluginCall_TrapShowsGuestStderr(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	file := filepath.Join(t.TempDir(), "big.json")
	pluginWriteFile(t, file, `{"text":"`+strings.Repeat("a", 3<<20)+`"}`)
	r := runPluginCLI(t, append([]string{"call", "gotool", "@" + file, "--max-memory", "8MiB"}, cfg...)...)
	head, tail, ok := strings.Cut(r.stderr, "\nlast stderr output of the plugin:\n")
	if r.code != 1 || !ok || !strings.HasPrefix(head, "error: tool.execute trapped: ") || !strings.Contains(tail, "runtime.") {
		t.Fatalf("code %d, stderr %.600q", r.code, r.stderr)
	}
	if len(tail) > runner.StderrTailBytes+1 {
		t.Errorf("stderr tail of %d bytes, want at most %d", len(tail), runner.StderrTailBytes+1)
	}
	if strings.Count(r.stderr, "error: tool.execute") != 1 {
		t.Errorf("want one error line, got %.600q", r.stderr)
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

// syncBuffer is a bytes.Buffer that a running command and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until cond holds or fails the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Ctrl-C (a cancelled context) ends the shell with 130 while it waits for input on a stdin that
// stays open, and while a guest call runs; no second Ctrl-C, no EOF needed.
func TestPluginShell_Interrupt(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	tests := []struct {
		name, plugin, first, ready string
		during                     bool
	}{
		{"memory waiting for input", "mem", "count()\n", "ok(0)", false},
		{"channel waiting for input", "chan", "multi-message-delay-ms()\n", "250", false},
		{"channel during a guest call", "chan", `inbound {id: "m1", sender: "al", reply-target: "al", content: "spin", channel: "x", channel-alias: none, timestamp: 1, thread-ts: none, interruption-scope-id: none, subject: none}` + "\n", "queued 1", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out, errOut syncBuffer
			codec := make(chan int, 1)
			args := append([]string{"shell", tc.plugin, "--fuel", "1000000000000000", "--timeout", "10m"}, cfg...)
			go func() { codec <- pluginCommand(ctx, args, pr, &out, &errOut) }()
			go io.WriteString(pw, tc.first)
			waitFor(t, 30*time.Second, "the first answer", func() bool { return strings.Contains(out.String(), tc.ready) })
			if tc.during {
				time.Sleep(200 * time.Millisecond) // the listen loop is now spinning in poll-message
			}
			cancel()
			select {
			case code := <-codec:
				if code != exitInterrupted || !strings.Contains(errOut.String(), "error: interrupted\n") {
					t.Fatalf("code %d, stderr %q", code, errOut.String())
				}
				if strings.Contains(out.String(), "canceled") {
					t.Errorf("stdout %q answers a cancelled call", out.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the shell kept running after its context was cancelled")
			}
		})
	}
}

// A line over the limit is answered as too long and the session goes on; an unknown function is
// named with the plugin's functions, not blamed on the plugin.
func TestPluginShell_BadLines(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 16 MiB line")
	}
	cfg := pluginRunSetup(t, "")
	long := `store-entry("k", "` + strings.Repeat("v", shellMaxLine) + `", core, none)`
	in := long + "\n" + "count()\n" + "bogus()\n" + "count()"
	r := runPluginCLIStdin(t, in, append([]string{"shell", "mem"}, cfg...)...)
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(got) != 4 {
		t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if want := "error: line 1 is longer than the limit of 16777216 bytes (16 MiB); skipped"; got[0] != want {
		t.Errorf("line 1: %q, want %q", got[0], want)
	}
	if got[1] != "ok(0)" || got[3] != "ok(0)" {
		t.Errorf("count answers %q %q", got[1], got[3])
	}
	if !strings.HasPrefix(got[2], "error: no function bogus; the plugin's functions are: name, get-memory-capabilities, ") ||
		!strings.Contains(got[2], "count") || strings.Contains(got[2], "does not implement") {
		t.Errorf("unknown function: %q", got[2])
	}
}

// An installed plugin whose wasm became a link to /dev/zero is refused at call time, promptly
// and naming the file, instead of being read without end.
func TestPluginCall_WasmNotRegular(t *testing.T) {
	cfg := pluginRunSetup(t, "")
	wasm := filepath.Join(filepath.Dir(cfg[1]), "plugins", "gotool", "plugin.wasm")
	if err := os.Remove(wasm); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", wasm); err != nil {
		t.Skip(err)
	}
	done := make(chan pluginResult, 1)
	go func() { done <- runPluginCLI(t, append([]string{"call", "gotool", `{}`}, cfg...)...) }()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.stderr, "plugin.wasm is a character device, not a regular file") || strings.Contains(r.stderr, "not found") {
			t.Errorf("code %d stderr %q", r.code, r.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("plugin call kept reading /dev/zero")
	}
}

// Without flags, a plugin call runs under [plugins.limits]' defaults, memory included: a guest
// that grows its memory page by page stops at max_memory_mb = 256 (4096 pages), and a config
// value replaces it.
func TestPluginCall_DefaultMemoryCap(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("grows a 256 MiB memory")
	}
	for _, tc := range []struct{ config, pages string }{
		{"", "4096"},
		{"[plugins.limits]\nmax_memory_mb = 2\n", "32"},
	} {
		cfg := pluginRunSetup(t, tc.config)
		r := runPluginCLI(t, append([]string{"call", "misbehave", `{"mode":"grow"}`}, cfg...)...)
		if want := `{"success":true,"output":"` + tc.pages + `","error":null}` + "\n"; r.code != 0 || r.stdout != want {
			t.Errorf("config %q: code %d stdout %q stderr %q, want %q", tc.config, r.code, r.stdout, r.stderr, want)
		}
	}
}

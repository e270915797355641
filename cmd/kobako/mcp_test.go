package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// childEnv makes the test binary run as kobako (see TestMain), so that the SDK's command
// transport starts a real `kobako mcp` process.
const childEnv = "KOBAKO_TEST_RUN_AS_KOBAKO"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		code := kobako(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	// The commands' default cache directory is the user's: tests use one of their own.
	cache, err := os.MkdirTemp("", "kobako-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

const mcpFixture = "../../mcpserve/testdata/mcptest"

var (
	childOnce sync.Once
	childErr  error
)

// kobakoCmd is `kobako ARGS...` as a child process with an empty home and config. Where the test
// binary cannot start itself (under qemu-user without binfmt, on js/wasm and wasip1) the test is
// skipped.
func kobakoCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	childOnce.Do(func() {
		cmd := exec.Command(os.Args[0], "help")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		childErr = cmd.Run()
	})
	if childErr != nil {
		t.Skipf("this test binary cannot run itself as kobako here: %v", childErr)
	}
	cmd := exec.Command(os.Args[0], args...)
	home := t.TempDir()
	cfg := filepath.Join(home, "config.toml")
	os.WriteFile(cfg, nil, 0o644)
	cmd.Env = append(os.Environ(), childEnv+"=1", "HOME="+home, "KOBAKO_CONFIG="+cfg)
	return cmd
}

// lockedBuffer collects a child's stderr while tests read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var mcpArgs = []string{"mcp", "--log-level", "debug", "--timeout", "60s", "--fuel", "9223372036854775807", mcpFixture, "example"}

// mcpSession connects the SDK's client to a `kobako mcp` child over stdio or HTTP, in era.
func mcpSession(t *testing.T, transport, era string) (*mcp.ClientSession, *lockedBuffer) {
	t.Helper()
	logs := &lockedBuffer{}
	var ct mcp.Transport
	switch transport {
	case "stdio":
		cmd := kobakoCmd(t, mcpArgs...)
		cmd.Stderr = logs
		ct = &mcp.CommandTransport{Command: cmd}
	case "http":
		url := startMCPHTTP(t, logs, append(mcpArgs, "--http", "127.0.0.1:0")...)
		ct = &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, logs)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Fatalf("negotiated %s, want %s", got, era)
	}
	return cs, logs
}

// startMCPHTTP starts `kobako ARGS...` (an `mcp --http` command) as a child, stopped with Ctrl-C at
// the end of the test, and returns its endpoint's URL once it listens.
func startMCPHTTP(t *testing.T, logs *lockedBuffer, args ...string) string {
	t.Helper()
	cmd := kobakoCmd(t, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	sc := bufio.NewScanner(stderr)
	url := ""
	for url == "" && sc.Scan() {
		logs.Write(append(sc.Bytes(), '\n'))
		if u, ok := strings.CutPrefix(sc.Text(), "kobako mcp: listening on "); ok {
			url = u
		}
	}
	if url == "" {
		t.Fatalf("kobako mcp --http did not start:\n%s", logs)
	}
	go func() {
		for sc.Scan() {
			logs.Write(append(sc.Bytes(), '\n'))
		}
	}()
	return url
}

// TestMCPScaleOut: two `kobako mcp --http` processes behind a round-robin proxy of our own, with no
// session affinity, serve a 2026-07-28 client.
func TestMCPScaleOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kobako processes")
	}
	var targets []*url.URL
	for range 2 {
		u, err := url.Parse(startMCPHTTP(t, &lockedBuffer{}, "mcp", "--no-plugins", "--http", "127.0.0.1:0", "example"))
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "" // the client's path, /mcp, passes through
		targets = append(targets, u)
	}
	var next, first atomic.Int64
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := next.Add(1) % 2
		if i == 0 {
			first.Add(1)
		}
		p := httputil.NewSingleHostReverseProxy(targets[i])
		p.FlushInterval = -1
		r.Host = targets[i].Host
		p.ServeHTTP(w, r)
	}))
	defer lb.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: lb.URL + "/mcp", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 8 {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello__greet", Arguments: map[string]string{"name": fmt.Sprint(i)}})
		if err != nil || resultText(r) != fmt.Sprintf("Hello, %d!", i) {
			t.Fatalf("call %d through the balancer: %v %v", i, r, err)
		}
	}
	if n := next.Load(); first.Load() < 3 || n-first.Load() < 3 {
		t.Fatalf("the balancer did not spread the requests: %d of %d to the first server", first.Load(), n)
	}
}

func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s %d bytes]", c.MIMEType, len(c.Data)))
		}
	}
	return strings.Join(parts, "|")
}

// TestMCP runs `kobako mcp` as a child and drives it with the SDK's client over the command
// transport and over HTTP, in both protocol eras: the list, a call of each kind of tool, an
// isError result, a crash, cancellation and 32 concurrent calls.
func TestMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kobako processes")
	}
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs, logs := mcpSession(t, transport, era)
				ctx := context.Background()
				lt, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(lt.Tools) != 14 || lt.Tools[0].Name != "hello__greet" || lt.Tools[1].Name != "mcptest__crash" {
					t.Fatalf("tools: %d, first %q", len(lt.Tools), lt.Tools[0].Name)
				}
				calls := []struct {
					tool    string
					args    any
					isError bool
					want    string
				}{
					{"hello__greet", map[string]string{"name": "Ada"}, false, "Hello, Ada!"},
					{"mcptest__echo", map[string]int{"n": 1}, false, `{"n":1}`},
					{"mcptest__fail", nil, true, "the tool failed on purpose"},
					{"mcptest__crash", nil, true, "The function crashed: it trapped (unreachable in function $49).\nLast stderr output:\noops"},
					{"mcptest__picture", nil, false, "a picture|[image image/png 70 bytes]"},
					{"mcptest__test_image_content", nil, false, "[image image/png 70 bytes]"},
					{"mcptest__test_error_handling", nil, true, "This tool intentionally returns an error for testing"},
				}
				for _, c := range calls {
					r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
					if err != nil {
						t.Fatalf("%s: %v", c.tool, err)
					}
					if r.IsError != c.isError || resultText(r) != c.want {
						t.Errorf("%s: isError %v, %q; want %v, %q", c.tool, r.IsError, resultText(r), c.isError, c.want)
					}
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); err == nil {
					t.Error("an unknown tool was called")
				}

				// Cancellation stops the guest at once: its end is logged long before the 60 s
				// deadline.
				cctx, cancel := context.WithCancel(ctx)
				time.AfterFunc(300*time.Millisecond, cancel)
				start := time.Now()
				if _, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "mcptest__spin"}); !errors.Is(err, context.Canceled) {
					t.Fatalf("spin: err = %v, want context.Canceled", err)
				}
				for !strings.Contains(logs.String(), `msg="call canceled" tool=mcptest__spin`) {
					if time.Since(start) > 20*time.Second {
						t.Fatalf("the guest was not stopped after the cancellation:\n%s", logs)
					}
					time.Sleep(20 * time.Millisecond)
				}

				var wg sync.WaitGroup
				errs := make(chan error, 32)
				for i := range 32 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcptest__echo", Arguments: map[string]int{"i": i}})
						if err == nil && resultText(r) != fmt.Sprintf(`{"i":%d}`, i) {
							err = fmt.Errorf("call %d: %q", i, resultText(r))
						}
						if err != nil {
							errs <- err
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})
		}
	}
}

// TestMCPTimeout: a call past its --timeout is an isError result naming the deadline.
func TestMCPTimeout(t *testing.T) {
	cmd := kobakoCmd(t, "mcp", "--timeout", "1s", "--fuel", "9223372036854775807", mcpFixture)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mcptest__spin"})
	if err != nil || !r.IsError || resultText(r) != "The function crashed: it ran out of time (the call's deadline of 1s passed)." {
		t.Fatalf("%v %v", r, err)
	}
}

func TestMCP_Errors(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("[mcp]\ntimeout = 1\n"), 0o644)
	zeroLimit := filepath.Join(dir, "zero.toml")
	os.WriteFile(zeroLimit, []byte("[mcp.limits]\ntimeout_ms = 0\n"), 0o644)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp", "--bogus"}, exitUsage, "unknown flag --bogus"},
		{[]string{"mcp", "--log-level", "loud"}, exitUsage, "--log-level"},
		{[]string{"mcp", "--config", filepath.Join(dir, "none.toml")}, exitUsage, "--config"},
		{[]string{"mcp", "--config", cfg}, exitError, "unknown keys mcp.timeout"},
		{[]string{"mcp", "--no-plugins", "example", "example"}, exitError, `"hello__greet" would name both`},
		{[]string{"mcp", "--no-plugins", "--allow-host", "*.com", "example"}, exitUsage, "allow_hosts"},
		{[]string{"mcp", "--no-plugins", "--http", "127.0.0.1:0", "--token-file", filepath.Join(dir, "none"), "example"}, exitUsage, "--token-file"},
		{[]string{"mcp", "--config", zeroLimit}, exitError, "mcp.limits.timeout_ms = 0"},
		{[]string{"mcp", "--no-plugins", "--fuel", "0", "example"}, exitUsage, "--fuel must be at least 1"},
		{[]string{"mcp", "--no-plugins", "--max-memory", "0", "example"}, exitUsage, "--max-memory 0: want at least one byte"},
		{[]string{"mcp", "--no-plugins", "--max-concurrent-calls", "0", "example"}, exitUsage, "--max-concurrent-calls must be at least 1"},
		// P15: only failing packages are an error, not a silent empty server.
		{[]string{"mcp", "--no-plugins", filepath.Join(dir, "nonexistent")}, exitError, "no tools to serve: skipped package"},
		{[]string{"mcp", "--no-plugins", "we ird/na:me=wordcount"}, exitUsage, `the source name "we ird/na:me"`},
		// P16: directories that do not exist.
		{[]string{"mcp", "--no-plugins", "--volume", filepath.Join(dir, "nonexistent"), "example"}, exitUsage, "--volume " + filepath.Join(dir, "nonexistent") + ": no such directory"},
		{[]string{"mcp", "--data", cfg, "example"}, exitUsage, "--data " + cfg + ": not a directory"},
		{[]string{"mcp", "--plugins-dir", filepath.Join(dir, "nonexistent"), "example"}, exitUsage, "--plugins-dir"},
		// P22: --http and the flags that go with it.
		{[]string{"mcp", "--no-plugins", "--http", "bogus", "example"}, exitUsage, "the port must be a number"},
		{[]string{"mcp", "--no-plugins", "--http", "99999", "example"}, exitUsage, "from 0 to 65535"},
		{[]string{"mcp", "--no-plugins", "--token-file", cfg, "example"}, exitUsage, "--token-file applies to --http only"},
		{[]string{"mcp", "--no-plugins", "--strict-protocol-header", "example"}, exitUsage, "--strict-protocol-header applies to --http only"},
		{[]string{"mcp", "--no-plugins", "--http", "0", "--http-origin", "not a url", "example"}, exitUsage, "--http-origin"},
		{[]string{"mcp", "--no-plugins", "--http", "0", "--http-host", "", "example"}, exitUsage, "--http-host"},
		{[]string{"mcp", "--no-plugins", "--http", "0", "--http-host", "https://x.example", "example"}, exitUsage, "--http-host"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		t.Setenv("KOBAKO_CONFIG", filepath.Join(dir, "absent.toml"))
		code := kobako(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tt.args, code, errb.String(), tt.code, tt.want)
		}
	}
}

// TestMCPRawStdio sends `kobako mcp` the bytes shipping clients send, bad lines among them: every
// line is answered (P1, P21), and the process exits 0 at the end of its input.
func TestMCPRawStdio(t *testing.T) {
	cmd := kobakoCmd(t, "mcp", "--no-plugins", "example")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`,
		`{not json`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello__greet","arguments":{"name":"Ada"}}}`,
	}, "\n") + "\n")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := []string{`"supportedVersions":["2026-07-28"`, `"protocolVersion":"2025-11-25"`, `"code":-32700`, `batches are not supported`, `"code":-32601`, `Hello, Ada!`}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d answers:\n%s", len(lines), out)
	}
	// Answers may come in any order, as JSON-RPC allows: the front answers bad lines itself.
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("no answer has %s:\n%s", w, out)
		}
	}
}

// TestMCPInterrupt: Ctrl-C ends `kobako mcp` with 130 on both transports, without an ERROR record
// (P6), and listening beyond loopback is warned about (P22).
func TestMCPInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kobako processes")
	}
	for _, args := range [][]string{{"mcp", "--no-plugins", "example"}, {"mcp", "--no-plugins", "--http", "0.0.0.0:0", "example"}} {
		t.Run(strings.Join(args[2:], " "), func(t *testing.T) {
			cmd := kobakoCmd(t, args...)
			stdin, _ := cmd.StdinPipe()
			defer stdin.Close()
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for !strings.Contains(stderr.String(), "serving tools") {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			cmd.Process.Signal(os.Interrupt)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, stderr.String())
			}
			if strings.Contains(stderr.String(), "level=ERROR") {
				t.Fatalf("Ctrl-C logged an error:\n%s", stderr.String())
			}
			if beyond := strings.Contains(args[len(args)-2], "0.0.0.0"); beyond != strings.Contains(stderr.String(), "listening beyond loopback") {
				t.Fatalf("beyond loopback %v, log:\n%s", beyond, stderr.String())
			}
		})
	}
}

func TestSplitNamedPackage(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "a=b")
	os.Mkdir(odd, 0o755)
	tests := []struct {
		arg, name, path string
		bare            bool
		problem         string
	}{
		{"pkg.zip", "", "pkg.zip", false, ""},
		{"w=pkgs/weather.zip", "w", "pkgs/weather.zip", false, ""},
		{"=pkgs/weather.zip", "", "pkgs/weather.zip", true, ""},
		{odd, "", odd, false, ""},
		// Neither a file nor NAME=PKG: a typo in a client's args is an error, not a missing path.
		{"./x=y", "", "", false, `the source name "./x" may hold only`},
		{"we ird/na:me=wordcount", "", "", false, `the source name "we ird/na:me"`},
		{"w=", "", "", false, "names no package"},
	}
	for _, tt := range tests {
		n, p, b, problem := splitNamedPackage(tt.arg)
		if n != tt.name || p != tt.path || b != tt.bare || !strings.Contains(problem, tt.problem) || (tt.problem == "") != (problem == "") {
			t.Errorf("%q: %q %q %v %q", tt.arg, n, p, b, problem)
		}
	}
	if got := listenAddr("8765"); got != "127.0.0.1:8765" {
		t.Errorf("listenAddr = %q", got)
	}
	if got := listenAddr("[::1]:9"); got != "[::1]:9" {
		t.Errorf("listenAddr = %q", got)
	}
}

// TestMCPZeroClaw serves an installed ZeroClaw tool plugin (misbehave, from zeroclaw/runner's
// fixtures) through `kobako mcp` over the command transport in both eras: listed beside an ABI 1
// package, called, and stopped at once on cancellation.
func TestMCPZeroClaw(t *testing.T) {
	plugins := filepath.Join(t.TempDir(), "plugins")
	src := filepath.Join(t.TempDir(), "misbehave")
	os.MkdirAll(src, 0o755)
	wasm, err := os.ReadFile("../../zeroclaw/runner/testdata/misbehave.wasm")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "plugin.wasm"), wasm, 0o644)
	os.WriteFile(filepath.Join(src, "manifest.toml"), []byte("name = \"misbehave\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\n"), 0o644)
	var out, errb bytes.Buffer
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, nil, 0o644)
	t.Setenv("KOBAKO_CONFIG", cfg)
	if code := kobako(context.Background(), []string{"plugin", "install", "--plugins-dir", plugins, src}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("install: %d %s", code, errb.String())
	}
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			logs := &lockedBuffer{}
			cmd := kobakoCmd(t, "mcp", "--log-level", "debug", "--plugins-dir", plugins, "example")
			cmd.Stderr = logs
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				t.Fatalf("%v\n%s", err, logs)
			}
			defer cs.Close()
			lt, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(lt.Tools) != 2 || lt.Tools[0].Name != "hello__greet" || lt.Tools[1].Name != "misbehave__misbehave" {
				t.Fatalf("tools %v %v", lt, err)
			}
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "misbehave__misbehave", Arguments: map[string]string{"n": "7"}})
			if err != nil || r.IsError || resultText(r) != `{"n":"7"}` {
				t.Fatalf("call: %v %v", r, err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "misbehave__misbehave", Arguments: map[string]string{"mode": "spin"}}); !errors.Is(err, context.Canceled) {
				t.Fatalf("spin: %v", err)
			}
			for !strings.Contains(logs.String(), `msg="call canceled" tool=misbehave__misbehave`) {
				if time.Since(start) > 20*time.Second {
					t.Fatalf("the plugin was not stopped after the cancellation (its deadline is 30 s):\n%s", logs)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestMCPHelpPlaceholders: `kobako mcp -h` names its flag values as the other commands do
// (N, SIZE, FILE, DIR, …), not by Go type (uint, value, file, directory) (P29).
func TestMCPHelpPlaceholders(t *testing.T) {
	var out, errb bytes.Buffer
	if code := kobako(context.Background(), []string{"mcp", "-h"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && strings.HasPrefix(f[0], "-") && f[1] != strings.ToUpper(f[1]) {
			t.Errorf("flag %s shows its value as %q", f[0], f[1])
		}
	}
	for _, want := range []string{"-fuel N", "-max-body SIZE", "-config FILE", "-data DIR", "-max-concurrent-calls N", "-strict-protocol-header"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/runner"
)

// TestMCPLoad measures tools/call throughput, latency and peak memory through a real `kobako mcp
// --http` process with 1, 8 and 64 concurrent clients, side by side with the same call made
// through the library by as many goroutines in a child process of its own (so that the two peak
// RSS figures compare). It takes a minute or two, so it runs only when asked:
//
//	KOBAKO_MCP_LOAD=1 go test ./bench -run TestMCPLoad -v
//
// KOBAKO_MCP_LOAD_SECONDS sets each measurement's length (default 5). See "kobako mcp under load"
// in README.md.
func TestMCPLoad(t *testing.T) {
	if spec := os.Getenv(mcpLoadChildEnv); spec != "" {
		mcpLoadChild(t, spec)
		return
	}
	if os.Getenv("KOBAKO_MCP_LOAD") == "" {
		t.Skip("set KOBAKO_MCP_LOAD=1 to run the kobako mcp load measurement (a minute or two)")
	}
	seconds := 5.0
	if s := os.Getenv("KOBAKO_MCP_LOAD_SECONDS"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || v > 60 {
			t.Fatalf("KOBAKO_MCP_LOAD_SECONDS=%q: want a number of seconds in (0, 60]", s)
		}
		seconds = v
	}
	if runtime.GOOS != "linux" {
		t.Logf("peak RSS is read from /proc/PID/status, which only Linux has: the RSS columns are left empty on %s", runtime.GOOS)
	}
	t.Logf("load average at start: %s; GOMAXPROCS %d, %d CPUs", loadAvg(), runtime.GOMAXPROCS(0), runtime.NumCPU())

	bin := filepath.Join(t.TempDir(), "kobako")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kobako")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/kobako: %v\n%s", err, out)
	}

	pkgDir := t.TempDir()
	wasm, _ := subakoWasm(t, subakoGuests[0].paths)
	writeFile(t, pkgDir, subako.ManifestFile, []byte(`{"abi":1,"name":"bench"}`))
	writeFile(t, pkgDir, subako.ModuleFile, wasm)
	pluginsDir := installLoadPlugin(t)

	guests := []mcpLoadGuest{
		{name: "tiny ABI 1 package (subako/testdata/tiny.wasm)", kind: "abi1", dir: pkgDir, tool: "bench__greet",
			args: `{"name":"Ada"}`, want: subakoGuests[0].want, serverArgs: []string{"--no-plugins", pkgDir}},
		{name: "ZeroClaw Go tool (zeroclaw/runner/testdata/gotool.wasm)", kind: "zeroclaw", dir: pluginsDir, tool: "go-echo__go-echo",
			args: `{"text":"Ada"}`, want: "go-echo:Ada|config={}", serverArgs: []string{"--plugins-dir", pluginsDir}},
	}
	d := time.Duration(seconds * float64(time.Second))
	t.Log("| guest | clients | calls/s: server / library (ratio) | p50: server / library (ratio) | p99: server / library (ratio) | CPU per call: server / library (ratio) | clients' CPU per call | peak RSS in the run: server / library (ratio) | RSS before the run: server / library | calls measured: server / library |")
	t.Log("| --- | ---: | --- | --- | --- | --- | ---: | --- | --- | --- |")
	for _, g := range guests {
		for _, clients := range []int{1, 8, 64} {
			srv := runServerLoad(t, bin, g, clients, d)
			lib := runLibraryLoad(t, g, clients, d)
			t.Logf("| %s | %d | %s | %s | %s | %s | %.2f ms | %s | %s | %d / %d |", g.name, clients,
				ratioCell(srv.rate(), lib.rate(), "%.0f"),
				ratioCell(ms(srv.pct(50)), ms(lib.pct(50)), "%.2f ms"),
				ratioCell(ms(srv.pct(99)), ms(lib.pct(99)), "%.2f ms"),
				ratioCell(cpuPerCall(srv.CPU, srv.Calls), cpuPerCall(lib.CPU, lib.Calls), "%.2f ms"),
				cpuPerCall(srv.ClientCPU, srv.Calls),
				ratioCell(inMiB(srv.PeakRSS), inMiB(lib.PeakRSS), "%.0f MiB"),
				fmt.Sprintf("%s / %s (start-up peak %s / %s)", mibCell(srv.BaseRSS), mibCell(lib.BaseRSS), mibCell(srv.StartPeak), mibCell(lib.StartPeak)),
				srv.Calls, lib.Calls)
		}
	}
	t.Logf("load average at end: %s", loadAvg())
}

// mcpLoadChildEnv makes the test binary, run again by TestMCPLoad, the library side of one row.
const mcpLoadChildEnv = "KOBAKO_MCP_LOAD_CHILD"

type mcpLoadGuest struct {
	name, kind string
	// dir is the package directory (abi1) or the plugins directory (zeroclaw).
	dir        string
	tool       string // its name as kobako mcp lists it
	args, want string
	serverArgs []string
}

// loadResult is one side of one row. The RSS figures are bytes, 0 when unknown.
type loadResult struct {
	Calls     int
	Elapsed   time.Duration
	Latencies []time.Duration
	// StartPeak is VmHWM after start-up and warm-up; BaseRSS is VmRSS then, when the high-water
	// mark is reset; PeakRSS is VmHWM after the run (since the reset, when it worked).
	StartPeak, BaseRSS, PeakRSS uint64
	// CPU is the process's CPU time (user and system, all threads) during the run; ClientCPU,
	// for the server, that of the HTTP clients (this process). 0 when unknown.
	CPU, ClientCPU time.Duration
}

// cpuPerCall is CPU over calls, in milliseconds.
func cpuPerCall(cpu time.Duration, calls int) float64 {
	if calls == 0 {
		return 0
	}
	return ms(cpu) / float64(calls)
}

func (r *loadResult) rate() float64 { return float64(r.Calls) / r.Elapsed.Seconds() }

func (r *loadResult) pct(p int) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[(len(r.Latencies)-1)*p/100]
}

// drive runs call from clients goroutines, each one call after another, for d, and returns every
// call's latency. The first failed call stops everyone and is returned.
func drive(clients int, d time.Duration, call func(worker int) error) (loadResult, error) {
	var (
		wg       sync.WaitGroup
		stop     atomic.Bool
		errOnce  sync.Once
		firstErr error
	)
	lats := make([][]time.Duration, clients)
	start := time.Now()
	deadline := start.Add(d)
	for w := range clients {
		wg.Go(func() {
			for !stop.Load() && time.Now().Before(deadline) {
				t0 := time.Now()
				if err := call(w); err != nil {
					errOnce.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
				lats[w] = append(lats[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	r := loadResult{Elapsed: time.Since(start), Latencies: slices.Concat(lats...)}
	r.Calls = len(r.Latencies)
	slices.Sort(r.Latencies)
	return r, firstErr
}

// warmUp is how long each side runs its calls, at the row's concurrency, before it is measured:
// the Go heap grows to its working size and every lazy setup has happened.
const warmUp = 500 * time.Millisecond

// runServerLoad starts `kobako mcp --http` on a free loopback port and drives it with clients
// concurrent HTTP clients speaking the stateless 2026-07-28 revision.
func runServerLoad(t *testing.T, bin string, g mcpLoadGuest, clients int, d time.Duration) loadResult {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "config.toml")
	writeFile(t, home, "config.toml", nil)
	cmd := exec.Command(bin, append([]string{"mcp", "--http", "127.0.0.1:0"}, g.serverArgs...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KOBAKO_CONFIG="+cfg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	// The address line is the last thing the server writes before it serves; after it, stderr
	// (a log line per call) is drained and its tail kept for a failure's message.
	sc := bufio.NewScanner(stderr)
	var url string
	var head strings.Builder
	for sc.Scan() {
		line := sc.Text()
		head.WriteString(line + "\n")
		if u, ok := strings.CutPrefix(line, "kobako mcp: listening on "); ok {
			url = u
			break
		}
	}
	if url == "" {
		cmd.Wait()
		t.Fatalf("kobako mcp did not start:\n%s", head.String())
	}
	tail := &tailBuffer{max: 4096}
	go io.Copy(tail, stderr)

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	var ids atomic.Int64
	call := func(int) error { return mcpHTTPCall(client, url, g, ids.Add(1)) }
	if _, err := drive(clients, warmUp, call); err != nil {
		t.Fatalf("server %s, %d clients, warm-up: %v\nstderr ends:\n%s", g.tool, clients, err, tail)
	}
	startPeak, base := resetPeak(t, cmd.Process.Pid)
	cpu0, self0 := procCPU(cmd.Process.Pid), procCPU(os.Getpid())
	r, err := drive(clients, d, call)
	if err != nil {
		t.Fatalf("server %s, %d clients: %v\nstderr ends:\n%s", g.tool, clients, err, tail)
	}
	r.CPU, r.ClientCPU = procCPU(cmd.Process.Pid)-cpu0, procCPU(os.Getpid())-self0
	r.StartPeak, r.BaseRSS, r.PeakRSS = startPeak, base, procStatus(cmd.Process.Pid, "VmHWM")
	return r
}

// mcpHTTPCall sends one tools/call as a 2026-07-28 client does (the _meta triple and the mirrored
// headers) and checks that the answer is the tool's expected, successful result.
func mcpHTTPCall(client *http.Client, url string, g mcpLoadGuest, id int64) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`, id, g.tool, g.args)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", g.tool)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s: %s", resp.Status, raw)
	}
	msg := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// One event carries the answer; progress notifications are not asked for.
		msg = nil
		for line := range bytes.Lines(raw) {
			if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:")); ok {
				msg = bytes.TrimSpace(data)
			}
		}
	}
	var ans struct {
		ID     int64           `json:"id"`
		Error  json.RawMessage `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &ans); err != nil {
		return fmt.Errorf("answer %q: %v", raw, err)
	}
	if ans.ID != id || ans.Error != nil || ans.Result.IsError || len(ans.Result.Content) != 1 || ans.Result.Content[0].Text != g.want {
		return fmt.Errorf("call %d: wrong answer %s", id, raw)
	}
	return nil
}

// runLibraryLoad runs the library side of a row in a child process (this test binary again) and
// reads its memory the way runServerLoad reads the server's.
func runLibraryLoad(t *testing.T, g mcpLoadGuest, clients int, d time.Duration) loadResult {
	t.Helper()
	spec, _ := json.Marshal(mcpLoadSpec{Kind: g.kind, Dir: g.dir, Args: g.args, Want: g.want, Clients: clients, Duration: d})
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMCPLoad$")
	cmd.Env = append(os.Environ(), mcpLoadChildEnv+"="+string(spec))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr tailBuffer
	stderr.max = 4096
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	var out strings.Builder
	next := func(prefix string) string {
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				return rest
			}
			out.WriteString(sc.Text() + "\n")
		}
		cmd.Wait()
		t.Fatalf("library %s, %d goroutines: no %q line; output:\n%s\nstderr ends:\n%s", g.kind, clients, prefix, out.String(), stderr.String())
		return ""
	}
	next("mcpload ready")
	startPeak, base := resetPeak(t, cmd.Process.Pid)
	cpu0 := procCPU(cmd.Process.Pid)
	io.WriteString(stdin, "go\n")
	var r loadResult
	if err := json.Unmarshal([]byte(next("mcpload result ")), &r); err != nil {
		t.Fatal(err)
	}
	r.CPU = procCPU(cmd.Process.Pid) - cpu0
	r.StartPeak, r.BaseRSS, r.PeakRSS = startPeak, base, procStatus(cmd.Process.Pid, "VmHWM")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("library child: %v\nstderr ends:\n%s", err, stderr.String())
	}
	return r
}

// mcpLoadSpec is what the library child runs.
type mcpLoadSpec struct {
	Kind, Dir, Args, Want string
	Clients               int
	Duration              time.Duration
}

// mcpLoadChild is the library side of one row: it loads the guest as kobako mcp does, warms up,
// says "mcpload ready", waits for "go" on stdin, runs, prints "mcpload result" and its JSON, and
// returns when stdin closes (the parent has read its memory by then).
func mcpLoadChild(t *testing.T, specJSON string) {
	var spec mcpLoadSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var call func(int) error
	switch spec.Kind {
	case "abi1":
		rt, err := subako.New(ctx, subako.Config{ClientVersion: "bench"})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close(ctx)
		p, err := rt.Load(ctx, spec.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		// As kobako mcp runs a package named on its command line with an empty config.
		opts := subako.CallOptions{Limits: subako.DefaultCallLimits(), WriteBudget: subako.DefaultWriteBudget}
		args := json.RawMessage(spec.Args)
		call = func(int) error {
			res, err := p.Call(ctx, "greet", args, opts)
			if err != nil {
				return err
			}
			if res.IsError || len(res.Content) != 1 || res.Content[0].Text != spec.Want {
				return fmt.Errorf("wrong result %+v", res)
			}
			return nil
		}
	case "zeroclaw":
		h, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: spec.Dir})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := runner.Open(ctx, runner.Options{Host: h})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close(ctx)
		tool, err := rt.Tool(ctx, "go-echo")
		if err != nil {
			t.Fatal(err)
		}
		args := []byte(spec.Args)
		call = func(int) error {
			r, err := tool.Execute(ctx, args)
			if err != nil {
				return err
			}
			if !r.Success || r.Output != spec.Want {
				return fmt.Errorf("wrong result %+v", r)
			}
			return nil
		}
	default:
		t.Fatalf("unknown guest kind %q", spec.Kind)
	}
	if _, err := drive(spec.Clients, warmUp, call); err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	fmt.Println("mcpload ready")
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() || in.Text() != "go" {
		t.Fatal("the parent did not say go")
	}
	r, err := drive(spec.Clients, spec.Duration, call)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	fmt.Printf("mcpload result %s\n", b)
	for in.Scan() {
	}
}

// installLoadPlugin installs gotool.wasm as plugin go-echo into a fresh plugins directory, as
// `kobako plugin install` does.
func installLoadPlugin(t *testing.T) string {
	t.Helper()
	plugins := filepath.Join(t.TempDir(), "plugins")
	h, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: plugins})
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	wasm, err := os.ReadFile("../zeroclaw/runner/testdata/gotool.wasm")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, src, "plugin.wasm", wasm)
	writeFile(t, src, "manifest.toml", []byte("name = \"go-echo\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\n"))
	if _, err := h.Install(src); err != nil {
		t.Fatal(err)
	}
	return plugins
}

// resetPeak reads a process's VmHWM, then resets it to the current RSS (writing 5 to
// /proc/PID/clear_refs) and returns that RSS, so that the VmHWM read after the run is the run's
// own peak. Where the reset is refused, the base is 0 and VmHWM stays the whole life's peak.
func resetPeak(t *testing.T, pid int) (startPeak, base uint64) {
	if runtime.GOOS != "linux" {
		return 0, 0
	}
	startPeak = procStatus(pid, "VmHWM")
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Logf("cannot reset the peak RSS of process %d (%v): the peak covers start-up too", pid, err)
		return startPeak, 0
	}
	return startPeak, procStatus(pid, "VmRSS")
}

// procCPU is a process's CPU time so far, user and system, over all its threads, from
// /proc/PID/stat (in USER_HZ ticks, 100 a second on Linux); 0 off Linux or on failure.
func procCPU(pid int) time.Duration {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces; utime and stime are
	// fields 14 and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * (time.Second / 100)
}

// procStatus reads a "kB" field of /proc/PID/status in bytes; 0 off Linux or on failure.
func procStatus(pid int, field string) uint64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(b))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func inMiB(b uint64) float64 { return float64(b) / mib }

func mibCell(b uint64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f MiB", inMiB(b))
}

// ratioCell is "server / library (server ÷ library)", or "n/a" for a figure that was not measured.
func ratioCell(server, library float64, format string) string {
	if server == 0 || library == 0 {
		return "n/a"
	}
	return fmt.Sprintf(format+" / "+format+" (%.2f)", server, library, server/library)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = append(w.b[:0], w.b[len(w.b)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}

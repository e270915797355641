package mcpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/zeroclaw"
)

// longRunDuration is how long TestLongRunningWatch changes the plugins directory under load. It
// is kept short for the test suite; run by hand, it was raised to 60 s (see the README).
const longRunDuration = 20 * time.Second

// longRunClients is how many clients call at once.
const longRunClients = 8

// pluginSource writes misbehave (a small WAT tool that echoes its arguments) as plugin name at
// version into a new directory, its tool renamed to tool (9 bytes, the length of "misbehave"):
// two plugins' tools must not share a name.
func pluginSource(t *testing.T, name, version, tool string) string {
	t.Helper()
	b, err := os.ReadFile(zcFixtures + "misbehave.wasm")
	if err != nil {
		t.Fatal(err)
	}
	// The name is a length-prefixed string of the component's data segment.
	old := []byte("\tmisbehave\x00")
	if len(tool) != 9 || bytes.Count(b, old) != 1 {
		t.Fatalf("cannot rename misbehave's tool to %q", tool)
	}
	b = bytes.Replace(b, old, []byte("\t"+tool+"\x00"), 1)
	dir := filepath.Join(t.TempDir(), name+"-"+version)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.wasm"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "manifest.toml"), fmt.Appendf(nil, "name = %q\nversion = %q\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\n", name, version), 0o644)
	return dir
}

// settle collects garbage until the heap stops shrinking and returns the live heap and the
// goroutine count.
func settle() (heap uint64, goroutines int) {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, runtime.NumGoroutine()
}

// TestLongRunningWatch serves a plugins directory under Watch while plugin alpha is updated again
// and again, plugin beta installed and removed, and 8 clients of both eras call alpha, beta and an
// ABI 1 package's tool without pause. Every call is answered: alpha's and the package's always by
// the tool (from the old or the new version), beta's by the tool or, once it is gone, by the
// server saying so; never a transport error. Every client is told the list changed, and the
// goroutines and the live heap end where they started.
func TestLongRunningWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for " + longRunDuration.String())
	}
	plugins := filepath.Join(t.TempDir(), "plugins")
	hostOpts := zeroclaw.Options{PluginsDir: plugins}
	alpha := []string{pluginSource(t, "alpha", "1.0.0", "misbehave"), pluginSource(t, "alpha", "2.0.0", "misbehave")}
	beta := pluginSource(t, "beta", "1.0.0", "beta-tool")
	h, err := zeroclaw.Open(hostOpts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Install(alpha[0]); err != nil {
		t.Fatal(err)
	}
	s, logs := newServer(t, Options{
		Packages:    []PackageSpec{{Path: fixture}},
		Plugins:     ZeroClawPlugins(ZeroClawOptions{Host: hostOpts}),
		ListChanged: true,
	})
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		s.Watch(ctx, 50*time.Millisecond)
	}()
	defer func() {
		cancel()
		<-watched
	}()

	var changed [longRunClients]atomic.Int64
	sessions := make([]*mcp.ClientSession, longRunClients)
	for i := range sessions {
		sessions[i] = connect(t, s, "memory", eras[i%len(eras)], &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed[i].Add(1) },
		})
	}
	time.Sleep(200 * time.Millisecond) // let the 2026-07-28 clients' subscriptions settle
	for _, cs := range sessions {
		call(t, cs, "alpha__misbehave", map[string]string{"warm": "up"})
	}
	baseHeap, baseGoroutines := settle()

	var (
		stop     atomic.Bool
		calls    atomic.Int64
		gone     atomic.Int64
		failures sync.Map
		clients  sync.WaitGroup
	)
	fail := func(format string, args ...any) { failures.Store(fmt.Sprintf(format, args...), true) }
	for i, cs := range sessions {
		clients.Go(func() {
			for n := 0; !stop.Load(); n++ {
				tool := []string{"alpha__misbehave", "beta__beta-tool", "mcptest__echo"}[n%3]
				arg := fmt.Sprintf("%d-%d", i, n)
				r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]string{"n": arg}})
				calls.Add(1)
				var wire *jsonrpc.Error
				switch {
				case tool == "beta__beta-tool" && errors.As(err, &wire) && strings.Contains(wire.Message, "unknown tool"):
					gone.Add(1) // beta was removed before the client heard
				case err != nil:
					fail("%s: %v", tool, err)
				case tool == "beta__beta-tool" && r.IsError && strings.Contains(text(r), "is no longer served"):
					gone.Add(1) // beta was removed while the call was on its way
				case r.IsError || !strings.Contains(text(r), arg):
					fail("%s: isError %v %q", tool, r.IsError, text(r))
				}
			}
		})
	}

	ops := map[string]int{}
	deadline := time.Now().Add(longRunDuration)
	for i := 0; time.Now().Before(deadline); i++ {
		h, err := zeroclaw.Open(hostOpts)
		if err != nil {
			t.Fatal(err)
		}
		var op string
		_, betaInstalled := h.Plugin("beta")
		switch {
		case i%2 == 0:
			op, err = "update alpha", errOnly(h.Update(alpha[(i/2+1)%2]))
		case betaInstalled:
			op, err = "remove beta", h.Remove("beta")
		default:
			op, err = "install beta", errOnly(h.Install(beta))
		}
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		ops[op]++
		time.Sleep(150 * time.Millisecond)
	}
	stop.Store(true)
	clients.Wait()
	failures.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
	t.Logf("%d calls (%d to beta while it was gone), operations %v", calls.Load(), gone.Load(), ops)
	if t.Failed() || gone.Load() == calls.Load()/3 {
		t.Logf("server log:\n%s", tail(logs.String(), 40))
	}
	for i := range changed {
		if changed[i].Load() == 0 {
			t.Errorf("client %d (%s) was never told the tool list changed", i, eras[i%len(eras)])
		}
	}

	// Let the last change be reloaded, then compare with the start.
	time.Sleep(300 * time.Millisecond)
	var heap uint64
	var goroutines int
	for start := time.Now(); ; {
		heap, goroutines = settle()
		if goroutines <= baseGoroutines+4 || time.Since(start) > 10*time.Second {
			break
		}
	}
	t.Logf("goroutines %d -> %d, live heap %d -> %d KiB", baseGoroutines, goroutines, baseHeap>>10, heap>>10)
	if goroutines > baseGoroutines+4 {
		t.Errorf("goroutines grew from %d to %d", baseGoroutines, goroutines)
	}
	if heap > baseHeap+baseHeap/2+4<<20 {
		t.Errorf("the live heap grew from %d to %d KiB", baseHeap>>10, heap>>10)
	}
}

func errOnly[T any](_ T, err error) error { return err }

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

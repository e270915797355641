package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/runner"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// install writes a plugin directory for one of the test fixtures and returns the plugins dir.
func install(name, capability, fixture string) string {
	dir, err := os.MkdirTemp("", "zeroclaw-example-")
	if err != nil {
		panic(err)
	}
	wasm, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		panic(err)
	}
	pd := filepath.Join(dir, name)
	manifest := fmt.Sprintf("name = %q\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [%q]\n", name, capability)
	if err := os.MkdirAll(pd, 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(pd, "manifest.toml"), []byte(manifest), 0o644); err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(pd, "plugin.wasm"), wasm, 0o644); err != nil {
		panic(err)
	}
	return dir
}

// open opens a host over dir and a runtime over the host.
func open(ctx context.Context, dir string) *runner.Runner {
	host, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: dir, SignatureMode: signature.ModeDisabled})
	if err != nil {
		panic(err)
	}
	rt, err := runner.Open(ctx, runner.Options{Host: host})
	if err != nil {
		panic(err)
	}
	return rt
}

// A tool plugin registers once and runs every Execute in a fresh instance.
func ExampleTool_Execute() {
	ctx := context.Background()
	dir := install("misbehave", "tool", "misbehave.wasm")
	defer os.RemoveAll(dir)
	rt := open(ctx, dir)
	defer rt.Close(ctx)

	tool, err := rt.Tool(ctx, "misbehave")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tool.Name(), "-", tool.Description())
	res, err := tool.Execute(ctx, []byte(`{"mode":"echo"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Success, res.Output)
	// Output:
	// misbehave - A tool that misbehaves on request.
	// true {"mode":"echo"}
}

// A channel plugin lives in a warm store: Send goes to the plugin, the host's listeners push
// into its inbound queue, and Listen (or Poll) drains what the plugin reports.
func ExampleChannel_Send() {
	ctx := context.Background()
	dir := install("echo", "channel", "channel-v0.wasm")
	defer os.RemoveAll(dir)
	rt := open(ctx, dir)
	defer rt.Close(ctx)

	ch, err := rt.Channel(ctx, "echo", "main", runner.ChannelOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ch.Close(ctx)
	if err := ch.Send(ctx, runner.SendMessage{Content: "hello", Recipient: "bob"}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := ch.Inbound().Push(runner.HostInboundMessage{ID: "m1", Sender: "alice", Content: "hi"}); err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		m, err := ch.Poll(ctx)
		if err != nil || m == nil {
			fmt.Println(m, err)
			return
		}
		fmt.Printf("%s from %s via %s/%s\n", m.Content, m.Sender, m.Channel, *m.ChannelAlias)
	}
	// Output:
	// echo:hello from bob via echo/main
	// hi from alice via echo/main
}

// A memory plugin also lives in a warm store; functions whose capability flag is unset are
// answered by the host as memory.wit documents.
func ExampleMemory_Recall() {
	ctx := context.Background()
	dir := install("mem", "memory", "memory.wasm")
	defer os.RemoveAll(dir)
	rt := open(ctx, dir)
	defer rt.Close(ctx)

	mem, err := rt.Memory(ctx, "mem")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close(ctx)
	_ = mem.Store(ctx, "greeting", "hello world", runner.CategoryCore, nil)
	_ = mem.Store(ctx, "other", "something else", runner.CategoryDaily, nil)
	entries, err := mem.Recall(ctx, "hello", 10, nil, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Println(e.Key, e.Content)
	}
	id, _ := mem.EnsureAgentUUID(ctx, "agent-alias") // unset flag: the host echoes the alias
	fmt.Println(id)
	// Output:
	// greeting hello world
	// agent-alias
}

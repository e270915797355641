package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/runner"
	"github.com/kobako/kobako/zeroclaw/signature"
)

// The ZeroClaw runtime's overhead: each benchmark runs the same component through
// zeroclaw/runner (via=runtime: config resolution, __config injection, frames, the host-call
// budget, the typed conversions) and through package component directly (via=component: the same
// WASI linker, the ZeroClaw imports defined as no-op host functions, the export called with
// dynamic values), side by side; BenchmarkZeroClawExecute also runs the component on wazy v0.8.0's
// interpreter (via=wazy, wazy_test.go), the comparison of issue 24.

const zcFixtures = "../zeroclaw/runner/testdata"

// zcRuntime installs one fixture as a plugin and opens a runtime on e.
func zcRuntime(b *testing.B, e *engine.Engine, name, capability, fixture string) *runner.Runner {
	b.Helper()
	return zcRuntimeOpts(b, e, name, capability, fixture, nil)
}

// zcRuntimeOpts is zcRuntime with the runtime's options changed by opt.
func zcRuntimeOpts(b *testing.B, e *engine.Engine, name, capability, fixture string, opt func(*runner.Options)) *runner.Runner {
	b.Helper()
	dir := b.TempDir()
	wasm, err := os.ReadFile(filepath.Join(zcFixtures, fixture))
	if err != nil {
		b.Fatal(err)
	}
	pd := filepath.Join(dir, name)
	if err := os.MkdirAll(pd, 0o755); err != nil {
		b.Fatal(err)
	}
	m := fmt.Sprintf("name = %q\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [%q]\n", name, capability)
	if err := os.WriteFile(filepath.Join(pd, "manifest.toml"), []byte(m), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pd, "plugin.wasm"), wasm, 0o644); err != nil {
		b.Fatal(err)
	}
	h, err := zeroclaw.Open(zeroclaw.Options{PluginsDir: dir, SignatureMode: signature.ModeDisabled})
	if err != nil {
		b.Fatal(err)
	}
	o := runner.Options{Host: h, Engine: e, Log: slog.NewJSONHandler(io.Discard, nil)}
	if opt != nil {
		opt(&o)
	}
	rt, err := runner.Open(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// zcDirect prepares a fixture on a plain component linker: WASI 0.2 and no-op ZeroClaw imports.
func zcDirect(b *testing.B, e *engine.Engine, fixture string) *component.InstancePre {
	b.Helper()
	return zcPrepare(b, compileComponent(b, e, filepath.Join(zcFixtures, fixture)))
}

// zcPrepare links cc on a plain component linker as zcDirect does.
func zcPrepare(b *testing.B, cc *component.Component) *component.InstancePre {
	b.Helper()
	l := component.NewLinker()
	if err := preview2.Define(l); err != nil {
		b.Fatal(err)
	}
	none := func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) { return nil, nil }
	unavailable := func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
		return []abi.Value{abi.ErrValue(abi.EnumValue(2))}, nil
	}
	for _, d := range []struct {
		iface, name string
		fn          component.HostFunc
	}{
		{"zeroclaw:plugin/logging@0.1.0", "log-record", none},
		{"zeroclaw:plugin/secrets@0.1.0", "get", unavailable},
		{"zeroclaw:plugin/inbound@0.1.0", "inbound-poll", func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
			return []abi.Value{abi.NoneValue()}, nil
		}},
		{"zeroclaw:plugin/inbound@0.1.0", "inbound-pending", func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
			return []abi.Value{abi.U32Value(0)}, nil
		}},
	} {
		if err := l.Define(d.iface, d.name, d.fn); err != nil {
			b.Fatal(err)
		}
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		b.Fatal(err)
	}
	return pre
}

func zcInstance(b *testing.B, ctx context.Context, e *engine.Engine, pre *component.InstancePre) *component.Instance {
	in, err := pre.Instantiate(ctx, zcStore(b, ctx, e))
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// zcStore is a store with WASI bound, its output discarded.
func zcStore(b *testing.B, ctx context.Context, e *engine.Engine) *engine.Store {
	s, err := e.NewStore(ctx, benchLimits())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := preview2.Bind(s, preview2.Config{Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		b.Fatal(err)
	}
	return s
}

// compileDecodedComponent compiles the component at path keeping its core modules' bytes, as a
// snapshot needs.
func compileDecodedComponent(b *testing.B, e *engine.Engine, path string) *component.Component {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	c, err := binary.Decode(raw)
	if err != nil {
		b.Fatal(err)
	}
	cc, err := component.CompileDecoded(context.Background(), e, c)
	if err != nil {
		b.Fatal(err)
	}
	return cc
}

// BenchmarkZeroClawExecute: one tool execute in a fresh instance and store, per iteration. Each
// case sets itself up inside its own b.Run, so that a -bench pattern naming one case does not
// compile the other fixtures (the JS one takes tens of seconds).
func BenchmarkZeroClawExecute(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	for _, tc := range zcExecuteCases {
		b.Run("tool="+tc.tool, func(b *testing.B) {
			// via=runtime-snapshot: the same runtime with Options.Snapshot, every execute in a
			// fresh instance restored from the snapshot taken (by rt.Tool's metadata calls) once.
			for _, snap := range []bool{false, true} {
				via := "runtime"
				if snap {
					via = "runtime-snapshot"
				}
				b.Run("via="+via, func(b *testing.B) {
					rt := zcRuntimeOpts(b, e, "t", "tool", tc.fixture, func(o *runner.Options) { o.Snapshot = snap })
					tool, err := rt.Tool(ctx, "t")
					if err != nil {
						b.Fatal(err)
					}
					cpu := newCPUMeter()
					defer cpu.report(b)
					for b.Loop() {
						cpu.begin()
						res, err := tool.Execute(ctx, []byte(tc.args))
						cpu.end()
						if err != nil || !res.Success {
							b.Fatal(res, err)
						}
					}
				})
			}
			b.Run("via=component", func(b *testing.B) {
				pre := zcDirect(b, e, tc.fixture)
				cpu := newCPUMeter()
				defer cpu.report(b)
				var fuel uint64
				for b.Loop() {
					cpu.begin()
					in := zcInstance(b, ctx, e, pre)
					r, err := in.Call(ctx, "zeroclaw:plugin/tool#execute", abi.StringValue(tc.args))
					fuel += in.Store().FuelConsumed()
					_ = in.Close(ctx)
					cpu.end()
					if err := checkToolOutput(r, err, tc.output); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(fuel)/float64(b.N), "fuel/op")
			})
			// via=component-snapshot: via=component from a snapshot of the component taken once,
			// without the runtime (its per-execute work: host state, grants, logging) around it.
			b.Run("via=component-snapshot", func(b *testing.B) {
				dpre := zcPrepare(b, compileDecodedComponent(b, e, filepath.Join(zcFixtures, tc.fixture)))
				ss := zcStore(b, ctx, e)
				sn, err := dpre.Snapshot(ctx, ss, component.SnapshotOptions{Replay: func(iface, name string) bool {
					return strings.HasPrefix(iface, "wasi:cli/std") && strings.HasPrefix(name, "get-std")
				}})
				_ = ss.Close(ctx)
				if err != nil {
					b.Fatal(err)
				}
				cpu := newCPUMeter()
				defer cpu.report(b)
				// call-cpu-ns/op: the execute call alone, without the store, the instantiation
				// and the close around it.
				call := newCPUMeter()
				defer call.reportAs(b, "call-cpu-ns/op")
				var fuel uint64
				for b.Loop() {
					cpu.begin()
					s := zcStore(b, ctx, e)
					in, err := sn.Instantiate(ctx, s)
					if err != nil {
						b.Fatal(err)
					}
					call.begin()
					r, err := in.Call(ctx, "zeroclaw:plugin/tool#execute", abi.StringValue(tc.args))
					call.end()
					fuel += s.FuelConsumed()
					_ = in.Close(ctx)
					cpu.end()
					if err := checkToolOutput(r, err, tc.output); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(fuel)/float64(b.N), "fuel/op")
			})
			// via=wazy: via=component on wazy v0.8.0's interpreter (issue 24's comparison): the
			// component compiled once into a wazy CompileCache, then per iteration a fresh
			// instance with wazy's own WASI 0.2 host and the same ZeroClaw imports, one execute
			// under a deadline, and Close. wazy has no fuel and no snapshot.
			b.Run("via=wazy", func(b *testing.B) {
				tool, err := newWazyTool(ctx, tc.fixture)
				if err != nil {
					b.Fatal(err)
				}
				defer tool.close(ctx)
				cpu := newCPUMeter()
				defer cpu.report(b)
				call := newCPUMeter()
				defer call.reportAs(b, "call-cpu-ns/op")
				for b.Loop() {
					cpu.begin()
					in, err := tool.instantiate(ctx)
					if err != nil {
						b.Fatal(err)
					}
					call.begin()
					out, err := wazyExecute(ctx, in, tc.args)
					call.end()
					_ = in.Close(ctx)
					cpu.end()
					if err != nil {
						b.Fatal(err)
					}
					if out != tc.output {
						b.Fatalf("execute(%s) on wazy = %q, want %q", tc.args, out, tc.output)
					}
				}
			})
			// via=warm: the execute call alone, again and again on one instance: the guest's own
			// work (and the call's lift and lower), which no fresh-instance path can go below. A
			// Go guest's later calls may do a little less than its first (its heap is already
			// grown).
			b.Run("via=warm", func(b *testing.B) {
				in := zcInstance(b, ctx, e, zcDirect(b, e, tc.fixture))
				defer in.Close(ctx)
				cpu := newCPUMeter()
				defer cpu.report(b)
				var fuel uint64
				for b.Loop() {
					cpu.begin()
					r, err := in.Call(ctx, "zeroclaw:plugin/tool#execute", abi.StringValue(tc.args))
					cpu.end()
					fuel += in.Store().FuelConsumed()
					if err != nil || len(r) != 1 || r[0].IsErr() {
						b.Fatal(r, err)
					}
				}
				b.ReportMetric(float64(fuel)/float64(b.N), "fuel/op")
			})
		})
	}
}

// checkToolOutput checks the result of a tool's execute called through package component: an
// ok tool-result, successful, without an error, whose output is want.
func checkToolOutput(r []abi.Value, err error, want string) error {
	if err != nil {
		return err
	}
	if len(r) != 1 || r[0].Kind() != abi.KindResult {
		return fmt.Errorf("execute returned %v, want one result", r)
	}
	if r[0].IsErr() {
		return fmt.Errorf("execute returned %v", r[0])
	}
	rec := r[0].Payload()
	if rec.Kind() != abi.KindRecord || rec.Len() != 3 || !rec.Index(0).Bool() || rec.Index(2).IsSome() {
		return fmt.Errorf("execute returned %v, want a successful tool-result", r[0])
	}
	if got := rec.Index(1).Str(); got != want {
		return fmt.Errorf("execute output %q, want %q", got, want)
	}
	return nil
}

var benchSend = runner.SendMessage{Content: "hello", Recipient: "bob"}

// BenchmarkZeroClawChannelSend: a warm channel's send, then poll-message to drain the echo it
// queues (the fixture's outbox holds 8), per iteration.
func BenchmarkZeroClawChannelSend(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	rt := zcRuntime(b, e, "c", "channel", "channel-v0.wasm")
	c, err := rt.Channel(ctx, "c", "main", runner.ChannelOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("via=runtime", func(b *testing.B) {
		cpu := newCPUMeter()
		defer cpu.report(b)
		for b.Loop() {
			cpu.begin()
			err := c.Send(ctx, benchSend)
			m, perr := c.Poll(ctx)
			cpu.end()
			if err != nil || perr != nil || m == nil {
				b.Fatal(err, perr)
			}
		}
	})
	in := zcInstance(b, ctx, e, zcDirect(b, e, "channel-v0.wasm"))
	if _, err := in.Call(ctx, "zeroclaw:plugin/channel#configure", abi.StringValue("{}")); err != nil {
		b.Fatal(err)
	}
	msg := abi.RecordValue(abi.StringValue("hello"), abi.StringValue("bob"), abi.NoneValue(), abi.NoneValue(), abi.ListValue(), abi.NoneValue())
	b.Run("via=component", func(b *testing.B) {
		cpu := newCPUMeter()
		defer cpu.report(b)
		for b.Loop() {
			cpu.begin()
			r, err := in.Call(ctx, "zeroclaw:plugin/channel#send", msg)
			p, perr := in.Call(ctx, "zeroclaw:plugin/channel#poll-message")
			cpu.end()
			if err != nil || perr != nil || r[0].IsErr() || !p[0].IsSome() {
				b.Fatal(err, perr)
			}
		}
	})
}

// BenchmarkZeroClawMemoryStoreRecall: a warm memory's store-entry then recall, per iteration.
func BenchmarkZeroClawMemoryStoreRecall(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	rt := zcRuntime(b, e, "m", "memory", "memory.wasm")
	m, err := rt.Memory(ctx, "m")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("via=runtime", func(b *testing.B) {
		cpu := newCPUMeter()
		defer cpu.report(b)
		for b.Loop() {
			cpu.begin()
			err := m.Store(ctx, "k", "hello world", runner.CategoryCore, nil)
			es, rerr := m.Recall(ctx, "hello", 5, nil, nil, nil)
			cpu.end()
			if err != nil || rerr != nil || len(es) != 1 {
				b.Fatal(err, rerr, es)
			}
		}
	})
	in := zcInstance(b, ctx, e, zcDirect(b, e, "memory.wasm"))
	core := abi.VariantValue(0, abi.Value{})
	b.Run("via=component", func(b *testing.B) {
		cpu := newCPUMeter()
		defer cpu.report(b)
		for b.Loop() {
			cpu.begin()
			r, err := in.Call(ctx, "zeroclaw:plugin/memory#store-entry", abi.StringValue("k"), abi.StringValue("hello world"), core, abi.NoneValue())
			q, qerr := in.Call(ctx, "zeroclaw:plugin/memory#recall", abi.StringValue("hello"), abi.U64Value(5), abi.NoneValue(), abi.NoneValue(), abi.NoneValue())
			cpu.end()
			if err != nil || qerr != nil || r[0].IsErr() || q[0].IsErr() {
				b.Fatal(err, qerr)
			}
		}
	})
}

// BenchmarkZeroClawLogRecord: one execute of the WAT tool that makes one log-record call, against
// the same execute making none, through the runtime (the difference is the record's cost:
// lifting, the budget, the queue and the writer's share); and the queue's own Log call.
func BenchmarkZeroClawLogRecord(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	rt := zcRuntime(b, e, "t", "tool", "misbehave.wasm")
	tool, err := rt.Tool(ctx, "t")
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"log", "echo"} {
		b.Run("execute="+mode, func(b *testing.B) {
			cpu := newCPUMeter()
			defer cpu.report(b)
			args := []byte(`{"mode":"` + mode + `"}`)
			for b.Loop() {
				cpu.begin()
				_, err := tool.Execute(ctx, args)
				cpu.end()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package bindings

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.bytecodealliance.org/wit"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/bindgen"
)

// TestGenerated_NoDrift regenerates zeroclaw.go in memory from the go:generate line of doc.go
// and fails on any difference: the CI's check that the WIT, the generator and the committed
// file agree.
func TestGenerated_NoDrift(t *testing.T) {
	if err := bindgen.CheckGenerated(); err != nil {
		t.Fatal(err)
	}
}

// The Go side of each generated world, for TestGenerated_MatchWIT.
var worlds = []struct {
	dir, world string
	pre        reflect.Type
}{
	{"../wit/v0", "tool-plugin", reflect.TypeFor[ToolPluginPre]()},
	{"../wit/v0", "channel-plugin", reflect.TypeFor[ChannelPluginPre]()},
	{"../wit/v0", "memory-plugin", reflect.TypeFor[MemoryPluginPre]()},
	{"../wit/seed", "channel-plugin", reflect.TypeFor[SeedChannelPluginPre]()},
}

var imports = map[string]reflect.Type{
	"logging": reflect.TypeFor[Logging](),
	"secrets": reflect.TypeFor[Secrets](),
	"inbound": reflect.TypeFor[Inbound](),
	"config":  reflect.TypeFor[Config](),
}

// checkFunc checks the Go parameters of m after skip leading ones, and its value result, against
// WIT function f through package abi's typed mapping: the check a component's own types get
// when a {World}Pre is made, here against the WIT itself.
func checkFunc(t *testing.T, f *wit.Function, m reflect.Type, skip int) {
	t.Helper()
	ft, err := bindgen.ABIFunc(f)
	if err != nil {
		t.Fatal(err)
	}
	ps := ft.Params()
	if m.NumIn()-skip != len(ps) {
		t.Fatalf("%s: Go %s has %d WIT parameters, want %d", f.Name, m, m.NumIn()-skip, len(ps))
	}
	for i, p := range ps {
		if _, err := abi.NewCodec(m.In(skip+i), p.Type); err != nil {
			t.Errorf("%s parameter %s: %v", f.Name, p.Name, err)
		}
	}
	rs := ft.Results()
	if m.NumOut() != len(rs)+1 {
		t.Fatalf("%s: Go %s has %d results, want %d and an error", f.Name, m, m.NumOut(), len(rs))
	}
	if len(rs) == 1 {
		if _, err := abi.NewCodec(m.Out(0), rs[0]); err != nil {
			t.Errorf("%s result: %v", f.Name, err)
		}
	}
}

// TestGenerated_MatchWIT checks every generated method, import and export, against the WIT of
// ../wit (the published v0 and the seed), as TestMirrorsMatchWIT does the runtime's hand
// mirrors: every function must have its method, and every Go type must fit its WIT type.
func TestGenerated_MatchWIT(t *testing.T) {
	loaded := map[string]*wit.Resolve{}
	for _, w := range worlds {
		t.Run(w.dir+"/"+w.world, func(t *testing.T) {
			r := loaded[w.dir]
			if r == nil {
				var err error
				if r, err = bindgen.Load(w.dir); err != nil {
					t.Fatal(err)
				}
				loaded[w.dir] = r
			}
			var world *wit.World
			for _, x := range r.Worlds {
				if x.Name == w.world {
					world = x
				}
			}
			if world == nil {
				t.Fatalf("no world %s", w.world)
			}
			for _, item := range world.Exports.All() {
				ref, ok := item.(*wit.InterfaceRef)
				if !ok {
					continue
				}
				fd, ok := w.pre.FieldByName(component.GoName(*ref.Interface.Name))
				if !ok {
					t.Fatalf("%s has no field for export %s", w.pre, *ref.Interface.Name)
				}
				for _, f := range ref.Interface.Functions.All() {
					m, ok := reflect.PointerTo(fd.Type).MethodByName(component.GoName(f.Name))
					if !ok {
						t.Fatalf("%s has no method for %s", fd.Type, f.Name)
					}
					checkFunc(t, f, m.Type, 3) // receiver, context, instance
				}
			}
			for _, item := range world.Imports.All() {
				ref, ok := item.(*wit.InterfaceRef)
				if !ok || ref.Interface.Functions.Len() == 0 {
					continue
				}
				it := imports[*ref.Interface.Name]
				if it == nil {
					t.Fatalf("no Go interface for import %s", *ref.Interface.Name)
				}
				for _, f := range ref.Interface.Functions.All() {
					m, ok := it.MethodByName(component.GoName(f.Name))
					if !ok {
						t.Fatalf("%s has no method for %s", it, f.Name)
					}
					checkFunc(t, f, m.Type, 2) // context, caller
				}
			}
		})
	}
}

// host serves every import with fixed answers.
type host struct{ logged int }

func (h *host) LogRecord(context.Context, *component.Caller, LogLevel, PluginEvent) error {
	h.logged++
	return nil
}

func (*host) Get(context.Context, *component.Caller, string) (abi.Result[string, SecretError], error) {
	return abi.Err[string](SecretErrorNotFound), nil
}

func (*host) InboundPoll(context.Context, *component.Caller) (*HostInboundMessage, error) {
	return nil, nil
}

func (*host) InboundPending(context.Context, *component.Caller) (uint32, error) { return 0, nil }

// configHost serves config.get, whose Go name Get is secrets.get's too.
type configHost struct{}

func (configHost) Get(context.Context, *component.Caller) (abi.Result[JsonString, ConfigError], error) {
	return abi.Ok[JsonString, ConfigError](`{}`), nil
}

func prepare(t *testing.T, e *engine.Engine, path string) *component.InstancePre {
	t.Helper()
	ctx := context.Background()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := component.Compile(ctx, e, b)
	if err != nil {
		t.Fatal(err)
	}
	l := component.NewLinker()
	h := &host{}
	for _, def := range []error{DefineLogging(l, h), DefineSecrets(l, h), DefineInbound(l, h), DefineConfig(l, configHost{})} {
		if def != nil {
			t.Fatal(def)
		}
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		t.Fatal(err)
	}
	return pre
}

// TestGenerated_Fixtures prepares the real plugins of ../testdata with the generated bindings
// (which type-checks every export and every import the plugin uses against the component's
// own types) and calls their metadata exports in fresh instances. A channel plugin of one shape
// is refused by the other shape's Pre, naming configure.
func TestGenerated_Fixtures(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	instance := func(t *testing.T, pre *component.InstancePre) *component.Instance {
		t.Helper()
		s, err := e.NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close(ctx) })
		in, err := pre.Instantiate(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	t.Run("tool", func(t *testing.T) {
		pre := prepare(t, e, "../testdata/misbehave.wasm")
		tool, err := NewToolPluginPre(pre)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			in := instance(t, pre)
			name, err := tool.Tool.Name(ctx, in)
			if err != nil || name == "" {
				t.Fatalf("name = %q, %v", name, err)
			}
			res, err := tool.Tool.Execute(ctx, in, `{"x":1}`)
			if err != nil || res.IsErr || !res.Ok.Success || !strings.Contains(res.Ok.Output, `"x":1`) {
				t.Fatalf("execute = %+v, %v", res, err)
			}
		}
	})
	for _, tt := range []struct {
		name, path string
		seed       bool
	}{
		{"channel-v0", "../testdata/channel-v0.wasm", false},
		{"channel-seed", "../testdata/channel-seed.wasm", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pre := prepare(t, e, tt.path)
			v0, v0Err := NewChannelPluginPre(pre)
			seed, seedErr := NewSeedChannelPluginPre(pre)
			mine, wrong := v0Err, seedErr
			if tt.seed {
				mine, wrong = seedErr, v0Err
			}
			if mine != nil {
				t.Fatal(mine)
			}
			if !errors.Is(wrong, component.ErrBind) || !strings.Contains(wrong.Error(), "configure") {
				t.Fatalf("the other shape's Pre: %v, want ErrBind naming configure", wrong)
			}
			in := instance(t, pre)
			var res abi.Result[struct{}, string]
			var caps ChannelCapabilities
			if tt.seed {
				res, err = seed.Channel.Configure(ctx, in)
				if err == nil {
					caps, err = seed.Channel.GetChannelCapabilities(ctx, in)
				}
			} else {
				res, err = v0.Channel.Configure(ctx, in, `{}`)
				if err == nil {
					caps, err = v0.Channel.GetChannelCapabilities(ctx, in)
				}
			}
			if err != nil || res.IsErr {
				t.Fatalf("configure, capabilities = %+v, %v, %v", res, caps, err)
			}
		})
	}
	t.Run("memory", func(t *testing.T) {
		pre := prepare(t, e, "../testdata/memory.wasm")
		mem, err := NewMemoryPluginPre(pre)
		if err != nil {
			t.Fatal(err)
		}
		in := instance(t, pre)
		cat := MemoryCategory{Core: true}
		if r, err := mem.Memory.StoreEntry(ctx, in, "k", "v", cat, nil); err != nil || r.IsErr {
			t.Fatalf("store-entry = %+v, %v", r, err)
		}
		got, err := mem.Memory.Get(ctx, in, "k")
		if err != nil || got.IsErr || got.Ok == nil || got.Ok.Content != "v" {
			t.Fatalf("get = %+v, %v", got, err)
		}
		caps, err := mem.Memory.GetMemoryCapabilities(ctx, in)
		if err != nil || caps&MemoryCapabilitiesReindex == 0 {
			t.Fatalf("capabilities = %v, %v", caps, err)
		}
	})
}

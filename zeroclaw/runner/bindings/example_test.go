package bindings_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/zeroclaw/runner/bindings"
)

// requestID and secrets are per-store values: each call's store carries its own.
var (
	requestID = engine.NewKey[string]()
	secrets   = engine.NewKey[map[string]string]()
)

// logger serves zeroclaw:plugin/logging: a typed host function that finds its call's store through
// the Caller.
type logger struct{}

func (logger) LogRecord(_ context.Context, c *component.Caller, level bindings.LogLevel, ev bindings.PluginEvent) error {
	id, _ := requestID.Get(c.Store())
	fmt.Printf("[%s] %s: %s\n", id, level, ev.Message)
	return nil
}

// vault serves zeroclaw:plugin/secrets from the store's own secrets.
type vault struct{}

func (vault) Get(_ context.Context, c *component.Caller, name string) (abi.Result[string, bindings.SecretError], error) {
	m, _ := secrets.Get(c.Store())
	v, ok := m[name]
	if !ok {
		return abi.Result[string, bindings.SecretError]{IsErr: true, Err: bindings.SecretErrorNotFound}, nil
	}
	return abi.Result[string, bindings.SecretError]{Ok: v}, nil
}

// Host a ZeroClaw tool plugin on the typed path: WASI 0.2 and the plugin's host interfaces defined
// once on a Linker, the component prepared once with its exports bound (generated bindings), then
// per call a store of its own, its WASI state, its per-store values and a fresh instance.
func Example_toolHost() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close(ctx)
	wasm, err := os.ReadFile("../testdata/gotool.wasm")
	if err != nil {
		log.Fatal(err)
	}
	cc, err := component.Compile(ctx, e, wasm)
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close(ctx)

	// Once per host: the imports, the link plan and the typed exports.
	l := component.NewLinker()
	for _, err := range []error{preview2.Define(l), bindings.DefineLogging(l, logger{}), bindings.DefineSecrets(l, vault{})} {
		if err != nil {
			log.Fatal(err)
		}
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		log.Fatal(err)
	}
	plugin, err := bindings.NewToolPluginPre(pre) // the exports' WIT types checked here, once
	if err != nil {
		log.Fatal(err)
	}

	// Per call: a store, its state, a fresh instance.
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close(ctx)
	if _, err := preview2.Bind(s, preview2.Config{}); err != nil {
		log.Fatal(err)
	}
	requestID.Set(s, "req-1")
	secrets.Set(s, map[string]string{"api_token": "s3cret"})
	in, err := pre.Instantiate(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	res, err := plugin.Tool.Execute(ctx, in, `{"text":"hi","log":"working","secret":"api_token"}`)
	if err != nil {
		log.Fatal(err) // a trap, or the call ran out of fuel or time
	}
	fmt.Println(res.Ok.Success, res.Ok.Output)
	// Output:
	// [req-1] info: working
	// true go-echo:hi|config={}|secret=s3cret
}

package preview2

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

// Run compiles a component with e, instantiates it against a WASI 0.2 host built from cfg in a
// new store with limits, calls its wasi:cli/run export and returns the exit status: the status
// passed to wasi:cli/exit, else 0 when run returned ok and 1 when it returned an error. Any other
// end is an error: a trap (fuel, deadline, memory, a guest fault or a host function's refusal,
// as an *engine.Trap or a component error), a missing import, a component without
// wasi:cli/run (ErrNoRun) or a Config error.
func Run(ctx context.Context, e *engine.Engine, wasm []byte, cfg Config, limits engine.Limits, opts ...Option) (exitCode uint32, err error) {
	if err := limits.Validate(); err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	cc, err := component.Compile(ctx, e, wasm)
	if err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	// The compile is Run's own, and its modules would otherwise stay in e until e closes; the
	// store, closed first (defers run in reverse), is done with them by then.
	defer cc.Close(ctx)
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	defer s.Close(ctx)
	return RunComponent(ctx, s, cc, cfg, opts...)
}

// RunComponent is Run for a component already compiled, in a store the caller made (and
// closes), so that the caller can read the store's fuel and memory figures afterwards. It binds a
// Host built from cfg to s (so s must not have one) and releases its state before it returns.
func RunComponent(ctx context.Context, s *engine.Store, cc *component.Component, cfg Config, opts ...Option) (exitCode uint32, err error) {
	l, err := sharedLinker()
	if err != nil {
		return 0, err
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	return RunPrepared(ctx, s, pre, cfg, opts...)
}

// RunPrepared is RunComponent for a component already linked (with Prepare on a Linker that
// Define defined WASI 0.2 on, and whatever else the embedder defines, such as
// DefineUnknownImportsAsTraps), so that running it again in a fresh store repeats no linking:
// only Bind, the instantiation and the call. Run and RunComponent end here, so every way of
// running wasi:cli/run shares one reading of its result and of wasi:cli/exit.
func RunPrepared(ctx context.Context, s *engine.Store, pre *component.InstancePre, cfg Config, opts ...Option) (exitCode uint32, err error) {
	name, err := RunExport(pre.Component().Decoded())
	if err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	h, err := Bind(s, cfg, opts...)
	if err != nil {
		return 0, err
	}
	defer h.Close()
	in, err := pre.Instantiate(ctx, s)
	if err != nil {
		return exitOr(err)
	}
	res, err := in.Call(ctx, name)
	if err != nil {
		return exitOr(err)
	}
	if len(res) == 1 && res[0].Kind() == abi.KindResult && res[0].IsErr() {
		return 1, nil
	}
	return 0, nil
}

// Linker returns a new Linker on which Define and DefineHTTP have defined every WASI 0.2
// interface kobako serves, wasi:http's client side included (each Host's WithHTTP decides
// whether its requests go anywhere), for an embedder to add its own definitions to. An embedder
// that must not link wasi:http at all calls Define on a NewLinker instead. Make one per program
// (or per set of definitions) and share it: instances differ only by the Host each store is
// bound to.
func Linker() (*component.Linker, error) {
	l := component.NewLinker()
	if err := Define(l); err != nil {
		return nil, err
	}
	if err := DefineHTTP(l); err != nil {
		return nil, err
	}
	return l, nil
}

// shared is the Linker Run and RunComponent use: defined once, never changed afterwards.
var shared struct {
	once sync.Once
	l    *component.Linker
	err  error
}

func sharedLinker() (*component.Linker, error) {
	shared.once.Do(func() { shared.l, shared.err = Linker() })
	return shared.l, shared.err
}

// RunExport returns the name to call for c's wasi:cli/run export ("wasi:cli/run@0.2.3#run"), or
// ErrNoRun.
func RunExport(c *binary.Component) (string, error) {
	for _, ex := range c.Exports {
		if ex.Name.Kind == binary.NameInterface && ex.Name.Unversioned() == "wasi:cli/run" && ex.Sort == binary.SortInstance {
			if v := ex.Name.Version; v != "" && v[:min(len(v), 4)] != "0.2." {
				return "", fmt.Errorf("%w: it exports %s, not a 0.2 version", ErrNoRun, ex.Name.Raw)
			}
			return ex.Name.Raw + "#run", nil
		}
	}
	return "", ErrNoRun
}

func exitOr(err error) (uint32, error) {
	var ee *engine.ExitError
	if errors.As(err, &ee) {
		return ee.Code, nil
	}
	return 0, fmt.Errorf("preview2: run: %w", err)
}

package preview2

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// Run compiles a component with e, instantiates it against a WASI 0.2 host built from cfg in a
// new store with limits, calls its wasi:cli/run export and returns the exit status: the status
// passed to wasi:cli/exit, else 0 when run returned ok and 1 when it returned an error. Any other
// end is an error: a trap (fuel, deadline, memory, a guest fault or a host function's refusal,
// as an *engine.Trap or a component error), a missing import, a component without
// wasi:cli/run (ErrNoRun) or a Config error.
func Run(ctx context.Context, e *engine.Engine, wasm []byte, cfg Config, limits engine.Limits) (exitCode uint32, err error) {
	if err := limits.Validate(); err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	cc, err := component.Compile(ctx, e, wasm)
	if err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	defer s.Close(ctx)
	return RunComponent(ctx, s, cc, cfg)
}

// RunComponent is Run for a component already compiled, in a store the caller made (and
// closes), so that the caller can read the store's fuel and memory figures afterwards. The
// host state is released before it returns.
func RunComponent(ctx context.Context, s *engine.Store, cc *component.Compiled, cfg Config) (exitCode uint32, err error) {
	name, err := RunExport(cc.Component())
	if err != nil {
		return 0, fmt.Errorf("preview2: run: %w", err)
	}
	h, err := NewHost(cfg)
	if err != nil {
		return 0, err
	}
	defer h.Close()
	l := component.NewLinker()
	if err := h.Define(l); err != nil {
		return 0, err
	}
	in, err := l.Instantiate(ctx, s, cc)
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

// RunExport returns the name to call for c's wasi:cli/run export ("wasi:cli/run@0.2.3#run"), or
// ErrNoRun.
func RunExport(c *component.Component) (string, error) {
	for _, ex := range c.Exports {
		if ex.Name.Kind == component.NameInterface && ex.Name.Unversioned() == "wasi:cli/run" && ex.Sort == component.SortInstance {
			if v := ex.Name.Version; v != "" && v[:min(len(v), 4)] != "0.2." {
				return "", fmt.Errorf("%w: it exports %s, not a 0.2 version", ErrNoRun, ex.Name.Raw)
			}
			return ex.Name.Raw + "#run", nil
		}
	}
	return "", ErrNoRun
}

func exitOr(err error) (uint32, error) {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, nil
	}
	return 0, fmt.Errorf("preview2: run: %w", err)
}

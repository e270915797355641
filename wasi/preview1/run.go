package preview1

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kobako/kobako/engine"
)

// Run compiles wasm with e, runs it as a WASI command (its `_start`) in a new store with limits
// and the environment cfg describes, and returns the guest's exit code: the code it passed to
// proc_exit, or 0 when `_start` returned. Any other end is an error: a *engine.Trap (a trap, fuel,
// deadline or memory limit), a link error naming an import the guest needs and WASI does not
// provide, or a Config error.
func Run(ctx context.Context, e *engine.Engine, wasm []byte, cfg Config, limits engine.Limits) (exitCode uint32, err error) {
	if err := limits.Validate(); err != nil {
		return 0, fmt.Errorf("preview1: run: %w", err)
	}
	m, err := e.Compile(ctx, wasm)
	if err != nil {
		return 0, fmt.Errorf("preview1: run: %w", err)
	}
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		return 0, fmt.Errorf("preview1: run: %w", err)
	}
	defer s.Close(ctx)
	return RunModule(ctx, s, m, cfg)
}

// RunModule is Run for a module already compiled, in a store the caller made, so that the caller
// can read the store's fuel and memory figures afterwards. It binds cfg to s (which must not be
// bound yet) and releases the WASI state before returning; the store is left to the caller.
func RunModule(ctx context.Context, s *engine.Store, m *engine.Module, cfg Config) (exitCode uint32, err error) {
	h, err := Bind(s, cfg)
	if err != nil {
		return 0, err
	}
	defer h.Close()
	if !hasStart(m) {
		return 0, fmt.Errorf("preview1: run: %w", ErrNoStart)
	}
	if err := CheckImports(m); err != nil {
		return 0, fmt.Errorf("preview1: run: %w", err)
	}
	inst, err := s.Instantiate(ctx, m, engine.Imports{ModuleName: Module})
	if err != nil {
		return exitOr(err)
	}
	_, err = inst.Call(ctx, "_start")
	return exitOr(err)
}

func exitOr(err error) (uint32, error) {
	if err == nil {
		return 0, nil
	}
	var ee *engine.ExitError
	if errors.As(err, &ee) {
		return ee.Code, nil
	}
	return 0, fmt.Errorf("preview1: run: %w", err)
}

func hasStart(m *engine.Module) bool {
	for _, ex := range m.Exports() {
		if ex.Name == "_start" {
			return ex.Kind == engine.ExternFunc && len(ex.Params) == 0 && len(ex.Results) == 0
		}
	}
	return false
}

// CheckImports reports the first import of m from wasi_snapshot_preview1 that Module does not
// provide, or provides with another signature (ErrImport, naming the function). Imports from
// other modules are not its concern.
func CheckImports(m *engine.Module) error {
	for _, im := range m.Imports() {
		if im.Module != ModuleName {
			continue
		}
		if im.Kind != engine.ExternFunc {
			return fmt.Errorf("%w: %s %q: WASI preview 1 exports only functions", ErrImport, im.Kind, im.Name)
		}
		f, ok := funcsByName[im.Name]
		if !ok {
			return fmt.Errorf("%w: %q is not a WASI preview 1 function", ErrImport, im.Name)
		}
		if !sameTypes(f.Params, im.Params) || !sameTypes(f.Results, im.Results) {
			return fmt.Errorf("%w: %q has type %s, WASI preview 1 defines %s", ErrImport, im.Name,
				sig(im.Params, im.Results), sig(f.Params, f.Results))
		}
	}
	return nil
}

var funcsByName = func() map[string]*engine.HostFunc {
	m := make(map[string]*engine.HostFunc, len(Module.Funcs))
	for i := range Module.Funcs {
		m[Module.Funcs[i].Name] = &Module.Funcs[i]
	}
	return m
}()

func sameTypes(a, b []engine.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sig(params, results []engine.ValueType) string {
	var b strings.Builder
	b.WriteString("(")
	for i, p := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	b.WriteString(") -> (")
	for i, r := range results {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	b.WriteString(")")
	return b.String()
}

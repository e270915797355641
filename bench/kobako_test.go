package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview1"
)

// newKobakoGuest runs wasmBytes on kobako's engine the way a host embedding kobako does: one engine,
// one store with the benchmark limits, WASI preview 1 from package wasi/preview1.
func newKobakoGuest(ctx context.Context, kind engineKind, wasmBytes []byte) (*guest, error) {
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*guest, error) {
		_ = e.Close(ctx)
		return nil, err
	}
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		return fail(err)
	}
	s, err := e.NewStore(ctx, kobakoLimits(kind))
	if err != nil {
		return fail(err)
	}
	imports, host, err := bindWASI(s, io.Discard)
	if err != nil {
		return fail(err)
	}
	inst, err := s.Instantiate(ctx, m, imports)
	if err != nil {
		_ = host.Close()
		return fail(fmt.Errorf("instantiate: %w", err))
	}
	return &guest{
		kind: kind,
		fn: func(name string) (callFunc, error) {
			f, err := inst.Function(name)
			if err != nil {
				return nil, err
			}
			return f.Call, nil
		},
		read: func(offset, n uint32) ([]byte, bool) {
			mem := inst.Memory("memory")
			if mem == nil {
				return nil, false
			}
			return mem.Read(offset, n)
		},
		fuel: meteredFuel(kind, s),
		close: func() {
			_ = host.Close()
			_ = s.Close(ctx)
			_ = e.Close(ctx)
		},
	}, nil
}

// kobakoCompile compiles on a fresh kobako engine: decode, check, rewrite, wazero compile.
func kobakoCompile(ctx context.Context, wasmBytes []byte) (func(), error) {
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		return nil, err
	}
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		_ = e.Close(ctx)
		return nil, err
	}
	for _, ex := range m.Exports() {
		if ex.Name == "_start" && ex.Kind == engine.ExternFunc {
			return func() { _ = e.Close(ctx) }, nil
		}
	}
	_ = e.Close(ctx)
	return nil, fmt.Errorf("compiled module exports no _start")
}

// newKobakoStarter compiles wasmBytes once; each run is a fresh store and instance, as a host
// running one plugin call per instance does.
func newKobakoStarter(ctx context.Context, wasmBytes []byte) (*starter, error) {
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		return nil, err
	}
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		_ = e.Close(ctx)
		return nil, err
	}
	var stdout bytes.Buffer
	run := func(ctx context.Context, check func([]byte, func(string) (uint64, bool)) error) error {
		stdout.Reset()
		s, err := e.NewStore(ctx, benchLimits())
		if err != nil {
			return err
		}
		defer s.Close(ctx)
		imports, host, err := bindWASI(s, &stdout)
		if err != nil {
			return err
		}
		defer host.Close()
		inst, err := s.Instantiate(ctx, m, imports)
		if err != nil {
			return fmt.Errorf("instantiate: %w", err)
		}
		if _, err := inst.Call(ctx, "_start"); !exitedOK(err) {
			return fmt.Errorf("_start: %w", err)
		}
		return check(stdout.Bytes(), inst.Global)
	}
	return &starter{run: run, close: func() { _ = e.Close(ctx) }}, nil
}

// bindWASI gives store s WASI preview 1 with stdout going to w, and returns the imports that
// provide it and the host state to close with the store.
func bindWASI(s *engine.Store, w io.Writer) (engine.Imports, *preview1.Host, error) {
	h, err := preview1.Bind(s, preview1.Config{Stdout: w})
	if err != nil {
		return nil, nil, err
	}
	return engine.Imports{preview1.ModuleName: preview1.Module}, h, nil
}

// kobakoLimits are the limits a kobako guest of kind runs with: benchLimits, unmetered for the
// unmetered engine.
func kobakoLimits(kind engineKind) engine.Limits {
	l := benchLimits()
	if kind == unmetered {
		l.Fuel = engine.Unmetered
	}
	return l
}

// meteredFuel is the guest's fuel reader: nil for the unmetered engine, which counts none.
func meteredFuel(kind engineKind, s *engine.Store) func() uint64 {
	if kind == unmetered {
		return nil
	}
	return s.FuelConsumed
}

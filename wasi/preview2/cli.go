package preview2

import (
	"context"
	"fmt"
	"strings"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	b "github.com/kobako/kobako/wasi/preview2/bindings"
)

const (
	ifaceEnvironment    = "wasi:cli/environment@0.2.0"
	ifaceExit           = "wasi:cli/exit@0.2.0"
	ifaceStdin          = "wasi:cli/stdin@0.2.0"
	ifaceStdout         = "wasi:cli/stdout@0.2.0"
	ifaceStderr         = "wasi:cli/stderr@0.2.0"
	ifaceTerminalInput  = "wasi:cli/terminal-input@0.2.0"
	ifaceTerminalOutput = "wasi:cli/terminal-output@0.2.0"
	ifaceTerminalStdin  = "wasi:cli/terminal-stdin@0.2.0"
	ifaceTerminalStdout = "wasi:cli/terminal-stdout@0.2.0"
	ifaceTerminalStderr = "wasi:cli/terminal-stderr@0.2.0"
)

// envVar is one entry of get-environment.
type envVar struct{ Key, Value string }

// terminal is the rep type of terminal-input and terminal-output, which the host never hands
// out: stdio is never a terminal to a sandboxed guest.
type terminal struct{}

func defineCLI(l *component.Linker) error {
	steps := []func() error{
		func() error {
			return defineAll(l, ifaceEnvironment, map[string]any{
				"get-environment": func(_ context.Context, h *Host) []envVar {
					out := make([]envVar, len(h.env))
					for i, e := range h.env {
						k, v, _ := strings.Cut(e, "=")
						out[i] = envVar{k, v}
					}
					return out
				},
				"get-arguments": func(_ context.Context, h *Host) []string { return h.args },
				"initial-cwd":   func(_ context.Context, h *Host) abi.Option[string] { return abi.None[string]() },
			})
		},
		func() error {
			return defineAll(l, ifaceExit, map[string]any{
				"exit": func(_ context.Context, h *Host, status abi.Result[struct{}, struct{}]) error {
					if status.IsErr {
						return &engine.ExitError{Code: 1}
					}
					return &engine.ExitError{Code: 0}
				},
				"exit-with-code": func(_ context.Context, h *Host, code uint8) error { return &engine.ExitError{Code: uint32(code)} },
			})
		},
		func() error {
			return defineFunc(l, ifaceStdin, "get-stdin", func(_ context.Context, h *Host) (abi.Own[*InputStream], error) {
				rep, err := h.add(&InputStream{src: h.stdin})
				return abi.Own[*InputStream]{Rep: rep}, err
			})
		},
		func() error {
			return defineFunc(l, ifaceStdout, "get-stdout", func(_ context.Context, h *Host) (abi.Own[*OutputStream], error) {
				rep, err := h.add(&OutputStream{w: h.stdout})
				return abi.Own[*OutputStream]{Rep: rep}, err
			})
		},
		func() error {
			return defineFunc(l, ifaceStderr, "get-stderr", func(_ context.Context, h *Host) (abi.Own[*OutputStream], error) {
				rep, err := h.add(&OutputStream{w: h.stderr})
				return abi.Own[*OutputStream]{Rep: rep}, err
			})
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	if _, err := l.DefineResource(ifaceTerminalInput, "terminal-input", dtor[terminal]()); err != nil {
		return err
	}
	if _, err := l.DefineResource(ifaceTerminalOutput, "terminal-output", dtor[terminal]()); err != nil {
		return err
	}
	for iface, fns := range terminalFuncs() {
		if err := defineAll(l, iface, fns); err != nil {
			return fmt.Errorf("preview2: %w", err)
		}
	}
	return nil
}

// terminalFuncs are the functions of wasi:cli's terminal-stdin, -stdout and -stderr, by
// interface: no stream of a guest is a terminal.
func terminalFuncs() map[string]map[string]any {
	in := func(context.Context, *Host) abi.Option[abi.Own[b.TerminalInput]] {
		return abi.None[abi.Own[b.TerminalInput]]()
	}
	out := func(context.Context, *Host) abi.Option[abi.Own[b.TerminalOutput]] {
		return abi.None[abi.Own[b.TerminalOutput]]()
	}
	return map[string]map[string]any{
		ifaceTerminalStdin:  {"get-terminal-stdin": in},
		ifaceTerminalStdout: {"get-terminal-stdout": out},
		ifaceTerminalStderr: {"get-terminal-stderr": out},
	}
}

package preview2

import (
	"context"
	"fmt"
	"strings"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
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

func (h *Host) defineCLI(l *component.Linker) error {
	steps := []func() error{
		func() error {
			return defineAll(l, ifaceEnvironment, map[string]any{
				"get-environment": func(context.Context) []envVar {
					out := make([]envVar, len(h.env))
					for i, e := range h.env {
						k, v, _ := strings.Cut(e, "=")
						out[i] = envVar{k, v}
					}
					return out
				},
				"get-arguments": func(context.Context) []string { return h.args },
				"initial-cwd":   func(context.Context) abi.Option[string] { return abi.None[string]() },
			})
		},
		func() error {
			return defineAll(l, ifaceExit, map[string]any{
				"exit": func(_ context.Context, status abi.Result[struct{}, struct{}]) error {
					if status.IsErr {
						return &ExitError{Code: 1}
					}
					return &ExitError{Code: 0}
				},
				"exit-with-code": func(_ context.Context, code uint8) error { return &ExitError{Code: uint32(code)} },
			})
		},
		func() error {
			return l.DefineFunc(ifaceStdin, "get-stdin", func(context.Context) (uint32, error) {
				return h.res.add(&inStream{stdin: h.stdin})
			})
		},
		func() error {
			return l.DefineFunc(ifaceStdout, "get-stdout", func(context.Context) (uint32, error) {
				return h.res.add(&outStream{w: h.stdout})
			})
		},
		func() error {
			return l.DefineFunc(ifaceStderr, "get-stderr", func(context.Context) (uint32, error) {
				return h.res.add(&outStream{w: h.stderr})
			})
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	if _, err := l.DefineResource(ifaceTerminalInput, "terminal-input", dtor[terminal](h)); err != nil {
		return err
	}
	if _, err := l.DefineResource(ifaceTerminalOutput, "terminal-output", dtor[terminal](h)); err != nil {
		return err
	}
	none := func(context.Context) abi.Option[uint32] { return abi.None[uint32]() }
	for iface, name := range map[string]string{
		ifaceTerminalStdin:  "get-terminal-stdin",
		ifaceTerminalStdout: "get-terminal-stdout",
		ifaceTerminalStderr: "get-terminal-stderr",
	} {
		if err := l.DefineFunc(iface, name, none); err != nil {
			return fmt.Errorf("preview2: %w", err)
		}
	}
	return nil
}

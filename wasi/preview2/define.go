package preview2

import (
	"context"
	"fmt"

	"github.com/kobako/kobako/component"
)

// Define defines every WASI 0.2 interface on l, bound to h: wasi:io, wasi:clocks, wasi:random,
// wasi:cli, wasi:filesystem and wasi:sockets, at version 0.2.0, which satisfies imports of any
// 0.2.x version. A Linker so defined serves one component instance at a time, the one h belongs
// to.
func (h *Host) Define(l *component.Linker) error {
	for _, def := range []func(*component.Linker) error{
		h.defineError, h.definePoll, h.defineStreams, h.defineClocks, h.defineRandom,
		h.defineCLI, h.defineFilesystem, h.defineSockets, h.defineUses,
	} {
		if err := def(l); err != nil {
			return fmt.Errorf("preview2: define: %w", err)
		}
	}
	return nil
}

// uses lists, for each interface, the resource types it takes from other interfaces with `use`.
// A component's import of the interface names them as exports of its own, and the linker looks
// each up in the interface that names it, so they are defined there too, with the same
// destructor: the component's type for them is one resource, so the handles are the same.
var uses = map[string][]string{
	ifaceStreams:         {"error", "pollable"},
	ifaceStdin:           {"input-stream"},
	ifaceStdout:          {"output-stream"},
	ifaceStderr:          {"output-stream"},
	ifaceTerminalStdin:   {"terminal-input"},
	ifaceTerminalStdout:  {"terminal-output"},
	ifaceTerminalStderr:  {"terminal-output"},
	ifaceMonotonic:       {"pollable"},
	ifaceTypes:           {"error", "input-stream", "output-stream"},
	ifacePreopens:        {"descriptor"},
	ifaceNetwork:         {"error"},
	ifaceInstanceNetwork: {"network"},
	ifaceNameLookup:      {"pollable", "network"},
	ifaceTCP:             {"input-stream", "output-stream", "pollable", "network"},
	ifaceTCPCreate:       {"network", "tcp-socket"},
	ifaceUDP:             {"pollable", "network"},
	ifaceUDPCreate:       {"network", "udp-socket"},
}

// dtors gives the destructor of every WASI resource type by name (the names are unique across
// the WASI 0.2 interfaces).
func (h *Host) dtors() map[string]func(context.Context, uint32) error {
	return map[string]func(context.Context, uint32) error{
		"error":                  dtor[*ioError](h),
		"pollable":               dtor[*pollable](h),
		"input-stream":           dtor[*inStream](h),
		"output-stream":          dtor[*outStream](h),
		"terminal-input":         dtor[terminal](h),
		"terminal-output":        dtor[terminal](h),
		"descriptor":             dtor[*descriptor](h),
		"directory-entry-stream": dtor[*dirStream](h),
		"network":                dtor[network](h),
		"tcp-socket":             nil,
		"udp-socket":             nil,
	}
}

func (h *Host) defineUses(l *component.Linker) error {
	d := h.dtors()
	for iface, names := range uses {
		for _, n := range names {
			if _, err := l.DefineResource(iface, n, d[n]); err != nil {
				return err
			}
		}
	}
	return nil
}

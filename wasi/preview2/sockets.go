package preview2

import (
	"context"
	"fmt"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

const (
	ifaceNetwork         = "wasi:sockets/network@0.2.0"
	ifaceInstanceNetwork = "wasi:sockets/instance-network@0.2.0"
	ifaceTCP             = "wasi:sockets/tcp@0.2.0"
	ifaceTCPCreate       = "wasi:sockets/tcp-create-socket@0.2.0"
	ifaceUDP             = "wasi:sockets/udp@0.2.0"
	ifaceUDPCreate       = "wasi:sockets/udp-create-socket@0.2.0"
	ifaceNameLookup      = "wasi:sockets/ip-name-lookup@0.2.0"
	// sockAccessDenied is network's error-code case access-denied.
	sockAccessDenied uint8 = 1
)

// network is the one network resource instance-network hands out; nothing can be done with it.
type network struct{}

// socketMethods lists the methods of the socket resources. No guest can hold one of these
// resources, because every way to create one is refused, so a call can only carry a handle the
// host never made: it traps with ErrHandle.
var socketMethods = map[string][]string{
	ifaceTCP: {"tcp-socket", "start-bind", "finish-bind", "start-connect", "finish-connect", "start-listen",
		"finish-listen", "accept", "local-address", "remote-address", "is-listening", "address-family",
		"set-listen-backlog-size", "keep-alive-enabled", "set-keep-alive-enabled", "keep-alive-idle-time",
		"set-keep-alive-idle-time", "keep-alive-interval", "set-keep-alive-interval", "keep-alive-count",
		"set-keep-alive-count", "hop-limit", "set-hop-limit", "receive-buffer-size", "set-receive-buffer-size",
		"send-buffer-size", "set-send-buffer-size", "subscribe", "shutdown"},
	ifaceUDP: {"udp-socket", "start-bind", "finish-bind", "stream", "local-address", "remote-address",
		"address-family", "unicast-hop-limit", "set-unicast-hop-limit", "receive-buffer-size",
		"set-receive-buffer-size", "send-buffer-size", "set-send-buffer-size", "subscribe"},
	ifaceUDP + " in":  {"incoming-datagram-stream", "receive", "subscribe"},
	ifaceUDP + " out": {"outgoing-datagram-stream", "check-send", "send", "subscribe"},
	ifaceNameLookup:   {"resolve-address-stream", "resolve-next-address", "subscribe"},
}

func defineSockets(l *component.Linker) error {
	if _, err := l.DefineResource(ifaceNetwork, "network", dtor[network]()); err != nil {
		return err
	}
	err := defineFunc(l, ifaceNetwork, "network-error-code", func(_ context.Context, h *Host, e uint32) (abi.Option[uint8], error) {
		if _, err := get[*ioError](h, e); err != nil {
			return abi.Option[uint8]{}, err
		}
		return abi.None[uint8](), nil // no error of this host comes from a socket
	})
	if err != nil {
		return err
	}
	if err := defineFunc(l, ifaceInstanceNetwork, "instance-network", func(_ context.Context, h *Host) (uint32, error) {
		return h.add(network{})
	}); err != nil {
		return err
	}
	denied := func(_ context.Context, _ *Host, _ uint8) abi.Result[uint32, uint8] {
		return abi.Err[uint32](sockAccessDenied)
	}
	if err := defineFunc(l, ifaceTCPCreate, "create-tcp-socket", denied); err != nil {
		return err
	}
	if err := defineFunc(l, ifaceUDPCreate, "create-udp-socket", denied); err != nil {
		return err
	}
	if err := defineFunc(l, ifaceNameLookup, "resolve-addresses", func(_ context.Context, h *Host, nw uint32, _ string) (abi.Result[uint32, uint8], error) {
		if _, err := get[network](h, nw); err != nil {
			return abi.Result[uint32, uint8]{}, err
		}
		return abi.Err[uint32](sockAccessDenied), nil
	}); err != nil {
		return err
	}
	for key, list := range socketMethods {
		iface := ifaceOf(key)
		res := list[0]
		if _, err := l.DefineResource(iface, res, nil); err != nil {
			return err
		}
		for _, m := range list[1:] {
			name := "[method]" + res + "." + m
			if err := l.Define(iface, name, func(context.Context, *component.Caller, []abi.Value) ([]abi.Value, error) {
				return nil, fmt.Errorf("preview2: %s#%s: %w: sockets are not available", iface, name, ErrHandle)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func ifaceOf(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == ' ' {
			return key[:i]
		}
	}
	return key
}

package preview2

import (
	"context"
	"fmt"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	b "github.com/kobako/kobako/wasi/preview2/bindings"
)

// The wasi:sockets interfaces, at the version of the WIT package bindings is generated from
// (the linker matches imports of any 0.2.x version).
const (
	ifaceNetwork         = "wasi:sockets/network@0.2.12"
	ifaceInstanceNetwork = "wasi:sockets/instance-network@0.2.12"
	ifaceTCP             = "wasi:sockets/tcp@0.2.12"
	ifaceTCPCreate       = "wasi:sockets/tcp-create-socket@0.2.12"
	ifaceUDP             = "wasi:sockets/udp@0.2.12"
	ifaceUDPCreate       = "wasi:sockets/udp-create-socket@0.2.12"
	ifaceNameLookup      = "wasi:sockets/ip-name-lookup@0.2.12"
)

// sockets serves wasi:sockets with no network: instance-network hands out a network nothing can
// be done with, and every way to make a socket or resolve a name answers access-denied, as
// wasmtime does for a WASI context that allows no socket use. Outbound access belongs to
// wasi:http, behind the egress policy.
//
// No guest can hold a socket or a resolve-address-stream, so the component runtime refuses a
// handle of one before any method here runs; the methods still answer with a trap, not a
// result, should one be reached.
type sockets struct{}

// defineSockets serves the wasi:sockets interfaces through their generated bindings.
func defineSockets(l *component.Linker) error {
	var s sockets
	for _, def := range []func() error{
		func() error { return b.DefineSocketsNetwork(l, s) },
		func() error { return b.DefineInstanceNetwork(l, s) },
		func() error { return b.DefineTcp(l, s) },
		func() error { return b.DefineTcpCreateSocket(l, s) },
		func() error { return b.DefineUdp(l, s) },
		func() error { return b.DefineUdpCreateSocket(l, s) },
		func() error { return b.DefineIpNameLookup(l, s) },
	} {
		if err := def(); err != nil {
			return err
		}
	}
	return nil
}

// noSocket is every socket method's answer: the guest passed a handle no socket of this host
// stands behind.
func noSocket[T any](method string) (T, error) {
	var zero T
	return zero, fmt.Errorf("preview2: wasi:sockets %s: %w: sockets are not available", method, ErrHandle)
}

func (sockets) DropNetwork(_ context.Context, c *component.Caller, rep uint32) error {
	h, err := HostOf(c)
	if err != nil {
		return err
	}
	return drop[b.Network](h, rep)
}

func (sockets) NetworkErrorCode(_ context.Context, c *component.Caller, e abi.Borrow[b.Error]) (*b.NetworkErrorCode, error) {
	h, err := HostOf(c)
	if err != nil {
		return nil, err
	}
	if _, err := get[*ioError](h, e.Rep); err != nil {
		return nil, err
	}
	return nil, nil // no error of this host comes from a socket
}

func (sockets) InstanceNetwork(_ context.Context, c *component.Caller) (abi.Own[b.Network], error) {
	h, err := HostOf(c)
	if err != nil {
		return abi.Own[b.Network]{}, err
	}
	return push(h, b.Network{})
}

func (sockets) CreateTcpSocket(context.Context, *component.Caller, b.IpAddressFamily) (abi.Result[abi.Own[b.TcpSocket], b.NetworkErrorCode], error) {
	return abi.Err[abi.Own[b.TcpSocket]](b.NetworkErrorCodeAccessDenied), nil
}

func (sockets) CreateUdpSocket(context.Context, *component.Caller, b.IpAddressFamily) (abi.Result[abi.Own[b.UdpSocket], b.NetworkErrorCode], error) {
	return abi.Err[abi.Own[b.UdpSocket]](b.NetworkErrorCodeAccessDenied), nil
}

func (sockets) ResolveAddresses(_ context.Context, c *component.Caller, nw abi.Borrow[b.Network], _ string) (abi.Result[abi.Own[b.ResolveAddressStream], b.NetworkErrorCode], error) {
	h, err := HostOf(c)
	if err != nil {
		return abi.Result[abi.Own[b.ResolveAddressStream], b.NetworkErrorCode]{}, err
	}
	if _, err := borrowed(h, nw); err != nil {
		return abi.Result[abi.Own[b.ResolveAddressStream], b.NetworkErrorCode]{}, err
	}
	return abi.Err[abi.Own[b.ResolveAddressStream]](b.NetworkErrorCodeAccessDenied), nil
}

// The resources no guest can hold: their destructors and methods.

func (sockets) DropTcpSocket(context.Context, *component.Caller, uint32) error {
	_, err := noSocket[struct{}]("tcp-socket")
	return err
}

func (sockets) DropUdpSocket(context.Context, *component.Caller, uint32) error {
	_, err := noSocket[struct{}]("udp-socket")
	return err
}

func (sockets) DropIncomingDatagramStream(context.Context, *component.Caller, uint32) error {
	_, err := noSocket[struct{}]("incoming-datagram-stream")
	return err
}

func (sockets) DropOutgoingDatagramStream(context.Context, *component.Caller, uint32) error {
	_, err := noSocket[struct{}]("outgoing-datagram-stream")
	return err
}

func (sockets) DropResolveAddressStream(context.Context, *component.Caller, uint32) error {
	_, err := noSocket[struct{}]("resolve-address-stream")
	return err
}

type (
	tcpSelf  = abi.Borrow[b.TcpSocket]
	udpSelf  = abi.Borrow[b.UdpSocket]
	sockUnit = abi.Result[struct{}, b.NetworkErrorCode]
	sockAddr = abi.Result[b.IpSocketAddress, b.NetworkErrorCode]
	sockU64  = abi.Result[uint64, b.NetworkErrorCode]
	sockDur  = abi.Result[b.Duration, b.NetworkErrorCode]
	pollOwn  = abi.Own[b.Pollable]
	nwBorrow = abi.Borrow[b.Network]
	tcpConn  = struct {
		F0 abi.Own[b.InputStream]
		F1 abi.Own[b.OutputStream]
	}
	tcpAccepted = struct {
		F0 abi.Own[b.TcpSocket]
		F1 abi.Own[b.InputStream]
		F2 abi.Own[b.OutputStream]
	}
	udpStreams = struct {
		F0 abi.Own[b.IncomingDatagramStream]
		F1 abi.Own[b.OutgoingDatagramStream]
	}
	ctxT    = context.Context
	callerT = *component.Caller
)

func (sockets) TcpSocketStartBind(ctxT, callerT, tcpSelf, nwBorrow, b.IpSocketAddress) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.start-bind")
}
func (sockets) TcpSocketFinishBind(ctxT, callerT, tcpSelf) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.finish-bind")
}
func (sockets) TcpSocketStartConnect(ctxT, callerT, tcpSelf, nwBorrow, b.IpSocketAddress) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.start-connect")
}
func (sockets) TcpSocketFinishConnect(ctxT, callerT, tcpSelf) (abi.Result[tcpConn, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[tcpConn, b.NetworkErrorCode]]("tcp-socket.finish-connect")
}
func (sockets) TcpSocketStartListen(ctxT, callerT, tcpSelf) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.start-listen")
}
func (sockets) TcpSocketFinishListen(ctxT, callerT, tcpSelf) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.finish-listen")
}
func (sockets) TcpSocketAccept(ctxT, callerT, tcpSelf) (abi.Result[tcpAccepted, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[tcpAccepted, b.NetworkErrorCode]]("tcp-socket.accept")
}
func (sockets) TcpSocketLocalAddress(ctxT, callerT, tcpSelf) (sockAddr, error) {
	return noSocket[sockAddr]("tcp-socket.local-address")
}
func (sockets) TcpSocketRemoteAddress(ctxT, callerT, tcpSelf) (sockAddr, error) {
	return noSocket[sockAddr]("tcp-socket.remote-address")
}
func (sockets) TcpSocketIsListening(ctxT, callerT, tcpSelf) (bool, error) {
	return noSocket[bool]("tcp-socket.is-listening")
}
func (sockets) TcpSocketAddressFamily(ctxT, callerT, tcpSelf) (b.IpAddressFamily, error) {
	return noSocket[b.IpAddressFamily]("tcp-socket.address-family")
}
func (sockets) TcpSocketSetListenBacklogSize(ctxT, callerT, tcpSelf, uint64) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-listen-backlog-size")
}
func (sockets) TcpSocketKeepAliveEnabled(ctxT, callerT, tcpSelf) (abi.Result[bool, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[bool, b.NetworkErrorCode]]("tcp-socket.keep-alive-enabled")
}
func (sockets) TcpSocketSetKeepAliveEnabled(ctxT, callerT, tcpSelf, bool) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-keep-alive-enabled")
}
func (sockets) TcpSocketKeepAliveIdleTime(ctxT, callerT, tcpSelf) (sockDur, error) {
	return noSocket[sockDur]("tcp-socket.keep-alive-idle-time")
}
func (sockets) TcpSocketSetKeepAliveIdleTime(ctxT, callerT, tcpSelf, b.Duration) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-keep-alive-idle-time")
}
func (sockets) TcpSocketKeepAliveInterval(ctxT, callerT, tcpSelf) (sockDur, error) {
	return noSocket[sockDur]("tcp-socket.keep-alive-interval")
}
func (sockets) TcpSocketSetKeepAliveInterval(ctxT, callerT, tcpSelf, b.Duration) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-keep-alive-interval")
}
func (sockets) TcpSocketKeepAliveCount(ctxT, callerT, tcpSelf) (abi.Result[uint32, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[uint32, b.NetworkErrorCode]]("tcp-socket.keep-alive-count")
}
func (sockets) TcpSocketSetKeepAliveCount(ctxT, callerT, tcpSelf, uint32) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-keep-alive-count")
}
func (sockets) TcpSocketHopLimit(ctxT, callerT, tcpSelf) (abi.Result[uint8, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[uint8, b.NetworkErrorCode]]("tcp-socket.hop-limit")
}
func (sockets) TcpSocketSetHopLimit(ctxT, callerT, tcpSelf, uint8) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-hop-limit")
}
func (sockets) TcpSocketReceiveBufferSize(ctxT, callerT, tcpSelf) (sockU64, error) {
	return noSocket[sockU64]("tcp-socket.receive-buffer-size")
}
func (sockets) TcpSocketSetReceiveBufferSize(ctxT, callerT, tcpSelf, uint64) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-receive-buffer-size")
}
func (sockets) TcpSocketSendBufferSize(ctxT, callerT, tcpSelf) (sockU64, error) {
	return noSocket[sockU64]("tcp-socket.send-buffer-size")
}
func (sockets) TcpSocketSetSendBufferSize(ctxT, callerT, tcpSelf, uint64) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.set-send-buffer-size")
}
func (sockets) TcpSocketSubscribe(ctxT, callerT, tcpSelf) (pollOwn, error) {
	return noSocket[pollOwn]("tcp-socket.subscribe")
}
func (sockets) TcpSocketShutdown(ctxT, callerT, tcpSelf, b.ShutdownType) (sockUnit, error) {
	return noSocket[sockUnit]("tcp-socket.shutdown")
}

func (sockets) UdpSocketStartBind(ctxT, callerT, udpSelf, nwBorrow, b.IpSocketAddress) (sockUnit, error) {
	return noSocket[sockUnit]("udp-socket.start-bind")
}
func (sockets) UdpSocketFinishBind(ctxT, callerT, udpSelf) (sockUnit, error) {
	return noSocket[sockUnit]("udp-socket.finish-bind")
}
func (sockets) UdpSocketStream(ctxT, callerT, udpSelf, *b.IpSocketAddress) (abi.Result[udpStreams, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[udpStreams, b.NetworkErrorCode]]("udp-socket.stream")
}
func (sockets) UdpSocketLocalAddress(ctxT, callerT, udpSelf) (sockAddr, error) {
	return noSocket[sockAddr]("udp-socket.local-address")
}
func (sockets) UdpSocketRemoteAddress(ctxT, callerT, udpSelf) (sockAddr, error) {
	return noSocket[sockAddr]("udp-socket.remote-address")
}
func (sockets) UdpSocketAddressFamily(ctxT, callerT, udpSelf) (b.IpAddressFamily, error) {
	return noSocket[b.IpAddressFamily]("udp-socket.address-family")
}
func (sockets) UdpSocketUnicastHopLimit(ctxT, callerT, udpSelf) (abi.Result[uint8, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[uint8, b.NetworkErrorCode]]("udp-socket.unicast-hop-limit")
}
func (sockets) UdpSocketSetUnicastHopLimit(ctxT, callerT, udpSelf, uint8) (sockUnit, error) {
	return noSocket[sockUnit]("udp-socket.set-unicast-hop-limit")
}
func (sockets) UdpSocketReceiveBufferSize(ctxT, callerT, udpSelf) (sockU64, error) {
	return noSocket[sockU64]("udp-socket.receive-buffer-size")
}
func (sockets) UdpSocketSetReceiveBufferSize(ctxT, callerT, udpSelf, uint64) (sockUnit, error) {
	return noSocket[sockUnit]("udp-socket.set-receive-buffer-size")
}
func (sockets) UdpSocketSendBufferSize(ctxT, callerT, udpSelf) (sockU64, error) {
	return noSocket[sockU64]("udp-socket.send-buffer-size")
}
func (sockets) UdpSocketSetSendBufferSize(ctxT, callerT, udpSelf, uint64) (sockUnit, error) {
	return noSocket[sockUnit]("udp-socket.set-send-buffer-size")
}
func (sockets) UdpSocketSubscribe(ctxT, callerT, udpSelf) (pollOwn, error) {
	return noSocket[pollOwn]("udp-socket.subscribe")
}
func (sockets) IncomingDatagramStreamReceive(ctxT, callerT, abi.Borrow[b.IncomingDatagramStream], uint64) (abi.Result[[]b.IncomingDatagram, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[[]b.IncomingDatagram, b.NetworkErrorCode]]("incoming-datagram-stream.receive")
}
func (sockets) IncomingDatagramStreamSubscribe(ctxT, callerT, abi.Borrow[b.IncomingDatagramStream]) (pollOwn, error) {
	return noSocket[pollOwn]("incoming-datagram-stream.subscribe")
}
func (sockets) OutgoingDatagramStreamCheckSend(ctxT, callerT, abi.Borrow[b.OutgoingDatagramStream]) (sockU64, error) {
	return noSocket[sockU64]("outgoing-datagram-stream.check-send")
}
func (sockets) OutgoingDatagramStreamSend(ctxT, callerT, abi.Borrow[b.OutgoingDatagramStream], []b.OutgoingDatagram) (sockU64, error) {
	return noSocket[sockU64]("outgoing-datagram-stream.send")
}
func (sockets) OutgoingDatagramStreamSubscribe(ctxT, callerT, abi.Borrow[b.OutgoingDatagramStream]) (pollOwn, error) {
	return noSocket[pollOwn]("outgoing-datagram-stream.subscribe")
}
func (sockets) ResolveAddressStreamResolveNextAddress(ctxT, callerT, abi.Borrow[b.ResolveAddressStream]) (abi.Result[*b.IpAddress, b.NetworkErrorCode], error) {
	return noSocket[abi.Result[*b.IpAddress, b.NetworkErrorCode]]("resolve-address-stream.resolve-next-address")
}
func (sockets) ResolveAddressStreamSubscribe(ctxT, callerT, abi.Borrow[b.ResolveAddressStream]) (pollOwn, error) {
	return noSocket[pollOwn]("resolve-address-stream.subscribe")
}

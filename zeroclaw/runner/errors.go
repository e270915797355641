package runner

import "errors"

// Sentinel errors. Messages follow the reference host's where it has one.
var (
	// ErrExecute wraps a tool's err(s): "plugin execute returned error: s".
	ErrExecute = errors.New("plugin execute returned error")
	// ErrTrapped wraps a guest trap: "tool.execute trapped: …", "channel.send trapped: …".
	ErrTrapped = errors.New("trapped")
	// ErrDeadline is a call, or an instantiation, that ran past call_timeout_ms:
	// "plugin call exceeded wall-clock deadline of N ms".
	ErrDeadline = errors.New("plugin call exceeded wall-clock deadline")
	// ErrUnavailable is a warm memory instance after an interrupted call, until rebuilt.
	ErrUnavailable = errors.New("plugin instance is unavailable: a previous call was interrupted before completion")
	// ErrPermission is a component that imports what its grants do not allow (wasi:http
	// without http_client).
	ErrPermission = errors.New("plugin permission missing")
	// ErrWorld is a component that does not export its capability's world.
	ErrWorld = errors.New("plugin does not implement its world")
	// ErrNoFunction is a dynamic call of a function the plugin's interface does not declare:
	// "no function NAME; the plugin's functions are: …".
	ErrNoFunction = errors.New("no function")
	// ErrLoad is any other failure to load or instantiate a plugin.
	ErrLoad = errors.New("plugin load failed")
	// ErrInboundFull is a push into a channel's full inbound queue.
	ErrInboundFull = errors.New("channel inbound queue is full")
	// ErrPlugin is a channel or memory call the guest answered with err(s).
	ErrPlugin = errors.New("plugin returned error")
	// ErrNotSupported is a memory operation whose capability flag is unset and whose WIT
	// default is "not supported".
	ErrNotSupported = errors.New("not supported")
	// ErrClosed is a call on a closed runtime, channel or memory.
	ErrClosed = errors.New("plugin runtime closed")
)

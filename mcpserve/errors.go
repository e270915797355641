package mcpserve

import "errors"

// Sentinel errors. Each error this package returns wraps one of them once, behind an
// "mcpserve: <place>:" prefix.
var (
	// ErrConfig: the [mcp] section, a package spec or an option is invalid.
	ErrConfig = errors.New("invalid configuration")
	// ErrCollision: two tools would be listed under one name.
	ErrCollision = errors.New("tool name collision")
)

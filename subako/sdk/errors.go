package sdk

import "errors"

var (
	// ErrInvalidPackage reports a Package that breaks ABI 1's rules for a manifest or a tool list.
	ErrInvalidPackage = errors.New("invalid package")
	// ErrInvalidTool reports a tool definition that breaks ABI 1's rules (its name, description or
	// schemas), or whose Go types cannot be described as the protocol needs.
	ErrInvalidTool = errors.New("invalid tool")
	// ErrNotVolumePath reports a path that does not name a file beneath /volume.
	ErrNotVolumePath = errors.New("not a file path beneath /volume")
	// ErrInvalidContent reports a content block that does not have the fields its type needs.
	ErrInvalidContent = errors.New("invalid content block")
	// ErrInvalidMessage reports a JSON value that does not have the shape the wire format needs.
	ErrInvalidMessage = errors.New("invalid message")
)

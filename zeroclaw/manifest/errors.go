package manifest

import "errors"

// Sentinel errors. Their texts are the reference host's error prefixes, so a
// wrapped error reads the same as the reference's message.
var (
	// ErrParse reports a manifest.toml that is not valid TOML or whose keys
	// have the wrong types or values (the reference's TOML deserialisation
	// error).
	ErrParse = errors.New("TOML parse error")
	// ErrInvalidManifest reports a manifest that parses but breaks a shape
	// rule: name grammar, wasm_path containment, capabilities, skill bundle.
	ErrInvalidManifest = errors.New("invalid manifest")
	// ErrTooLarge reports a manifest.toml or SKILL.md over its size cap.
	ErrTooLarge = errors.New("file too large")
)

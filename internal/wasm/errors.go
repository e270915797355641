package wasm

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly one of them, so callers can
// classify a failure with errors.Is without matching text.
var (
	// ErrMalformed reports bytes that are not a well-formed WebAssembly core module binary.
	ErrMalformed = errors.New("malformed module")
	// ErrLimit reports a module that is well formed but declares more than a Limits field allows.
	ErrLimit = errors.New("module exceeds a limit")
	// ErrUnsupportedFeature reports a module that uses a feature outside WebAssembly 2.0 as wazero's
	// CoreFeaturesV2 runs it (see Module.CheckEngineFeatures).
	ErrUnsupportedFeature = errors.New("unsupported feature")
	// ErrTableLimit reports a defined table whose minimum exceeds InstrumentOptions.MaxTableElements.
	ErrTableLimit = errors.New("table exceeds the element limit")
	// ErrNotCoreModule reports a WebAssembly component (or another layer) given where a core module
	// was expected.
	ErrNotCoreModule = errors.New("not a core module")
	// ErrInstrument reports a module that decodes but cannot be fuel-metered, for example because it
	// already imports from the fuel module.
	ErrInstrument = errors.New("cannot instrument module")
	// ErrSnapshot reports a module whose state after initialization cannot be captured and
	// restored exactly (see Module.CheckSnapshot).
	ErrSnapshot = errors.New("cannot snapshot module")
)

package zeroclaw

import "errors"

// Sentinel errors of the host. Errors from the layers below (manifest,
// signature, pluginconfig, registry) are wrapped unchanged, so errors.Is
// finds their sentinels too.
var (
	// ErrNotFound: no such plugin, manifest or wasm file. Its text is the
	// reference's prefix ("plugin not found: …").
	ErrNotFound = errors.New("plugin not found")
	// ErrAlreadyInstalled: a plugin with the name is already installed.
	ErrAlreadyInstalled = errors.New("plugin already installed")
	// ErrDuplicateName: two plugin directories declare one name; both are
	// rejected.
	ErrDuplicateName = errors.New("duplicate plugin name")
	// ErrConfig: the host config file is malformed or holds invalid values.
	ErrConfig = errors.New("invalid kobako config")
	// ErrUnsupportedSource: an install source that is neither a local path
	// nor a registry name (a URL).
	ErrUnsupportedSource = errors.New("unsupported plugin source")
	// ErrWasm: the plugin's wasm file is not a component exporting the worlds its capabilities
	// name, does not match the manifest's wasm_sha256 pin, or cannot be read as one (missing, not
	// a regular file, over MaxWasmBytes).
	ErrWasm = errors.New("plugin wasm is not the component its manifest describes")
	// ErrInstall: staging or moving files during an install failed.
	ErrInstall = errors.New("plugin install failed")
)

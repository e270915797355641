package subako

import "errors"

// Sentinel errors. Each error this package returns wraps one of them once, behind a lower-case
// "subako: <place>:" prefix, so that callers can classify failures with errors.Is.
var (
	// ErrManifest: subako-package.json is missing or malformed, or names an ABI other than 1.
	ErrManifest = errors.New("invalid package manifest")
	// ErrPackage: the package directory or zip is unusable (missing module.wasm, a path that
	// escapes the package, an entry or total size over its cap, a malformed zip).
	ErrPackage = errors.New("invalid package")
	// ErrInvalidModule: module.wasm fails the ABI 1 upload checks; the error lists every reason.
	ErrInvalidModule = errors.New("module does not meet ABI 1")
	// ErrDiscovery: the module's discovery answers break a rule of ABI 1 (the protocol version,
	// the tools capability, or the tool table); the error names the tool and the rule.
	ErrDiscovery = errors.New("discovery failed")
	// ErrCrash: the module crashed during a run; the error is a *CrashError saying which rule it
	// broke and carrying the end of its stderr.
	ErrCrash = errors.New("function crashed")
	// ErrUnknownTool: Call was asked for a tool that discovery did not list.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrOptions: CallOptions or Config are invalid (a bad skill name, a missing directory,
	// arguments that are not a JSON object, invalid limits).
	ErrOptions = errors.New("invalid options")
	// ErrMessage: a stdout line is not a JSON-RPC 2.0 message.
	ErrMessage = errors.New("not a JSON-RPC 2.0 message")
)

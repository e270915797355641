package oci

import "errors"

// Sentinel errors of the package; errors from the registry client are wrapped with a message
// naming the reference.
var (
	// ErrReference: not an oci://REGISTRY/REPOSITORY[:TAG|@DIGEST] reference.
	ErrReference = errors.New("invalid OCI reference")
	// ErrManifest: a manifest or index that is malformed, too large, or not the kind asked for.
	ErrManifest = errors.New("invalid OCI manifest")
	// ErrUnknownMediaType: a manifest, config or layer media type kobako does not read.
	ErrUnknownMediaType = errors.New("unknown OCI media type")
	// ErrMissingLayer: an artifact without a layer its kind requires.
	ErrMissingLayer = errors.New("OCI artifact layer missing")
	// ErrNoMatch: an image index without a manifest of the wanted kind.
	ErrNoMatch = errors.New("no matching artifact in the OCI image index")
	// ErrTooLarge: a layer whose size is over its cap.
	ErrTooLarge = errors.New("OCI layer too large")
	// ErrDigest: a layer whose bytes do not have the size or digest its manifest names.
	ErrDigest = errors.New("OCI layer digest mismatch")
	// ErrPlainHTTP: a registry reached over plain HTTP without being allowed to (Options.Insecure).
	ErrPlainHTTP = errors.New("plain-HTTP registry not allowed")
	// ErrStalled: a registry sent nothing for longer than Options.Timeout.
	ErrStalled = errors.New("OCI registry stalled")
	// ErrRegistry: the registry refused or failed a request (not found, unauthorized, ...).
	ErrRegistry = errors.New("OCI registry request failed")
	// ErrCache: the package cache could not be written.
	ErrCache = errors.New("OCI cache")
)

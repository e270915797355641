package registry

import "errors"

// Sentinel errors; the messages that wrap them are the reference host's.
var (
	// ErrIndex reports an index that cannot be fetched or parsed.
	ErrIndex = errors.New("plugin registry")
	// ErrSpec reports a malformed "name[@version]".
	ErrSpec = errors.New("invalid plugin source")
	// ErrNotFound reports a spec no entry matches.
	ErrNotFound = errors.New("plugin not found")
	// ErrDownload reports a failed archive download (HTTP status, transport).
	ErrDownload = errors.New("plugin archive download failed")
	// ErrArchiveURL reports an entry url the index may not name: a scheme
	// other than http(s) or file, or, in a remote index, anything but
	// http(s) (https only under an https index).
	ErrArchiveURL = errors.New("plugin archive URL refused")
	// ErrTooLarge reports an archive over MaxArchiveBytes or contents over
	// the extraction cap.
	ErrTooLarge = errors.New("plugin archive too large")
	// ErrChecksum reports a sha256 mismatch.
	ErrChecksum = errors.New("plugin archive checksum")
	// ErrUnsafeArchive reports an entry that could escape the extraction
	// directory or is not a plain file or directory.
	ErrUnsafeArchive = errors.New("unsafe plugin archive")
	// ErrManifest reports an archive without exactly one manifest.toml, or
	// whose manifest disagrees with its registry entry.
	ErrManifest = errors.New("plugin archive manifest")
)

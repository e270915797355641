package zeroclaw

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kobako/kobako/zeroclaw/manifest"
)

// OriginFile is the file in an installed plugin's directory that records where the plugin came
// from. It is written into the staging directory with the plugin's files, so it is in place
// exactly when they are; a plugin installed from a local path or the HTTP registry has none.
const OriginFile = ".kobako-origin.json"

// maxOriginBytes caps the read of an origin file: it holds a reference and a digest.
const maxOriginBytes = 16 << 10

// Origin says where an installed plugin came from.
type Origin struct {
	// Source is the reference it was installed from, such as oci://ghcr.io/acme/tool:1.0.
	Source string `json:"source"`
	// Digest identifies the exact content installed, such as the OCI manifest's sha256:… digest.
	Digest string `json:"digest"`
}

// InstallFrom installs the plugin in dir (a directory or the path of its manifest.toml, as
// Install takes) and records origin beside its files, so that Plugin.Origin and Info.Origin tell
// where it came from. With replace it updates an installed plugin, as Update does. Every check,
// the staging and the crash safety are Install's; origin.Source must be non-empty.
func (h *Host) InstallFrom(dir string, origin Origin, replace bool) (*Plugin, error) {
	if strings.TrimSpace(origin.Source) == "" {
		return nil, fmt.Errorf("%w: an install origin needs a source", ErrInstall)
	}
	return h.installOrigin(dir, replace, &origin)
}

func writeOrigin(stage string, o *Origin) error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return writeFileSynced(filepath.Join(stage, OriginFile), append(b, '\n'), 0o644)
}

// readOrigin reads a plugin directory's origin file; nil when there is none or it is not one.
func readOrigin(dir string) *Origin {
	path := filepath.Join(dir, OriginFile)
	// Only a regular file: opening a named pipe would wait for a writer on every scan.
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	raw, err := manifest.ReadCapped(path, maxOriginBytes)
	if err != nil {
		return nil
	}
	var o Origin
	if json.Unmarshal(raw, &o) != nil || o.Source == "" {
		return nil
	}
	return &o
}

// FindOrigin returns the installed plugin recorded as installed from source, if any.
func (h *Host) FindOrigin(source string) (*Plugin, bool) {
	for _, p := range h.Plugins() {
		if p.Origin != nil && p.Origin.Source == source {
			return p, true
		}
	}
	return nil, false
}

// Package oci pulls ZeroClaw plugins and ABI 1 function packages from OCI registries and pushes
// them there, through github.com/google/go-containerregistry (auth from the Docker config file and
// its credential helpers, bearer tokens, the registry protocol).
//
// # Artifacts
//
// Everything is an OCI image manifest (application/vnd.oci.image.manifest.v1+json) whose config
// media type says what it holds. kobako defines two kinds and reads a third:
//
// A ZeroClaw plugin: config [MediaTypePluginConfig] (a JSON object with the plugin's name, version
// and capabilities, for registries' listings; pull does not read it), and the layers
//
//   - [MediaTypePluginManifest]: the plugin's manifest.toml, byte for byte (a signature covers
//     these bytes), at most manifest.MaxManifestBytes. Exactly one.
//   - [MediaTypeWasm]: the component, written at the manifest's wasm_path, at most
//     zeroclaw.MaxWasmBytes. Exactly one when the manifest has a wasm_path, else none.
//   - [MediaTypePluginSkills]: a zip of the plugin's skills/ directory, at most
//     registry.MaxArchiveBytes, extracted as registry archives are. At most one.
//
// An ABI 1 function package: config [MediaTypePackageConfig] (name and ABI version), and one layer
// of [MediaTypePackage], the package zip as `kobako function pack` writes it, at most
// [MaxPackageBytes].
//
// A Wasm OCI artifact (the CNCF TAG Runtime layout that wkg and most registries' Wasm support
// use): config [MediaTypeWasmConfig] and one [MediaTypeWasm] layer. It holds a component alone, so
// a plugin install takes its manifest.toml from elsewhere (kobako plugin install --manifest).
//
// A reference may name an image index instead; the first manifest in it whose artifactType (or,
// without one, whose platform architecture "wasm") matches what the caller wants is used.
//
// Every layer is streamed: its declared size is checked against its cap before a byte is
// fetched, no more than the declared size is read, and the bytes are hashed on the way and
// compared with the digest the manifest names before anything is kept.
package oci

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Media types of the artifacts (see the package documentation).
const (
	// MediaTypePluginConfig is the config media type of a ZeroClaw plugin artifact.
	MediaTypePluginConfig = "application/vnd.kobako.zeroclaw.plugin.config.v1+json"
	// MediaTypePluginManifest is the layer holding a plugin's manifest.toml.
	MediaTypePluginManifest = "application/vnd.kobako.zeroclaw.plugin.manifest.v1+toml"
	// MediaTypePluginSkills is the layer holding a zip of a plugin's skills/ directory.
	MediaTypePluginSkills = "application/vnd.kobako.zeroclaw.plugin.skills.v1+zip"
	// MediaTypeWasm is a WebAssembly binary: a plugin's component, and the one layer of a Wasm
	// OCI artifact.
	MediaTypeWasm = "application/wasm"
	// MediaTypePackageConfig is the config media type of an ABI 1 function package artifact.
	MediaTypePackageConfig = "application/vnd.kobako.subako.package.config.v1+json"
	// MediaTypePackage is the layer holding an ABI 1 package zip.
	MediaTypePackage = "application/vnd.kobako.subako.package.v1+zip"
	// MediaTypeWasmConfig is the config media type of a CNCF Wasm OCI artifact.
	MediaTypeWasmConfig = "application/vnd.wasm.config.v0+json"

	mediaTypeOCIManifest    = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeOCIIndex       = "application/vnd.oci.image.index.v1+json"
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
)

// Kind is what an artifact holds.
type Kind int

const (
	// KindPlugin is a ZeroClaw plugin artifact.
	KindPlugin Kind = iota + 1
	// KindPackage is an ABI 1 function package artifact.
	KindPackage
	// KindWasm is a CNCF Wasm OCI artifact: one component.
	KindWasm
)

func (k Kind) String() string {
	switch k {
	case KindPlugin:
		return "ZeroClaw plugin"
	case KindPackage:
		return "ABI 1 function package"
	case KindWasm:
		return "Wasm OCI artifact"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// configType is the config media type that marks each kind.
func (k Kind) configType() string {
	switch k {
	case KindPlugin:
		return MediaTypePluginConfig
	case KindPackage:
		return MediaTypePackageConfig
	case KindWasm:
		return MediaTypeWasmConfig
	}
	return ""
}

// MaxManifestJSONBytes caps an image manifest or index: kobako's own are well under a kilobyte.
const MaxManifestJSONBytes = 4 << 20

// maxLayers caps the layers of a manifest and the manifests of an index that are looked at.
const maxLayers = 64

// Descriptor is a content descriptor from a manifest: what a layer is and how to check it.
type Descriptor struct {
	MediaType    string            `json:"mediaType"`
	Digest       string            `json:"digest"`
	Size         int64             `json:"size"`
	ArtifactType string            `json:"artifactType,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	Platform     *struct {
		Architecture string `json:"architecture"`
		OS           string `json:"os"`
	} `json:"platform,omitempty"`
}

// Artifact is a manifest Classify accepted, with its layers by role.
type Artifact struct {
	Kind Kind
	// Config is the config descriptor.
	Config Descriptor
	// Manifest is the plugin's manifest.toml layer (KindPlugin).
	Manifest *Descriptor
	// Wasm is the component layer (KindPlugin when the plugin has one, KindWasm).
	Wasm *Descriptor
	// Skills is the skills zip layer (KindPlugin, when present).
	Skills *Descriptor
	// Package is the package zip layer (KindPackage).
	Package *Descriptor
}

type manifestJSON struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	ArtifactType  string       `json:"artifactType"`
	Config        *Descriptor  `json:"config"`
	Layers        []Descriptor `json:"layers"`
	Manifests     []Descriptor `json:"manifests"`
}

// IsIndex reports whether a manifest media type is an image index (or a Docker manifest list).
func IsIndex(mediaType string) bool {
	return mediaType == mediaTypeOCIIndex || mediaType == mediaTypeDockerList
}

// Classify reads an image manifest (mediaType is what the registry said it is; raw are its bytes)
// and returns the artifact it describes. A manifest of another kind of artifact, an unknown layer
// media type, a missing, duplicated or malformed layer is an error naming it (ErrManifest,
// ErrUnknownMediaType, ErrMissingLayer).
func Classify(mediaType string, raw []byte) (*Artifact, error) {
	if len(raw) > MaxManifestJSONBytes {
		return nil, fmt.Errorf("%w: the manifest is %d bytes, more than %d", ErrManifest, len(raw), MaxManifestJSONBytes)
	}
	if IsIndex(mediaType) {
		return nil, fmt.Errorf("%w: an image index, not a manifest", ErrManifest)
	}
	var m manifestJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	if mediaType == "" {
		mediaType = m.MediaType
	}
	if mediaType != mediaTypeOCIManifest && mediaType != mediaTypeDockerManifest && mediaType != "" {
		return nil, fmt.Errorf("%w: manifest media type %q (want %s)", ErrUnknownMediaType, mediaType, mediaTypeOCIManifest)
	}
	if m.SchemaVersion != 2 {
		return nil, fmt.Errorf("%w: schemaVersion %d (want 2)", ErrManifest, m.SchemaVersion)
	}
	if m.Config == nil {
		return nil, fmt.Errorf("%w: no config descriptor", ErrManifest)
	}
	if len(m.Layers) > maxLayers {
		return nil, fmt.Errorf("%w: %d layers, more than %d", ErrManifest, len(m.Layers), maxLayers)
	}
	a := &Artifact{Config: *m.Config}
	switch m.Config.MediaType {
	case MediaTypePluginConfig:
		a.Kind = KindPlugin
	case MediaTypePackageConfig:
		a.Kind = KindPackage
	case MediaTypeWasmConfig:
		a.Kind = KindWasm
	default:
		what := m.Config.MediaType
		if m.ArtifactType != "" {
			what += " (artifactType " + m.ArtifactType + ")"
		}
		return nil, fmt.Errorf("%w: config %s is not a kobako artifact (want %s, %s or %s)", ErrUnknownMediaType,
			what, MediaTypePluginConfig, MediaTypePackageConfig, MediaTypeWasmConfig)
	}
	for i := range m.Layers {
		l := m.Layers[i]
		if err := checkDescriptor(l); err != nil {
			return nil, fmt.Errorf("%w: layer %d: %v", ErrManifest, i, err)
		}
		var slot **Descriptor
		switch {
		case a.Kind == KindPlugin && l.MediaType == MediaTypePluginManifest:
			slot = &a.Manifest
		case a.Kind == KindPlugin && l.MediaType == MediaTypePluginSkills:
			slot = &a.Skills
		case (a.Kind == KindPlugin || a.Kind == KindWasm) && l.MediaType == MediaTypeWasm:
			slot = &a.Wasm
		case a.Kind == KindPackage && l.MediaType == MediaTypePackage:
			slot = &a.Package
		default:
			return nil, fmt.Errorf("%w: layer %d (%s) has media type %q, which a %s does not hold", ErrUnknownMediaType, i, l.Digest, l.MediaType, a.Kind)
		}
		if *slot != nil {
			return nil, fmt.Errorf("%w: layer %d (%s): a second %s layer", ErrManifest, i, l.Digest, l.MediaType)
		}
		*slot = &l
	}
	switch {
	case a.Kind == KindPlugin && a.Manifest == nil:
		return nil, fmt.Errorf("%w: the plugin artifact has no %s layer (its manifest.toml)", ErrMissingLayer, MediaTypePluginManifest)
	case a.Kind == KindWasm && a.Wasm == nil:
		return nil, fmt.Errorf("%w: the Wasm artifact has no %s layer", ErrMissingLayer, MediaTypeWasm)
	case a.Kind == KindPackage && a.Package == nil:
		return nil, fmt.Errorf("%w: the package artifact has no %s layer (its package zip)", ErrMissingLayer, MediaTypePackage)
	}
	return a, nil
}

// checkDescriptor refuses a descriptor whose digest or size cannot be what a layer has.
func checkDescriptor(d Descriptor) error {
	algo, hex, ok := strings.Cut(d.Digest, ":")
	if !ok || algo != "sha256" || len(hex) != 64 || strings.Trim(hex, "0123456789abcdef") != "" {
		return fmt.Errorf("digest %q is not sha256:<64 lowercase hex digits>", d.Digest)
	}
	if d.Size < 0 {
		return fmt.Errorf("%s: negative size %d", d.Digest, d.Size)
	}
	return nil
}

// SelectFromIndex picks, from an image index's bytes, the manifest of the first entry holding one
// of the wanted kinds: an entry whose artifactType is the kind's config media type, or, for
// KindWasm, whose platform architecture is "wasm". No such entry is ErrNoMatch, naming what the
// index lists.
func SelectFromIndex(raw []byte, want ...Kind) (Descriptor, error) {
	if len(raw) > MaxManifestJSONBytes {
		return Descriptor{}, fmt.Errorf("%w: the index is %d bytes, more than %d", ErrManifest, len(raw), MaxManifestJSONBytes)
	}
	var ix manifestJSON
	if err := json.Unmarshal(raw, &ix); err != nil {
		return Descriptor{}, fmt.Errorf("%w: index: %v", ErrManifest, err)
	}
	var seen []string
	for i, d := range ix.Manifests {
		if i == maxLayers {
			break
		}
		for _, k := range want {
			match := d.ArtifactType == k.configType() ||
				(k == KindWasm && d.ArtifactType == "" && d.Platform != nil && d.Platform.Architecture == "wasm")
			if match {
				if err := checkDescriptor(d); err != nil {
					return Descriptor{}, fmt.Errorf("%w: index entry %d: %v", ErrManifest, i, err)
				}
				if d.MediaType != mediaTypeOCIManifest && d.MediaType != mediaTypeDockerManifest {
					return Descriptor{}, fmt.Errorf("%w: index entry %d (%s) has media type %q, not an image manifest", ErrUnknownMediaType, i, d.Digest, d.MediaType)
				}
				return d, nil
			}
		}
		switch {
		case d.Platform != nil:
			seen = append(seen, d.Platform.OS+"/"+d.Platform.Architecture)
		case d.ArtifactType != "":
			seen = append(seen, "artifactType "+d.ArtifactType)
		default:
			seen = append(seen, d.MediaType)
		}
	}
	var names []string
	for _, k := range want {
		names = append(names, k.String())
	}
	listed := "nothing"
	if len(seen) > 0 {
		listed = strings.Join(seen, ", ")
	}
	return Descriptor{}, fmt.Errorf("%w: the image index has no %s (it lists %s)", ErrNoMatch, strings.Join(names, " or "), listed)
}

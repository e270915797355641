package fuzz

import (
	"errors"
	"strings"
	"testing"

	"github.com/kobako/kobako/oci"
)

var ociManifestSeeds = []string{
	`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.kobako.zeroclaw.plugin.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[{"mediaType":"application/vnd.kobako.zeroclaw.plugin.manifest.v1+toml","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},{"mediaType":"application/wasm","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":8}]}`,
	`{"schemaVersion":2,"config":{"mediaType":"application/vnd.wasm.config.v0+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[{"mediaType":"application/wasm","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":8}]}`,
	`{"schemaVersion":2,"config":{"mediaType":"application/vnd.kobako.subako.package.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[{"mediaType":"application/vnd.kobako.subako.package.v1+zip","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":-1}]}`,
	`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":9,"platform":{"os":"wasip2","architecture":"wasm"}},{"artifactType":"application/vnd.kobako.zeroclaw.plugin.config.v1+json","mediaType":"x","digest":"sha256:00","size":1}]}`,
	`{"schemaVersion":2,"config":{"mediaType":"application/vnd.docker.container.image.v1+json"},"layers":[{}]}`,
}

// FuzzOCIManifest: the classification of registry manifest and index bytes never panics, and
// what it accepts is consistent: the layers its kind requires are there, each slot holds a layer
// of its media type with a well-formed sha256 digest and a size that is not negative, and every
// refusal is one of the package's sentinels.
func FuzzOCIManifest(f *testing.F) {
	for _, s := range ociManifestSeeds {
		f.Add("", []byte(s))
		f.Add("application/vnd.oci.image.index.v1+json", []byte(s))
	}
	sentinels := []error{oci.ErrManifest, oci.ErrUnknownMediaType, oci.ErrMissingLayer, oci.ErrNoMatch}
	known := func(err error) bool {
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return true
			}
		}
		return false
	}
	f.Fuzz(func(t *testing.T, mediaType string, data []byte) {
		if d, err := oci.SelectFromIndex(data, oci.KindPlugin, oci.KindWasm, oci.KindPackage); err != nil {
			if !known(err) {
				t.Fatalf("index: unexpected error class: %v", err)
			}
		} else if !strings.HasPrefix(d.Digest, "sha256:") || d.Size < 0 {
			t.Fatalf("index: selected a malformed descriptor %+v", d)
		}
		a, err := oci.Classify(mediaType, data)
		if err != nil {
			if !known(err) {
				t.Fatalf("manifest: unexpected error class: %v", err)
			}
			return
		}
		check := func(what string, d *oci.Descriptor, mediaType string) {
			if d == nil {
				return
			}
			if d.MediaType != mediaType || len(d.Digest) != len("sha256:")+64 || d.Size < 0 {
				t.Fatalf("%s layer %+v", what, d)
			}
		}
		check("manifest", a.Manifest, oci.MediaTypePluginManifest)
		check("wasm", a.Wasm, oci.MediaTypeWasm)
		check("skills", a.Skills, oci.MediaTypePluginSkills)
		check("package", a.Package, oci.MediaTypePackage)
		switch {
		case a.Kind == oci.KindPlugin && (a.Manifest == nil || a.Package != nil):
			t.Fatalf("a plugin %+v", a)
		case a.Kind == oci.KindWasm && (a.Wasm == nil || a.Manifest != nil || a.Skills != nil || a.Package != nil):
			t.Fatalf("a Wasm artifact %+v", a)
		case a.Kind == oci.KindPackage && (a.Package == nil || a.Manifest != nil || a.Wasm != nil || a.Skills != nil):
			t.Fatalf("a package %+v", a)
		}
	})
}

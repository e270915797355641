package oci_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kobako/kobako/oci"
)

// A plugin directory pushed to a registry, then resolved and pulled into a directory that
// zeroclaw.Host.InstallFrom installs (with the reference and digest as its origin).
func ExampleClient_PushPlugin() {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	dir, _ := os.MkdirTemp("", "plugin-")
	defer os.RemoveAll(dir)
	wasm, _ := os.ReadFile("../zeroclaw/runner/testdata/misbehave.wasm")
	os.WriteFile(filepath.Join(dir, "manifest.toml"), []byte("name = \"misbehave\"\nversion = \"0.1.0\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\"tool\"]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "plugin.wasm"), wasm, 0o644)

	// A local registry speaks plain HTTP, which must be allowed by name. Keychain: no credentials
	// (the default reads the Docker config file).
	c, err := oci.New(oci.Options{Insecure: []string{host}, Keychain: authn.NewMultiKeychain()})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ref := "oci://" + host + "/plugins/misbehave:0.1.0"
	digest, err := c.PushPlugin(ctx, ref, dir)
	if err != nil {
		log.Fatal(err)
	}
	r, err := c.Resolve(ctx, ref, oci.KindPlugin, oci.KindWasm)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Artifact.Kind, r.Digest == digest)

	work, _ := os.MkdirTemp("", "pull-")
	defer os.RemoveAll(work)
	pulled, err := c.PullPlugin(ctx, r, work, nil)
	if err != nil {
		log.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(pulled, "plugin.wasm"))
	fmt.Println(len(got) == len(wasm))
	// Output:
	// ZeroClaw plugin true
	// true
}

// An ABI 1 package zip pushed, then fetched into a cache by digest.
func ExampleClient_Package() {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c, _ := oci.New(oci.Options{Insecure: []string{host}, Keychain: authn.NewMultiKeychain()})
	ctx := context.Background()

	tmp, _ := os.MkdirTemp("", "pkg-")
	defer os.RemoveAll(tmp)
	zipPath := filepath.Join(tmp, "hello.zip")
	os.WriteFile(zipPath, []byte("PK\x05\x06"+strings.Repeat("\x00", 18)), 0o644) // an empty zip, for brevity
	digest, err := c.PushPackage(ctx, "oci://"+host+"/functions/hello:1", zipPath, "hello", 1)
	if err != nil {
		log.Fatal(err)
	}
	path, r, err := c.Package(ctx, "oci://"+host+"/functions/hello@"+digest, filepath.Join(tmp, "cache"))
	if err != nil {
		log.Fatal(err)
	}
	rel, _ := filepath.Rel(tmp, path)
	fmt.Println(r.Artifact.Kind)
	fmt.Println(filepath.ToSlash(filepath.Dir(rel)))
	// Output:
	// ABI 1 function package
	// cache/blobs/sha256
}

// Classify reads a manifest's bytes: here a CNCF Wasm OCI artifact, one component.
func ExampleClassify() {
	manifest := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
	 "config":{"mediaType":"application/vnd.wasm.config.v0+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},
	 "layers":[{"mediaType":"application/wasm","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2}]}`
	a, err := oci.Classify("application/vnd.oci.image.manifest.v1+json", []byte(manifest))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Kind, a.Wasm.MediaType, a.Manifest == nil)
	_, err = oci.Classify("", []byte(strings.Replace(manifest, "application/wasm", "application/x-tar", 1)))
	fmt.Println(err)
	// Output:
	// Wasm OCI artifact application/wasm true
	// unknown OCI media type: layer 0 (sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a) has media type "application/x-tar", which a Wasm OCI artifact does not hold
}

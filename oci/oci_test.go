package oci_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kobako/kobako/internal/ocitest"
	"github.com/kobako/kobako/oci"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/registry"
)

func TestMaxPackageBytesIsSubakos(t *testing.T) {
	if oci.MaxPackageBytes != subako.MaxPackageBytes {
		t.Fatalf("oci.MaxPackageBytes %d, subako.MaxPackageBytes %d", oci.MaxPackageBytes, subako.MaxPackageBytes)
	}
}

// toolPlugin writes a tool plugin (a real component of the tool-plugin world) into a new directory.
func toolPlugin(t *testing.T, version string) string {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "zeroclaw", "runner", "testdata", "misbehave.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "manifest.toml"), "name = \"misbehave\"\nversion = \""+version+"\"\nwasm_path = \"bin/plugin.wasm\"\ncapabilities = [\"tool\"]\n")
	write(t, filepath.Join(dir, "bin", "plugin.wasm"), string(wasm))
	return dir
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newClient(t *testing.T, reg *ocitest.Registry, o oci.Options) *oci.Client {
	t.Helper()
	if reg != nil && reg.Server.TLS == nil {
		o.Insecure = append(o.Insecure, reg.Host)
	}
	if o.Keychain == nil {
		ocitest.DockerConfig(t, "", "", "")
	}
	c, err := oci.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPluginRoundTrip(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{})
	ctx := context.Background()
	src := toolPlugin(t, "0.1.0")
	write(t, filepath.Join(src, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\nSay hello.\n")
	ref := reg.Ref("plugins/misbehave:0.1.0")
	digest, err := c.PushPlugin(ctx, ref, src)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.PushPlugin(ctx, ref, src)
	if err != nil || again != digest {
		t.Fatalf("pushing the same directory again gave %s, %v; want %s", again, err, digest)
	}
	for _, ref := range []string{ref, reg.Ref("plugins/misbehave@" + digest)} {
		r, err := c.Resolve(ctx, ref, oci.KindPlugin, oci.KindWasm)
		if err != nil {
			t.Fatal(err)
		}
		if r.Digest != digest || r.Artifact.Kind != oci.KindPlugin || r.Artifact.Skills != nil {
			t.Fatalf("resolved %+v (a tool plugin's skills are not pushed)", r)
		}
		dir, err := c.PullPlugin(ctx, r, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifest.toml", "bin/plugin.wasm"} {
			want, _ := os.ReadFile(filepath.Join(src, f))
			got, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: pulled %d bytes (%v), pushed %d", f, len(got), err, len(want))
			}
		}
	}
	if _, err := c.Resolve(ctx, ref, oci.KindPackage); !errors.Is(err, oci.ErrManifest) || !strings.Contains(err.Error(), "holds a ZeroClaw plugin, not a ABI 1 function package") {
		t.Errorf("a plugin resolved as a package: %v", err)
	}
}

func TestSkillsRoundTrip(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{})
	ctx := context.Background()
	src := t.TempDir()
	write(t, filepath.Join(src, "manifest.toml"), "name = \"skillful\"\nversion = \"1.0.0\"\ncapabilities = [\"skill\"]\n")
	write(t, filepath.Join(src, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\nSay hello.\n")
	ref := reg.Ref("skillful:1")
	if _, err := c.PushPlugin(ctx, ref, src); err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(ctx, ref, oci.KindPlugin)
	if err != nil || r.Artifact.Skills == nil || r.Artifact.Wasm != nil {
		t.Fatalf("%+v, %v", r, err)
	}
	dir, err := c.PullPlugin(ctx, r, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "skills", "greet", "SKILL.md")); err != nil || !strings.Contains(string(b), "Say hello.") {
		t.Fatalf("skill: %q, %v", b, err)
	}
}

// sparse makes path a file of size zero bytes that costs no disk.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	write(t, path, "")
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// TestPush_Errors: a push refuses a file that is not a regular file or is over its layer's cap
// by name, before anything is uploaded. A skill file over the cap is refused even though it
// deflates to a few bytes: it must not go in cut short.
func TestPush_Errors(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{})
	ctx := context.Background()
	pluginWith := func(manifestTail string) string {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "manifest.toml"), "name = \"p\"\nversion = \"1.0.0\"\n"+manifestTail)
		return dir
	}
	tests := []struct {
		name string
		push func(t *testing.T) error
		want error
		say  string
	}{
		{"wasm is a directory", func(t *testing.T) error {
			dir := pluginWith("wasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n")
			if err := os.Mkdir(filepath.Join(dir, "p.wasm"), 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := c.PushPlugin(ctx, reg.Ref("dir:1"), dir)
			return err
		}, nil, "p.wasm is a directory, not a regular file"},
		{"wasm over the cap", func(t *testing.T) error {
			dir := pluginWith("wasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n")
			sparse(t, filepath.Join(dir, "p.wasm"), zeroclaw.MaxWasmBytes+1)
			_, err := c.PushPlugin(ctx, reg.Ref("big:1"), dir)
			return err
		}, oci.ErrTooLarge, "p.wasm is too large: 268435457 bytes, larger than 268435456"},
		{"skill file over the cap", func(t *testing.T) error {
			dir := pluginWith("capabilities = [\"skill\"]\n")
			write(t, filepath.Join(dir, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\n")
			sparse(t, filepath.Join(dir, "skills", "greet", "zeros"), registry.MaxArchiveBytes+1)
			_, err := c.PushPlugin(ctx, reg.Ref("skills:1"), dir)
			return err
		}, oci.ErrTooLarge, "zeros is too large"},
		{"package is a directory", func(t *testing.T) error {
			_, err := c.PushPackage(ctx, reg.Ref("pkgdir:1"), t.TempDir(), "p", 1)
			return err
		}, nil, "is a directory, not a regular file"},
		{"package over the cap", func(t *testing.T) error {
			zip := filepath.Join(t.TempDir(), "p.zip")
			sparse(t, zip, oci.MaxPackageBytes+1)
			_, err := c.PushPackage(ctx, reg.Ref("pkgbig:1"), zip, "p", 1)
			return err
		}, oci.ErrTooLarge, "p.zip is too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.push(t)
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("got %v; want %v saying %q", err, tt.want, tt.say)
			}
		})
	}
}

// pushRaw pushes an artifact made of the given config media type and layers, as another tool
// would, and returns its reference by digest.
func pushRaw(t *testing.T, reg *ocitest.Registry, repo, configType string, layers ...v1.Layer) string {
	t.Helper()
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.MediaType(configType))
	var err error
	for _, l := range layers {
		if img, err = mutate.Append(img, mutate.Addendum{Layer: l}); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := name.ParseReference(reg.Host+"/"+repo, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	d, _ := img.Digest()
	return reg.Ref(strings.Split(repo, ":")[0] + "@" + d.String())
}

func TestWasmArtifact(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{})
	ctx := context.Background()
	wasm, _ := os.ReadFile(filepath.Join("..", "zeroclaw", "runner", "testdata", "misbehave.wasm"))
	ref := pushRaw(t, reg, "bare:1", oci.MediaTypeWasmConfig, static.NewLayer(wasm, oci.MediaTypeWasm))
	r, err := c.Resolve(ctx, ref, oci.KindPlugin, oci.KindWasm)
	if err != nil || r.Artifact.Kind != oci.KindWasm {
		t.Fatalf("%+v, %v", r, err)
	}
	if _, err := c.PullPlugin(ctx, r, t.TempDir(), nil); !errors.Is(err, oci.ErrMissingLayer) || !strings.Contains(err.Error(), "--manifest FILE") {
		t.Fatalf("a bare component without a manifest: %v", err)
	}
	dir, err := c.PullPlugin(ctx, r, t.TempDir(), []byte("name = \"bare\"\nversion = \"1.0.0\"\nwasm_path = \"bare.wasm\"\ncapabilities = [\"tool\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "bare.wasm")); !bytes.Equal(got, wasm) {
		t.Fatalf("component: %d bytes, want %d", len(got), len(wasm))
	}
}

func TestPullRefusals(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{})
	ctx := context.Background()
	manifestTOML := []byte("name = \"p\"\nversion = \"1.0.0\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n")
	big := bytes.Repeat([]byte("# padding\n"), manifest.MaxManifestBytes/10+1)
	tests := []struct {
		name     string
		ref      func() string
		sentinel error
		msg      string
	}{
		{"no manifest layer", func() string {
			return pushRaw(t, reg, "nomanifest:1", oci.MediaTypePluginConfig, static.NewLayer([]byte("\x00asm"), oci.MediaTypeWasm))
		}, oci.ErrMissingLayer, "has no application/vnd.kobako.zeroclaw.plugin.manifest.v1+toml layer"},
		{"no component layer", func() string {
			return pushRaw(t, reg, "nowasm:1", oci.MediaTypePluginConfig, static.NewLayer(manifestTOML, oci.MediaTypePluginManifest))
		}, oci.ErrMissingLayer, "wasm_path is p.wasm, but the artifact has no application/wasm layer"},
		{"unknown layer", func() string {
			return pushRaw(t, reg, "unknown:1", oci.MediaTypePluginConfig, static.NewLayer(manifestTOML, oci.MediaTypePluginManifest), static.NewLayer([]byte("x"), "application/x-mystery"))
		}, oci.ErrUnknownMediaType, `media type "application/x-mystery"`},
		{"container image", func() string {
			img, _ := random.Image(64, 1)
			ref, _ := name.ParseReference(reg.Host+"/image:1", name.Insecure)
			if err := remote.Write(ref, img); err != nil {
				t.Fatal(err)
			}
			return reg.Ref("image:1")
		}, oci.ErrUnknownMediaType, "is not a kobako artifact"},
		{"oversize manifest layer", func() string {
			return pushRaw(t, reg, "big:1", oci.MediaTypePluginConfig, static.NewLayer(big, oci.MediaTypePluginManifest))
		}, oci.ErrTooLarge, "more than 262144"},
		{"missing tag", func() string { return reg.Ref("nothing:here") }, oci.ErrRegistry, "no such repository, tag or digest"},
		{"index without a match", func() string {
			img, _ := random.Image(64, 1)
			ix := mutate.AppendManifests(empty.Index, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}})
			ref, _ := name.ParseReference(reg.Host+"/index:1", name.Insecure)
			if err := remote.WriteIndex(ref, ix); err != nil {
				t.Fatal(err)
			}
			return reg.Ref("index:1")
		}, oci.ErrNoMatch, "the image index has no ZeroClaw plugin or Wasm OCI artifact (it lists linux/amd64)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.ref()
			work := t.TempDir()
			r, err := c.Resolve(ctx, ref, oci.KindPlugin, oci.KindWasm)
			if err == nil {
				_, err = c.PullPlugin(ctx, r, work, nil)
			}
			if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v; want %v containing %q", err, tc.sentinel, tc.msg)
			}
		})
	}
}

func TestIndexWithArtifact(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{})
	wasm, _ := os.ReadFile(filepath.Join("..", "zeroclaw", "runner", "testdata", "misbehave.wasm"))
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), oci.MediaTypeWasmConfig)
	img, _ = mutate.Append(img, mutate.Addendum{Layer: static.NewLayer(wasm, oci.MediaTypeWasm)})
	other, _ := random.Image(64, 1)
	ix := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		mutate.IndexAddendum{Add: other, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
		mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "wasip2", Architecture: "wasm"}}})
	ref, _ := name.ParseReference(reg.Host+"/multi:1", name.Insecure)
	if err := remote.WriteIndex(ref, ix); err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(context.Background(), reg.Ref("multi:1"), oci.KindPlugin, oci.KindWasm)
	want, _ := img.Digest()
	if err != nil || r.Artifact.Kind != oci.KindWasm || r.Digest != want.String() {
		t.Fatalf("%+v, %v; want the wasm entry %s", r, err, want)
	}
}

func TestTamperedAndCutLayers(t *testing.T) {
	ctx := context.Background()
	for _, fault := range []string{"tamper", "cut"} {
		t.Run(fault, func(t *testing.T) {
			reg := ocitest.New(t, ocitest.Options{})
			c := newClient(t, reg, oci.Options{})
			ref := reg.Ref("p:1")
			if _, err := c.PushPlugin(ctx, ref, toolPlugin(t, "1.0.0")); err != nil {
				t.Fatal(err)
			}
			r, err := c.Resolve(ctx, ref, oci.KindPlugin)
			if err != nil {
				t.Fatal(err)
			}
			if fault == "tamper" {
				reg.Tamper(r.Artifact.Wasm.Digest)
			} else {
				reg.Cut(r.Artifact.Wasm.Digest)
			}
			work := t.TempDir()
			_, err = c.PullPlugin(ctx, r, work, nil)
			want := oci.ErrDigest
			if fault == "cut" {
				want = oci.ErrRegistry
			}
			if !errors.Is(err, want) || !strings.Contains(err.Error(), r.Artifact.Wasm.Digest) {
				t.Fatalf("got %v; want %v naming the layer", err, want)
			}
			if _, err := os.Stat(filepath.Join(work, "plugin", "bin", "plugin.wasm")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the partial component was left: %v", err)
			}
		})
	}
}

func TestPackageCache(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{})
	ctx := context.Background()
	zipPath := filepath.Join(t.TempDir(), "pkg.zip")
	write(t, zipPath, "PK\x05\x06"+strings.Repeat("\x00", 18)) // an empty zip: push checks nothing
	digest, err := c.PushPackage(ctx, reg.Ref("pkg:1"), zipPath, "pkg", 1)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	reg.Cut(mustResolve(t, c, reg.Ref("pkg:1")).Artifact.Package.Digest)
	if _, _, err := c.Package(ctx, reg.Ref("pkg:1"), cache); err == nil {
		t.Fatal("a cut download succeeded")
	}
	assertNoFiles(t, cache)

	reg2 := ocitest.New(t, ocitest.Options{})
	c2 := newClient(t, reg2, oci.Options{})
	if _, err := c2.PushPackage(ctx, reg2.Ref("pkg:1"), zipPath, "pkg", 1); err != nil {
		t.Fatal(err)
	}
	byDigest := reg2.Ref("pkg@" + digest)
	path, r, err := c2.Package(ctx, byDigest, cache)
	if err != nil || r.Digest != digest {
		t.Fatal(r, err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, []byte("PK\x05\x06"+strings.Repeat("\x00", 18))) {
		t.Fatalf("cached zip %q", b)
	}
	// A reference by digest is served from the cache once there: the registry is gone.
	reg2.Server.Close()
	again, _, err := c2.Package(ctx, byDigest, cache)
	if err != nil || again != path {
		t.Fatalf("from the cache: %s, %v", again, err)
	}
}

func mustResolve(t *testing.T, c *oci.Client, ref string) *oci.Resolved {
	t.Helper()
	r, err := c.Resolve(context.Background(), ref, oci.KindPackage)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// assertNoFiles fails when dir holds any regular file (directories may stay).
func assertNoFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

func TestPlainHTTPNeedsInsecure(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	ocitest.DockerConfig(t, "", "", "")
	strict, err := oci.New(oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = strict.Resolve(context.Background(), reg.Ref("x:1"), oci.KindPlugin)
	if !errors.Is(err, oci.ErrPlainHTTP) || !strings.Contains(err.Error(), "pass --insecure-registry "+reg.Host) {
		t.Fatalf("got %v", err)
	}
}

func TestTLSRegistry(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{TLS: true})
	ctx := context.Background()
	ocitest.DockerConfig(t, "", "", "")
	untrusting, _ := oci.New(oci.Options{})
	if _, err := untrusting.PushPlugin(ctx, reg.Ref("p:1"), toolPlugin(t, "1.0.0")); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a registry with an unknown certificate was trusted: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(reg.Server.Certificate())
	c := newClient(t, reg, oci.Options{RootCAs: pool})
	if _, err := c.PushPlugin(ctx, reg.Ref("p:1"), toolPlugin(t, "1.0.0")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(oci.EnvCAFile, reg.CertFile(t))
	viaEnv, err := oci.New(oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := viaEnv.Resolve(ctx, reg.Ref("p:1"), oci.KindPlugin); err != nil {
		t.Fatal(err)
	}
}

func TestBearerAuth(t *testing.T) {
	ctx := context.Background()
	reg := ocitest.New(t, ocitest.Options{Auth: &ocitest.Auth{User: "ada", Password: "s3cret", AnonymousPull: true}})
	src := toolPlugin(t, "1.0.0")
	anon := newClient(t, reg, oci.Options{})
	if _, err := anon.PushPlugin(ctx, reg.Ref("p:1"), src); !errors.Is(err, oci.ErrRegistry) || !strings.Contains(err.Error(), "docker login") {
		t.Fatalf("an anonymous push: %v", err)
	}
	ocitest.DockerConfig(t, reg.Host, "ada", "s3cret")
	authed, _ := oci.New(oci.Options{Insecure: []string{reg.Host}})
	if _, err := authed.PushPlugin(ctx, reg.Ref("p:1"), src); err != nil {
		t.Fatal(err)
	}
	ocitest.DockerConfig(t, "", "", "")
	anon, _ = oci.New(oci.Options{Insecure: []string{reg.Host}})
	r, err := anon.Resolve(ctx, reg.Ref("p:1"), oci.KindPlugin)
	if err != nil {
		t.Fatalf("an anonymous pull: %v", err)
	}
	if _, err := anon.PullPlugin(ctx, r, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	ocitest.DockerConfig(t, reg.Host, "ada", "wrong")
	wrong, _ := oci.New(oci.Options{Insecure: []string{reg.Host}})
	if _, err := wrong.Resolve(ctx, reg.Ref("p:1"), oci.KindPlugin); !errors.Is(err, oci.ErrRegistry) {
		t.Fatalf("wrong credentials: %v", err)
	}
}

func TestStalledRegistry(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{Timeout: 300 * time.Millisecond})
	reg.Stall()
	start := time.Now()
	_, err := c.Resolve(context.Background(), reg.Ref("p:1"), oci.KindPlugin)
	if !errors.Is(err, oci.ErrStalled) || !strings.Contains(err.Error(), "sent nothing for 300ms") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}

// TestStalledDownload: a registry that stops sending in the middle of a layer is cut after the
// silence timeout, with what arrived kept from being taken for the layer.
func TestStalledDownload(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	c := newClient(t, reg, oci.Options{Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	ref := reg.Ref("p:1")
	if _, err := c.PushPlugin(ctx, ref, toolPlugin(t, "1.0.0")); err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(ctx, ref, oci.KindPlugin)
	if err != nil {
		t.Fatal(err)
	}
	reg.Hang(r.Artifact.Wasm.Digest)
	var buf bytes.Buffer
	err = c.Layer(ctx, r, *r.Artifact.Wasm, 1<<30, &buf)
	if !errors.Is(err, oci.ErrStalled) || buf.Len() == 0 || buf.Len() >= int(r.Artifact.Wasm.Size) {
		t.Fatalf("got %v after %d of %d bytes", err, buf.Len(), r.Artifact.Wasm.Size)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kobako/kobako/internal/ocitest"
	"github.com/kobako/kobako/oci"
	"github.com/kobako/kobako/subako/example"
)

// ociSetup isolates the test (home, Docker config, cache, temporary directory) and returns the
// --config flag of a config file whose plugins directory is empty.
func ociSetup(t *testing.T) (cfg []string, pluginsDir, tmp string) {
	t.Helper()
	pluginIsolate(t)
	ocitest.DockerConfig(t, "", "", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(oci.EnvCAFile, "")
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	pluginsDir = filepath.Join(dir, "plugins")
	path := filepath.Join(dir, "config.toml")
	pluginWriteFile(t, path, "[plugins]\nplugins_dir = \""+filepath.ToSlash(pluginsDir)+"\"\n")
	return []string{"--config", path}, pluginsDir, tmp
}

// ociPluginDir writes a plugin around one of zeroclaw/runner's fixture components.
func ociPluginDir(t *testing.T, name, capability, fixture, version string) string {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("..", "..", "zeroclaw", "runner", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pluginWriteFile(t, filepath.Join(dir, "manifest.toml"), "name = \""+name+"\"\nversion = \""+version+"\"\nwasm_path = \"plugin.wasm\"\ncapabilities = [\""+capability+"\"]\n")
	pluginWriteFile(t, filepath.Join(dir, "plugin.wasm"), string(wasm))
	return dir
}

var digestRE = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

func TestPluginOCIRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, capability, fixture string }{
		{"misbehave", "tool", "misbehave.wasm"},
		{"echo-channel", "channel", "channel-v0.wasm"},
	} {
		t.Run(tc.capability, func(t *testing.T) {
			cfg, pluginsDir, tmp := ociSetup(t)
			reg := ocitest.New(t, ocitest.Options{})
			insecure := []string{"--insecure-registry", reg.Host}
			src := ociPluginDir(t, tc.name, tc.capability, tc.fixture, "0.1.0")
			ref := reg.Ref("plugins/" + tc.name + ":latest")

			r := runPluginCLI(t, append(append([]string{"push", src, ref}, insecure...), cfg...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "Pushed "+tc.name+" v0.1.0 to "+ref+"\nDigest: sha256:") {
				t.Fatalf("push: %+v", r)
			}
			first := digestRE.FindString(r.stdout)

			r = runPluginCLI(t, append(append([]string{"install", ref}, insecure...), cfg...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "Installed "+tc.name+" v0.1.0 into ") {
				t.Fatalf("install: %+v", r)
			}
			r = runPluginCLI(t, append([]string{"info", tc.name}, cfg...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "Source:       "+ref+"\nDigest:       "+first+"\n") {
				t.Fatalf("info: %+v", r)
			}
			if tc.capability == "tool" {
				r = runPluginCLI(t, append([]string{"call", tc.name, `{"mode":"echo"}`}, cfg...)...)
				if r.code != 0 || !strings.Contains(r.stdout, `"success":true`) {
					t.Fatalf("call: %+v", r)
				}
			}

			r = runPluginCLI(t, append(append([]string{"install", ref}, insecure...), cfg...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "is up to date with "+ref+" ("+first+"); nothing to do") {
				t.Fatalf("install of the same digest: %+v", r)
			}

			pluginWriteFile(t, filepath.Join(src, "manifest.toml"), strings.Replace(mustRead(t, filepath.Join(src, "manifest.toml")), "0.1.0", "0.2.0", 1))
			if r = runPluginCLI(t, append(append([]string{"push", src, ref}, insecure...), cfg...)...); r.code != 0 {
				t.Fatalf("push 0.2.0: %+v", r)
			}
			second := digestRE.FindString(r.stdout)
			r = runPluginCLI(t, append(append([]string{"install", ref}, insecure...), cfg...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "Updated "+tc.name+" v0.2.0 into ") {
				t.Fatalf("install of a changed digest: %+v", r)
			}
			r = runPluginCLI(t, append([]string{"info", tc.name, "--json"}, cfg...)...)
			var info struct {
				Version string `json:"version"`
				Origin  struct{ Source, Digest string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || info.Version != "0.2.0" || info.Origin.Source != ref || info.Origin.Digest != second {
				t.Fatalf("info --json after the update: %+v (%v)\n%s", info, err, r.stdout)
			}

			// Pinned: the first digest, into a second plugins directory.
			cfg2, _, _ := ociSetup(t)
			pinned := reg.Ref("plugins/" + tc.name + "@" + first)
			r = runPluginCLI(t, append(append([]string{"install", pinned}, insecure...), cfg2...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "Installed "+tc.name+" v0.1.0") {
				t.Fatalf("install by digest: %+v", r)
			}
			wrong := reg.Ref("plugins/" + tc.name + "@sha256:" + strings.Repeat("0", 64))
			r = runPluginCLI(t, append(append([]string{"install", wrong}, insecure...), cfg2...)...)
			if r.code != 1 || !strings.Contains(r.stderr, "no such repository, tag or digest") {
				t.Fatalf("install of an unknown digest: %+v", r)
			}
			assertNoLeftovers(t, pluginsDir, tmp)
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertNoLeftovers fails when the plugins directory holds anything but plugins and the lock, or
// the temporary directory holds anything at all.
func assertNoLeftovers(t *testing.T, pluginsDir, tmp string) {
	t.Helper()
	entries, _ := os.ReadDir(pluginsDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".kobako-") && e.Name() != ".kobako.lock" {
			t.Errorf("left in the plugins directory: %s", e.Name())
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("left in the temporary directory: %v", entries)
	}
}

// TestPluginOCIRefusals: everything a local install checks still holds for an OCI install, and a
// layer that is not what its manifest says is refused; nothing is left installed either way.
func TestPluginOCIRefusals(t *testing.T) {
	toolWasm, _ := os.ReadFile(filepath.Join("..", "..", "zeroclaw", "runner", "testdata", "misbehave.wasm"))
	tests := []struct {
		name  string
		setup func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (ref string, extra []string)
		msg   []string
	}{
		{"tampered layer", func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (string, []string) {
			ref := reg.Ref("p:1")
			ociPush(t, c, ref, ociPluginDir(t, "p", "tool", "misbehave.wasm", "1.0.0"))
			reg.Tamper(ociLayer(t, c, ref).Wasm.Digest)
			return ref, nil
		}, []string{"OCI layer digest mismatch", "(application/wasm)", "the bytes have digest sha256:"}},
		{"interrupted pull", func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (string, []string) {
			ref := reg.Ref("p:1")
			ociPush(t, c, ref, ociPluginDir(t, "p", "tool", "misbehave.wasm", "1.0.0"))
			reg.Cut(ociLayer(t, c, ref).Wasm.Digest)
			return ref, nil
		}, []string{"reading layer sha256:", "unexpected EOF"}},
		{"unsigned under strict", func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (string, []string) {
			ref := reg.Ref("p:1")
			ociPush(t, c, ref, ociPluginDir(t, "p", "tool", "misbehave.wasm", "1.0.0"))
			return ref, []string{"--signature-mode", "strict"}
		}, []string{"unsigned"}},
		{"wasm_sha256 pin", func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (string, []string) {
			src := ociPluginDir(t, "p", "tool", "misbehave.wasm", "1.0.0")
			pluginWriteFile(t, filepath.Join(src, "manifest.toml"), "wasm_sha256 = \""+strings.Repeat("ab", 32)+"\"\n"+mustRead(t, filepath.Join(src, "manifest.toml")))
			ref := reg.Ref("p:1")
			ociPush(t, c, ref, src)
			return ref, nil
		}, []string{"but the manifest's wasm_sha256 pins abab"}},
		{"not the declared world", func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (string, []string) {
			ref := reg.Ref("p:1")
			ociPush(t, c, ref, ociPluginDir(t, "p", "tool", "channel-v0.wasm", "1.0.0"))
			return ref, nil
		}, []string{"zeroclaw:plugin/tool@0.1.0"}},
		{"bare component without --manifest", func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (string, []string) {
			return ociPushWasm(t, reg, "bare:1", toolWasm), nil
		}, []string{"a Wasm OCI artifact holds a component alone", "--manifest FILE"}},
		{"stalled registry", func(t *testing.T, reg *ocitest.Registry, c *oci.Client) (string, []string) {
			reg.Stall()
			return reg.Ref("p:1"), []string{"--registry-timeout", "300ms"}
		}, []string{"sent nothing for 300ms", "--registry-timeout"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, pluginsDir, tmp := ociSetup(t)
			reg := ocitest.New(t, ocitest.Options{})
			c, err := oci.New(oci.Options{Insecure: []string{reg.Host}})
			if err != nil {
				t.Fatal(err)
			}
			ref, extra := tc.setup(t, reg, c)
			args := append(append([]string{"install", ref, "--insecure-registry", reg.Host}, extra...), cfg...)
			r := runPluginCLI(t, args...)
			if r.code != 1 {
				t.Fatalf("exit %d: %+v", r.code, r)
			}
			for _, m := range tc.msg {
				if !strings.Contains(r.stderr, m) {
					t.Errorf("stderr lacks %q:\n%s", m, r.stderr)
				}
			}
			entries, _ := os.ReadDir(pluginsDir)
			for _, e := range entries {
				if e.Name() != ".kobako.lock" {
					t.Errorf("left in the plugins directory: %s", e.Name())
				}
			}
			assertNoLeftovers(t, pluginsDir, tmp)
		})
	}
}

func ociPush(t *testing.T, c *oci.Client, ref, dir string) string {
	t.Helper()
	d, err := c.PushPlugin(context.Background(), ref, dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ociLayer(t *testing.T, c *oci.Client, ref string) *oci.Artifact {
	t.Helper()
	r, err := c.Resolve(context.Background(), ref, oci.KindPlugin)
	if err != nil {
		t.Fatal(err)
	}
	return r.Artifact
}

// ociPushWasm pushes a CNCF Wasm OCI artifact (config application/vnd.wasm.config.v0+json, one
// application/wasm layer), as wkg does.
func ociPushWasm(t *testing.T, reg *ocitest.Registry, repo string, wasm []byte) string {
	t.Helper()
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), oci.MediaTypeWasmConfig)
	img, err := mutate.Append(img, mutate.Addendum{Layer: static.NewLayer(wasm, oci.MediaTypeWasm)})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(reg.Host+"/"+repo, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	return reg.Ref(repo)
}

func TestPluginOCIBareWasm(t *testing.T) {
	cfg, _, _ := ociSetup(t)
	reg := ocitest.New(t, ocitest.Options{})
	wasm, _ := os.ReadFile(filepath.Join("..", "..", "zeroclaw", "runner", "testdata", "misbehave.wasm"))
	ref := ociPushWasm(t, reg, "tools/misbehave:1", wasm)
	mf := filepath.Join(t.TempDir(), "manifest.toml")
	pluginWriteFile(t, mf, "name = \"bare-tool\"\nversion = \"1.0.0\"\nwasm_path = \"tool.wasm\"\ncapabilities = [\"tool\"]\n")
	r := runPluginCLI(t, append([]string{"install", ref, "--manifest", mf, "--insecure-registry", reg.Host}, cfg...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "Installed bare-tool v1.0.0") {
		t.Fatalf("install: %+v", r)
	}
	r = runPluginCLI(t, append([]string{"call", "bare-tool", `{"mode":"echo"}`}, cfg...)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"success":true`) {
		t.Fatalf("call: %+v", r)
	}
	r = runPluginCLI(t, append([]string{"install", "./somewhere", "--manifest", mf}, cfg...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "--manifest applies to an oci:// source only") {
		t.Fatalf("--manifest with a local source: %+v", r)
	}
}

func TestPluginOCIRegistries(t *testing.T) {
	t.Run("plain HTTP needs --insecure-registry", func(t *testing.T) {
		cfg, _, _ := ociSetup(t)
		reg := ocitest.New(t, ocitest.Options{})
		src := ociPluginDir(t, "p", "tool", "misbehave.wasm", "1.0.0")
		r := runPluginCLI(t, append([]string{"push", src, reg.Ref("p:1")}, cfg...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "speaks plain HTTP (no TLS); kobako uses it only when told to: pass --insecure-registry "+reg.Host) {
			t.Fatalf("push: %+v", r)
		}
		r = runPluginCLI(t, append([]string{"install", reg.Ref("p:1")}, cfg...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "pass --insecure-registry "+reg.Host) {
			t.Fatalf("install: %+v", r)
		}
	})
	t.Run("TLS with a CA file and bearer auth from the Docker config", func(t *testing.T) {
		cfg, _, _ := ociSetup(t)
		reg := ocitest.New(t, ocitest.Options{TLS: true, Auth: &ocitest.Auth{User: "ada", Password: "pw"}})
		src := ociPluginDir(t, "p", "tool", "misbehave.wasm", "1.0.0")
		r := runPluginCLI(t, append([]string{"push", src, reg.Ref("p:1")}, cfg...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "certificate") {
			t.Fatalf("push to an untrusted certificate: %+v", r)
		}
		t.Setenv(oci.EnvCAFile, reg.CertFile(t))
		r = runPluginCLI(t, append([]string{"push", src, reg.Ref("p:1")}, cfg...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "UNAUTHORIZED") || !strings.Contains(r.stderr, "docker login") {
			t.Fatalf("push without credentials: %+v", r)
		}
		ocitest.DockerConfig(t, reg.Host, "ada", "pw")
		if r = runPluginCLI(t, append([]string{"push", src, reg.Ref("p:1")}, cfg...)...); r.code != 0 {
			t.Fatalf("push with credentials: %+v", r)
		}
		if r = runPluginCLI(t, append([]string{"install", reg.Ref("p:1")}, cfg...)...); r.code != 0 {
			t.Fatalf("install with credentials: %+v", r)
		}
	})
}

func TestFunctionOCI(t *testing.T) {
	ociSetup(t)
	cache := os.Getenv("XDG_CACHE_HOME")
	reg := ocitest.New(t, ocitest.Options{})
	pkg := t.TempDir()
	if err := os.CopyFS(pkg, example.FS()); err != nil {
		t.Fatal(err)
	}
	ref := reg.Ref("functions/hello:1")
	code, out, errOut := runFunction(t, "push", pkg, ref, "--insecure-registry", reg.Host)
	if code != 0 || !strings.Contains(out, "pushed hello to "+ref+"\ndigest: sha256:") {
		t.Fatalf("push: %d %q %q", code, out, errOut)
	}
	digest := digestRE.FindString(out)
	code, out, errOut = runFunction(t, "call", ref, "greet", `{"name":"Ada"}`, "--insecure-registry", reg.Host)
	if code != 0 || !strings.Contains(out, "Hello, Ada!") {
		t.Fatalf("call: %d %q %q", code, out, errOut)
	}
	code, out, errOut = runFunction(t, "tools", ref, "--insecure-registry", reg.Host)
	if code != 0 || !strings.Contains(out, `"name": "greet"`) {
		t.Fatalf("tools: %d %q %q", code, out, errOut)
	}
	blobs, _ := filepath.Glob(filepath.Join(cache, "kobako", "oci", "blobs", "sha256", "*.zip"))
	if len(blobs) != 1 {
		t.Fatalf("cache: %v", blobs)
	}
	// By digest, from the cache: the registry is no longer needed.
	reg.Server.Close()
	pinned := reg.Ref("functions/hello@" + digest)
	code, out, errOut = runFunction(t, "validate", pinned, "--insecure-registry", reg.Host)
	if code != 0 || !strings.Contains(out, "ok: hello (ABI 1): 1 tools: greet") {
		t.Fatalf("validate by digest from the cache: %d %q %q", code, out, errOut)
	}
	var stdout, stderr bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello__greet","arguments":{"name":"Grace"}}}` + "\n")
	if code := mcpCommand(context.Background(), []string{"--no-plugins", pinned}, in, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Hello, Grace!") {
		t.Fatalf("mcp: %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	// The same reference as a [[mcp.packages]] path of the config file, which is not a file
	// relative to the config's directory.
	cfgFile := filepath.Join(t.TempDir(), "config.toml")
	pluginWriteFile(t, cfgFile, "[mcp]\n[[mcp.packages]]\npath = \""+pinned+"\"\nname = \"oci\"\n")
	stdout.Reset()
	stderr.Reset()
	in = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"oci__greet","arguments":{"name":"Lin"}}}` + "\n")
	if code := mcpCommand(context.Background(), []string{"--no-plugins", "--config", cfgFile, "--insecure-registry", reg.Host}, in, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Hello, Lin!") {
		t.Fatalf("mcp with the reference in its config: %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	code, _, errOut = runFunction(t, "tools", "oci://nohost", "--insecure-registry", reg.Host)
	if code != 2 || !strings.Contains(errOut, "want oci://REGISTRY/REPOSITORY") {
		t.Fatalf("a malformed reference: %d %q", code, errOut)
	}
}

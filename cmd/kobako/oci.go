package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/oci"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// registryFlags are the flags of every command that takes an oci:// reference.
type registryFlags struct {
	insecure listFlag
	timeout  time.Duration
}

// addRegistryFlags registers --insecure-registry and --registry-timeout on fs.
func addRegistryFlags(fs *flag.FlagSet) *registryFlags {
	r := &registryFlags{}
	fs.Var(&r.insecure, "insecure-registry", "reach the OCI registry `HOST[:PORT]` over plain HTTP, without TLS (repeatable; for a local registry)")
	fs.DurationVar(&r.timeout, "registry-timeout", oci.DefaultTimeout, "how long an OCI registry may stay silent (connecting, answering, mid-download) before kobako gives up, a `DURATION`")
	return r
}

// registryFlagsOf reads back the flags addRegistryFlags registered on fs.
func registryFlagsOf(fs *flag.FlagSet) *registryFlags {
	r := &registryFlags{}
	if f := fs.Lookup("insecure-registry"); f != nil {
		r.insecure = *f.Value.(*listFlag)
	}
	if f := fs.Lookup("registry-timeout"); f != nil {
		r.timeout = f.Value.(flag.Getter).Get().(time.Duration)
	}
	return r
}

func (r *registryFlags) client() (*oci.Client, error) {
	if r.timeout <= 0 {
		return nil, fmt.Errorf("--registry-timeout must be positive, not %v", r.timeout)
	}
	return oci.New(oci.Options{Insecure: r.insecure, Timeout: r.timeout, UserAgent: "kobako/" + version()})
}

// registryHelp is the part of the help of commands taking oci:// references that says how
// registries are reached.
const registryHelp = `An oci://REGISTRY/REPOSITORY[:TAG|@sha256:DIGEST] reference is pulled from an OCI registry.
Credentials come from the Docker config file (~/.docker/config.json, or $DOCKER_CONFIG/config.json)
and its credential helpers, as docker login leaves them; without any, pulls are anonymous. Registries
must speak HTTPS unless named with --insecure-registry; $KOBAKO_REGISTRY_CA_FILE names PEM
certificates to trust besides the system's (a private registry's CA).`

// resolvePackageArg turns an oci:// package reference into the path of its cached package zip
// (see oci.Client.Package); any other argument is returned as it is. It returns the exit status
// to return now on failure (having reported it), else -1.
func resolvePackageArg(ctx context.Context, pkg string, reg *registryFlags, stderr io.Writer) (string, int) {
	if !oci.IsRef(pkg) {
		return pkg, -1
	}
	path, err := pullPackage(ctx, pkg, reg)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "error: %s: interrupted\n", pkg)
			return "", exitInterrupted
		}
		fmt.Fprintf(stderr, "error: %v\n", err)
		if errors.Is(err, oci.ErrReference) {
			return "", exitUsage
		}
		return "", exitError
	}
	return path, -1
}

func pullPackage(ctx context.Context, ref string, reg *registryFlags) (string, error) {
	c, err := reg.client()
	if err != nil {
		return "", err
	}
	dir, err := oci.DefaultCacheDir()
	if err != nil {
		return "", err
	}
	path, _, err := c.Package(ctx, ref, dir)
	return path, err
}

const functionPushUsage = `Usage: kobako function push [flags] PKG oci://REGISTRY/REPOSITORY:TAG

Checks the package PKG (a directory, zipped as pack zips it, or a package zip) as an upload is
checked, pushes it as an ABI 1 package artifact (config ` + oci.MediaTypePackageConfig + `,
one ` + oci.MediaTypePackage + ` layer: the zip) and prints its digest. function call, tools and
validate and kobako mcp take the reference in place of PKG.

` + registryHelp + `
`

func functionPush(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("kobako function push", functionPushUsage, stdout, stderr)
	reg := addRegistryFlags(c.FlagSet)
	asJSON := c.Bool("json", false, "print the result as one JSON object")
	pos, code := c.parse(args, true)
	if code >= 0 {
		return code
	}
	if len(pos) != 2 {
		return c.usageErr("want PKG and an oci:// reference, got %d arguments", len(pos))
	}
	pkg, ref := pos[0], pos[1]
	if _, err := oci.ParseRef(ref); err != nil {
		return c.usageErr("%v", err)
	}
	client, err := reg.client()
	if err != nil {
		return c.usageErr("%v", err)
	}
	rt, err := subako.New(ctx, subako.Config{})
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defer rt.Close(ctx)
	p, err := rt.Load(ctx, pkg)
	if err != nil {
		fmt.Fprintf(stderr, "error: %s: %v\n", pkg, err)
		return exitError
	}
	p.Close()
	zipPath := pkg
	if fi, err := os.Stat(pkg); err == nil && fi.IsDir() {
		names, err := packageFiles(pkg)
		if err != nil {
			fmt.Fprintf(stderr, "error: %s: %v\n", pkg, err)
			return exitError
		}
		tmp, err := os.CreateTemp("", "kobako-push-*.zip")
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return exitError
		}
		defer os.Remove(tmp.Name())
		err = writePackageZip(pkg, names, tmp)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "error: %s: %v\n", pkg, err)
			return exitError
		}
		zipPath = tmp.Name()
	}
	digest, err := client.PushPackage(ctx, ref, zipPath, p.Manifest.Name, p.Manifest.ABI)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "error: interrupted\n")
			return exitInterrupted
		}
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	canonical, _ := oci.ParseRef(ref)
	if *asJSON {
		b, _ := json.Marshal(map[string]any{"name": p.Manifest.Name, "reference": canonical, "digest": digest})
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "pushed %s to %s\ndigest: %s\n", p.Manifest.Name, canonical, digest)
	return 0
}

// pluginOCIFlags are install's and update's flags for oci:// sources.
func pluginOCIFlags(fs *flag.FlagSet) {
	addRegistryFlags(fs)
	fs.String("manifest", "", "the plugin's manifest.toml `FILE`, for an oci:// Wasm OCI artifact (a component alone)")
}

// pluginInstallOCI installs or updates a plugin from an OCI registry: resolved first, so that a
// plugin installed from the same reference is left alone when its digest is unchanged and updated
// when it changed; pulled into a temporary directory that is always removed; installed from there
// through the install every source takes, recording the reference and digest.
func pluginInstallOCI(e *pluginEnv, fs *flag.FlagSet, ref string, update bool) error {
	if _, err := oci.ParseRef(ref); err != nil {
		return pluginUsageErrorf("%v", err)
	}
	var manifestTOML []byte
	if mf := fs.Lookup("manifest").Value.String(); mf != "" {
		fi, err := os.Stat(mf)
		if err != nil {
			return pluginUsageErrorf("--manifest: %v", err)
		}
		if !fi.Mode().IsRegular() {
			return pluginUsageErrorf("--manifest: %s is not a regular file (a %s)", mf, boundedfile.Kind(fi.Mode()))
		}
		if manifestTOML, err = manifest.ReadCapped(mf, manifest.MaxManifestBytes); err != nil {
			return fmt.Errorf("--manifest: %w", err)
		}
	}
	client, err := registryFlagsOf(fs).client()
	if err != nil {
		return pluginUsageErrorf("%v", err)
	}
	h, _, cfgPath, opts, err := e.openHost()
	if err != nil {
		return err
	}
	if !e.json {
		fmt.Fprintf(e.stderr, "Resolving %s...\n", ref)
	}
	r, err := client.Resolve(e.ctx, ref, oci.KindPlugin, oci.KindWasm)
	if err != nil {
		return err
	}
	prev, found := h.FindOrigin(r.Ref)
	if found && prev.Origin.Digest == r.Digest {
		if e.json {
			return e.writeJSON(map[string]any{"installed": prev.Describe(opts.TrustedKeys), "unchanged": true})
		}
		fmt.Fprintf(e.stdout, "%s v%s is up to date with %s (%s); nothing to do\n", prev.Name(), prev.Manifest.Version, r.Ref, r.Digest)
		return nil
	}
	if !e.json {
		fmt.Fprintf(e.stderr, "Pulling %s (%s, %s)...\n", r.Ref, r.Artifact.Kind, r.Digest)
	}
	work, err := os.MkdirTemp("", "kobako-oci-")
	if err != nil {
		return fmt.Errorf("%w: %v", zeroclaw.ErrInstall, err)
	}
	defer os.RemoveAll(work)
	dir, err := client.PullPlugin(e.ctx, r, work, manifestTOML)
	if err != nil {
		return err
	}
	replace := update || found
	p, err := h.InstallFrom(dir, zeroclaw.Origin{Source: r.Ref, Digest: r.Digest}, replace)
	if err != nil {
		return err
	}
	verb := "Installed"
	if replace {
		verb = "Updated"
	}
	return pluginReportInstall(e, &zeroclaw.InstallResult{Plugin: p}, cfgPath, opts, verb)
}

func pluginPush(e *pluginEnv, fs *flag.FlagSet, args []string) error {
	if err := pluginWantArgs(args, 2, "a plugin DIR and an oci:// reference"); err != nil {
		return err
	}
	dir, ref := args[0], args[1]
	canonical, err := oci.ParseRef(ref)
	if err != nil {
		return pluginUsageErrorf("%v", err)
	}
	client, err := registryFlagsOf(fs).client()
	if err != nil {
		return pluginUsageErrorf("%v", err)
	}
	_, _, opts, err := e.hostConfig()
	if err != nil {
		return err
	}
	// The checks an install makes: pushing what no install would take helps nobody.
	p, err := zeroclaw.Inspect(dir, opts)
	if err != nil {
		return err
	}
	digest, err := client.PushPlugin(e.ctx, ref, p.Dir)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(map[string]string{"name": p.Name(), "version": p.Manifest.Version, "reference": canonical, "digest": digest})
	}
	fmt.Fprintf(e.stdout, "Pushed %s v%s to %s\nDigest: %s\n", p.Name(), p.Manifest.Version, canonical, digest)
	fmt.Fprintf(e.stdout, "Install it with: kobako plugin install %s@%s\n", canonical[:len(canonical)-len(tagOf(canonical))], digest)
	return nil
}

// tagOf returns the ":TAG" suffix of a canonical tag reference, or "".
func tagOf(ref string) string {
	for i := len(ref) - 1; i >= 0 && ref[i] != '/'; i-- {
		if ref[i] == ':' {
			return ref[i:]
		}
	}
	return ""
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kobako/kobako/mcpserve"
	"github.com/kobako/kobako/subako"
	"github.com/kobako/kobako/zeroclaw"
)

const mcpUsage = `Usage: kobako mcp [flags] [PKG | NAME=PKG | =PKG]...

Serves the tools of ABI 1 packages (given here and in [[mcp.packages]] of the config file) and of the
installed ZeroClaw tool plugins to MCP clients, as one list: stdio by default, Streamable HTTP at
/mcp with --http. Tools are named SOURCE__TOOL (NAME, else the package's manifest name, or the plugin's
name); =PKG lists a package's tools under their own names. Both protocol eras are served: the
initialize handshake (2025-11-25) and the stateless 2026-07-28 revision (server/discover). Logs go
to stderr. PKG "example" is the embedded example package.
`

// mcpCommand runs `kobako mcp`.
func mcpCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := newCommand("kobako mcp", mcpUsage, stdout, stderr)
	configFile := fset.String("config", "", "kobako config `file` (default $KOBAKO_CONFIG or ~/.kobako/config.toml)")
	pluginsDir := fset.String("plugins-dir", "", "plugins `directory` (default from the config, else ~/.kobako/plugins)")
	noPlugins := fset.Bool("no-plugins", false, "do not serve the installed ZeroClaw tool plugins")
	sigMode := fset.String("signature-mode", "", "plugin signature `mode`: disabled, permissive or strict (default from the config)")
	var trusted pluginStrings
	fset.Var(&trusted, "trusted-key", "trust a plugin publisher key given in `hex` (repeatable)")
	httpAddr := fset.String("http", "", "serve Streamable HTTP at `ADDR` (host:port, or :port / port for 127.0.0.1) instead of stdio")
	var httpHosts, httpOrigins, hosts listFlag
	fset.Var(&httpHosts, "http-host", "also accept requests whose Host header names `NAME` (repeatable; default localhost, 127.0.0.1, ::1)")
	fset.Var(&httpOrigins, "http-origin", "also accept browser requests from `ORIGIN` (repeatable)")
	tokenFile := fset.String("token-file", "", "require the bearer token held in `FILE` on HTTP requests")
	maxBody := sizeFlag(mcpserve.DefaultMaxBodyBytes)
	fset.Var(&maxBody, "max-body", "largest HTTP request body (e.g. 4MiB)")
	fset.Var(&hosts, "allow-host", "let packages' subako_http reach hosts matching `PATTERN` (repeatable; replaces [mcp] allow_hosts)")
	volume := fset.String("volume", "", "host `directory` mounted at /volume/tmp for the packages named on the command line")
	data := fset.String("data", "", "host `directory` mounted at /volume/data for the packages named on the command line")
	limits := subako.DefaultCallLimits()
	timeout := fset.Duration("timeout", limits.Deadline, "wall-clock deadline of a package call")
	fuel := fset.Uint64("fuel", limits.Fuel, "fuel of a package call, in wasm instructions")
	maxMem := sizeFlag(limits.MemoryBytes)
	fset.Var(&maxMem, "max-memory", "largest memory of a package call (e.g. 256MiB)")
	budget := sizeFlag(subako.DefaultWriteBudget)
	fset.Var(&budget, "write-budget", "bytes a package call may write to files (e.g. 64MiB)")
	watch := fset.Bool("watch", false, "reload when the plugins directory or a package changes, and tell clients")
	logLevel := fset.String("log-level", "info", "log `level`: debug, info, warn or error")
	pos, code := fset.parse(args, true)
	if code >= 0 {
		return code
	}
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fset.usageErr("--log-level: %v", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	cfgPath, err := zeroclaw.ConfigPath(*configFile)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	if *configFile != "" {
		if _, err := os.Stat(cfgPath); err != nil {
			return fset.usageErr("--config: %v", err)
		}
	}
	mcfg, err := mcpserve.LoadConfig(cfgPath)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defaults := mcfg.Defaults()
	if set["timeout"] {
		defaults.Limits.Deadline = *timeout
	}
	if set["fuel"] {
		defaults.Limits.Fuel = *fuel
	}
	if set["max-memory"] {
		defaults.Limits.MemoryBytes = uint64(maxMem)
	}
	if set["write-budget"] {
		defaults.WriteBudget = int64(budget)
	}
	if set["allow-host"] {
		defaults.AllowHosts = hosts
	}
	var specs []mcpserve.PackageSpec
	for _, a := range pos {
		name, path, bare := splitNamedPackage(a)
		spec, err := mcpserve.NewPackageSpec(name, path, subako.CallOptions{Limits: defaults.Limits, WriteBudget: defaults.WriteBudget, Volume: *volume, Data: *data}, defaults.AllowHosts, nil)
		if err != nil {
			return fset.usageErr("%v", err)
		}
		spec.NoPrefix = bare
		specs = append(specs, spec)
	}
	for _, p := range mcfg.Packages {
		spec, err := p.Spec(defaults)
		if err != nil {
			fmt.Fprintf(stderr, "error: %s: %v\n", cfgPath, err)
			return exitError
		}
		specs = append(specs, spec)
	}

	opts := mcpserve.Options{Packages: specs, Version: version(), Logger: log, ListChanged: *watch || mcfg.Watch}
	if !*noPlugins && mcfg.ServePlugins() {
		// The plugins run as `kobako plugin call` finds them: the same config file, plugins
		// directory and signature policy.
		pe := &pluginEnv{ctx: ctx, stdout: stderr, stderr: stderr, config: *configFile, pluginsDir: *pluginsDir, signatureMode: *sigMode, trustedKeys: trusted}
		hcfg, _, hopts, err := pe.hostConfig()
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return exitError
		}
		opts.Plugins = mcpserve.ZeroClawPlugins(mcpserve.ZeroClawOptions{Host: hopts, Config: &hcfg.Plugins, Log: log.Handler()})
	}
	srv, err := mcpserve.New(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defer srv.Close(context.Background())
	tools := srv.Tools()
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	log.Info("serving tools", "count", len(tools), "tools", strings.Join(names, ","))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if *watch || mcfg.Watch {
		go srv.Watch(ctx, 0)
	}

	addr := *httpAddr
	if addr == "" {
		err := srv.ServeStdio(ctx, io.NopCloser(stdin), nopWriteCloser{stdout})
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return exitError
		}
		return 0
	}
	hopts := mcpserve.HTTPOptions{MaxBodyBytes: int64(maxBody), AllowedOrigins: append(mcfg.HTTP.AllowedOrigins, httpOrigins...)}
	if !set["max-body"] && mcfg.HTTP.MaxBodyBytes > 0 {
		hopts.MaxBodyBytes = mcfg.HTTP.MaxBodyBytes
	}
	if len(httpHosts) > 0 || len(mcfg.HTTP.AllowedHosts) > 0 {
		hopts.AllowedHosts = append([]string{"localhost", "127.0.0.1", "::1"}, append(mcfg.HTTP.AllowedHosts, httpHosts...)...)
	}
	tf := *tokenFile
	if tf == "" {
		tf = mcfg.HTTP.TokenFile
	}
	if tf != "" {
		b, err := os.ReadFile(tf)
		if err != nil {
			fmt.Fprintf(stderr, "error: --token-file: %v\n", err)
			return exitUsage
		}
		hopts.Token = strings.TrimSpace(string(b))
		if hopts.Token == "" {
			fmt.Fprintf(stderr, "error: --token-file: %s is empty\n", tf)
			return exitUsage
		}
	}
	return serveHTTP(ctx, srv, hopts, listenAddr(addr), log, stderr)
}

// listenAddr gives an address without a host (":8765" or "8765") the loopback host, so that the
// server is not reachable from the network unless asked for explicitly.
func listenAddr(a string) string {
	if !strings.Contains(a, ":") {
		a = ":" + a
	}
	if strings.HasPrefix(a, ":") {
		return "127.0.0.1" + a
	}
	return a
}

func serveHTTP(ctx context.Context, srv *mcpserve.Server, opts mcpserve.HTTPOptions, addr string, log *slog.Logger, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "error: --http: %v\n", err)
		return exitError
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler(opts))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	// The address line is what scripts and tests wait for (with :0, it carries the chosen port).
	fmt.Fprintf(stderr, "kobako mcp: listening on http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		return 0
	case err := <-done:
		fmt.Fprintf(stderr, "error: --http: %v\n", err)
		return exitError
	}
}

// splitNamedPackage reads NAME=PATH, and =PATH for tools listed without a prefix; an argument
// whose part before '=' is not a plain name, or that names an existing file, is a path.
func splitNamedPackage(a string) (name, path string, bare bool) {
	n, p, ok := strings.Cut(a, "=")
	if !ok || p == "" || strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
		return "", a, false
	}
	if _, err := os.Stat(a); err == nil {
		return "", a, false
	}
	return n, p, n == ""
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

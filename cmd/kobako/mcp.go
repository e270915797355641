package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
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
initialize handshake (2025-11-25) and the stateless 2026-07-28 revision (server/discover), in any
order on one stdio connection. Logs go to stderr. PKG "example" is the embedded example package;
PKG oci://REGISTRY/REPOSITORY[:TAG|@DIGEST] is a package function push pushed (pulled once, cached by
digest under the user cache directory).

At most --max-concurrent-calls guests run at once; later calls wait in order, and a call's deadline
starts when it runs. A call whose request carries a progressToken gets notifications/progress with
the fuel used so far. Ctrl-C exits 130.
`

// mcpCommand runs `kobako mcp`.
func mcpCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := newCommand("kobako mcp", mcpUsage, stdout, stderr)
	configFile := fset.String("config", "", "kobako config `FILE` (default $KOBAKO_CONFIG or ~/.kobako/config.toml)")
	pluginsDir := fset.String("plugins-dir", "", "plugins `DIR` (default from the config, else ~/.kobako/plugins)")
	noPlugins := fset.Bool("no-plugins", false, "do not serve the installed ZeroClaw tool plugins")
	sigMode := fset.String("signature-mode", "", "plugin signature `MODE`: disabled, permissive or strict (default from the config)")
	var trusted pluginStrings
	fset.Var(&trusted, "trusted-key", "trust a plugin publisher key given in `HEX` (repeatable)")
	httpAddr := fset.String("http", "", "serve Streamable HTTP at `ADDR` (host:port, or :port / port for 127.0.0.1) instead of stdio")
	var httpHosts, httpOrigins, hosts listFlag
	fset.Var(&httpHosts, "http-host", "also accept requests whose Host header names `NAME` (repeatable; default localhost, 127.0.0.1, ::1)")
	fset.Var(&httpOrigins, "http-origin", "also accept browser requests from `ORIGIN` such as https://app.example (repeatable)")
	tokenFile := fset.String("token-file", "", "require the bearer token held in `FILE` on HTTP requests")
	strictHeader := fset.Bool("strict-protocol-header", false, "refuse an HTTP request whose MCP-Protocol-Version header and _meta version disagree (-32020) instead of serving it under _meta's")
	maxBody := sizeFlag(mcpserve.DefaultMaxBodyBytes)
	fset.Var(&maxBody, "max-body", "largest HTTP request body or stdio message, a `SIZE` such as 4MiB")
	maxCalls := fset.Int("max-concurrent-calls", mcpserve.DefaultMaxConcurrentCalls(), "guests that run at once, `N` (later calls wait in order)")
	fset.Var(&hosts, "allow-host", "let packages' subako_http reach hosts matching `PATTERN` (repeatable; replaces [mcp] allow_hosts)")
	volume := fset.String("volume", "", "host `DIR` mounted at /volume/tmp for the packages named on the command line")
	data := fset.String("data", "", "host `DIR` mounted at /volume/data for the packages named on the command line")
	limits := subako.DefaultCallLimits()
	timeout := fset.Duration("timeout", limits.Deadline, "wall-clock deadline of a package call, a `DURATION` such as 30s")
	fuel := fset.Uint64("fuel", limits.Fuel, "fuel of a package call: `N` wasm instructions")
	maxMem := sizeFlag(limits.MemoryBytes)
	fset.Var(&maxMem, "max-memory", "largest memory of a package call, a `SIZE` such as 256MiB")
	budget := sizeFlag(subako.DefaultWriteBudget)
	fset.Var(&budget, "write-budget", "bytes a package call may write to files, a `SIZE` such as 64MiB")
	watch := fset.Bool("watch", false, "reload when the plugins directory or a package changes, and tell clients")
	logLevel := fset.String("log-level", "info", "log `LEVEL`: debug, info, warn or error")
	reg := addRegistryFlags(fset.FlagSet)
	cache := addCacheFlags(fset.FlagSet)
	pos, code := fset.parse(args, true)
	if code >= 0 {
		return code
	}
	ctx = cache.context(ctx)
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fset.usageErr("--log-level: %v", err)
	}
	if msg := checkMCPFlags(set, *fuel, *timeout, *maxCalls, *httpAddr, *tokenFile, *volume, *data, *pluginsDir, httpHosts, httpOrigins); msg != "" {
		return fset.usageErr("%s", msg)
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
	if msg := zeroLimitFlag(defaults.Limits); msg != "" {
		return fset.usageErr("%s", msg)
	}
	if set["write-budget"] {
		defaults.WriteBudget = int64(budget)
	}
	if set["allow-host"] {
		defaults.AllowHosts = hosts
	}
	var specs []mcpserve.PackageSpec
	for _, a := range pos {
		name, path, bare, perr := splitNamedPackage(a)
		if perr != "" {
			return fset.usageErr("%s", perr)
		}
		if path, code = resolvePackageArg(ctx, path, reg, stderr); code >= 0 {
			return code
		}
		spec, err := mcpserve.NewPackageSpec(name, path, subako.CallOptions{Limits: defaults.Limits, WriteBudget: defaults.WriteBudget, Volume: *volume, Data: *data}, defaults.AllowHosts, nil)
		if err != nil {
			return fset.usageErr("%v", err)
		}
		spec.NoPrefix = bare
		specs = append(specs, spec)
	}
	for _, p := range mcfg.Packages {
		if p.Path, code = resolvePackageArg(ctx, p.Path, reg, stderr); code >= 0 {
			return code
		}
		spec, err := p.Spec(defaults)
		if err != nil {
			fmt.Fprintf(stderr, "error: %s: %v\n", cfgPath, err)
			return exitError
		}
		specs = append(specs, spec)
	}

	// One engine for packages and plugins, with the cache of --cache-dir.
	eng, err := newEngine(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defer eng.Close(context.Background())
	prt, err := subako.New(ctx, subako.Config{Engine: eng, ClientVersion: version()})
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defer prt.Close(context.Background())
	opts := mcpserve.Options{Packages: specs, Version: version(), Logger: log, ListChanged: *watch || mcfg.Watch,
		MaxConcurrentCalls: *maxCalls, MaxMessageBytes: int64(maxBody), Runtime: prt}
	if !set["max-concurrent-calls"] && mcfg.MaxConcurrentCalls > 0 {
		opts.MaxConcurrentCalls = mcfg.MaxConcurrentCalls
	}
	if !set["max-body"] && mcfg.HTTP.MaxBodyBytes > 0 {
		opts.MaxMessageBytes = mcfg.HTTP.MaxBodyBytes
	}
	if !*noPlugins && mcfg.ServePlugins() {
		// The plugins run as `kobako plugin call` finds them: the same config file, plugins
		// directory and signature policy.
		pe := &pluginEnv{ctx: ctx, stdout: stderr, stderr: stderr, config: *configFile, pluginsDir: *pluginsDir, signatureMode: *sigMode, trustedKeys: trusted}
		hcfg, _, hopts, err := pe.hostConfig()
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return exitError
		}
		opts.Plugins = mcpserve.ZeroClawPlugins(mcpserve.ZeroClawOptions{Host: hopts, Config: &hcfg.Plugins, Log: log.Handler(), Engine: eng})
	}
	srv, err := mcpserve.New(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	defer srv.Close(context.Background())
	tools := srv.Tools()
	if len(tools) == 0 && len(srv.Warnings()) > 0 && len(specs) > 0 && !(*watch || mcfg.Watch) {
		// A typo in a client's configuration would otherwise be a server with nothing to offer that
		// the client shows as connected.
		fmt.Fprintf(stderr, "error: no tools to serve: %s\n", strings.Join(srv.Warnings(), "; "))
		return exitError
	}
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
		if ctx.Err() != nil {
			return exitInterrupted
		}
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return exitError
		}
		return 0
	}
	hopts := mcpserve.HTTPOptions{MaxBodyBytes: int64(maxBody), AllowedOrigins: append(mcfg.HTTP.AllowedOrigins, httpOrigins...),
		StrictProtocolHeader: *strictHeader || mcfg.HTTP.StrictProtocolHeader}
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
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
		how := "no bearer token is required (--token-file)"
		if opts.Token != "" {
			how = "a bearer token is required"
		}
		log.Warn("listening beyond loopback: every host that can reach this address can call the tools; "+how, "addr", ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		return exitInterrupted
	case err := <-done:
		fmt.Fprintf(stderr, "error: --http: %v\n", err)
		return exitError
	}
}

// splitNamedPackage reads NAME=PATH, and =PATH for tools listed without a prefix. An argument that
// names an existing file is a path whatever it contains; otherwise the part before '=' must be a
// source name.
func splitNamedPackage(a string) (name, path string, bare bool, problem string) {
	n, p, ok := strings.Cut(a, "=")
	if !ok {
		return "", a, false, ""
	}
	if _, err := os.Stat(a); err == nil {
		return "", a, false, ""
	}
	if p == "" {
		return "", "", false, fmt.Sprintf("%q names no package after '='", a)
	}
	if strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
		return "", "", false, fmt.Sprintf("%q: the source name %q may hold only letters, digits, '_', '-' and '.' (and no file of that whole name exists)", a, n)
	}
	return n, p, n == "", ""
}

// checkMCPFlags reports the first usage mistake among kobako mcp's flags, or "".
func checkMCPFlags(set map[string]bool, fuel uint64, timeout time.Duration, maxCalls int, httpAddr, tokenFile, volume, data, pluginsDir string, httpHosts, httpOrigins []string) string {
	switch {
	case fuel == 0:
		return "--fuel must be at least 1 (a call without fuel could not run one instruction)"
	case timeout <= 0:
		return fmt.Sprintf("--timeout must be positive, not %v", timeout)
	case maxCalls < 1:
		return fmt.Sprintf("--max-concurrent-calls must be at least 1, not %d", maxCalls)
	case httpAddr == "" && set["token-file"]:
		return "--token-file applies to --http only; stdio has no requests to authorize"
	case httpAddr == "" && set["strict-protocol-header"]:
		return "--strict-protocol-header applies to --http only"
	case httpAddr == "" && (len(httpHosts) > 0 || len(httpOrigins) > 0):
		return "--http-host and --http-origin apply to --http only"
	}
	if httpAddr != "" {
		host, port, err := net.SplitHostPort(listenAddr(httpAddr))
		if err != nil {
			return fmt.Sprintf("--http %q: want HOST:PORT, :PORT or PORT", httpAddr)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return fmt.Sprintf("--http %q: the port must be a number from 0 to 65535", httpAddr)
		}
		if host == "" {
			return fmt.Sprintf("--http %q: no host", httpAddr)
		}
	}
	for _, h := range httpHosts {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/: ") && net.ParseIP(h) == nil {
			return fmt.Sprintf("--http-host %q: want a host name or an IP address, without a scheme or port", h)
		}
	}
	for _, o := range httpOrigins {
		u, err := url.Parse(o)
		if o != "*" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/")) {
			return fmt.Sprintf("--http-origin %q: want an origin such as https://app.example or http://localhost:3000", o)
		}
	}
	for _, d := range []struct{ flag, dir string }{{"volume", volume}, {"data", data}, {"plugins-dir", pluginsDir}} {
		if d.dir == "" {
			continue
		}
		fi, err := os.Stat(d.dir)
		if err != nil {
			return fmt.Sprintf("--%s %s: no such directory", d.flag, d.dir)
		}
		if !fi.IsDir() {
			return fmt.Sprintf("--%s %s: not a directory", d.flag, d.dir)
		}
	}
	return ""
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

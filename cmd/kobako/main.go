// Command kobako runs WebAssembly plugins on a pure-Go interpreter.
//
//	kobako run [flags] [FILE.wasm [ARGS...]]   run a WASI preview 1 command (an embedded example without FILE)
//	kobako function SUBCOMMAND ...             run and check ABI 1 function packages
//	kobako plugin SUBCOMMAND ...               manage and run ZeroClaw plugins
//	kobako inspect FILE.wasm                   print a module's or component's imports and exports
//	kobako mcp [flags] [PKG | NAME=PKG]...     serve packages and plugins to MCP clients
//	kobako version                             print kobako's version
//
// Run `kobako COMMAND -h` for a command's flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		// After the first Ctrl-C, which lets the run stop cleanly (exit 130), a second one kills.
		<-ctx.Done()
		stop()
	}()
	code := kobako(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `kobako: a pure-Go WebAssembly plugin runtime

Usage:
  kobako run [flags] [FILE.wasm [ARGS...]]   run a WASI preview 1 command (an embedded example without FILE),
                                             or call an export of a module or component with --invoke 'f(1, "a")'
  kobako function SUBCOMMAND ...             ABI 1 function packages (validate, tools, call, pack); "example" is embedded
  kobako plugin SUBCOMMAND ...               manage and run ZeroClaw plugins (list, search, install, remove, info,
                                             keygen, sign, call, shell)
  kobako inspect FILE.wasm                   print a component's imports and exports as WIT (a core module's too)
  kobako mcp [flags] [PKG | NAME=PKG]...     serve packages and ZeroClaw tool plugins to MCP clients (stdio, or --http)
  kobako version                             print kobako's version

Run 'kobako help COMMAND' or 'kobako COMMAND -h' for a command's flags.
`

const versionUsage = "Usage: kobako version\n\nPrints kobako's module version and, for a build from a git checkout, its commit.\n"

// kobako runs one CLI invocation and returns its exit status; main is only the process glue, so
// tests call this directly.
func kobako(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return runCommand(ctx, args[1:], stdin, stdout, stderr)
	case "function":
		return functionCommand(ctx, args[1:], stdin, stdout, stderr)
	case "plugin":
		return pluginCommand(ctx, args[1:], stdin, stdout, stderr)
	case "mcp":
		return mcpCommand(ctx, args[1:], stdin, stdout, stderr)
	case "inspect":
		return inspectCommand(ctx, args[1:], stdin, stdout, stderr)
	case "version", "--version":
		c := newCommand("kobako version", versionUsage, stdout, stderr)
		pos, code := c.parse(args[1:], false)
		if code >= 0 {
			return code
		}
		if len(pos) > 0 {
			return c.usageErr("unexpected argument %q", pos[0])
		}
		fmt.Fprintln(stdout, "kobako", version())
		return 0
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			switch args[1] {
			case "run", "function", "plugin", "inspect", "mcp":
				return kobako(ctx, []string{args[1], "-h"}, stdin, stdout, stderr)
			case "version":
				return kobako(ctx, []string{"version", "-h"}, stdin, stdout, stderr)
			}
			fmt.Fprintf(stderr, "error: unknown command %q\nRun 'kobako help' for the commands.\n", args[1])
			return 2
		}
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "error: unknown command %q\nRun 'kobako help' for the commands.\n", args[0])
	return 2
}

// version describes the running binary from its build information: the module version (a tag,
// a pseudo-version, or "(devel)" for a build inside the repository) and the commit, with
// "+dirty" when the checkout had changes.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		v += " " + rev + dirty
	}
	return v + " " + bi.GoVersion
}

// Command kobako runs WebAssembly plugins on a pure-Go interpreter.
//
//	kobako run [flags] [FILE.wasm [ARGS...]]   run a WASI preview 1 command (an embedded example without FILE)
//	kobako function SUBCOMMAND ...             run and check ABI 1 function packages
//	kobako plugin SUBCOMMAND ...               manage ZeroClaw plugins
//	kobako inspect FILE.wasm                   print a module's or component's imports and exports
//
// Run `kobako COMMAND -h` for a command's flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := kobako(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `kobako: a pure-Go WebAssembly plugin runtime

Usage:
  kobako run [flags] [FILE.wasm [ARGS...]]   run a WASI preview 1 command (an embedded example without FILE),
                                             or call an export of a module or component with --invoke 'f(1, "a")'
  kobako function SUBCOMMAND ...             ABI 1 function packages (validate, tools, call, pack); "example" is embedded
  kobako plugin SUBCOMMAND ...               manage ZeroClaw plugins (list, search, install, remove, info, keygen, sign)
  kobako inspect FILE.wasm                   print a component's imports and exports as WIT (a core module's too)

Run 'kobako COMMAND -h' for a command's flags.
`

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
	case "inspect":
		return inspectCommand(ctx, args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "error: unknown command %q\n\n%s", args[0], usage)
	return 2
}

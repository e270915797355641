// Command kobako-bindgen generates Go host bindings for kobako from WIT: Go interfaces and
// Define functions for the interfaces a world imports, a {World}Pre of prepared typed calls for
// what it exports, and Go types for its WIT types (see package internal/bindgen).
//
// Add it to a module with
//
//	go get -tool github.com/kobako/kobako/cmd/kobako-bindgen
//
// and run it from a go:generate line:
//
//	//go:generate go tool kobako-bindgen -wit ./wit -world my-world -pkg bindings -o bindings.go
//
// Flags (-wit and -world may repeat; each -world belongs to the -wit before it):
//
//	-wit PATH         a WIT package (directory or .wit file) or a component (.wasm)
//	-world NAME[=GO]  a world of the last -wit, optionally with the Go name prefix to give it
//	-pkg NAME         the Go package name (default: the base name of -o's directory)
//	-o FILE           the output file (default: standard output)
//	-caller           imported interfaces' methods take a *component.Caller (default true)
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/kobako/kobako/internal/bindgen"
)

func main() {
	if err := bindgen.Main(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "kobako-bindgen:", err)
		}
		os.Exit(2)
	}
}

// Package example holds the ABI 1 package that `kobako function` runs when given "example" as
// its package: "hello", one tool (greet) written in WAT, small enough to embed in the binary.
package example

import (
	"embed"
	"io/fs"
)

//go:embed subako-package.json module.wasm
var files embed.FS

// FS returns the example package's files: subako-package.json and module.wasm.
func FS() fs.FS { return files }

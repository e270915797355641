//go:build !js

package main

import (
	"fmt"
	"os"
)

// main says where this program runs: it is the browser build, and does nothing natively.
func main() {
	fmt.Fprintln(os.Stderr, "web is kobako's browser build: build it with GOOS=js GOARCH=wasm, or run go run ./web/serve --addr 127.0.0.1:8080 and open the page")
	os.Exit(2)
}

package main

import (
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/internal/boundedfile"
)

// maxWasmFileBytes is the largest FILE.wasm that run and inspect read: the decoder refuses a
// larger module anyway, so reading past it would only spend memory (/dev/zero has no end).
var maxWasmFileBytes = int64(engine.DefaultDecodeLimits().ModuleSize)

// readWasmFile reads FILE.wasm whole, refusing a file that is not a regular file (a FIFO, a
// device, a directory) or that is larger than maxWasmFileBytes, before reading any of it.
func readWasmFile(name string) ([]byte, error) {
	return boundedfile.Read(name, maxWasmFileBytes)
}

#!/usr/bin/env bash
# Rebuilds the embedded example with Go's own wasip1 port. Deterministic for a given Go version.
set -euo pipefail
cd "$(dirname "$0")"
GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -o hello.wasm ./hello

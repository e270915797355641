#!/usr/bin/env bash
# Rebuilds every fixture of this directory: the WAT modules with wat2wasm and the Go package with
# Go's own wasip1 port. The .wasm files are committed; CI runs this and fails on any difference.
set -euo pipefail
cd "$(dirname "$0")"
for f in *.wat; do
  wat2wasm --enable-all -o "${f%.wat}.wasm" "$f"
done
GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -ldflags=-s -o everything.wasm ./everything
for f in validate/*.wat; do
  wat2wasm --enable-all -o "${f%.wat}.wasm" "$f"
done
../example/build.sh

#!/usr/bin/env bash
# Rebuilds every test guest of package preview1 from its source, in place.
# Needs: wat2wasm (Debian wabt), Go 1.26, and clang with wasi-libc (Debian clang lld wasi-libc
# libclang-rt-14-dev-wasm32). Output is deterministic, so CI can rebuild and diff.
set -euo pipefail
cd "$(dirname "$0")"

for wat in *.wat; do
  wat2wasm "$wat" -o "${wat%.wat}.wasm"
done

(cd gofs && GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -ldflags="-s -w" -o gofs.wasm .)

clang --target=wasm32-wasi -O2 -Wl,--strip-all -o cfs/cfs.wasm cfs/main.c

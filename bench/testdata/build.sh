#!/usr/bin/env bash
# Rebuilds every benchmark fixture beside its source, deterministically (the CI rebuilds them and
# fails if a committed .wasm changes):
#   wat/*.wat  -> wat/*.wasm  with Debian's wabt (wat2wasm 1.0.32); wat/fuel.wat is the counter the
#                 fuel-only benchmarks give kobako's rewritten modules
#   reactor/   -> reactor/reactor.wasm, a GOOS=wasip1 reactor (-buildmode=c-shared, //go:wasmexport)
#   hello/     -> hello/hello.wasm, a GOOS=wasip1 command (about 2.5 MB: the compile benchmark's module)
# Go's output depends on the exact release, so the Go fixtures are built with the pinned toolchain
# below (the go command fetches it through the module proxy when the local one differs); change it
# together with the committed .wasm files.
set -euo pipefail
cd "$(dirname "$0")"
for f in wat/*.wat; do
  wat2wasm "$f" -o "${f%.wat}.wasm"
done
export GOTOOLCHAIN=go1.26.8 GOOS=wasip1 GOARCH=wasm GOWASM= CGO_ENABLED=0 GOFLAGS=-buildvcs=false
(cd reactor && go build -trimpath -buildvcs=false -buildmode=c-shared -o reactor.wasm .)
(cd hello && go build -trimpath -buildvcs=false -o hello.wasm .)
chmod 0644 wat/*.wasm reactor/reactor.wasm hello/hello.wasm

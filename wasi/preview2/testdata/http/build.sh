#!/usr/bin/env bash
# Rebuilds goclient.wasm from goclient/ deterministically (the CI reruns every build.sh and fails
# on drift):
#   1. wit-bindgen-go v0.7.0 (a tool of goclient/go.mod) prints world kobako:goclient/http-client
#      of goclient/wit (wasi:http 0.2.12 from jco's WIT, zeroclaw:plugin from ../wit) as one WIT
#      file, which jco's componentEmbed needs (it cannot read a WIT directory);
#   2. Go (GOOS=wasip1, c-shared) builds the core module (the bindings are hand-written:
#      goclient/wasihttp.go says why); patch.mjs and componentize.mjs of component/testdata/real
#      embed the world and link in the WASI preview 1 reactor adapter, as
#      zeroclaw/runner/testdata/build.sh does for gotool.wasm.
# fetch-tool.wasm is built by build-js.sh instead (not deterministic).
# Needs go, wabt and node; jco 1.35.0 comes from $KOBAKO_NPM (default
# ~/.cache/kobako-toolchain/npm) or is installed into a temporary directory with npm.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
real=$here/../../../../component/testdata/real
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

npm_dir=${KOBAKO_NPM:-$HOME/.cache/kobako-toolchain/npm}
if [ ! -x "$npm_dir/node_modules/.bin/jco" ]; then
  npm_dir=$tmp/npm
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm init -y >/dev/null && npm i --silent --no-audit --no-fund @bytecodealliance/jco@1.35.0 >/dev/null)
fi
ln -s "$npm_dir/node_modules" "$tmp/node_modules"
cp "$real/componentize.mjs" "$tmp/componentize-adapter.mjs"

cd goclient
export GOFLAGS=-mod=readonly
go tool wit-bindgen-go wit --world http-client ./wit >"$tmp/http-client.wit"
GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -ldflags=-s -o "$tmp/goclient.core.wasm" .
node "$real/patch.mjs" "$tmp/goclient.core.wasm" "$tmp/goclient.patched.wasm"
(cd "$tmp" && node componentize-adapter.mjs "$tmp/goclient.patched.wasm" "$tmp/http-client.wit" http-client "$here/goclient.wasm" reactor)
chmod 0644 "$here/goclient.wasm"

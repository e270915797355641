#!/usr/bin/env bash
# Rebuilds the Go components beside their sources, deterministically for a given Go, wabt and jco
# (the CI rebuilds every tracked build.sh and fails if a committed .wasm changes):
#   goplugin/ -> goplugin.wasm : `go build -buildmode=c-shared` (GOOS=wasip1), patch.mjs (the
#                                adapter's cabi_realloc_adapter), then wit-component with the WIT
#                                world wit/world.wit and the preview 1 *reactor* adapter
#   gocmd/    -> gocmd.wasm    : `go build` (GOOS=wasip1), patch.mjs, then wit-component with the
#                                preview 1 *command* adapter: a wasi:cli/run component
# The JavaScript component is built by build-js.sh instead (see README.md).
# Needs go, wabt (wasm2wat, wat2wasm) and node; jco comes from $KOBAKO_NPM (default
# ~/.cache/kobako-toolchain/npm) or is installed into a temporary directory with npm.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

npm_dir=${KOBAKO_NPM:-$HOME/.cache/kobako-toolchain/npm}
if [ ! -x "$npm_dir/node_modules/.bin/jco" ]; then
  npm_dir=$tmp/npm
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm init -y >/dev/null && npm i --silent --no-audit --no-fund @bytecodealliance/jco@1.35.0 >/dev/null)
fi
ln -s "$npm_dir/node_modules" "$tmp/node_modules"
cp componentize.mjs "$tmp/"

build() { # $1 = Go package dir, $2 = WIT file or "-", $3 = world, $4 = adapter kind, then go build flags
  local pkg=$1 wit=$2 world=$3 kind=$4
  shift 4
  GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false "$@" -o "$tmp/$pkg.core.wasm" "./$pkg"
  node patch.mjs "$tmp/$pkg.core.wasm" "$tmp/$pkg.patched.wasm"
  (cd "$tmp" && node componentize.mjs "$tmp/$pkg.patched.wasm" "$wit" "$world" "$here/$pkg.wasm" "$kind")
}
build goplugin "$here/wit/world.wit" tool-plugin reactor -buildmode=c-shared
# A command needs no world of its own: wit-component takes wasi:cli/run from the command adapter.
build gocmd - - command
chmod 0644 ./*.wasm

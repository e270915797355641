#!/usr/bin/env bash
# Rebuilds the WASI 0.2 fixtures beside their sources with `jco parse` (the wasm-tools text
# parser; jco 1.35.0), deterministically. jco comes from $KOBAKO_NPM (default
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
cp ../../../component/testdata/parse.mjs "$tmp/"
(cd "$tmp" && node parse.mjs "$here"/*.wat)

#!/usr/bin/env bash
# Rebuilds the differential-check and benchmark fixtures beside their sources, deterministically
# (the CI rebuilds every tracked build.sh and fails if a committed .wasm changes):
#   diff.core.wat + wit/diff.wit -> diff.wasm: `jco parse` for the core module, then wit-component
#                                   (../componentize.mjs), so that the component exports the
#                                   interface kobako:diff/api the way `jco transpile` accepts
#   loop.wat                     -> loop.wasm with `jco parse` (bench/component_bench_test.go)
# jco comes from $KOBAKO_NPM (default ~/.cache/kobako-toolchain/npm) or is installed into a
# temporary directory with npm.
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

# The node helpers must sit beside node_modules to import jco.
ln -s "$npm_dir/node_modules" "$tmp/node_modules"
cp ../componentize.mjs ../parse.mjs "$tmp/"
cp diff.core.wat "$tmp/"
(cd "$tmp" && node parse.mjs "$tmp/diff.core.wat" "$here/loop.wat")
(cd "$tmp" && node componentize.mjs "$tmp/diff.core.wasm" "$here/wit/diff.wit" diff "$here/diff.wasm")
chmod 0644 ./*.wasm
